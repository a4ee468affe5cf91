/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The status file: written from the registry, printed for a person, "not
 * running" when missing or stale. */

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/wait.h>
#include <cmocka.h>

#include "core/log.h"
#include "knob-test-util.h"
#include "knobs/knob.h"
#include "output/status.h"

#define STATUS "run/fragd/status"

typedef struct Ctx {
        TestTree t;
        KnobFake *fake;
        KnobRegistry *reg;
        char *out;
        size_t out_len;
} Ctx;

static int setup(void **state)
{
        Ctx *c = calloc(1, sizeof(*c));

        assert_non_null(c);
        tt_setup(&c->t);
        c->fake = knob_fake_new(c->t.root);
        assert_int_equal(knob_registry_new(c->t.root, "/run/fragd", &knob_ops_fake, c->fake, OWNERSHIP_RESPECT,
                                           &c->reg),
                         0);
        *state = c;
        return 0;
}

static int teardown(void **state)
{
        Ctx *c = *state;

        knob_registry_free(c->reg);
        knob_fake_free(c->fake);
        tt_teardown(&c->t);
        free(c->out);
        free(c);
        return 0;
}

static int print(Ctx *c)
{
        FILE *f;
        int r;

        free(c->out);
        c->out = NULL;
        f = open_memstream(&c->out, &c->out_len);
        assert_non_null(f);
        r = status_print(c->t.root, "/run/fragd", f);
        fclose(f);
        if (getenv("FRAGD_TEST_VERBOSE"))
                fputs(c->out, stderr);
        return r;
}

static void test_not_running(void **state)
{
        Ctx *c = *state;

        assert_int_equal(print(c), -ENOENT);
        assert_non_null(strstr(c->out, "fragd is not running"));
}

static void test_write_and_print(void **state)
{
        Ctx *c = *state;
        const char *decisions[] = {
                "raise compaction_proactiveness 0 -> 40: node1 reserve 12% of target",
                "hold: targets met\twith a tab\nand a newline",
        };
        const char *file;

        assert_int_equal(knob_set(c->reg, "vm.compaction_proactiveness", "40", 1), 1);
        assert_int_equal(knob_set(c->reg, "thp.defrag", "defer", 1), 1);
        assert_int_equal(knob_set(c->reg, "vm.watermark_scale_factor", "100", 1), 1);
        tt_write(&c->t, "proc/sys/vm/watermark_scale_factor", "30\n");
        assert_int_equal(knob_check_external(c->reg, 2), 1);
        assert_int_equal(knob_fake_fail_write(c->fake, "vm.extfrag_threshold", EACCES, 0), 0);
        assert_int_equal(knob_set(c->reg, "vm.extfrag_threshold", "600", 3), -EACCES);

        assert_int_equal(knob_status_write(c->reg, decisions, ELEMENTSOF(decisions)), 0);
        file = tt_read(&c->t, STATUS);
        assert_non_null(strstr(file, "fragd-status 1\n"));
        assert_non_null(strstr(file, "owned\tvm.compaction_proactiveness\t0\t40\t"));
        assert_non_null(strstr(file, "owned\tthp.defrag\tmadvise\tdefer\t"));
        assert_non_null(strstr(file, "yielded\tvm.watermark_scale_factor\t10\t30\t"));
        assert_non_null(strstr(file, "disabled\tvm.extfrag_threshold\tEACCES\tPermission denied\n"));
        assert_non_null(strstr(file, "decision\thold: targets met with a tab and a newline\n"));
        assert_non_null(strstr(file, "ownership respect\nops fake\n"));

        assert_int_equal(print(c), 0);
        assert_non_null(strstr(c->out, "fragd is running (pid "));
        assert_non_null(strstr(c->out, "Owned knobs (restored on stop):"));
        assert_non_null(strstr(c->out, "vm.compaction_proactiveness"));
        assert_non_null(strstr(c->out, "Yielded knobs"));
        assert_non_null(strstr(c->out, "vm.extfrag_threshold"));
        assert_non_null(strstr(c->out, "Permission denied (EACCES)"));
        assert_non_null(strstr(c->out, "  raise compaction_proactiveness 0 -> 40"));

        /* a clean stop */
        assert_int_equal(knob_status_remove(c->reg), 0);
        assert_int_equal(knob_status_remove(c->reg), 0);
        assert_int_equal(print(c), -ENOENT);
        assert_non_null(strstr(c->out, "fragd is not running"));
}

static void test_many_decisions(void **state)
{
        Ctx *c = *state;
        char bufs[100][32];
        const char *d[100];

        for (int i = 0; i < 100; i++) {
                snprintf(bufs[i], sizeof(bufs[i]), "decision number %d", i);
                d[i] = bufs[i];
        }
        assert_int_equal(knob_status_write(c->reg, d, 100), 0);
        assert_null(strstr(tt_read(&c->t, STATUS), "decision number 35\n"));
        assert_int_equal(print(c), 0);
        assert_null(strstr(c->out, "decision number 35\n"));
        assert_non_null(strstr(c->out, "decision number 36\n"));
        assert_non_null(strstr(c->out, "decision number 99\n"));
        assert_non_null(strstr(c->out, "Owned knobs: none"));
}

