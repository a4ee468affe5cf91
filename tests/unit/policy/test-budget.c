/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Sliding-window budget accounting. Links libpolicy.a only. Time is given,
 * never read. */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "fragd/budget.h"

#define S USEC_PER_SEC

static void test_empty(void **state)
{
        BudgetWindow w;
        uint64_t d;

        (void) state;
        budget_window_init(&w, 60 * S);
        assert_int_equal(budget_window_delta(&w, 10 * S, &d, NULL), -ENODATA);
        assert_int_equal(budget_remaining(&w, 10 * S, 100), 100);
        assert_true(budget_remaining(&w, 10 * S, 0) == UINT64_MAX);
}

static void test_partial_history(void **state)
{
        BudgetWindow w;
        uint64_t d;
        usec_t span;

        (void) state;
        budget_window_init(&w, 60 * S);
        assert_int_equal(budget_window_add(&w, 100 * S, 1000), 0);
        assert_int_equal(budget_window_delta(&w, 100 * S, &d, &span), 0);
        assert_int_equal(d, 0);
        assert_int_equal(span, 0);
        assert_int_equal(budget_window_add(&w, 110 * S, 1500), 0);
        assert_int_equal(budget_window_add(&w, 120 * S, 1700), 0);
        assert_int_equal(budget_window_delta(&w, 120 * S, &d, &span), 0);
        assert_int_equal(d, 700);
        assert_int_equal(span, 20 * S);
}

/* A counter growing 10 per second, sampled every second for 5 minutes: the
 * last minute always holds 600. */
static void test_steady_rate(void **state)
{
        BudgetWindow w;
        BudgetStatus st;

        (void) state;
        budget_window_init(&w, 60 * S);
        for (unsigned t = 0; t <= 300; t++) {
                assert_true(budget_window_add(&w, t * S, 10ULL * t) >= 0);
                if (t >= 60) {
                        assert_int_equal(budget_check(&w, t * S, 500, &st), 0);
                        assert_int_equal(st.used, 600);
                        assert_false(st.partial);
                        assert_true(st.over);
                        assert_int_equal(st.used_permille, 1200);
                }
        }
        assert_int_equal(budget_remaining(&w, 300 * S, 1000), 400);
        assert_int_equal(budget_remaining(&w, 300 * S, 500), 0);
}

/* A burst 90 s ago is outside the window; a burst 30 s ago is inside. */
static void test_burst_ages_out(void **state)
{
        BudgetWindow w;
        uint64_t d;

        (void) state;
        budget_window_init(&w, 60 * S);
        budget_window_add(&w, 0, 0);
        budget_window_add(&w, 9 * S, 0);
        budget_window_add(&w, 10 * S, 380000); /* 380 ms of stall at t=10 s */
        for (unsigned t = 11; t <= 69; t++)
                budget_window_add(&w, t * S, 380000);
        assert_int_equal(budget_window_delta(&w, 69 * S, &d, NULL), 0);
        assert_int_equal(d, 380000);
        /* at 72 s the window starts at 12 s: the burst is gone */
        budget_window_add(&w, 72 * S, 380000);
        assert_int_equal(budget_window_delta(&w, 72 * S, &d, NULL), 0);
        assert_int_equal(d, 0);
        budget_window_add(&w, 100 * S, 380500);
        assert_int_equal(budget_window_delta(&w, 100 * S, &d, NULL), 0);
        assert_int_equal(d, 500);
}

/* Sparse samples: the window start falls between two samples and the value
 * there is interpolated. */
static void test_interpolation(void **state)
{
        BudgetWindow w;
        uint64_t d;

        (void) state;
        budget_window_init(&w, 60 * S);
        budget_window_add(&w, 0, 0);
        budget_window_add(&w, 40 * S, 400);
        budget_window_add(&w, 80 * S, 800);
        /* window [20 s, 80 s]: value at 20 s interpolates to 200 */
        assert_int_equal(budget_window_delta(&w, 80 * S, &d, NULL), 0);
        assert_int_equal(d, 600);
        /* asking later without new samples: window [40, 100] -> 800-400 */
        assert_int_equal(budget_window_delta(&w, 100 * S, &d, NULL), 0);
        assert_int_equal(d, 400);
        /* nothing recorded inside [150, 210]: no growth seen */
        assert_int_equal(budget_window_delta(&w, 210 * S, &d, NULL), 0);
        assert_int_equal(d, 0);
}

/* Many samples per second must not shorten the history below a window. */
static void test_fast_ticks(void **state)
{
        BudgetWindow w;
        uint64_t d;
        usec_t span;

        (void) state;
        budget_window_init(&w, 60 * S);
        for (usec_t t = 0; t <= 120 * S; t += 100 * USEC_PER_MSEC)
                budget_window_add(&w, t, t / USEC_PER_MSEC); /* 1 per ms */
        assert_int_equal(budget_window_delta(&w, 120 * S, &d, &span), 0);
        assert_int_equal(span, 60 * S);
        assert_int_equal(d, 60000);
}

