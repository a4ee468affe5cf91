/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The knob journal: parser table, round trip, crash recovery (in process
 * and with a SIGKILLed child), a live owner, a corrupt file. */

#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <cmocka.h>

#include "core/cleanup.h"
#include "core/log.h"
#include "knob-test-util.h"
#include "log-event-test-util.h"
#include "knobs/knob-internal.h"
#include "knobs/knob.h"

#define CP "proc/sys/vm/compaction_proactiveness"
#define WSF "proc/sys/vm/watermark_scale_factor"
#define MFK "proc/sys/vm/min_free_kbytes"
#define THP_ENABLED "sys/kernel/mm/transparent_hugepage/enabled"
#define SAVED "run/fragd/saved"

static void test_parse_table(void **state)
{
        static const struct {
                const char *in;
                int rc;
                unsigned n, n_invalid;
                int pid;
        } t[] = {
                { "fragd-saved 1\n", 0, 0, 0, 0 },
                { "fragd-saved 1", -EBADMSG, 0, 0, 0 },                         /* header cut short */
                { "", -EBADMSG, 0, 0, 0 },
                { "fragd-saved 2\n", -EBADMSG, 0, 0, 0 },
                { "# x\nfragd-saved 1\n", -EBADMSG, 0, 0, 0 },
                { "fragd-saved 1\npid 42 7\nvm.compaction_proactiveness\t20\t40\t123\n", 0, 1, 0, 42 },
                { "fragd-saved 1\npid 42\n# c\n\nvm.a\t1\t2\t3\nthp.enabled\talways\tmadvise\t4\n", 0, 2, 0, 42 },
                { "fragd-saved 1\nvm.a\t1\t2\n", 0, 0, 1, 0 },               /* 3 fields */
                { "fragd-saved 1\nvm.a\t1\t2\t3\t4\n", 0, 0, 1, 0 },         /* 5 fields */
                { "fragd-saved 1\nvm.a\t\t2\t3\n", 0, 0, 1, 0 },             /* empty original */
                { "fragd-saved 1\nvm.a\t1\t2\tx\n", 0, 0, 1, 0 },            /* bad time */
                { "fragd-saved 1\nvm.a\t1\t2\t-3\n", 0, 0, 1, 0 },
                { "fragd-saved 1\nvm/../x\t1\t2\t3\n", 0, 0, 1, 0 },         /* bad name */
                { "fragd-saved 1\nnode0.compact\t1\t1\t3\n", 0, 0, 1, 0 },   /* one-shot */
                { "fragd-saved 1\nvm.a\t1\x01\t2\t3\n", 0, 0, 1, 0 },        /* control char */
                { "fragd-saved 1\nvm.a\t1\t2\t3\nvm.a\t5\t6\t7\n", 0, 1, 1, 0 }, /* duplicate */
                { "fragd-saved 1\npid 0\n", 0, 0, 1, 0 },
                { "fragd-saved 1\npid 1 2 3\n", 0, 0, 1, 0 },
                { "fragd-saved 1\npid 5\npid 6\n", 0, 0, 1, 5 },
                { "fragd-saved 1\npid 99999999999\n", 0, 0, 1, 0 },
                { "fragd-saved 1\r\nvm.a\t1 2\t3 4\t5\r\n", -EBADMSG, 0, 0, 0 }, /* CRLF header */
                { "fragd-saved 1\nvm.a\t1 2\t3 4\t5\r\n", 0, 0, 1, 0 },    /* CRLF line */
                { "fragd-saved 1\nvm.compaction_proactiveness\t20\t40\t123\r\n", 0, 0, 1, 0 },
                /* the last line cut short: no newline (even when it would parse) */
                { "fragd-saved 1\nvm.compaction_proactiveness\t20\t40\t12", 0, 0, 1, 0 },
                { "fragd-saved 1\nvm.a\t1\t2\t3\nvm.compaction_proactiveness\t2", 0, 1, 1, 0 },
                { "fragd-saved 1\npid 42 7", 0, 0, 1, 0 },
                /* tampered values: never written back */
                { "fragd-saved 1\nvm.compaction_proactiveness\tabc\t40\t1\n", 0, 0, 1, 0 },
                { "fragd-saved 1\nvm.compaction_proactiveness\t101\t40\t1\n", 0, 0, 1, 0 },
                { "fragd-saved 1\nvm.compaction_proactiveness\t-1\t40\t1\n", 0, 0, 1, 0 },
                { "fragd-saved 1\nvm.compaction_proactiveness\t20\t1e3\t1\n", 0, 0, 1, 0 },
                { "fragd-saved 1\nvm.watermark_scale_factor\t0\t40\t1\n", 0, 0, 1, 0 },
                { "fragd-saved 1\nvm.min_free_kbytes\t99999999999\t4\t1\n", 0, 0, 1, 0 },
                { "fragd-saved 1\nvm.a\t1 x\t2\t1\n", 0, 0, 1, 0 },
                { "fragd-saved 1\nthp.enabled\tsometimes\tnever\t1\n", 0, 0, 1, 0 },
                { "fragd-saved 1\nthp.defrag\tdefer+madvise\tnever\t1\n", 0, 1, 0, 0 },
                { "fragd-saved 1\nthp.defrag\tinherit\tnever\t1\n", 0, 0, 1, 0 },
                { "fragd-saved 1\nthp.hugepages-64kB.enabled\tinherit\tnever\t1\n", 0, 1, 0, 0 },
                { "fragd-saved 1\nthp.shmem_enabled\twithin_size\tnever\t1\n", 0, 1, 0, 0 },
                { "fragd-saved 1\nvm.compaction_proactiveness\t100\t0\t1\n", 0, 1, 0, 0 },
                { "fragd-saved 1\nvm.lowmem_reserve_ratio\t256 256 32 0\t256 256 64 0\t5\n", 0, 1, 0, 0 },
        };
        for (size_t i = 0; i < ELEMENTSOF(t); i++) {
                Journal *j = calloc(1, sizeof(*j));
                int r;

                assert_non_null(j);
                r = knob_journal_parse(t[i].in, strlen(t[i].in), j);
                if (r != t[i].rc)
                        fail_msg("case %zu: rc %d, expected %d", i, r, t[i].rc);
                if (r == 0) {
                        if (j->n != t[i].n || j->n_invalid != t[i].n_invalid || j->pid != t[i].pid)
                                fail_msg("case %zu: n %u/%u invalid %u/%u pid %d/%d", i, j->n, t[i].n,
                                         j->n_invalid, t[i].n_invalid, (int) j->pid, t[i].pid);
                }
                free(j);
        }
}

