/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The workload module on the synthetic fixture: membership, absent cgroups,
 * THP intent status, attribution bookkeeping (exit records for leaders,
 * groups, threads, short-lived children via fork events, orphans), the
 * per-minute window, collapse through the worker with fake syscalls.
 * Netlink is off for fixture roots, so nothing here needs privileges. */

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "workload/workload.h"

#define MiB (1ULL << 20)
#define S USEC_PER_SEC

static const char *srcdir(void)
{
        const char *d = getenv("FRAGD_SRCDIR");
        return d && *d ? d : ".";
}

static const char fake_smaps[] = "7f0000000000-7f0001000000 rw-p 00000000 00:00 0 \n"
                                 "Rss: 16384 kB\nAnonHugePages: 0 kB\nVmFlags: rd wr mr mw me ac\n";
static unsigned collapse_calls;
static usec_t fake_clock;

static int f_open(void *u, int32_t pid) { return 100; }
static int f_collapse(void *u, int fd, uint64_t a, uint64_t l)
{
        collapse_calls++;
        fake_clock += 500;
        return collapse_calls == 3 ? -ENOMEM : 0;
}
static int f_smaps(void *u, int32_t pid, char **b, size_t *l)
{
        *b = strdup(fake_smaps);
        *l = strlen(fake_smaps);
        return 0;
}
static usec_t f_cpu(void *u) { return fake_clock; }
static void f_close(void *u, int fd) {}
static const CollapseOps fake_ops = { f_open, f_collapse, f_smaps, f_cpu, f_close, NULL };

static FragdConfig *config(void)
{
        FragdConfig *c = calloc(1, sizeof(*c));

        c->daemon.psi_trigger_threshold_usec = 0; /* never write fixture files */
        c->daemon.enable_delayacct = true;
        c->n_cgroups = 4;
        c->cgroups[0] = (CgroupConfig) { .path = "system.slice/system-postgresql.slice/postgresql@15-main.service", .watch = true,
                                         .thp = CGROUP_THP_NEVER, .stall_budget_usec = 100000 };
        c->cgroups[1] = (CgroupConfig) { .path = "batch.slice", .watch = true, .thp = CGROUP_THP_ALWAYS,
                                         .collapse = true, .collapse_cpu_budget_usec = 100000,
                                         .collapse_max_bytes_per_tick = 64 * MiB };
        c->cgroups[2] = (CgroupConfig) { .path = "system.slice/mysql.service", .watch = true };
        c->cgroups[3] = (CgroupConfig) { .path = "unwatched.slice", .watch = false };
        return c;
}

static TaskstatsReply exit_rec(bool aggr_tgid, uint32_t id, uint32_t tgid, uint64_t compact_ns, uint64_t reclaim_ns)
{
        TaskstatsReply r = { .n = 1 };

        r.rec[0] = (TaskstatsRecord) { .aggr_tgid = aggr_tgid, .id = id, .version = 16,
                                       .have = TS_HAVE_PID | TS_HAVE_TGID | TS_HAVE_COMPACT | TS_HAVE_RECLAIM,
                                       .ac_pid = aggr_tgid ? 0 : id, .ac_tgid = aggr_tgid ? 0 : tgid,
                                       .compact_delay_ns = compact_ns, .compact_count = compact_ns ? 1 : 0,
                                       .reclaim_delay_ns = reclaim_ns };
        return r;
}