static void test_reset(void **state)
{
        BudgetWindow w;
        uint64_t d;

        (void) state;
        budget_window_init(&w, 60 * S);
        budget_window_add(&w, 0, 5000);
        budget_window_add(&w, 10 * S, 6000);
        /* the source restarted from zero */
        assert_int_equal(budget_window_add(&w, 20 * S, 300), 1);
        assert_int_equal(budget_window_delta(&w, 20 * S, &d, NULL), 0);
        assert_int_equal(d, 1300);
        assert_int_equal(budget_window_add(&w, 30 * S, 400), 0);
        assert_int_equal(budget_window_delta(&w, 30 * S, &d, NULL), 0);
        assert_int_equal(d, 1400);
        /* time going backwards is refused */
        assert_int_equal(budget_window_add(&w, 29 * S, 500), -EINVAL);
}

static void test_no_budget(void **state)
{
        BudgetWindow w;
        BudgetStatus st;

        (void) state;
        budget_window_init(&w, 60 * S);
        budget_window_add(&w, 0, 0);
        budget_window_add(&w, 30 * S, UINT64_MAX / 2);
        assert_int_equal(budget_check(&w, 30 * S, 0, &st), 0);
        assert_false(st.over);
        assert_true(st.partial);
        assert_int_equal(st.used_permille, 0);
        /* huge use against a tiny budget: permille capped */
        assert_int_equal(budget_check(&w, 30 * S, 1, &st), 0);
        assert_true(st.over);
        assert_int_equal(st.used_permille, 1000000);
}

static void test_stall_minute(void **state)
{
        StallWindows sw;
        StallTotals t = { 0 };
        StallMinute m;

        (void) state;
        stall_windows_init(&sw, 60 * S);
        assert_int_equal(stall_windows_minute(&sw, 0, 0, &m), -ENODATA);
        stall_windows_add(&sw, 0, &t);
        /* postgres: 380 ms direct compaction, 20 ms reclaim within a minute */
        t.usec[STALL_COMPACT] = 380000;
        t.usec[STALL_RECLAIM] = 20000;
        t.usec[STALL_THRASHING] = 7;
        t.compact_count = 12;
        t.reclaim_count = 3;
        stall_windows_add(&sw, 30 * S, &t);
        assert_int_equal(stall_windows_minute(&sw, 30 * S, 250000, &m), 0);
        assert_int_equal(m.usec[STALL_COMPACT], 380000);
        assert_int_equal(m.usec[STALL_RECLAIM], 20000);
        assert_int_equal(m.usec[STALL_THRASHING], 7);
        assert_int_equal(m.compact_count, 12);
        assert_int_equal(m.reclaim_count, 3);
        assert_int_equal(m.budgeted_usec, 400000);
        assert_true(m.over_budget);
        assert_true(m.partial);
        assert_int_equal(stall_windows_minute(&sw, 30 * S, 0, &m), 0);
        assert_false(m.over_budget);
        assert_string_equal(stall_kind_name(STALL_COMPACT), "compact");
        assert_null(stall_kind_name(_STALL_KIND_MAX));
}

/* Property: for random monotonic series the delta never exceeds the total
 * growth and never goes negative; with a fixed seed for reproducibility. */
static void test_random_monotonic(void **state)
{
        unsigned seed = 12345;
        const char *env = getenv("FRAGD_TEST_SEED");

        (void) state;
        if (env)
                seed = (unsigned) strtoul(env, NULL, 0);
        srand(seed);
        for (unsigned round = 0; round < 200; round++) {
                BudgetWindow w;
                usec_t t = (usec_t) (rand() % 1000) * S;
                uint64_t v = (uint64_t) rand(), first = v;

                budget_window_init(&w, 60 * S);
                for (unsigned i = 0; i < 500; i++) {
                        uint64_t d;

                        t += (usec_t) (rand() % 5000) * USEC_PER_MSEC;
                        v += (uint64_t) (rand() % 1000);
                        assert_true(budget_window_add(&w, t, v) >= 0);
                        assert_int_equal(budget_window_delta(&w, t, &d, NULL), 0);
                        assert_true(d <= v - first);
                }
        }
}

/* The edges, by hand: the default window, the sample spacing, a budget
 * met exactly, used_permille's ceiling, the stall minute's span and counts */