static void test_parse_too_many(void **state)
{
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        Journal *j = calloc(1, sizeof(*j));

        fputs("fragd-saved 1\n", f);
        for (int i = 0; i <= KNOB_MAX; i++)
                fprintf(f, "vm.k%d\t1\t2\t3\n", i);
        fclose(f);
        assert_int_equal(knob_journal_parse(buf, len, j), -E2BIG);
        free(buf);
        free(j);
}

static void test_round_trip(void **state)
{
        Journal *a = calloc(1, sizeof(*a)), *b = calloc(1, sizeof(*b));
        char *buf = NULL;
        size_t len;

        a->pid = 1234;
        a->starttime = 5678;
        a->n = 2;
        strcpy(a->e[0].name, "vm.min_free_kbytes");
        strcpy(a->e[0].original, "90112");
        strcpy(a->e[0].last_written, "120000");
        a->e[0].first_touch_usec = 1732900000123456ULL;
        strcpy(a->e[1].name, "thp.hugepages-2048kB.enabled");
        strcpy(a->e[1].original, "inherit");
        strcpy(a->e[1].last_written, "never");
        a->e[1].first_touch_usec = 1;
        assert_int_equal(knob_journal_format(a, &buf, &len), 0);
        assert_int_equal(knob_journal_parse(buf, len, b), 0);
        assert_int_equal(b->pid, 1234);
        assert_int_equal(b->starttime, 5678);
        assert_int_equal(b->n, 2);
        assert_int_equal(b->n_invalid, 0);
        assert_memory_equal(a->e, b->e, 2 * sizeof(a->e[0]));
        free(buf);
        free(a);
        free(b);
}

static void test_restore_order(void **state)
{
        static const char *const names[] = { "thp.enabled", "vm.min_free_kbytes", "vm.a", "vm.b" };
        size_t order[4];

        knob_restore_order(names, 4, order);
        assert_int_equal(order[0], 3);
        assert_int_equal(order[1], 2);
        assert_int_equal(order[2], 0);
        assert_int_equal(order[3], 1); /* min_free_kbytes last */
}

/* "die": drop the registry without restoring; a new one at start restores */
static void test_crash_recovery(void **state)
{
        static Capture cap;
        TestTree *t = *state;
        int k;
        KnobRegistry *reg = NULL;
        uint64_t before = tt_checksum(t, "proc");
        char v[KNOB_VALUE_MAX];
        Journal *j = calloc(1, sizeof(*j));

        assert_int_equal(knob_registry_new(t->root, "/run/fragd", NULL, NULL, OWNERSHIP_RESPECT, &reg), 0);
        assert_int_equal(knob_set(reg, "vm.compaction_proactiveness", "40", 1), 1);
        assert_int_equal(knob_set(reg, "thp.enabled", "madvise", 1), 1);
        assert_int_equal(knob_set(reg, "vm.min_free_kbytes", "100000", 1), 1);
        assert_int_equal(knob_set(reg, "vm.watermark_scale_factor", "200", 1), 1);
        reg = knob_registry_free(reg); /* died */

        assert_int_equal(knob_journal_read(t->root->root_fd, "run/fragd", j), 0);
        assert_int_equal(j->n, 4);
        assert_int_equal(j->pid, getpid());
        assert_string_equal(j->e[0].name, "vm.compaction_proactiveness"); /* first-touch order */

        log_set_max_level(LOG_NOTICE);
        capture_start(&cap);
        assert_int_equal(knob_registry_new(t->root, "/run/fragd", NULL, NULL, OWNERSHIP_RESPECT, &reg), 0);
        capture_stop();
        log_set_max_level(getenv("FRAGD_TEST_VERBOSE") ? LOG_DEBUG : LOG_WARNING);
        /* one restore event per knob, the reason a crash recovery */
        assert_int_equal(cap.n, 4);
        for (unsigned e = 0; e < cap.n; e++) {
                assert_string_equal(capture_get(&cap, e, "MESSAGE_ID"), ID_KNOB_RESTORED);
                assert_string_equal(capture_get(&cap, e, "FRAGD_REASON"), "crash_recovery");
        }
        k = capture_find(&cap, ID_KNOB_RESTORED, "vm.min_free_kbytes");
        assert_int_equal(k, 3); /* last */
        assert_string_equal(capture_get(&cap, k, "FRAGD_FROM"), "100000");
        assert_true(tt_checksum(t, "proc") == before);
        assert_int_equal(knob_get(reg, "thp.enabled", v, sizeof(v)), 0);
        assert_string_equal(v, "always");
        assert_false(tt_exists(t, SAVED));
        assert_int_equal(knob_count(reg), 0);
        reg = knob_registry_free(reg);
        free(j);
}

