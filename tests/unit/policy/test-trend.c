/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Least squares against hand-computed fits. */

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "fragd/policy.h"

#define S USEC_PER_SEC

static void fit(const usec_t *t, const double *y, unsigned n, usec_t ref, Trend *ret)
{
        TrendAccum acc;

        trend_init(&acc, ref);
        for (unsigned i = 0; i < n; i++)
                trend_add(&acc, t[i], y[i]);
        trend_fit(&acc, ret);
}

static void test_exact_line(void **state)
{
        /* y = 1000 - 10 t (bytes, t in s): slope -10 B/s, value 800 at t = 20 */
        usec_t t[] = { 0, 5 * S, 10 * S, 15 * S, 20 * S };
        double y[] = { 1000, 950, 900, 850, 800 };
        Trend tr;

        fit(t, y, 5, 20 * S, &tr);
        assert_true(tr.valid);
        assert_int_equal(tr.n, 5);
        assert_int_equal(tr.span_usec, 20 * S);
        assert_true(fabs(tr.slope_per_sec - -10.0) < 1e-9);
        assert_true(fabs(tr.value_at_ref - 800.0) < 1e-9);
}

static void test_hand_computed_noisy(void **state)
{
        /* x = 0,1,2,3 s; y = 2,3,5,4.  Sx=6 Sy=14 Sxx=14 Sxy=0+3+10+12=25
         * slope = (4*25 - 6*14) / (4*14 - 36) = 16/20 = 0.8
         * intercept = (14 - 0.8*6) / 4 = 2.3 */
        usec_t t[] = { 100 * S, 101 * S, 102 * S, 103 * S };
        double y[] = { 2, 3, 5, 4 };
        Trend tr;

        fit(t, y, 4, 100 * S, &tr);
        assert_true(tr.valid);
        assert_true(fabs(tr.slope_per_sec - 0.8) < 1e-12);
        assert_true(fabs(tr.value_at_ref - 2.3) < 1e-12);
        /* the same points seen from ref = 103 s: the line at 103 s = 2.3 + 2.4 */
        fit(t, y, 4, 103 * S, &tr);
        assert_true(fabs(tr.slope_per_sec - 0.8) < 1e-12);
        assert_true(fabs(tr.value_at_ref - 4.7) < 1e-12);
}

static void test_uneven_spacing_usec(void **state)
{
        /* x = 0, 0.5, 2 s; y = 10, 9, 6 (= 10 - 2x): sub-second stamps keep units */
        usec_t t[] = { 7 * S, 7 * S + 500000, 9 * S };
        double y[] = { 10, 9, 6 };
        Trend tr;

        fit(t, y, 3, 9 * S, &tr);
        assert_true(tr.valid);
        assert_true(fabs(tr.slope_per_sec - -2.0) < 1e-9);
        assert_true(fabs(tr.value_at_ref - 6.0) < 1e-9);
}

static void test_large_bytes_precision(void **state)
{
        /* 64 GiB falling 1 MiB/s, sampled every 2 s for 60 s, at an uptime of 100 days */
        usec_t base = 100ULL * 86400 * S;
        TrendAccum acc;
        Trend tr;

        trend_init(&acc, base + 60 * S);
        for (unsigned i = 0; i <= 30; i++)
                trend_add(&acc, base + i * 2 * S, 68719476736.0 - 1048576.0 * 2 * i);
        trend_fit(&acc, &tr);
        assert_true(tr.valid);
        assert_true(fabs(tr.slope_per_sec - -1048576.0) < 1e-3);
        assert_true(fabs(tr.value_at_ref - (68719476736.0 - 1048576.0 * 60)) < 1.0);
}

static void test_degenerate(void **state)
{
        usec_t t2[] = { 0, S };
        double y2[] = { 1, 2 };
        usec_t same[] = { 5 * S, 5 * S, 5 * S };
        double y3[] = { 1, 2, 3 };
        Trend tr;

        fit(t2, y2, 2, S, &tr);
        assert_false(tr.valid); /* two points: no trend */
        fit(same, y3, 3, 5 * S, &tr);
        assert_false(tr.valid); /* no time span */
        fit(NULL, NULL, 0, 0, &tr);
        assert_false(tr.valid);
}

