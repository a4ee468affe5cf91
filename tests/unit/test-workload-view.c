/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The pure conversions of daemon/output/workload-view.c: CgroupWorkloadView ->
 * Assessment.workloads[] (only cgroups whose last minute is known, capped),
 * -> the exporter's CgroupView, -> the status text. */

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "output/workload-view.h"

static CgroupWorkloadView view(const char *path, uint64_t compact_ms, uint64_t budget_ms)
{
        CgroupWorkloadView v = {
                .path = path,
                .present = true,
                .attribution = WL_ATTR_OK,
                .have_minute = true,
                .compact_delay_usec = 5000000,
                .reclaim_delay_usec = 7000,
                .thrashing_delay_usec = 3,
                .compact_count = 40,
                .reclaim_count = 2,
        };

        v.minute.usec[STALL_COMPACT] = compact_ms * USEC_PER_MSEC;
        v.minute.usec[STALL_RECLAIM] = 20 * USEC_PER_MSEC;
        v.minute.usec[STALL_THRASHING] = 1500;
        v.minute.compact_count = 12;
        v.minute.reclaim_count = 3;
        v.minute.span_usec = USEC_PER_MINUTE;
        v.minute.budget_usec = budget_ms * USEC_PER_MSEC;
        v.minute.budgeted_usec = v.minute.usec[STALL_COMPACT] + v.minute.usec[STALL_RECLAIM];
        v.minute.over_budget = budget_ms && v.minute.budgeted_usec > v.minute.budget_usec;
        v.thp.mechanism = THP_MECH_COLLAPSE;
        return v;
}

static void test_stalls_fill(void **state)
{
        CgroupWorkloadView v[5];
        WorkloadStall out[ASSESSMENT_MAX_WORKLOADS];
        unsigned n;

        (void) state;
        v[0] = view("system.slice/system-postgresql.slice/postgresql@15-main.service", 380, 200);
        v[1] = view("batch.slice", 0, 0);
        v[1].present = false;                       /* absent: left out */
        v[2] = view("system.slice/mysql.service", 5, 0);
        v[2].attribution = WL_ATTR_DELAYACCT_OFF;   /* not known: left out */
        v[3] = view("web.slice", 5, 0);
        v[3].have_minute = false;                   /* no sample yet: left out */
        v[4] = view("", 1, 100);                    /* the root cgroup */

        memset(out, 0xaa, sizeof(out));
        n = workload_stalls_fill(v, 5, out, ASSESSMENT_MAX_WORKLOADS);
        assert_int_equal(n, 2);
        assert_string_equal(out[0].name, "system.slice/system-postgresql.slice/postgresql@15-main.service");
        assert_int_equal(out[0].compact_usec, 380 * USEC_PER_MSEC);
        assert_int_equal(out[0].reclaim_usec, 20 * USEC_PER_MSEC);
        assert_int_equal(out[0].compact_count, 12);
        assert_int_equal(out[0].span_usec, USEC_PER_MINUTE);
        assert_int_equal(out[0].budget_usec, 200 * USEC_PER_MSEC);
        assert_true(out[0].over_budget);
        assert_string_equal(out[1].name, "/");
        assert_false(out[1].over_budget);
        assert_int_equal(out[1].budget_usec, 100 * USEC_PER_MSEC);

        /* the cap holds */
        assert_int_equal(workload_stalls_fill(v, 5, out, 1), 1);
        assert_int_equal(workload_stalls_fill(v, 0, out, 4), 0);
}

static void test_stalls_name_truncated(void **state)
{
        char longpath[200];
        CgroupWorkloadView v;
        WorkloadStall out[1];

        (void) state;
        memset(longpath, 'a', sizeof(longpath) - 1);
        longpath[sizeof(longpath) - 1] = '\0';
        v = view(longpath, 1, 0);
        assert_int_equal(workload_stalls_fill(&v, 1, out, 1), 1);
        assert_int_equal(strlen(out[0].name), sizeof(out[0].name) - 1);
}

static void test_cgroup_view(void **state)
{
        CgroupWorkloadView v = view("system.slice/system-postgresql.slice/postgresql@15-main.service", 380, 0);
        CgroupView c;

        (void) state;
        v.have_pressure = true;
        v.pressure.some.total_usec = 380000;
        v.pressure.full.total_usec = 120000;
        v.have_mem = true;
        v.mem.anon_thp = 201326592;
        v.mem.shmem_thp = 4096;
        cgroup_view_fill(&v, &c);
        assert_string_equal(c.name, "system.slice/system-postgresql.slice/postgresql@15-main.service");
        assert_true(c.present);
        assert_true(c.have_psi);
        assert_int_equal(c.psi_some_usec, 380000);
        assert_int_equal(c.psi_full_usec, 120000);
        assert_true(c.have_thp);
        assert_int_equal(c.anon_thp_bytes, 201326592);
        assert_int_equal(c.shmem_thp_bytes, 4096);
        assert_true(c.have_delay);
        assert_int_equal(c.compact_delay_ns, 5000000ULL * 1000);
        assert_int_equal(c.reclaim_delay_ns, 7000ULL * 1000);
        assert_int_equal(c.compact_count, 40);
        assert_string_equal(c.mechanism, "madv_collapse");

        /* absent, no attribution: only presence and the mechanism */
        v.present = false;
        v.attribution = WL_ATTR_DISABLED;
        v.thp.mechanism = THP_MECH_NONE;
        cgroup_view_fill(&v, &c);
        assert_false(c.present);
        assert_false(c.have_psi);
        assert_false(c.have_thp);
        assert_false(c.have_delay);
        assert_string_equal(c.mechanism, "none");

        assert_string_equal(thp_mechanism_metric_label(THP_MECH_LAUNCHER), "prctl_launcher");
        assert_string_equal(thp_mechanism_metric_label(THP_MECH_SYSTEMD_MEMORYTHP), "memory_thp");
        assert_null(thp_mechanism_metric_label(_THP_MECH_MAX));
}

static void test_stall_text(void **state)
{
        CgroupWorkloadView v = view("a.slice", 380, 200);
        char buf[256];

        (void) state;
        assert_string_equal(workload_stall_text(&v, buf, sizeof(buf)),
                            "last minute: 380 ms direct compaction (12), 20 ms direct reclaim (3), 1 ms thrashing, "
                            "budget 200 ms: OVER BUDGET");
        v.minute.partial = true;
        v.minute.budget_usec = 0;
        assert_non_null(strstr(workload_stall_text(&v, buf, sizeof(buf)), "minute (partly observed)"));
        assert_null(strstr(buf, "budget"));
        v.attribution = WL_ATTR_NO_TASKSTATS;
        assert_string_equal(workload_stall_text(&v, buf, sizeof(buf)),
                            "stall attribution unavailable (no-taskstats)");
        v.present = false;
        assert_string_equal(workload_stall_text(&v, buf, sizeof(buf)), "absent");
        /* never overruns */
        assert_string_equal(workload_stall_text(&v, buf, 4), "abs");
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_stalls_fill),
                cmocka_unit_test(test_stalls_name_truncated),
                cmocka_unit_test(test_cgroup_view),
                cmocka_unit_test(test_stall_text),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