static void test_crash_recovery_external(void **state)
{
        TestTree *t = *state;
        KnobRegistry *reg = NULL;
        KnobRestoreStats st;

        /* RESPECT: a value someone set after fragd died is left alone */
        assert_int_equal(knob_registry_new(t->root, NULL, NULL, NULL, OWNERSHIP_RESPECT, &reg), 0);
        assert_int_equal(knob_set(reg, "vm.compaction_proactiveness", "40", 1), 1);
        assert_int_equal(knob_set(reg, "vm.watermark_scale_factor", "200", 1), 1);
        reg = knob_registry_free(reg);
        tt_write(t, CP, "77\n");
        assert_int_equal(knob_restore_from_journal(t->root, NULL, NULL, OWNERSHIP_RESPECT, &st), 0);
        assert_int_equal(st.n_entries, 2);
        assert_int_equal(st.n_restored, 1);
        assert_int_equal(st.n_left, 1);
        assert_int_equal(st.n_failed, 0);
        assert_string_equal(tt_read(t, CP), "77\n");
        assert_string_equal(tt_read(t, WSF), "10\n");
        assert_false(tt_exists(t, SAVED));

        /* REASSERT: the original goes back regardless */
        assert_int_equal(knob_registry_new(t->root, NULL, NULL, NULL, OWNERSHIP_REASSERT, &reg), 0);
        assert_int_equal(knob_set(reg, "vm.compaction_proactiveness", "40", 1), 1);
        reg = knob_registry_free(reg);
        tt_write(t, CP, "78\n");
        assert_int_equal(knob_restore_from_journal(t->root, NULL, NULL, OWNERSHIP_REASSERT, &st), 0);
        assert_int_equal(st.n_restored, 1);
        assert_string_equal(tt_read(t, CP), "77\n"); /* the original of that second run */

        /* nothing to do */
        assert_int_equal(knob_restore_from_journal(t->root, NULL, NULL, OWNERSHIP_RESPECT, &st), 0);
        assert_int_equal(st.n_entries, 0);
}

static void test_crash_recovery_min_free_after_thp(void **state)
{
        TestTree *t = *state;
        KnobRegistry *reg = NULL;
        _cleanup_(knob_fake_freep) KnobFake *fake = knob_fake_new(t->root);

        /* fragd touched min_free first, THP after; restoring THP recomputes
         * min_free, which must still get its original */
        assert_int_equal(knob_registry_new(t->root, NULL, NULL, NULL, OWNERSHIP_RESPECT, &reg), 0);
        assert_int_equal(knob_set(reg, "vm.min_free_kbytes", "45056", 1), 1);
        assert_int_equal(knob_set(reg, "thp.enabled", "never", 1), 1);
        reg = knob_registry_free(reg);
        assert_int_equal(knob_fake_side_effect(fake, "thp.enabled", "vm.min_free_kbytes", "67584"), 0);
        assert_int_equal(knob_registry_new(t->root, NULL, &knob_ops_fake, fake, OWNERSHIP_RESPECT, &reg), 0);
        assert_string_equal(tt_read(t, MFK), "90112\n");
        assert_string_equal(tt_read(t, THP_ENABLED), "always\n");
        reg = knob_registry_free(reg);
}