/* trend_fit_min(): two points give the line through them; one never does */
static void test_fit_min_points(void **state)
{
        TrendAccum acc;
        Trend tr;

        trend_init(&acc, 30 * S);
        trend_add(&acc, 0, 100);
        trend_add(&acc, 30 * S, 1100);
        trend_fit(&acc, &tr);
        assert_false(tr.valid); /* the default wants 3 */
        trend_fit_min(&acc, 2, &tr);
        assert_true(tr.valid);
        assert_true(fabs(tr.slope_per_sec - 1000.0 / 30.0) < 1e-9);
        assert_true(fabs(tr.value_at_ref - 1100.0) < 1e-9);
        trend_fit_min(&acc, 0, &tr); /* never below 2 */
        assert_true(tr.valid);
        trend_fit_min(&acc, 3, &tr);
        assert_false(tr.valid);

        trend_init(&acc, 0);
        trend_add(&acc, 0, 100);
        trend_fit_min(&acc, 1, &tr);
        assert_false(tr.valid);
        trend_add(&acc, 0, 200); /* same instant: no span */
        trend_fit_min(&acc, 2, &tr);
        assert_false(tr.valid);
}

static void test_eta(void **state)
{
        Trend tr = { .valid = true, .n = 5, .span_usec = 20 * S, .slope_per_sec = -4.0 };
        Trend up = tr, invalid = tr;

        /* 1000 -> 800 at 4/s: 50 s */
        assert_int_equal(trend_eta_usec(&tr, 1000, 800), 50 * S);
        assert_int_equal(trend_eta_usec(&tr, 800, 800), 0);
        assert_int_equal(trend_eta_usec(&tr, 700, 800), 0);
        up.slope_per_sec = 1.0;
        assert_true(trend_eta_usec(&up, 1000, 800) == USEC_INFINITY);
        up.slope_per_sec = 0.0;
        assert_true(trend_eta_usec(&up, 1000, 800) == USEC_INFINITY);
        invalid.valid = false;
        assert_true(trend_eta_usec(&invalid, 1000, 800) == USEC_INFINITY);
}

/* The horizon of the ETA: 10^12 s and more is "never" */
static void test_eta_far(void **state)
{
        Trend tr = { .valid = true, .n = 5, .span_usec = 20 * S, .slope_per_sec = -1.0 };

        (void) state;
        assert_true(trend_eta_usec(&tr, 1e12, 0) == USEC_INFINITY);
        assert_true(trend_eta_usec(&tr, 1e12 + 1, 0) == USEC_INFINITY);
        /* just under: finite (to double precision) */
        assert_true(trend_eta_usec(&tr, 999999999999.5, 0) > 999999999999000000ULL &&
                    trend_eta_usec(&tr, 999999999999.5, 0) < 1000000000000000000ULL);
        assert_int_equal(trend_eta_usec(&tr, 6e11, 0), 600000000000000000ULL);
        assert_true(trend_eta_usec(&tr, 1.5e12, 0) == USEC_INFINITY);
        tr.slope_per_sec = -0.5;
        assert_int_equal(trend_eta_usec(&tr, 100, 50), 100 * S);
}

/* Samples added out of time order: the span is still first..last */
static void test_out_of_order(void **state)
{
        TrendAccum acc;
        Trend tr;

        (void) state;
        trend_init(&acc, 40 * S);
        trend_add(&acc, 20 * S, 300);
        trend_add(&acc, 10 * S, 400);
        trend_add(&acc, 40 * S, 100);
        trend_add(&acc, 30 * S, 200);
        assert_int_equal(acc.first_usec, 10 * S);
        assert_int_equal(acc.last_usec, 40 * S);
        trend_fit(&acc, &tr);
        assert_true(tr.valid);
        assert_int_equal(tr.n, 4);
        assert_int_equal(tr.span_usec, 30 * S);
        assert_true(fabs(tr.slope_per_sec - -10.0) < 1e-9);
        assert_true(fabs(tr.value_at_ref - 100.0) < 1e-9);
        /* x = -30, -20, -10, 0 s: Sx = -60, Sxx = 1400 (by hand) */
        assert_true(fabs(acc.sx - -60.0) < 1e-9);
        assert_true(fabs(acc.sxx - 1400.0) < 1e-9);
        assert_true(fabs(acc.sy - 1000.0) < 1e-9);
        assert_true(fabs(acc.sxy - (-30.0 * 400 - 20.0 * 300 - 10.0 * 200)) < 1e-9);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_exact_line),
                cmocka_unit_test(test_hand_computed_noisy),
                cmocka_unit_test(test_uneven_spacing_usec),
                cmocka_unit_test(test_large_bytes_precision),
                cmocka_unit_test(test_degenerate),
                cmocka_unit_test(test_fit_min_points),
                cmocka_unit_test(test_eta),
                cmocka_unit_test(test_eta_far),
                cmocka_unit_test(test_out_of_order),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