static void test_workload_fixture(void **state)
{
        char path[4096];
        Root *root;
        FragdConfig *cfg = config();
        WorkloadOptions opt = WORKLOAD_OPTIONS_DEFAULT;
        Workload *w;
        WorkloadTickResult tr;
        CgroupWorkloadView v;
        WorkloadGlobalView g;
        TaskstatsReply rep;
        ProcEvent ev;

        (void) state;
        snprintf(path, sizeof(path), "%s/tests/fixtures/synthetic-cgroup-v2", srcdir());
        assert_int_equal(root_open(path, 4096, &root), 0);
        opt.collapse_ops = &fake_ops;
        assert_int_equal(workload_new(root, cfg, &opt, &w), 0);
        assert_int_equal(workload_n_cgroups(w), 3); /* the unwatched one is not kept */
        assert_int_equal(workload_taskstats_fd(w), -1);
        assert_int_equal(workload_proc_events_fd(w), -1);
        assert_true(workload_collapse_fd(w) >= 0);

        workload_global_view(w, &g);
        assert_int_equal(g.attribution, WL_ATTR_DISABLED);
        assert_int_equal(g.delayacct, 0);
        assert_true(g.delayacct_enable_wanted);
        assert_string_equal(g.root.path, "sys/fs/cgroup");

        /* tick 1: host not calm, so no collapse yet */
        assert_int_equal(workload_tick(w, 10 * S, false, &tr), 0);
        assert_false(tr.collapse_submitted);
        assert_int_equal(tr.psi_appeared, 0); /* no triggers configured */
        assert_int_equal(workload_view(w, 0, &v), 0);
        assert_true(v.present);
        assert_int_equal(v.n_procs, 3);
        assert_int_equal(v.mem.anon_thp, 201326592);
        assert_int_equal(v.thp.intent, CGROUP_THP_NEVER);
        assert_true(v.thp.mechanism == THP_MECH_LAUNCHER || v.thp.mechanism == THP_MECH_SYSTEMD_MEMORYTHP);
        assert_int_equal(v.thp.effect, THP_EFFECT_PARTIAL); /* 4243 runs with THP off, 4242 and 4250 not */
        assert_non_null(strstr(v.thp.detail, "1 of 3"));
        assert_int_equal(workload_view(w, 2, &v), 0);
        assert_false(v.present);
        assert_int_equal(workload_view(w, 3, &v), -EINVAL);
        /* the tasks the trace instance is scoped to: every thread of the
         * present watched cgroups (mysql.service is absent), sorted */
        {
                int32_t *tids = NULL;
                size_t n = 0;
                static const int32_t want[] = { 4242, 4243, 4244, 4250, 5000, 5001 };

                assert_int_equal(workload_tasks(w, &tids, &n), 0);
                assert_int_equal(n, ELEMENTSOF(want));
                for (size_t i = 0; i < n; i++)
                        assert_int_equal(tids[i], want[i]);
                free(tids);
        }

        /* 4243 (single-threaded) exits with 5 ms of direct compaction */
        rep = exit_rec(false, 4243, 4243, 5000000, 1000000);
        workload_apply_exit(w, &rep);
        /* a thread of 4242 exits: covered by the group, not counted alone */
        rep = exit_rec(false, 4244, 4242, 99000000, 0);
        workload_apply_exit(w, &rep);
        /* a short-lived child of 4242: fork event, then its exit record */
        ev = (ProcEvent) { .type = PROC_EV_FORK, .pid = 4300, .tgid = 4300, .parent_pid = 4242, .parent_tgid = 4242 };
        workload_apply_proc_event(w, &ev);
        rep = exit_rec(false, 4300, 4300, 2000000, 0);
        workload_apply_exit(w, &rep);
        /* a multi-threaded group's final record */
        ev.pid = ev.tgid = 4301;
        workload_apply_proc_event(w, &ev);
        rep = exit_rec(true, 4301, 0, 3000000, 0);
        workload_apply_exit(w, &rep);
        /* a new thread is not a process */
        ev = (ProcEvent) { .type = PROC_EV_FORK, .pid = 4302, .tgid = 4242, .parent_pid = 4242, .parent_tgid = 4242 };
        workload_apply_proc_event(w, &ev);
        /* nobody knows 7777 (not in the fixture's /proc): unattributed */
        rep = exit_rec(false, 7777, 7777, 1000000, 0);
        workload_apply_exit(w, &rep);

        assert_int_equal(workload_tick(w, 20 * S, true, &tr), 0);
        assert_int_equal(workload_view(w, 0, &v), 0);
        assert_int_equal(v.compact_delay_usec, 5000 + 2000 + 3000);
        assert_int_equal(v.compact_count, 3);
        assert_int_equal(v.reclaim_delay_usec, 1000);
        assert_true(v.have_minute);
        assert_int_equal(v.minute.usec[STALL_COMPACT], 10000);
        assert_false(v.minute.over_budget); /* 11 ms of 100 ms */
        workload_global_view(w, &g);
        assert_int_equal(g.exit_records, 5);
        assert_int_equal(g.exits_unattributed, 1);

        /* more than the budget within the minute */
        ev = (ProcEvent) { .type = PROC_EV_FORK, .pid = 4303, .tgid = 4303, .parent_pid = 4242, .parent_tgid = 4242 };
        workload_apply_proc_event(w, &ev);
        rep = exit_rec(false, 4303, 4303, 380000000, 0);
        workload_apply_exit(w, &rep);
        assert_int_equal(workload_tick(w, 30 * S, true, &tr), 0);
        assert_true(tr.over_budget & 1);
        assert_int_equal(workload_view(w, 0, &v), 0);
        assert_true(v.minute.over_budget);
        assert_int_equal(v.minute.usec[STALL_COMPACT], 390000);
        /* totals never go down, the minute forgets */
        assert_int_equal(workload_tick(w, 200 * S, true, &tr), 0);
        assert_int_equal(workload_view(w, 0, &v), 0);
        assert_int_equal(v.compact_delay_usec, 390000);
        assert_int_equal(v.minute.usec[STALL_COMPACT], 0);
        assert_false(tr.over_budget & 1);

        /* batch.slice was calm at tick 2: a collapse went to the worker */
        {
                struct pollfd pfd = { .fd = workload_collapse_fd(w), .events = POLLIN };

                assert_int_equal(poll(&pfd, 1, 5000), 1);
                assert_int_equal(workload_on_collapse(w), 0);
        }
        assert_int_equal(workload_view(w, 1, &v), 0);
        assert_int_equal(v.thp.mechanism, THP_MECH_COLLAPSE);
        assert_int_equal(v.collapse_attempted_bytes, 16 * MiB);
        assert_int_equal(v.collapse_bytes, 14 * MiB);
        assert_int_equal(v.collapse_failed_hpages, 1);
        assert_int_equal(v.collapse_err_counts[COLLAPSE_ERR_ENOMEM], 1);
        assert_true(v.have_last_failure);
        assert_int_equal(v.last_failure.pid, 5000);
        assert_int_equal(v.last_failure.err, -ENOMEM);
        assert_int_equal(v.collapse_cpu_usec, 4000);

        {
                char *buf = NULL;
                size_t len = 0;
                FILE *f = open_memstream(&buf, &len);

                assert_int_equal(workload_report(w, f), 0);
                assert_int_equal(workload_report_json(w, f), 0);
                fclose(f);
                assert_non_null(strstr(buf, "system.slice/mysql.service: absent"));
                assert_non_null(strstr(buf, "stall attribution: disabled"));
                assert_non_null(strstr(buf, "THP intent never via"));
                assert_non_null(strstr(buf, "\"cgroup\":\"batch.slice\""));
                assert_non_null(strstr(buf, "\"thp_mechanism\":\"collapse\""));
                free(buf);
        }
        workload_free(w);
        root_free(root);
        free(cfg);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_workload_fixture),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