static void test_crash_recovery_failure_adopted(void **state)
{
        TestTree *t = *state;
        KnobRegistry *reg = NULL;
        _cleanup_(knob_fake_freep) KnobFake *fake = knob_fake_new(t->root);
        KnobInfo ki;
        unsigned n_failed;

        assert_int_equal(knob_registry_new(t->root, NULL, NULL, NULL, OWNERSHIP_RESPECT, &reg), 0);
        assert_int_equal(knob_set(reg, "vm.compaction_proactiveness", "40", 1), 1);
        assert_int_equal(knob_set(reg, "vm.watermark_scale_factor", "200", 1), 1);
        reg = knob_registry_free(reg);

        assert_int_equal(knob_fake_fail_write(fake, "vm.watermark_scale_factor", EACCES, 1), 0);
        assert_int_equal(knob_registry_new(t->root, NULL, &knob_ops_fake, fake, OWNERSHIP_RESPECT, &reg), 0);
        assert_string_equal(tt_read(t, CP), "0\n");
        assert_string_equal(tt_read(t, WSF), "200\n");
        /* kept in the journal and owned by the new registry */
        assert_non_null(strstr(tt_read(t, SAVED), "vm.watermark_scale_factor\t10\t200\t"));
        assert_null(strstr(tt_read(t, SAVED), "compaction_proactiveness"));
        assert_int_equal(knob_find_info(reg, "vm.watermark_scale_factor", &ki), 0);
        assert_true(ki.owned);
        assert_string_equal(ki.original, "10");
        /* and restored on exit */
        assert_int_equal(knob_restore_all(reg, &n_failed), 0);
        assert_int_equal(n_failed, 0);
        assert_string_equal(tt_read(t, WSF), "10\n");
        assert_false(tt_exists(t, SAVED));
        reg = knob_registry_free(reg);
}

static void test_sigkill_child(void **state)
{
        TestTree *t = *state;
        uint64_t before = tt_checksum(t, "proc");
        KnobRegistry *reg = NULL;
        int pipefd[2], status;
        pid_t pid;
        char c;
        Journal *j = calloc(1, sizeof(*j));

        assert_int_equal(pipe(pipefd), 0);
        pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
                KnobRegistry *child = NULL;

                close(pipefd[0]);
                if (knob_registry_new(t->root, NULL, NULL, NULL, OWNERSHIP_RESPECT, &child) < 0 ||
                    knob_set(child, "vm.compaction_proactiveness", "40", 1) != 1 ||
                    knob_set(child, "thp.defrag", "defer", 1) != 1 ||
                    knob_set(child, "vm.min_free_kbytes", "100000", 1) != 1)
                        _exit(1);
                if (write(pipefd[1], "k", 1) != 1)
                        _exit(1);
                pause(); /* owns the knobs until SIGKILL */
                _exit(0);
        }
        close(pipefd[1]);
        assert_int_equal(read(pipefd[0], &c, 1), 1);
        close(pipefd[0]);

        assert_string_equal(tt_read(t, CP), "40\n");
        /* while the child lives, its journal is not touched */
        assert_int_equal(knob_registry_new(t->root, NULL, NULL, NULL, OWNERSHIP_RESPECT, &reg), -EBUSY);
        assert_string_equal(tt_read(t, CP), "40\n");

        assert_int_equal(kill(pid, SIGKILL), 0);
        assert_int_equal(waitpid(pid, &status, 0), pid);
        assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
        assert_int_equal(knob_journal_read(t->root->root_fd, "run/fragd", j), 0);
        assert_int_equal(j->pid, pid);
        assert_int_equal(j->n, 3);

        assert_int_equal(knob_registry_new(t->root, NULL, NULL, NULL, OWNERSHIP_RESPECT, &reg), 0);
        assert_true(tt_checksum(t, "proc") == before);
        assert_string_equal(tt_read(t, "sys/kernel/mm/transparent_hugepage/defrag"), "madvise\n");
        assert_false(tt_exists(t, SAVED));
        reg = knob_registry_free(reg);
        free(j);
}

/* Two fragd on one root (an older fragd without the lock, or one started
 * while the other held no journal): B came first and owns nothing, A then
 * wrote its journal. B never removes or overwrites A's journal: its stop
 * leaves it, and a knob B would take over is not written without a journal
 * of its own. */
static void test_live_fragd_journal_kept(void **state)
{
        TestTree *t = *state;
        KnobRegistry *reg = NULL;
        int ready[2], status;
        unsigned n_failed = 99;
        char c, before[512];
        pid_t pid;

        /* B: no journal yet */
        assert_int_equal(knob_registry_new(t->root, NULL, NULL, NULL, OWNERSHIP_RESPECT, &reg), 0);
        assert_int_equal(pipe(ready), 0);
        pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) { /* A: the same program, so a fragd (pid_is_fragd()) */
                KnobRegistry *a = NULL;

                (void) prctl(PR_SET_PDEATHSIG, SIGKILL); /* never outlives a failed test */
                close(ready[0]);
                if (knob_registry_new(t->root, NULL, NULL, NULL, OWNERSHIP_RESPECT, &a) < 0 ||
                    knob_set(a, "vm.compaction_proactiveness", "40", 1) != 1 || write(ready[1], "k", 1) != 1)
                        _exit(1);
                pause();
                _exit(0);
        }
        close(ready[1]);
        assert_int_equal(read(ready[0], &c, 1), 1);
        close(ready[0]);
        snprintf(before, sizeof(before), "%s", tt_read(t, SAVED));
        assert_non_null(strstr(before, "vm.compaction_proactiveness\t0\t40\t"));

        /* B takes over another knob: not without its own journal */
        assert_int_equal(knob_set(reg, "vm.watermark_scale_factor", "200", 1), -EBUSY);
        assert_string_equal(tt_read(t, WSF), "10\n");
        assert_string_equal(tt_read(t, SAVED), before);
        /* B stops: A's journal stays as A wrote it */
        assert_int_equal(knob_restore_all(reg, &n_failed), 0);
        assert_int_equal(n_failed, 0);
        assert_string_equal(tt_read(t, SAVED), before);
        reg = knob_registry_free(reg);

        /* A killed: its journal brings the knob back */
        assert_int_equal(kill(pid, SIGKILL), 0);
        assert_int_equal(waitpid(pid, &status, 0), pid);
        assert_int_equal(knob_registry_new(t->root, NULL, NULL, NULL, OWNERSHIP_RESPECT, &reg), 0);
        assert_string_equal(tt_read(t, CP), "0\n");
        assert_false(tt_exists(t, SAVED));
        reg = knob_registry_free(reg);
}