static void test_cgroups(void **state)
{
        Ctx *c = *state;
        const StatusCgroup cg[] = {
                { "system.slice/postgresql.service", true, "collapse", "partial",
                  "last minute: 380 ms direct compaction (12), 20 ms direct reclaim (3), 0 ms thrashing" },
                { "batch.slice", false, "none", "not-applicable", "absent" },
                { "", true, "none", NULL, "stall\tattribution unavailable (delayacct-off)" },
        };
        const char *file;

        assert_int_equal(status_write(c->reg, NULL, 0, cg, ELEMENTSOF(cg)), 0);
        file = tt_read(&c->t, STATUS);
        assert_non_null(strstr(file, "cgroup\tsystem.slice/postgresql.service\tpresent\tcollapse\tpartial\tlast "
                                     "minute: 380 ms direct compaction (12)"));
        assert_non_null(strstr(file, "cgroup\tbatch.slice\tabsent\tnone\tnot-applicable\tabsent\n"));
        assert_non_null(strstr(file, "cgroup\t/\tpresent\tnone\t-\tstall attribution unavailable"));
        assert_int_equal(print(c), 0);
        assert_non_null(strstr(c->out, "Watched cgroups"));
        assert_non_null(strstr(c->out, "  system.slice/postgresql.service: present, THP via collapse (partial)\n"
                                       "    last minute: 380 ms direct compaction (12)"));
        assert_non_null(strstr(c->out, "  batch.slice: absent\n"));
        assert_non_null(strstr(c->out, "  /: present, THP via none (-)\n    stall attribution unavailable"));
        /* without cgroups: no section */
        assert_int_equal(knob_status_write(c->reg, NULL, 0), 0);
        assert_int_equal(print(c), 0);
        assert_null(strstr(c->out, "Watched cgroups"));
}

static void test_stale(void **state)
{
        Ctx *c = *state;
        int status;
        pid_t pid;

        /* a child writes the state and exits without cleaning up */
        pid = fork();
        assert_true(pid >= 0);
        if (pid == 0)
                _exit(knob_status_write(c->reg, NULL, 0) < 0);
        assert_int_equal(waitpid(pid, &status, 0), pid);
        assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
        assert_int_equal(print(c), -ESRCH);
        assert_non_null(strstr(c->out, "fragd is not running (stale state left by pid"));
}

/* kill -9: the state is stale and the knobs are still changed */
static void test_stale_knobs_left(void **state)
{
        Ctx *c = *state;
        int status;
        pid_t pid;

        pid = fork();
        assert_true(pid >= 0);
        if (pid == 0)
                _exit(knob_set(c->reg, "vm.compaction_proactiveness", "40", 1) != 1 ||
                      knob_set(c->reg, "thp.defrag", "defer", 1) != 1 || knob_status_write(c->reg, NULL, 0) < 0);
        assert_int_equal(waitpid(pid, &status, 0), pid);
        assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
        assert_int_equal(print(c), -EUCLEAN);
        assert_non_null(strstr(c->out, "fragd is not running (stale state left by pid"));
        assert_non_null(strstr(c->out, "Knobs fragd changed and did not restore"));
        assert_non_null(strstr(c->out, "vm.compaction_proactiveness"));
        assert_non_null(strstr(c->out, "thp.defrag"));
        assert_non_null(strstr(c->out, "madvise")); /* the original */
        assert_non_null(strstr(c->out, "Run 'fragd --restore --root "));

        /* the status file gone too: the journal still tells */
        assert_int_equal(unlinkat(c->t.root->root_fd, STATUS, 0), 0);
        assert_int_equal(print(c), -EUCLEAN);
        assert_non_null(strstr(c->out, "fragd is not running (no state"));
        assert_non_null(strstr(c->out, "vm.compaction_proactiveness"));

        /* a journal that cannot be read, or one moved aside, is trouble too */
        tt_write(&c->t, "run/fragd/saved", "garbage\n");
        assert_int_equal(print(c), -EUCLEAN);
        assert_non_null(strstr(c->out, "cannot be fully read"));
        assert_non_null(strstr(c->out, "fragd --restore"));
        assert_int_equal(renameat(c->t.root->root_fd, "run/fragd/saved", c->t.root->root_fd,
                                  "run/fragd/saved.corrupt-1"),
                         0);
        assert_int_equal(print(c), -EUCLEAN);
        assert_non_null(strstr(c->out, "saved.corrupt-1' holds a journal fragd could not read"));
}

static void test_garbage(void **state)
{
        Ctx *c = *state;

        tt_mkdir(&c->t, "run");
        tt_mkdir(&c->t, "run/fragd");
        tt_write(&c->t, STATUS, "hello\n");
        assert_int_equal(print(c), -EBADMSG);
        tt_write(&c->t, STATUS, "fragd-status 1\npid\nowned\t\n\t\tdecision\n");
        assert_int_equal(print(c), -ESRCH);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_not_running, setup, teardown),
                cmocka_unit_test_setup_teardown(test_write_and_print, setup, teardown),
                cmocka_unit_test_setup_teardown(test_many_decisions, setup, teardown),
                cmocka_unit_test_setup_teardown(test_cgroups, setup, teardown),
                cmocka_unit_test_setup_teardown(test_stale, setup, teardown),
                cmocka_unit_test_setup_teardown(test_stale_knobs_left, setup, teardown),
                cmocka_unit_test_setup_teardown(test_garbage, setup, teardown),
        };

        log_set_max_level(getenv("FRAGD_TEST_VERBOSE") ? LOG_DEBUG : LOG_WARNING);
        return cmocka_run_group_tests(tests, NULL, NULL);
}
