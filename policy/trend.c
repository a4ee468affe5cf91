/* SPDX-License-Identifier: GPL-2.0-or-later */

/* Least-squares trend over time-stamped samples (pure).
 *
 * x_i = (t_i - ref) in seconds, y_i in the caller's unit (bytes). With
 * n points, Sx = sum x, Sy = sum y, Sxx = sum x^2, Sxy = sum x*y:
 *
 *      slope     = (n*Sxy - Sx*Sy) / (n*Sxx - Sx^2)     [y per second]
 *      intercept = (Sy - slope*Sx) / n                  [y at ref]
 *
 * Taking ref = now keeps x small (seconds in the window) so the sums stay
 * well inside double precision for any realistic window. */

#include <math.h>

#include "fragd/policy.h"

void trend_init(TrendAccum *acc, usec_t ref_usec)
{
        *acc = (TrendAccum){ .ref_usec = ref_usec };
}

void trend_add(TrendAccum *acc, usec_t t_usec, double y)
{
        double x = ((double) t_usec - (double) acc->ref_usec) / (double) USEC_PER_SEC;

        if (acc->n == 0 || t_usec < acc->first_usec)
                acc->first_usec = t_usec;
        if (acc->n == 0 || t_usec > acc->last_usec)
                acc->last_usec = t_usec;
        acc->n++;
        acc->sx += x;
        acc->sy += y;
        acc->sxx += x * x;
        acc->sxy += x * y;
}

void trend_fit(const TrendAccum *acc, Trend *ret)
{
        trend_fit_min(acc, 3, ret);
}

void trend_fit_min(const TrendAccum *acc, unsigned min_points, Trend *ret)
{
        double n = acc->n, den;

        *ret = (Trend){ .n = acc->n };
        if (acc->n < MAX(min_points, 2u) || acc->last_usec <= acc->first_usec)
                return;
        den = n * acc->sxx - acc->sx * acc->sx;
        if (!(den > 0.0))
                return;
        ret->span_usec = acc->last_usec - acc->first_usec;
        ret->slope_per_sec = (n * acc->sxy - acc->sx * acc->sy) / den;
        ret->value_at_ref = (acc->sy - ret->slope_per_sec * acc->sx) / n;
        ret->valid = isfinite(ret->slope_per_sec) && isfinite(ret->value_at_ref);
}

usec_t trend_eta_usec(const Trend *t, double value, double level)
{
        double sec;

        if (value <= level)
                return 0;
        if (!t->valid || !(t->slope_per_sec < 0.0))
                return USEC_INFINITY;
        sec = (value - level) / -t->slope_per_sec;
        if (!(sec < 1e12))
                return USEC_INFINITY;
        return (usec_t) (sec * (double) USEC_PER_SEC);
}
