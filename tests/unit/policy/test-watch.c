/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Watching closely (policy/state.c): a tick with THP faults, direct
 * compaction or reclaim, or a watched workload's stall is activity;
 * policy_state_update() records it, and policy_watch_closely() holds for
 * active_hold after the last one. The daemon ticks every active_interval
 * meanwhile (daemon/service/manager.c), so a burst that drains the reserve is seen
 * before the next one. */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "policy-test-util.h"

#define S USEC_PER_SEC
#define HOLD (120 * S)

static TSim *sim_new(void)
{
        TSim *s = malloc(sizeof(*s));

        assert_non_null(s);
        t_sim_init(s);
        return s;
}

static void test_quiet_is_not_activity(void **state)
{
        TSim *s = sim_new();
        TWorld w = t_world_fine(1);

        (void) state;
        for (unsigned i = 0; i < 10; i++) {
                t_sim_tick(s, &w, 5);
                assert_false(policy_tick_active(&s->a, &s->d));
        }
        assert_int_equal(s->state.last_activity_usec, 0);
        assert_false(policy_watch_closely(&s->state, s->now, HOLD));
        free(s);
}

static void test_each_signal_is_activity(void **state)
{
        static const struct {
                const char *what;
                double alloc, fallback, stall, allocstall;
        } cases[] = {
                { "THP faults served", 10.0, 0, 0, 0 },
                { "THP faults fallen back", 0, 3.0, 0, 0 },
                { "direct compaction", 0, 0, 0.2, 0 },
                { "direct reclaim", 0, 0, 0, 1.0 },
        };
        (void) state;
        for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
                TSim *s = sim_new();
                TWorld w = t_world_fine(1);

                t_sim_tick(s, &w, 5);
                w.thp_alloc_per_sec = cases[c].alloc;
                w.thp_fallback_per_sec = cases[c].fallback;
                w.stall_per_sec = cases[c].stall;
                t_assess(&w, s->now + 5 * S, &s->a);
                s->a.rates.allocstall = cases[c].allocstall;
                s->now += 5 * S;
                assert_int_equal(policy_decide(&s->cfg, &s->state, &s->a, s->in, s->now, &s->d), 0);
                if (!policy_tick_active(&s->a, &s->d))
                        fail_msg("%s is not activity", cases[c].what);
                policy_state_update(&s->state, &s->a, &s->d, s->now);
                assert_int_equal(s->state.last_activity_usec, s->now);
                free(s);
        }
}

static void test_workload_stall_is_activity(void **state)
{
        TSim *s = sim_new();
        TWorld w = t_world_fine(1);

        (void) state;
        w.n_workloads = 1;
        w.workloads[0] = t_workload("system.slice/system-postgresql.slice/postgresql@15-main.service", 300, 0, 100);
        t_sim_tick(s, &w, 5);
        assert_true(policy_tick_active(&s->a, &s->d));
        assert_int_equal(s->state.last_activity_usec, s->now);
        free(s);
}

/* without two readings there are no rates: nothing to call activity */
static void test_no_rates_no_activity(void **state)
{
        TSim *s = sim_new();
        TWorld w = t_world_fine(1);

        (void) state;
        w.rates_valid = false;
        w.thp_alloc_per_sec = 100.0;
        t_sim_tick(s, &w, 5);
        assert_false(policy_tick_active(&s->a, &s->d));
        free(s);
}

/* held for exactly hold after the last activity, renewed by each one */
static void test_hold_window(void **state)
{
        TSim *s = sim_new();
        TWorld w = t_world_fine(1);
        usec_t t_burst;

        (void) state;
        t_sim_tick(s, &w, 5);
        w.thp_alloc_per_sec = 50.0;
        t_sim_tick(s, &w, 1);
        t_burst = s->now;
        w.thp_alloc_per_sec = 0;
        t_sim_tick(s, &w, 1);
        assert_int_equal(s->state.last_activity_usec, t_burst); /* a quiet tick keeps the time */
        assert_true(policy_watch_closely(&s->state, t_burst, HOLD));
        assert_true(policy_watch_closely(&s->state, t_burst + HOLD - 1, HOLD));
        assert_false(policy_watch_closely(&s->state, t_burst + HOLD, HOLD));
        assert_false(policy_watch_closely(&s->state, t_burst + 10 * HOLD, HOLD));
        /* a clock before the activity (a restored state, a test) is not "recent" */
        assert_false(policy_watch_closely(&s->state, t_burst - 1, HOLD));
        /* hold 0: never */
        assert_false(policy_watch_closely(&s->state, t_burst, 0));

        /* a second burst renews the window */
        s->now = t_burst + HOLD - 5 * S;
        w.stall_per_sec = 2.0;
        t_sim_tick(s, &w, 1);
        assert_true(policy_watch_closely(&s->state, t_burst + HOLD + 10 * S, HOLD));
        free(s);
}

static void kv_set(KvList *l, const char *name, uint64_t v)
{
        for (unsigned i = 0; i < l->n; i++)
                if (strcmp(l->e[i].name, name) == 0) {
                        l->e[i].value = v;
                        return;
                }
        assert_true(l->n < FRAGD_MAX_KV);
        snprintf(l->e[l->n].name, sizeof(l->e[l->n].name), "%s", name);
        l->e[l->n++].value = v;
}

/* The daemon's sentinel compares policy_activity_counters() between two
 * ticks: every counter behind policy_tick_active() moves it, the others do
 * not, and a kernel without a counter counts it 0. */
static void test_activity_counters(void **state)
{
        static const char *const active[] = {
                "thp_fault_alloc",   "thp_fault_fallback", "compact_stall",      "allocstall_dma",
                "allocstall_dma32",  "allocstall_normal",  "allocstall_movable", "allocstall_device",
        };
        static const char *const other[] = {
                "pgscan_kswapd", "compact_daemon_wake", "compact_migrate_scanned", "thp_collapse_alloc",
                "pgscan_direct", "nr_free_pages",
        };
        KvList *l = calloc(1, sizeof(*l));
        uint64_t base;

        (void) state;
        assert_non_null(l);
        assert_int_equal(policy_activity_counters(l), 0); /* none of them: 0 */
        for (size_t i = 0; i < sizeof(active) / sizeof(active[0]); i++)
                kv_set(l, active[i], 1000 + i);
        for (size_t i = 0; i < sizeof(other) / sizeof(other[0]); i++)
                kv_set(l, other[i], 5000 + i);
        base = policy_activity_counters(l);
        assert_int_equal(base, 8 * 1000 + 28); /* the active ones only */
        for (size_t i = 0; i < sizeof(active) / sizeof(active[0]); i++) {
                kv_set(l, active[i], 1000 + i + 1);
                if (policy_activity_counters(l) != base + 1)
                        fail_msg("%s does not move the activity counters", active[i]);
                kv_set(l, active[i], 1000 + i);
        }
        for (size_t i = 0; i < sizeof(other) / sizeof(other[0]); i++) {
                kv_set(l, other[i], 9999);
                if (policy_activity_counters(l) != base)
                        fail_msg("%s moves the activity counters", other[i]);
        }
        free(l);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_quiet_is_not_activity),
                cmocka_unit_test(test_each_signal_is_activity),
                cmocka_unit_test(test_workload_stall_is_activity),
                cmocka_unit_test(test_no_rates_no_activity),
                cmocka_unit_test(test_hold_window),
                cmocka_unit_test(test_activity_counters),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