/* What the operator learns of a line not taken: the knob and its original. */
static void test_parse_bad_lines(void **state)
{
        static const char in[] = "fragd-saved 1\n"
                                 "vm.watermark_scale_factor\t10\t200\t1\n"
                                 "vm.compaction_proactiveness\t20\t40\tx\n"
                                 "vm.extfrag_threshold\t5000\t400\t1\n"
                                 "nonsense\n"
                                 "vm.min_free_kbytes\t67584\t90112\t1\r\n"
                                 "thp.enabled\talways\tnev";
        Journal *j = calloc(1, sizeof(*j));

        assert_int_equal(knob_journal_parse(in, strlen(in), j), 0);
        assert_int_equal(j->n, 1);
        assert_string_equal(j->e[0].name, "vm.watermark_scale_factor");
        assert_int_equal(j->n_invalid, 5);
        assert_int_equal(j->n_bad, 5);
        assert_int_equal(j->bad[0].line, 3);
        assert_string_equal(j->bad[0].name, "vm.compaction_proactiveness");
        assert_string_equal(j->bad[0].original, "20");
        assert_false(j->bad[0].value_refused);
        assert_string_equal(j->bad[1].name, "vm.extfrag_threshold");
        assert_true(j->bad[1].value_refused);
        assert_non_null(strstr(j->bad[1].why, "outside the kernel's range 0..1000"));
        assert_string_equal(j->bad[2].name, "");
        assert_string_equal(j->bad[3].name, "vm.min_free_kbytes");
        assert_string_equal(j->bad[3].original, "67584");
        assert_non_null(strstr(j->bad[3].why, "CRLF"));
        assert_int_equal(j->bad[4].line, 7);
        assert_string_equal(j->bad[4].name, "thp.enabled");
        assert_string_equal(j->bad[4].original, "always");
        assert_non_null(strstr(j->bad[4].why, "cut short"));

        /* a file without the header: nothing taken, every knob named */
        knob_journal_salvage("vm.compaction_proactiveness\t20\t40\t1\r\n", 37, "unreadable", j);
        assert_int_equal(j->n, 0);
        assert_int_equal(j->n_bad, 1);
        assert_string_equal(j->bad[0].name, "vm.compaction_proactiveness");
        assert_string_equal(j->bad[0].original, "20");
        free(j);
}

/* The aside file's name (relative to the tree), or NULL. */
static const char *aside_name(TestTree *t)
{
        static char buf[FRAGD_PATH_MAX + 48];

        return knob_journal_find_aside(t->root->root_fd, "run/fragd", buf, sizeof(buf)) > 0 ? buf : NULL;
}

static void remove_aside(TestTree *t)
{
        const char *n;

        while ((n = aside_name(t)))
                assert_int_equal(unlinkat(t->root->root_fd, n, 0), 0);
}

