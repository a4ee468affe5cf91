/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Sliding-window accounting over cumulative counters. Pure: no I/O, no clock. */

#include <errno.h>
#include <string.h>

#include "fragd/budget.h"

void budget_window_init(BudgetWindow *w, usec_t window_usec)
{
        memset(w, 0, sizeof(*w));
        w->window_usec = window_usec > 0 ? window_usec : USEC_PER_MINUTE;
}

static usec_t spacing(const BudgetWindow *w)
{
        usec_t s = w->window_usec / (BUDGET_MAX_SAMPLES / 2);

        return s > 0 ? s : 1;
}

static const BudgetSample *ring_at(const BudgetWindow *w, unsigned i)
{
        return &w->s[(w->head + i) % BUDGET_MAX_SAMPLES];
}

static void ring_push(BudgetWindow *w, BudgetSample x)
{
        if (w->n < BUDGET_MAX_SAMPLES) {
                w->s[(w->head + w->n) % BUDGET_MAX_SAMPLES] = x;
                w->n++;
        } else {
                w->s[w->head] = x;
                w->head = (w->head + 1) % BUDGET_MAX_SAMPLES;
        }
}

int budget_window_add(BudgetWindow *w, usec_t now, uint64_t cumulative)
{
        BudgetSample x;
        int reset = 0;

        if (!w->have_last) {
                w->have_last = true;
                w->last_raw = cumulative;
                w->offset = 0;
                w->last = (BudgetSample) { now, cumulative };
                return 0;
        }
        if (now < w->last.t)
                return -EINVAL;
        if (cumulative < w->last_raw) {
                /* restarted from zero: continue from where the series was */
                w->offset = w->last.v;
                reset = 1;
        }
        w->last_raw = cumulative;
        x = (BudgetSample) { now, w->offset + cumulative };
        if (x.v < w->last.v) /* offset arithmetic wrapped: keep monotonic */
                x.v = w->last.v;

        if (w->n == 0 || w->last.t - ring_at(w, w->n - 1)->t >= spacing(w))
                ring_push(w, w->last);
        w->last = x;
        return reset;
}

/* Value of the series at time t, interpolated between a and b (a.t <= t <= b.t). */
static uint64_t interpolate(BudgetSample a, BudgetSample b, usec_t t)
{
        unsigned __int128 num;

        if (b.t <= a.t || t <= a.t)
                return a.v;
        if (t >= b.t)
                return b.v;
        num = (unsigned __int128) (b.v - a.v) * (t - a.t);
        return a.v + (uint64_t) (num / (b.t - a.t));
}

int budget_window_delta(const BudgetWindow *w, usec_t now, uint64_t *ret_delta, usec_t *ret_span_usec)
{
        BudgetSample prev, cur;
        usec_t boundary;

        if (!w->have_last)
                return -ENODATA;
        if (now < w->last.t)
                now = w->last.t;
        boundary = now >= w->window_usec ? now - w->window_usec : 0;

        if (w->last.t <= boundary) {
                /* nothing was recorded inside the window: no growth seen */
                *ret_delta = 0;
                if (ret_span_usec)
                        *ret_span_usec = w->window_usec;
                return 0;
        }

        prev = w->n > 0 ? *ring_at(w, 0) : w->last;
        if (w->n == 0 || now < w->window_usec || prev.t > boundary) {
                /* history shorter than the window */
                *ret_delta = w->last.v - prev.v;
                if (ret_span_usec)
                        *ret_span_usec = now - prev.t;
                return 0;
        }
        for (unsigned i = 1; i <= w->n; i++) {
                cur = i < w->n ? *ring_at(w, i) : w->last;
                if (cur.t > boundary) {
                        *ret_delta = w->last.v - interpolate(prev, cur, boundary);
                        if (ret_span_usec)
                                *ret_span_usec = w->window_usec;
                        return 0;
                }
                prev = cur;
        }
        /* unreachable: last.t > boundary */
        *ret_delta = 0;
        if (ret_span_usec)
                *ret_span_usec = w->window_usec;
        return 0;
}

int budget_check(const BudgetWindow *w, usec_t now, uint64_t budget, BudgetStatus *ret)
{
        BudgetStatus st = { .budget = budget };
        int r;

        r = budget_window_delta(w, now, &st.used, &st.span_usec);
        if (r < 0)
                return r;
        st.partial = st.span_usec < w->window_usec;
        if (budget > 0) {
                unsigned __int128 pm = (unsigned __int128) st.used * 1000 / budget;

                st.over = st.used > budget;
                st.used_permille = pm > 1000000 ? 1000000 : (uint32_t) pm;
        }
        *ret = st;
        return 0;
}

uint64_t budget_remaining(const BudgetWindow *w, usec_t now, uint64_t budget)
{
        uint64_t used = 0;

        if (budget == 0)
                return UINT64_MAX;
        if (budget_window_delta(w, now, &used, NULL) < 0)
                return budget;
        return used >= budget ? 0 : budget - used;
}

const char *stall_kind_name(StallKind k)
{
        static const char *const names[_STALL_KIND_MAX] = {
                [STALL_COMPACT] = "compact",
                [STALL_RECLAIM] = "reclaim",
                [STALL_THRASHING] = "thrashing",
                [STALL_PSI_SOME] = "psi_some",
        };

        return (unsigned) k < _STALL_KIND_MAX ? names[k] : NULL;
}

void stall_windows_init(StallWindows *s, usec_t window_usec)
{
        for (unsigned k = 0; k < _STALL_KIND_MAX; k++)
                budget_window_init(&s->usec[k], window_usec);
        budget_window_init(&s->compact_count, window_usec);
        budget_window_init(&s->reclaim_count, window_usec);
}

void stall_windows_add(StallWindows *s, usec_t now, const StallTotals *t)
{
        for (unsigned k = 0; k < _STALL_KIND_MAX; k++)
                (void) budget_window_add(&s->usec[k], now, t->usec[k]);
        (void) budget_window_add(&s->compact_count, now, t->compact_count);
        (void) budget_window_add(&s->reclaim_count, now, t->reclaim_count);
}

int stall_windows_minute(const StallWindows *s, usec_t now, uint64_t budget_usec, StallMinute *ret)
{
        StallMinute m = { .budget_usec = budget_usec };
        int r;

        for (unsigned k = 0; k < _STALL_KIND_MAX; k++) {
                usec_t span;

                r = budget_window_delta(&s->usec[k], now, &m.usec[k], &span);
                if (r < 0)
                        return r;
                if (k == 0)
                        m.span_usec = span;
        }
        r = budget_window_delta(&s->compact_count, now, &m.compact_count, NULL);
        if (r < 0)
                return r;
        r = budget_window_delta(&s->reclaim_count, now, &m.reclaim_count, NULL);
        if (r < 0)
                return r;
        m.partial = m.span_usec < s->usec[0].window_usec;
        m.budgeted_usec = m.usec[STALL_COMPACT] + m.usec[STALL_RECLAIM];
        m.over_budget = budget_usec > 0 && m.budgeted_usec > budget_usec;
        *ret = m;
        return 0;
}