static void test_budget_edges(void **state)
{
        BudgetWindow w;
        BudgetStatus st;
        StallWindows sw;
        StallMinute m;
        StallTotals t = { 0 };
        uint64_t d = 0;
        usec_t span = 0;

        (void) state;
        budget_window_init(&w, 0);
        assert_int_equal(w.window_usec, 60 * S);
        budget_window_init(&w, 1);
        assert_int_equal(w.window_usec, 1);
        /* 60 s / 32 = 1.875 s apart: samples every 1 s keep every second */
        budget_window_init(&w, 60 * S);
        for (unsigned i = 0; i <= 10; i++)
                assert_int_equal(budget_window_add(&w, i * S, i * 100), 0);
        assert_int_equal(w.n, 5); /* 0, 2, 4, 6, 8 s in the ring, 10 s the last */
        /* samples at one instant are not kept twice */
        budget_window_init(&w, 1);
        budget_window_add(&w, 1, 0);
        budget_window_add(&w, 1, 1);
        budget_window_add(&w, 1, 2);
        assert_int_equal(w.n, 1);
        /* a window of 1 us: spacing 1 */
        budget_window_init(&w, 1);
        assert_int_equal(budget_window_add(&w, 1, 0), 0);
        assert_int_equal(budget_window_add(&w, 2, 5), 0);
        assert_int_equal(budget_window_add(&w, 3, 9), 0);
        assert_int_equal(w.n, 2);

        /* exactly the window of history: the delta over all of it */
        budget_window_init(&w, 60 * S);
        for (unsigned i = 0; i <= 12; i++)
                budget_window_add(&w, i * 5 * S, i * 1000);
        assert_int_equal(budget_window_delta(&w, 60 * S, &d, &span), 0);
        assert_int_equal(d, 12000);
        assert_int_equal(span, 60 * S);
        /* 2.5 s later: the start interpolated half way into the first step */
        assert_int_equal(budget_window_delta(&w, 62 * S + S / 2, &d, &span), 0);
        assert_int_equal(d, 12000 - 500);
        assert_int_equal(span, 60 * S);
        /* used exactly = budget: not over; permille capped at 1000000 */
        assert_int_equal(budget_check(&w, 60 * S, 12000, &st), 0);
        assert_false(st.over);
        assert_int_equal(st.used_permille, 1000);
        assert_false(st.partial);
        assert_int_equal(budget_check(&w, 60 * S, 11999, &st), 0);
        assert_true(st.over);
        assert_int_equal(budget_check(&w, 60 * S, 12, &st), 0);
        assert_int_equal(st.used_permille, 1000000);
        assert_int_equal(budget_check(&w, 60 * S, 11, &st), 0);
        assert_int_equal(st.used_permille, 1000000);
        /* 1000001 used of a budget of 1000: permille 1000001, capped */
        budget_window_init(&sw.usec[0], 60 * S);
        budget_window_add(&sw.usec[0], 0, 0);
        budget_window_add(&sw.usec[0], S, 1000001);
        assert_int_equal(budget_check(&sw.usec[0], S, 1000, &st), 0);
        assert_int_equal(st.used_permille, 1000000);
        assert_int_equal(budget_check(&sw.usec[0], S, 1001, &st), 0);
        assert_int_equal(st.used_permille, 999001);
        assert_int_equal(budget_remaining(&w, 60 * S, 12000), 0);
        assert_int_equal(budget_remaining(&w, 60 * S, 12001), 1);

        /* the stall minute: span from the first kind, counts, budget met exactly */
        stall_windows_init(&sw, 60 * S);
        assert_int_equal(sw.compact_count.window_usec, 60 * S);
        assert_int_equal(sw.reclaim_count.window_usec, 60 * S);
        stall_windows_add(&sw, 10 * S, &t);
        t.usec[STALL_COMPACT] = 300000;
        t.usec[STALL_RECLAIM] = 200000;
        t.usec[STALL_PSI_SOME] = 900000;
        t.compact_count = 7;
        t.reclaim_count = 3;
        stall_windows_add(&sw, 40 * S, &t);
        assert_int_equal(stall_windows_minute(&sw, 40 * S, 500000, &m), 0);
        assert_int_equal(m.span_usec, 30 * S);
        assert_true(m.partial);
        assert_int_equal(m.usec[STALL_COMPACT], 300000);
        assert_int_equal(m.usec[STALL_PSI_SOME], 900000);
        assert_int_equal(m.compact_count, 7);
        assert_int_equal(m.reclaim_count, 3);
        assert_int_equal(m.budgeted_usec, 500000);
        assert_false(m.over_budget);
        assert_int_equal(stall_windows_minute(&sw, 40 * S, 499999, &m), 0);
        assert_true(m.over_budget);
        assert_int_equal(stall_windows_minute(&sw, 40 * S, 0, &m), 0);
        assert_false(m.over_budget);
        assert_string_equal(stall_kind_name(STALL_PSI_SOME), "psi_some");
        assert_null(stall_kind_name(_STALL_KIND_MAX));
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_empty),         cmocka_unit_test(test_partial_history),
                cmocka_unit_test(test_steady_rate),   cmocka_unit_test(test_burst_ages_out),
                cmocka_unit_test(test_interpolation), cmocka_unit_test(test_fast_ticks),
                cmocka_unit_test(test_reset),         cmocka_unit_test(test_no_budget),
                cmocka_unit_test(test_stall_minute),  cmocka_unit_test(test_random_monotonic),
                cmocka_unit_test(test_budget_edges),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
