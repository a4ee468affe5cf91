/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The status file: written from the registry, printed for a person, "not
 * running" when missing or stale. */

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "core/log.h"
#include "knob-test-util.h"
#include "knobs/knob.h"
#include "core/root.h"
#include "output/status.h"
#include "service/control.h"

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
        r = status_print(c->t.root, "/run/fragd", control_probe, f);
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
                { "system.slice/system-postgresql.slice/postgresql@15-main.service", true, "collapse", "partial",
                  "last minute: 380 ms direct compaction (12), 20 ms direct reclaim (3), 0 ms thrashing" },
                { "batch.slice", false, "none", "not-applicable", "absent" },
                { "", true, "none", NULL, "stall\tattribution unavailable (delayacct-off)" },
        };
        const char *file;

        assert_int_equal(status_write(c->reg, NULL, 0, cg, ELEMENTSOF(cg)), 0);
        file = tt_read(&c->t, STATUS);
        assert_non_null(strstr(file, "cgroup\tsystem.slice/system-postgresql.slice/postgresql@15-main.service\tpresent\tcollapse\tpartial\tlast "
                                     "minute: 380 ms direct compaction (12)"));
        assert_non_null(strstr(file, "cgroup\tbatch.slice\tabsent\tnone\tnot-applicable\tabsent\n"));
        assert_non_null(strstr(file, "cgroup\t/\tpresent\tnone\t-\tstall attribution unavailable"));
        assert_int_equal(print(c), 0);
        assert_non_null(strstr(c->out, "Watched cgroups"));
        assert_non_null(strstr(c->out, "  system.slice/system-postgresql.slice/postgresql@15-main.service: present, THP via collapse (partial)\n"
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

/* The text report goes to a terminal: a field with an escape sequence (ESC,
 * BEL, the 8-bit CSI 0x9b, U+009B as UTF-8, a stray byte) is written as '?'
 * and, in a file fragd did not write (--root on a copied tree), printed as
 * '?'. Printable UTF-8 stays whole. */
static bool has_control(const char *s)
{
        for (const unsigned char *p = (const unsigned char *) s; *p; p++)
                if ((*p < 0x20 && *p != '\n' && *p != '\t') || *p == 0x7f || *p == 0x9b || (*p == 0xc2 && p[1] == 0x9b))
                        return true;
        return false;
}

static void test_print_scrubs_escapes(void **state)
{
        Ctx *c = *state;
        const char *decisions[] = { "raise \x1b]0;owned\x07 caf\xc3\xa9 \x9b" "31m \xc2\x9b" "2J end" };
        _cleanup_free_ char *file = NULL;

        assert_int_equal(knob_status_write(c->reg, decisions, ELEMENTSOF(decisions)), 0);
        assert_false(has_control(tt_read(&c->t, STATUS)));
        assert_non_null(strstr(tt_read(&c->t, STATUS), "decision\traise ?]0;owned? caf\xc3\xa9 ?31m ?2J end\n"));

        /* a file written by something else */
        assert_true(asprintf(&file, "%s"
                             "info\tInstance \x1b[2J\n"
                             "owned\tvm.x\x1b[31m\t0\t\x9b" "1m\t1\n"
                             "held\twatermark_scale_factor\tat_bound\tkeep \xc2\x9b" "2J\x07\n"
                             "cgroup\tdb\x1b.slice\tpresent\tcollapse\tfull\tstall \x1b[5m\n"
                             "decision\tlower \x1b[1Abar \xe2\x82\xac\n",
                             tt_read(&c->t, STATUS)) > 0);
        tt_write(&c->t, STATUS, file);
        assert_int_equal(print(c), 0);
        assert_false(has_control(c->out));
        assert_non_null(strstr(c->out, "Instance ?[2J\n"));
        assert_non_null(strstr(c->out, "vm.x?[31m"));
        assert_non_null(strstr(c->out, "keep ?2J?\n"));
        assert_non_null(strstr(c->out, "db?.slice: present"));
        assert_non_null(strstr(c->out, "  lower ?[1Abar \xe2\x82\xac\n"));
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


/* ---- fragd status --format json ------------------------------------------ */

static int print_json(Ctx *c)
{
        FILE *f;
        int r;

        free(c->out);
        c->out = NULL;
        f = open_memstream(&c->out, &c->out_len);
        assert_non_null(f);
        r = status_print_json(c->t.root, "/run/fragd", control_probe, f);
        fclose(f);
        if (getenv("FRAGD_TEST_VERBOSE"))
                fputs(c->out, stderr);
        return r;
}

static char *render(const char *buf, const char *state, bool pause_requested, const StatusLeftChanged *left)
{
        char *out = NULL;
        size_t len;
        FILE *f = open_memstream(&out, &len);

        assert_non_null(f);
        status_json_render(buf, buf ? strlen(buf) : 0, state, pause_requested, left, NULL, f);
        fclose(f);
        return out;
}

/* A status file as the daemon writes it, every line kind once or more. */
static const char golden_in[] =
        "fragd-status 1\n"
        "pid 4242 123456\n"
        "updated 1796150000000000\n"
        "ownership respect\n"
        "ops real\n"
        "info\tInstance: r7g.4xlarge (from dmi), cloud aws, fleet file /usr/share/fragd/fleet.d/aws.conf\n"
        "owned\tvm.compaction_proactiveness\t20\t60\t1796149000000000\n"
        "unrestored\tvm.compaction_proactiveness\t20\t60\tEROFS\tRead-only file system\n"
        "yielded\tvm.watermark_scale_factor\t10\t150\t1796149100000000\n"
        "disabled\tvm.extfrag_threshold\tEACCES\tPermission denied\n"
        "cgroup\tsystem.slice/system-postgresql.slice/postgresql@15-main.service\tpresent\tcollapse\tin-effect\tlast minute: 0 ms\n"
        "decision\t2026-12-01T19:00:00 raise compaction_proactiveness 20→60: reserve below target\n"
        "state paused\n"
        "instance\tr7g.4xlarge\tdmi\taws\t/usr/share/fragd/fleet.d/aws.conf\tdatabase\n"
        "cadence\t2000000\t10000000\t2000000\t1\t1\t1796150002000000\n"
        "reserve\t0\t4\t141950976\t20660756\t0\n"
        "reserve\t0\t9\t104857600\t413215129\t1\n"
        "learned\t268435456\t536870912\t600000000\n"
        "change\t1796149000000000\tcompaction_proactiveness\t20\t60\treserve_below_target\tapplied\n"
        "change\t1796149500000000\tcompact\t-\tnode0\treserve_below_target\tpaused\n"
        "held\twatermark_scale_factor\tpsi\tkeep watermark_scale_factor at 10: memory pressure over the ceiling\n"
        "future\tlines a reader does not know are skipped\n";

/* The JSON of a fixed status file, byte for byte: a key renamed, dropped or
 * added fails here (and docs/fragd.8 and the schema version follow).
 * FRAGD_UPDATE_GOLDEN=1 rewrites tests/golden/status.json. */
static void test_json_golden(void **state)
{
        _cleanup_free_ char *out = render(golden_in, "paused", true, NULL);
        char path[512], want[8192];
        size_t len;
        FILE *f;

        (void) state;
        snprintf(path, sizeof(path), "%s/tests/golden/status.json", getenv("FRAGD_SRCDIR") ?: ".");
        if (getenv("FRAGD_UPDATE_GOLDEN")) {
                f = fopen(path, "we");
                assert_non_null(f);
                fputs(out, f);
                fclose(f);
        }
        f = fopen(path, "re");
        if (!f)
                fail_msg("missing %s (FRAGD_UPDATE_GOLDEN=1 creates it; review it)", path);
        len = fread(want, 1, sizeof(want) - 1, f);
        fclose(f);
        want[len] = '\0';
        if (strcmp(out, want) != 0)
                fail_msg("JSON differs from %s:\n%s", path, out);
}

static void test_json_values(void **state)
{
        _cleanup_free_ char *out = render(golden_in, "paused", false, NULL);

        (void) state;
        assert_non_null(strstr(out, "\"schema_version\": 1,"));
        assert_non_null(strstr(out, "\"state\": \"paused\""));
        assert_non_null(strstr(out, "\"paused\": true"));
        assert_non_null(strstr(out, "\"pid\": 4242"));
        assert_non_null(strstr(out, "\"cloud\": \"aws\""));
        assert_non_null(strstr(out, "\"fleet_file\": \"/usr/share/fragd/fleet.d/aws.conf\""));
        assert_non_null(strstr(out, "\"name\": \"vm.compaction_proactiveness\",\n      \"original\": \"20\",\n"
                                    "      \"current\": \"60\",\n      \"writer\": \"fragd\""));
        assert_non_null(strstr(out, "\"current\": \"150\",\n      \"writer\": \"other\""));
        /* met is free >= target, as the file says */
        assert_non_null(strstr(out, "\"free_bytes\": 141950976,\n      \"target_bytes\": 20660756,\n"
                                    "      \"met\": true,\n      \"learned\": false"));
        assert_non_null(strstr(out, "\"target_bytes\": 413215129,\n      \"met\": false,\n      \"learned\": true"));
        assert_non_null(strstr(out, "\"need_bytes\": 268435456"));
        /* "-" is null */
        assert_non_null(strstr(out, "\"knob\": \"compact\",\n      \"from\": null,\n      \"to\": \"node0\""));
        assert_non_null(strstr(out, "\"outcome\": \"paused\""));
        assert_non_null(strstr(out, "\"watching\": true"));
        assert_null(strstr(out, "future"));
}

/* hostile text in the file's fields: escaped, never raw */
static void test_json_escaping(void **state)
{
        _cleanup_free_ char *out = NULL;

        (void) state;
        out = render("fragd-status 1\npid 1 1\nowned\tvm.x\"y\\z\t\x01\xff\t3\tnot-a-number\n"
                     "reserve\tnode\t4\tlots\t5\t2\n",
                     "running", false, NULL);
        assert_non_null(strstr(out, "\"name\": \"vm.x\\\"y\\\\z\""));
        assert_non_null(strstr(out, "\"original\": \"\\u0001\\ufffd\""));
        assert_non_null(strstr(out, "\"since_usec\": null"));
        assert_non_null(strstr(out, "\"node\": null"));
        assert_non_null(strstr(out, "\"free_bytes\": null"));
        assert_non_null(strstr(out, "\"met\": null"));
        assert_non_null(strstr(out, "\"learned\": null"));
        free(out);
        /* not a status file: nothing from it, every key still there */
        out = render("hello\nowned\tvm.a\t1\t2\t3\n", "crashed", false, NULL);
        assert_null(strstr(out, "vm.a"));
        assert_non_null(strstr(out, "\"knobs\": []"));
        assert_non_null(strstr(out, "\"cadence\": {"));
}

static void test_json_write_data(void **state)
{
        Ctx *c = *state;
        const StatusReserve res[] = { { 1, 9, 100, 400, true } };
        const StatusChange ch[] = { { 1796149000000000, "compaction_proactiveness", "0", "20",
                                      "reserve_below_target", "paused" } };
        char why[DECISION_TEXT_MAX];
        StatusHeld held[] = { { "watermark_scale_factor", "nothing_to_reclaim", why } };
        StatusData d = {
                .have_state = true,
                .paused = true,
                .instance = "mem-4g-2c-x86_64",
                .instance_source = "sizing",
                .cloud = NULL,
                .preset = "database",
                .interval_usec = 2000000,
                .base_interval_usec = 10000000,
                .next_tick_realtime_usec = 5,
                .reserves = res,
                .n_reserves = 1,
                .changes = ch,
                .n_changes = 1,
                .held = held,
                .n_held = 1,
        };

        /* a sentence longer than a plain field's 256 characters (and the
         * 400 bytes status files had before), as long as decision_explain()
         * may write, with a tab: kept whole, the tab a space */
        memset(why, 'x', sizeof(why) - 1);
        why[sizeof(why) - 1] = '\0';
        memcpy(why, "keep watermark_scale_factor at 10:\tnode 0", strlen("keep watermark_scale_factor at 10:\tnode 0"));
        memcpy(why + sizeof(why) - 4, "end", 3);
        assert_int_equal(knob_set(c->reg, "vm.compaction_proactiveness", "40", 1), 1);
        assert_int_equal(status_write_data(c->reg, &d), 0);
        assert_int_equal(print_json(c), 0);
        assert_non_null(strstr(c->out, "\"state\": \"paused\""));
        assert_non_null(strstr(c->out, "\"writes\": \"fake\""));
        assert_non_null(strstr(c->out, "\"name\": \"mem-4g-2c-x86_64\""));
        assert_non_null(strstr(c->out, "\"cloud\": null"));
        assert_non_null(strstr(c->out, "\"interval_usec\": 2000000,\n    \"base_interval_usec\": 10000000"));
        assert_non_null(strstr(c->out, "\"node\": 1,\n      \"order\": 9,\n      \"free_bytes\": 100"));
        assert_non_null(strstr(c->out, "\"original\": \"0\",\n      \"current\": \"40\""));
        assert_non_null(strstr(c->out, "\"to\": \"20\",\n      \"reason\": \"reserve_below_target\""));
        assert_non_null(strstr(c->out, "\"held\": [\n    {\n      \"knob\": \"watermark_scale_factor\",\n      "
                                       "\"hold\": \"nothing_to_reclaim\",\n      \"explanation\": \"keep "
                                       "watermark_scale_factor at 10: node 0xxx"));
        assert_non_null(strstr(c->out, "xxxend\"\n"));
        /* and the text says paused */
        assert_int_equal(print(c), 0);
        assert_non_null(strstr(c->out, "Paused, but 1 knob(s) fragd changed could not be handed back"));
        assert_non_null(strstr(c->out, "\nHeld (fragd wants to move these knobs; what stops it):\n"
                                       "  watermark_scale_factor [nothing_to_reclaim]: keep watermark_scale_factor "
                                       "at 10: node 0xxx"));
        assert_non_null(strstr(c->out, "xxxend\n"));
        d.paused = false;
        assert_int_equal(status_write_data(c->reg, &d), 0);
        assert_int_equal(print_json(c), 0);
        assert_non_null(strstr(c->out, "\"state\": \"running\""));
        assert_int_equal(print(c), 0);
        assert_null(strstr(c->out, "Paused"));
}

static void test_json_not_running(void **state)
{
        Ctx *c = *state;
        int status;
        pid_t pid;

        assert_int_equal(print_json(c), -ENOENT);
        assert_non_null(strstr(c->out, "\"state\": \"stopped\",\n  \"paused\": false"));
        assert_non_null(strstr(c->out, "\"restore_needed\": false"));
        assert_non_null(strstr(c->out, "\"pid\": null"));

        /* kill -9 with knobs changed: crashed, the knobs left, exit 5 */
        pid = fork();
        assert_true(pid >= 0);
        if (pid == 0)
                _exit(knob_set(c->reg, "vm.compaction_proactiveness", "40", 1) != 1 ||
                      knob_status_write(c->reg, NULL, 0) < 0);
        assert_int_equal(waitpid(pid, &status, 0), pid);
        assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
        assert_int_equal(print_json(c), -EUCLEAN);
        assert_non_null(strstr(c->out, "\"state\": \"crashed\""));
        assert_non_null(strstr(c->out, "\"restore_needed\": true"));
        assert_non_null(strstr(c->out, "\"knobs_left\": [\n    {\n      \"name\": \"vm.compaction_proactiveness\",\n"
                                       "      \"original\": \"0\",\n      \"fragd_wrote\": \"40\""));
        assert_non_null(strstr(c->out, "\"knobs\": []"));

        /* the knob put back, the status file left: crashed, nothing to restore */
        assert_int_equal(unlinkat(c->t.root->root_fd, "run/fragd/saved", 0), 0);
        assert_int_equal(print_json(c), -ESRCH);
        assert_non_null(strstr(c->out, "\"state\": \"crashed\""));
        assert_non_null(strstr(c->out, "\"restore_needed\": false"));

        /* a pause left for the next start */
        assert_int_equal(unlinkat(c->t.root->root_fd, STATUS, 0), 0);
        assert_int_equal(status_pause_write(c->t.root, "/run/fragd", true), 0);
        assert_int_equal(print_json(c), -ENOENT);
        assert_non_null(strstr(c->out, "\"state\": \"stopped\",\n  \"paused\": true"));
}

static void test_pause_flag(void **state)
{
        Ctx *c = *state;

        assert_int_equal(status_pause_read(c->t.root, "/run/fragd"), 0);
        assert_int_equal(status_pause_write(c->t.root, "/run/fragd", true), 0);
        assert_true(tt_exists(&c->t, "run/fragd/paused"));
        assert_int_equal(status_pause_read(c->t.root, "/run/fragd"), 1);
        assert_int_equal(status_pause_write(c->t.root, "/run/fragd", false), 0);
        assert_false(tt_exists(&c->t, "run/fragd/paused"));
        assert_int_equal(status_pause_write(c->t.root, "/run/fragd", false), 0); /* idempotent */
        /* a symlink is not followed: an error, the daemon stays paused */
        assert_int_equal(symlinkat("/etc/passwd", c->t.root->root_fd, "run/fragd/paused"), 0);
        assert_int_equal(status_pause_read(c->t.root, "/run/fragd"), -ELOOP);
        /* resume removes the link itself, never its target */
        assert_int_equal(status_pause_write(c->t.root, "/run/fragd", false), 0);
        assert_false(tt_exists(&c->t, "run/fragd/paused"));
        /* a FIFO: not read (never blocks), removed */
        assert_int_equal(mkfifoat(c->t.root->root_fd, "run/fragd/paused", 0600), 0);
        assert_true(status_pause_read(c->t.root, "/run/fragd") < 0);
        assert_int_equal(status_pause_write(c->t.root, "/run/fragd", false), 0);
        assert_false(tt_exists(&c->t, "run/fragd/paused"));
        /* a directory is not fragd's to remove: neither written nor removed, said */
        tt_mkdir(&c->t, "run/fragd/paused");
        assert_int_equal(status_pause_read(c->t.root, "/run/fragd"), -EISDIR);
        assert_int_equal(status_pause_write(c->t.root, "/run/fragd", false), -EISDIR);
        assert_int_equal(status_pause_write(c->t.root, "/run/fragd", true), -EISDIR);
        assert_true(tt_exists(&c->t, "run/fragd/paused"));
}

/* A status file naming a live process (pid 1) without its start time is
 * incomplete: never "running". */
static void test_pid_without_starttime(void **state)
{
        Ctx *c = *state;

        tt_mkdir(&c->t, "run");
        tt_mkdir(&c->t, "run/fragd");
        tt_write(&c->t, STATUS, "fragd-status 1\npid 1\nupdated 1796150000000000\nownership respect\nops real\n");
        assert_int_equal(print(c), -ESRCH);
        assert_null(strstr(c->out, "fragd is running"));
        assert_non_null(strstr(c->out, "names pid 1 without a start time (it is incomplete)"));
        assert_int_equal(print_json(c), -ESRCH);
        assert_non_null(strstr(c->out, "\"state\": \"crashed\""));
        assert_non_null(strstr(c->out, "\"status_problem\": \"the status file names pid 1 without a start time"));
        /* with one, but not pid 1's: gone */
        tt_write(&c->t, STATUS, "fragd-status 1\npid 1 7\nupdated 1796150000000000\n");
        assert_int_equal(print(c), -ESRCH);
        assert_non_null(strstr(c->out, "stale state left by pid 1"));
}

/* Paused, and a knob could not be handed back: the report says so first,
 * with the error, and never that every knob was handed back. */
static void test_paused_unrestored(void **state)
{
        Ctx *c = *state;
        StatusData d = { .have_state = true, .paused = true };
        unsigned failed = 0;
        KnobInfo ki;

        assert_int_equal(knob_set(c->reg, "vm.compaction_proactiveness", "40", 1), 1);
        assert_int_equal(knob_set(c->reg, "vm.watermark_scale_factor", "100", 1), 1);
        assert_int_equal(knob_fake_fail_write(c->fake, "vm.compaction_proactiveness", EPERM, 1), 0);
        assert_true(knob_restore_all(c->reg, &failed) < 0);
        assert_int_equal(failed, 1);
        assert_int_equal(knob_find_info(c->reg, "vm.compaction_proactiveness", &ki), 0);
        assert_true(ki.owned);
        assert_int_equal(ki.restore_error, -EPERM);
        assert_int_equal(status_write_data(c->reg, &d), 0);
        assert_non_null(strstr(tt_read(&c->t, STATUS),
                               "unrestored\tvm.compaction_proactiveness\t0\t40\tEPERM\tOperation not permitted\n"));
        assert_int_equal(print(c), 0);
        assert_null(strstr(c->out, "every knob fragd changed was handed back"));
        assert_non_null(strstr(c->out, "Paused, but 1 knob(s) fragd changed could not be handed back"));
        assert_non_null(strstr(c->out, "vm.compaction_proactiveness          still 40 (original 0): Operation not "
                                       "permitted (EPERM)"));
        /* listed before everything else */
        assert_true(strstr(c->out, "still 40") < strstr(c->out, "Ownership:"));
        assert_null(strstr(c->out, "vm.watermark_scale_factor          still"));
        assert_int_equal(print_json(c), 0);
        assert_non_null(strstr(c->out, "\"restore_failed\": [\n    {\n      \"name\": \"vm.compaction_proactiveness\",\n"
                                       "      \"original\": \"0\",\n      \"current\": \"40\",\n      \"error\": \"EPERM\""));

        /* the next try works: handed back, and said so */
        assert_int_equal(knob_restore_all(c->reg, &failed), 0);
        assert_int_equal(failed, 0);
        assert_int_equal(status_write_data(c->reg, &d), 0);
        assert_null(strstr(tt_read(&c->t, STATUS), "unrestored"));
        assert_int_equal(print(c), 0);
        assert_non_null(strstr(c->out, "Paused: every knob fragd changed was handed back"));
}

static int no_handler(void *userdata, ControlCommand cmd, char *reply, size_t size)
{
        return -EIO;
}

/* A fragd that answers on its control socket but whose status file is
 * missing or not its own (it could not write it): "running", never "not
 * running"; without the listener, "not running" again. */
static void test_running_without_status(void **state)
{
        Ctx *c = *state;
        ControlServer *s = NULL;
        sd_event *e = NULL;
        int status;
        pid_t pid;

        assert_int_equal(sd_event_new(&e), 0);
        assert_int_equal(control_server_new(e, c->t.root, "/run/fragd", no_handler, NULL, &s), 0);
        assert_int_equal(print(c), -ENODATA);
        assert_null(strstr(c->out, "not running"));
        assert_non_null(strstr(c->out, "fragd is running (it answers on its control socket '"));
        assert_non_null(strstr(c->out, "/run/fragd/status' is missing: the daemon could not write it"));
        assert_int_equal(print_json(c), -ENODATA);
        assert_non_null(strstr(c->out, "\"state\": \"running\""));
        assert_non_null(strstr(c->out, "\"status_problem\": \"fragd is running"));

        /* the status file a killed fragd left, not replaced */
        pid = fork();
        assert_true(pid >= 0);
        if (pid == 0)
                _exit(knob_status_write(c->reg, NULL, 0) < 0);
        assert_int_equal(waitpid(pid, &status, 0), pid);
        assert_int_equal(print(c), -ENODATA);
        assert_non_null(strstr(c->out, "was left by pid"));
        assert_non_null(strstr(c->out, "which is gone: the daemon could not write it"));

        s = control_server_free(s);
        sd_event_unref(e);
        assert_int_equal(print(c), -ESRCH);
        assert_non_null(strstr(c->out, "fragd is not running (stale state"));
        assert_int_equal(unlinkat(c->t.root->root_fd, STATUS, 0), 0);
        assert_int_equal(print(c), -ENOENT);
        assert_non_null(strstr(c->out, "fragd is not running (no state"));
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
                cmocka_unit_test_setup_teardown(test_print_scrubs_escapes, setup, teardown),
                cmocka_unit_test(test_json_golden),
                cmocka_unit_test(test_json_values),
                cmocka_unit_test(test_json_escaping),
                cmocka_unit_test_setup_teardown(test_json_write_data, setup, teardown),
                cmocka_unit_test_setup_teardown(test_json_not_running, setup, teardown),
                cmocka_unit_test_setup_teardown(test_pause_flag, setup, teardown),
                cmocka_unit_test_setup_teardown(test_pid_without_starttime, setup, teardown),
                cmocka_unit_test_setup_teardown(test_paused_unrestored, setup, teardown),
                cmocka_unit_test_setup_teardown(test_running_without_status, setup, teardown),
        };

        log_set_max_level(getenv("FRAGD_TEST_VERBOSE") ? LOG_DEBUG : LOG_WARNING);
        return cmocka_run_group_tests(tests, NULL, NULL);
}