static void test_corrupt_journal(void **state)
{
        TestTree *t = *state;
        KnobRegistry *reg = NULL;
        KnobRestoreStats st;
        const char *aside;
        static const char all_bad[] = "fragd-saved 1\npid 1 1\nvm.compaction_proactiveness\t0\t40\tx\n";

        tt_mkdir(t, "run");
        tt_mkdir(t, "run/fragd");

        /* every line malformed: not "nothing to restore"; kept aside, not deleted */
        tt_write(t, CP, "40\n");
        tt_write(t, SAVED, all_bad);
        assert_int_equal(knob_restore_from_journal(t->root, NULL, NULL, OWNERSHIP_RESPECT, &st), -EBADMSG);
        assert_true(st.corrupt);
        assert_int_equal(st.n_invalid, 1);
        assert_int_equal(st.n_entries, 0);
        assert_false(tt_exists(t, SAVED));
        aside = aside_name(t);
        assert_non_null(aside);
        assert_string_equal(st.aside, aside);
        assert_non_null(strstr(aside, "run/fragd/saved.corrupt-"));
        assert_string_equal(tt_read(t, aside), all_bad);
        assert_string_equal(tt_read(t, CP), "40\n");

        /* while it is there, a start takes over no knob */
        assert_int_equal(knob_registry_new(t->root, NULL, NULL, NULL, OWNERSHIP_RESPECT, &reg), -EBADMSG);
        assert_null(reg);
        /* a second corrupt journal does not replace the first */
        tt_write(t, SAVED, "garbage\n");
        assert_int_equal(knob_restore_from_journal(t->root, NULL, NULL, OWNERSHIP_RESPECT, &st), -EBADMSG);
        assert_string_equal(tt_read(t, st.aside), "garbage\n");
        assert_string_equal(tt_read(t, aside), all_bad);
        remove_aside(t);

        /* the daemon's start with a corrupt journal: refused, journal kept aside */
        tt_write(t, SAVED, "fragd-saved 9\n");
        assert_int_equal(knob_registry_new(t->root, NULL, NULL, NULL, OWNERSHIP_RESPECT, &reg), -EBADMSG);
        assert_false(tt_exists(t, SAVED));
        assert_non_null(aside_name(t));
        remove_aside(t);
        assert_int_equal(knob_registry_new(t->root, NULL, NULL, NULL, OWNERSHIP_RESPECT, &reg), 0);
        reg = knob_registry_free(reg);

        /* partly malformed: the good lines restored, the rest kept aside; a vanished knob dropped */
        tt_write(t, CP, "40\n");
        tt_write(t, SAVED,
                 "fragd-saved 1\nvm.compaction_proactiveness\t0\t40\t1\nnonsense\nvm.defrag_mode\t0\t1\t1\n");
        assert_int_equal(knob_restore_from_journal(t->root, NULL, NULL, OWNERSHIP_RESPECT, &st), -EBADMSG);
        assert_int_equal(st.n_entries, 2);
        assert_int_equal(st.n_restored, 1);
        assert_int_equal(st.n_gone, 1);
        assert_int_equal(st.n_invalid, 1);
        assert_string_equal(tt_read(t, CP), "0\n");
        assert_false(tt_exists(t, SAVED));
        assert_non_null(strstr(tt_read(t, st.aside), "nonsense\n"));
        remove_aside(t);

        /* a restore that fails on a good line keeps it in a fresh 'saved' */
        {
                _cleanup_(knob_fake_freep) KnobFake *fake = knob_fake_new(t->root);

                tt_write(t, CP, "40\n");
                tt_write(t, SAVED, "fragd-saved 1\nvm.compaction_proactiveness\t0\t40\t1\nnonsense\n");
                assert_int_equal(knob_fake_fail_write(fake, "vm.compaction_proactiveness", EACCES, 1), 0);
                Journal *kept = calloc(1, sizeof(*kept));

                assert_int_equal(knob_journal_recover(t->root, "run/fragd", &knob_ops_fake, fake, OWNERSHIP_RESPECT,
                                                      kept, &st),
                                 -EBADMSG);
                assert_int_equal(kept->n, 1);
                free(kept);
                assert_int_equal(st.n_failed, 1);
                assert_non_null(strstr(tt_read(t, SAVED), "vm.compaction_proactiveness\t0\t40\t1\n"));
                assert_null(strstr(tt_read(t, SAVED), "nonsense"));
                assert_non_null(strstr(tt_read(t, st.aside), "nonsense\n"));
                remove_aside(t);
                assert_int_equal(knob_restore_from_journal(t->root, NULL, NULL, OWNERSHIP_RESPECT, &st), 0);
                assert_string_equal(tt_read(t, CP), "0\n");
        }

        /* a tampered value is not written back */
        tt_write(t, CP, "40\n");
        tt_write(t, SAVED, "fragd-saved 1\nvm.compaction_proactiveness\t999\t40\t1\n");
        assert_int_equal(knob_restore_from_journal(t->root, NULL, NULL, OWNERSHIP_RESPECT, &st), -EBADMSG);
        assert_string_equal(tt_read(t, CP), "40\n");
        remove_aside(t);

        /* CRLF and a cut-short last line are not taken silently */
        tt_write(t, SAVED, "fragd-saved 1\nvm.compaction_proactiveness\t0\t40\t1\r\n");
        assert_int_equal(knob_restore_from_journal(t->root, NULL, NULL, OWNERSHIP_RESPECT, &st), -EBADMSG);
        assert_string_equal(tt_read(t, CP), "40\n");
        remove_aside(t);
        tt_write(t, SAVED, "fragd-saved 1\nvm.compaction_proactiveness\t0\t40\t1");
        assert_int_equal(knob_restore_from_journal(t->root, NULL, NULL, OWNERSHIP_RESPECT, &st), -EBADMSG);
        assert_string_equal(tt_read(t, CP), "40\n");
        remove_aside(t);

        /* dry run: reports, moves nothing */
        tt_write(t, SAVED, "garbage\n");
        assert_int_equal(knob_restore_from_journal(t->root, NULL, &knob_ops_dryrun, OWNERSHIP_RESPECT, &st),
                         -EBADMSG);
        assert_true(st.corrupt);
        assert_string_equal(tt_read(t, SAVED), "garbage\n");
        assert_null(aside_name(t));
}

