/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* Budget/window accounting (policy/budget.c, pure): a sliding window over a
 * cumulative counter, so "how much in the last minute" can be asked of totals
 * that only ever grow (taskstats delays, collapse CPU time, PSI totals).
 *
 * Time comes in as an argument; nothing here reads a clock.
 *
 *   BudgetWindow w;
 *   budget_window_init(&w, USEC_PER_MINUTE);
 *   budget_window_add(&w, now, total_usec);        every tick
 *   budget_window_delta(&w, now, &used, &span);    used in the last minute
 *
 * Samples are kept at a spacing of at least window/(BUDGET_MAX_SAMPLES/2), so
 * a fast tick rate never shortens the history below one window. The value at
 * the window's start is interpolated between the two samples around it. A
 * counter that goes backwards (a cgroup recreated, a daemon restart of the
 * source) is treated as restarted from zero: the series stays monotonic. */

#include <stdbool.h>
#include <stdint.h>

#include "fragd/macro.h"

#define BUDGET_MAX_SAMPLES 64

typedef struct BudgetSample {
        usec_t t;
        uint64_t v; /* monotonic (reset-corrected) value */
} BudgetSample;

typedef struct BudgetWindow {
        usec_t window_usec;
        uint64_t offset;   /* added to raw values after resets */
        uint64_t last_raw;
        bool have_last;
        BudgetSample last; /* the newest sample, always current */
        unsigned head, n;  /* ring of older samples, oldest at head */
        BudgetSample s[BUDGET_MAX_SAMPLES];
} BudgetWindow;

void budget_window_init(BudgetWindow *w, usec_t window_usec);
/* Records the counter's value at now. A now older than the newest sample is
 * ignored (-EINVAL); a decreasing value counts as a reset (returns 1). */
int budget_window_add(BudgetWindow *w, usec_t now, uint64_t cumulative);
/* Growth over [now - window, now]. ret_span_usec is the history actually
 * covered: less than the window right after start (then the delta is over
 * that shorter span). -ENODATA without any sample. Samples newer than now are
 * not expected (callers pass the newest time). */
int budget_window_delta(const BudgetWindow *w, usec_t now, uint64_t *ret_delta, usec_t *ret_span_usec);

typedef struct BudgetStatus {
        uint64_t used;          /* growth in the window */
        uint64_t budget;        /* 0: no budget */
        usec_t span_usec;       /* history covered */
        bool partial;           /* span < window */
        bool over;              /* budget set and used > budget */
        uint32_t used_permille; /* used / budget, capped at 10^6; 0 without budget */
} BudgetStatus;

/* Delta plus comparison. budget 0 means "no budget": never over. */
int budget_check(const BudgetWindow *w, usec_t now, uint64_t budget, BudgetStatus *ret);
/* Budget left in the window (0 when spent or over, UINT64_MAX without budget). */
uint64_t budget_remaining(const BudgetWindow *w, usec_t now, uint64_t budget);

/* ---- per-cgroup stall accounting ----------------------------------------- */

typedef enum StallKind {
        STALL_COMPACT,   /* direct compaction delay (taskstats compact_delay_total) */
        STALL_RECLAIM,   /* direct reclaim (freepages_delay_total) */
        STALL_THRASHING, /* thrashing_delay_total */
        STALL_PSI_SOME,  /* memory.pressure some total (wall time, not per task) */
        _STALL_KIND_MAX,
} StallKind;

const char *stall_kind_name(StallKind k); /* "compact" */

/* Cumulative totals as the taskstats accounting reports them (usec, counts). */
typedef struct StallTotals {
        uint64_t usec[_STALL_KIND_MAX];
        uint64_t compact_count; /* direct compactions */
        uint64_t reclaim_count; /* direct reclaims */
} StallTotals;

typedef struct StallWindows {
        BudgetWindow usec[_STALL_KIND_MAX];
        BudgetWindow compact_count, reclaim_count;
} StallWindows;

/* What the policy cites: "spent 380 ms in direct compaction in the last minute". */
typedef struct StallMinute {
        uint64_t usec[_STALL_KIND_MAX];
        uint64_t compact_count, reclaim_count;
        usec_t span_usec;
        bool partial;
        uint64_t budget_usec;   /* compact + reclaim budget, 0 none */
        uint64_t budgeted_usec; /* compact + reclaim: what the budget is compared to */
        bool over_budget;
} StallMinute;

void stall_windows_init(StallWindows *s, usec_t window_usec);
void stall_windows_add(StallWindows *s, usec_t now, const StallTotals *t);
/* -ENODATA before the first add. */
int stall_windows_minute(const StallWindows *s, usec_t now, uint64_t budget_usec, StallMinute *ret);