/* A runtime_dir whose path goes through a symlink out of the tree: the
 * journal read inside the root is the one moved aside, inside the root; the
 * host's file of the same name is neither renamed nor read. */
static void test_corrupt_journal_aside_contained(void **state)
{
        TestTree *t = *state;
        KnobRestoreStats st;
        char outside[] = "/tmp/fragd-test-out.XXXXXX", p[512], in[512];
        struct stat sb;

        assert_non_null(mkdtemp(outside));
        snprintf(p, sizeof(p), "%s/fragd", outside);
        assert_int_equal(mkdir(p, 0755), 0);
        snprintf(p, sizeof(p), "%s/fragd/saved", outside);
        {
                FILE *f = fopen(p, "we");

                assert_non_null(f);
                fputs("garbage on the host\n", f);
                assert_int_equal(fclose(f), 0);
        }
        /* <root>/run -> /tmp/fragd-test-out.X, which inside the root is
         * <root>/tmp/fragd-test-out.X: a corrupt journal there too */
        snprintf(in, sizeof(in), "%s/tmp", t->dir);
        (void) mkdir(in, 0755);
        snprintf(in, sizeof(in), "%s%s", t->dir, outside);
        assert_int_equal(mkdir(in, 0755), 0);
        snprintf(in, sizeof(in), "%s%s/fragd", t->dir, outside);
        assert_int_equal(mkdir(in, 0755), 0);
        {
                char rel[64];

                snprintf(rel, sizeof(rel), "%s/fragd/saved", outside + 1);
                tt_write(t, rel, "garbage in the tree\n");
        }
        snprintf(in, sizeof(in), "%s%s/fragd/saved", t->dir, outside);
        assert_int_equal(symlinkat(outside, t->root->root_fd, "run"), 0);

        assert_int_equal(knob_restore_from_journal(t->root, NULL, NULL, OWNERSHIP_RESPECT, &st), -EBADMSG);
        assert_true(st.corrupt);
        assert_non_null(strstr(st.aside, "run/fragd/saved.corrupt-"));
        /* the host's file: where it was, as it was, nothing next to it */
        assert_int_equal(stat(p, &sb), 0);
        {
                char buf[64] = "";
                FILE *f = fopen(p, "re");

                assert_non_null(f);
                assert_non_null(fgets(buf, sizeof(buf), f));
                fclose(f);
                assert_string_equal(buf, "garbage on the host\n");
        }
        assert_int_equal(unlink(p), 0);
        snprintf(p, sizeof(p), "%s/fragd", outside);
        assert_int_equal(rmdir(p), 0); /* no saved.corrupt-* outside */
        assert_int_equal(rmdir(outside), 0);
        /* the one in the tree was moved aside, in the tree */
        assert_int_equal(stat(in, &sb), -1);
        {
                char buf[64];

                assert_int_equal(read_file_at_full(t->root->root_fd, st.aside, 0, buf, sizeof(buf)), 20);
                assert_string_equal(buf, "garbage in the tree\n");
        }
        assert_int_equal(unlink_file_at(t->root->root_fd, st.aside), 0);
        assert_int_equal(unlinkat(t->root->root_fd, "run", 0), 0);
}

/* A 70 MB journal: not read whole, moved aside at once, nothing lost. */
static void test_oversized_journal(void **state)
{
        TestTree *t = *state;
        KnobRegistry *reg = NULL;
        KnobRestoreStats st;
        Journal *j = calloc(1, sizeof(*j));
        char path[600];
        struct stat sb;
        int fd;

        tt_mkdir(t, "run");
        tt_mkdir(t, "run/fragd");
        snprintf(path, sizeof(path), "%s/%s", t->dir, SAVED);
        fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
        assert_true(fd >= 0);
        assert_int_equal(write(fd, "fragd-saved 1\n", 14), 14);
        assert_int_equal(ftruncate(fd, 70 * 1000 * 1000), 0); /* sparse */
        close(fd);
        assert_int_equal(knob_journal_read(t->root->root_fd, "run/fragd", j), -EFBIG);
        assert_int_equal(knob_restore_from_journal(t->root, NULL, NULL, OWNERSHIP_RESPECT, &st), -EBADMSG);
        assert_true(st.corrupt);
        assert_false(tt_exists(t, SAVED));
        snprintf(path, sizeof(path), "%s/%s", t->dir, st.aside);
        assert_int_equal(stat(path, &sb), 0);
        assert_int_equal(sb.st_size, 70 * 1000 * 1000);
        remove_aside(t);

        /* just past the cap is too much; a full journal of KNOB_MAX knobs is far below it */
        snprintf(path, sizeof(path), "%s/%s", t->dir, SAVED);
        fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        assert_true(fd >= 0);
        assert_int_equal(write(fd, "fragd-saved 1\n", 14), 14);
        assert_int_equal(ftruncate(fd, JOURNAL_SIZE_MAX + 1), 0);
        close(fd);
        assert_int_equal(knob_journal_read(t->root->root_fd, "run/fragd", j), -EFBIG);
        assert_true(KNOB_MAX * (KNOB_NAME_MAX + 2 * KNOB_VALUE_MAX + 24) + 256 < JOURNAL_SIZE_MAX);
        assert_int_equal(knob_registry_new(t->root, NULL, NULL, NULL, OWNERSHIP_RESPECT, &reg), -EBADMSG);
        assert_false(tt_exists(t, SAVED));
        remove_aside(t);

        /* a symlink or a FIFO at 'saved' is not followed, not read (no hang) */
        assert_int_equal(symlinkat("../../proc/sys/vm/compaction_proactiveness", t->root->root_fd, SAVED), 0);
        assert_int_equal(knob_restore_from_journal(t->root, NULL, NULL, OWNERSHIP_RESPECT, &st), -ELOOP);
        assert_string_equal(tt_read(t, CP), "0\n");
        /* not fragd's file: left where it is for the operator (not moved aside) */
        assert_null(aside_name(t));
        assert_int_equal(knob_registry_new(t->root, NULL, NULL, NULL, OWNERSHIP_RESPECT, &reg), -ELOOP);
        assert_int_equal(unlinkat(t->root->root_fd, SAVED, 0), 0);
        assert_int_equal(mkfifoat(t->root->root_fd, SAVED, 0600), 0);
        assert_int_equal(knob_restore_from_journal(t->root, NULL, NULL, OWNERSHIP_RESPECT, &st), -EBADMSG);
        remove_aside(t);
        free(j);
}

static void test_dry_run_leaves_journal(void **state)
{
        TestTree *t = *state;
        KnobRegistry *reg = NULL;
        KnobRestoreStats st;

        assert_int_equal(knob_registry_new(t->root, NULL, NULL, NULL, OWNERSHIP_RESPECT, &reg), 0);
        assert_int_equal(knob_set(reg, "vm.compaction_proactiveness", "40", 1), 1);
        reg = knob_registry_free(reg);
        /* a dry-run start neither restores nor removes */
        assert_int_equal(knob_registry_new(t->root, NULL, &knob_ops_dryrun, NULL, OWNERSHIP_RESPECT, &reg), 0);
        assert_string_equal(tt_read(t, CP), "40\n");
        assert_true(tt_exists(t, SAVED));
        reg = knob_registry_free(reg);
        /* fragd --restore --dry-run says what it would do */
        assert_int_equal(knob_restore_from_journal(t->root, NULL, &knob_ops_dryrun, OWNERSHIP_RESPECT, &st), 0);
        assert_int_equal(st.n_restored, 1);
        assert_string_equal(tt_read(t, CP), "40\n");
        assert_true(tt_exists(t, SAVED));
        /* the real one */
        assert_int_equal(knob_restore_from_journal(t->root, NULL, NULL, OWNERSHIP_RESPECT, &st), 0);
        assert_string_equal(tt_read(t, CP), "0\n");
        assert_false(tt_exists(t, SAVED));
}

static void test_pid_alive(void **state)
{
        pid_t pid;
        int status;

        assert_false(pid_is_alive(getpid(), 0)); /* no start time: never a match */
        assert_false(pid_is_alive(1, 0));
        assert_true(pid_is_alive(getpid(), pid_starttime(getpid())));
        assert_true(pid_starttime(getpid()) > 0);
        assert_false(pid_is_alive(getpid(), pid_starttime(getpid()) + 1)); /* a reused pid */
        assert_false(pid_is_alive(0, 0));
        pid = fork();
        if (pid == 0)
                _exit(0);
        assert_int_equal(waitpid(pid, &status, 0), pid);
        assert_false(pid_is_alive(pid, pid_starttime(getpid())));
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_parse_table),
                cmocka_unit_test(test_parse_too_many),
                cmocka_unit_test(test_parse_bad_lines),
                cmocka_unit_test(test_round_trip),
                cmocka_unit_test(test_restore_order),
                cmocka_unit_test(test_pid_alive),
                cmocka_unit_test_setup_teardown(test_crash_recovery, tt_open, tt_close),
                cmocka_unit_test_setup_teardown(test_crash_recovery_external, tt_open, tt_close),
                cmocka_unit_test_setup_teardown(test_crash_recovery_min_free_after_thp, tt_open, tt_close),
                cmocka_unit_test_setup_teardown(test_crash_recovery_failure_adopted, tt_open, tt_close),
                cmocka_unit_test_setup_teardown(test_sigkill_child, tt_open, tt_close),
                cmocka_unit_test_setup_teardown(test_live_fragd_journal_kept, tt_open, tt_close),
                cmocka_unit_test_setup_teardown(test_corrupt_journal, tt_open, tt_close),
                cmocka_unit_test_setup_teardown(test_corrupt_journal_aside_contained, tt_open, tt_close),
                cmocka_unit_test_setup_teardown(test_oversized_journal, tt_open, tt_close),
                cmocka_unit_test_setup_teardown(test_dry_run_leaves_journal, tt_open, tt_close),
        };

        log_set_max_level(getenv("FRAGD_TEST_VERBOSE") ? LOG_DEBUG : LOG_WARNING);
        return cmocka_run_group_tests(tests, NULL, NULL);
}
