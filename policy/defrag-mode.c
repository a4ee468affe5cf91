/* SPDX-License-Identifier: GPL-2.0-or-later */
/* vm.defrag_mode as a lever (pure; docs/policy.md "defrag_mode").
 *
 * With defrag_mode on (6.15+), the allocator reclaims and compacts before a
 * fallback takes a block of another migratetype, and kswapd and kcompactd
 * work for whole free pageblocks. fragd turns it on when the pageblocks a
 * non-movable allocation claimed grow, or polluting fallbacks come often,
 * on a host that wants large folios; it keeps the window before, compares
 * the cost the kernel pays with it on (direct reclaim and compaction
 * stalls, kswapd scanning) against how much the pollution fell, and turns
 * it off again, held off for hours, when the cost rose more.
 *
 * controller.c asks policy_defrag_mode_want() once per tick and runs the
 * answer through the movement rules; state.c records the tick with
 * policy_defrag_mode_update(). */

#include <string.h>

#include "fragd/policy.h"

static uint64_t milli(double per_sec)
{
        if (!(per_sec > 0.0))
                return 0;
        if (per_sec >= (double) UINT64_MAX / 1000.0)
                return UINT64_MAX;
        return (uint64_t) (per_sec * 1000.0 + 0.5);
}

static usec_t hold_usec(unsigned backoffs)
{
        return (usec_t) POLICY_DM_HOLD_USEC << MIN(backoffs, (unsigned) POLICY_DM_HOLD_SHIFT_MAX);
}

/* the samples from..to (inclusive) of the ring: the first and the last */
static bool block_growth(const DefragModeTrack *t, usec_t from, usec_t to, uint64_t *ret_first, uint64_t *ret_last,
                         usec_t *ret_span)
{
        bool any = false;
        usec_t t0 = 0, t1 = 0;

        for (unsigned i = 0; i < t->blk_n; i++) {
                unsigned r = (t->blk_head + i) % POLICY_DM_SAMPLES;

                if (t->blk_usec[r] < from || t->blk_usec[r] > to)
                        continue;
                if (!any) {
                        t0 = t->blk_usec[r];
                        *ret_first = t->blk_nonmovable[r];
                        any = true;
                }
                t1 = t->blk_usec[r];
                *ret_last = t->blk_nonmovable[r];
        }
        *ret_span = any ? t1 - t0 : 0;
        return any && t1 > t0;
}

void policy_defrag_mode_window(const DefragModeTrack *t, usec_t from, usec_t to, DefragModeWindow *ret)
{
        uint64_t first = 0, last = 0;
        usec_t span = 0;

        *ret = (DefragModeWindow) {};
        for (unsigned i = 0; i < POLICY_DM_BUCKETS; i++) {
                const DefragModeBucket *b = &t->bucket[i];

                if (b->start_usec == 0 || b->start_usec < from || b->start_usec >= to)
                        continue;
                ret->span_sec += b->span_sec;
                ret->stalls += b->stalls;
                ret->kswapd_pages += b->kswapd_pages;
                ret->extfrag_sec += b->extfrag_sec;
                ret->polluting += b->polluting;
        }
        if (block_growth(t, from, to, &first, &last, &span)) {
                ret->blocks_span_usec = span;
                ret->blocks_per_hour = ((double) last - (double) first) * (double) (60 * USEC_PER_MINUTE) / (double) span;
        }
}

/* polluting fallbacks per second, when counted over half the window */
static bool extfrag_rate(const DefragModeWindow *w, double *ret)
{
        if (w->span_sec <= 0.0 || w->extfrag_sec * 10000.0 < w->span_sec * POLICY_DM_EXTFRAG_COVER_PERMYRIAD)
                return false;
        *ret = (double) w->polluting / w->extfrag_sec;
        return true;
}

static uint32_t rise_permyriad(uint64_t before, uint64_t after, uint64_t floor)
{
        double r;

        if (after <= before || after - before <= floor)
                return 0;
        r = (double) (after - before) * 10000.0 / (double) MAX(before, floor);
        return r >= (double) UINT32_MAX ? UINT32_MAX : (uint32_t) r;
}

bool policy_defrag_mode_cost(const DefragModeWindow *before, const DefragModeWindow *after, DefragModeNumbers *num)
{
        double pb = 0.0, pa = 0.0;
        uint32_t stall_rise, kswapd_rise;

        num->stall_before_milli = before->span_sec > 0.0 ? milli(before->stalls / before->span_sec) : 0;
        num->stall_after_milli = after->span_sec > 0.0 ? milli(after->stalls / after->span_sec) : 0;
        num->kswapd_before_milli = before->span_sec > 0.0 ? milli(before->kswapd_pages / before->span_sec) : 0;
        num->kswapd_after_milli = after->span_sec > 0.0 ? milli(after->kswapd_pages / after->span_sec) : 0;
        /* the pollution: polluting fallbacks where both windows counted
         * them, else the non-movable blocks added per hour; neither: it
         * is taken as not fallen */
        num->by_blocks = false;
        if (extfrag_rate(before, &pb) && extfrag_rate(after, &pa)) {
                num->pollution_before_milli = milli(pb);
                num->pollution_after_milli = milli(pa);
        } else if (before->blocks_span_usec > 0 && after->blocks_span_usec > 0) {
                num->by_blocks = true;
                num->pollution_before_milli = milli(before->blocks_per_hour);
                num->pollution_after_milli = milli(after->blocks_per_hour);
        } else
                num->pollution_before_milli = num->pollution_after_milli = 0;

        stall_rise = rise_permyriad(num->stall_before_milli, num->stall_after_milli, POLICY_DM_STALL_FLOOR_MILLI);
        kswapd_rise = rise_permyriad(num->kswapd_before_milli, num->kswapd_after_milli, POLICY_DM_KSWAPD_FLOOR_MILLI);
        num->cost_rise_permyriad = MAX(stall_rise, kswapd_rise);
        num->pollution_fall_permyriad =
                num->pollution_before_milli > num->pollution_after_milli
                        ? (uint32_t) ((num->pollution_before_milli - num->pollution_after_milli) * 10000 /
                                      num->pollution_before_milli)
                        : 0;
        return num->cost_rise_permyriad > num->pollution_fall_permyriad;
}

/* The large-folio demand the kernel did not meet: a THP burst that fell
 * back or stalled, remembered (learned need) or in the burst window now
 * (its unmet part), or a page-cache need (folios that fell back or
 * stalled). THP faults the free lists served are none: on the aged 7.3
 * host a preparation's 2 MiB of served faults turned defrag_mode on at
 * start, and the WAL then got fewer order-6 folios than with the kernel
 * alone. */
static uint64_t large_folio_demand(const PolicyEval *e)
{
        return MAX(MAX(e->learned_need_bytes, e->unmet_burst_bytes),
                   MAX(e->pagecache_held_bytes, e->pagecache_need_bytes));
}

/* Non-movable blocks grew by POLICY_DM_GROWTH_MIN_* within the block
 * window, or polluting fallbacks came at POLICY_DM_POLLUTING_MIN_MILLI
 * over the last window; the numbers to dm either way. */
static bool pollution_grows(const DefragModeTrack *t, usec_t now, DefragModeNumbers *dm)
{
        DefragModeWindow w;
        uint64_t first = 0, last = 0;
        usec_t span = 0, from = now > POLICY_DM_BLOCK_WINDOW_USEC ? now - POLICY_DM_BLOCK_WINDOW_USEC : 0;
        bool grows = false;
        double rate;

        if (block_growth(t, from, now, &first, &last, &span)) {
                uint64_t growth = last > first ? last - first : 0;

                dm->blocks_from = first;
                dm->blocks_to = last;
                dm->blocks_total = t->blk_total;
                dm->blocks_span_usec = span;
                grows = growth >= POLICY_DM_GROWTH_MIN_BLOCKS &&
                        growth * 10000 >= (uint64_t) POLICY_DM_GROWTH_MIN_PERMYRIAD * t->blk_total;
        }
        policy_defrag_mode_window(t, now > POLICY_DM_WINDOW_USEC ? now - POLICY_DM_WINDOW_USEC : 0, now + 1, &w);
        if (extfrag_rate(&w, &rate)) {
                dm->extfrag = true;
                dm->polluting_milli = milli(rate);
                dm->window_usec = POLICY_DM_WINDOW_USEC;
                grows = grows || dm->polluting_milli >= POLICY_DM_POLLUTING_MIN_MILLI;
        }
        return grows;
}

void policy_defrag_mode_want(const DefragModeTrack *t, const PolicyEval *e, const LeverInput *in, bool psi_high,
                             bool stalling, usec_t now, DefragModeWant *ret)
{
        PolicyNumbers num = { .node = -1 };

        *ret = (DefragModeWant) { .to = in->current, .wanted = in->current, .num = num };
        if (!in->available)
                return;
        if (in->current == 1) {
                DefragModeWindow after;
                usec_t from;

                /* on by someone else, or not long enough to judge */
                if (!t->on || now < t->on_usec + POLICY_DM_SETTLE_USEC + POLICY_DM_WINDOW_USEC)
                        return;
                from = MAX(t->on_usec + POLICY_DM_SETTLE_USEC, now - POLICY_DM_WINDOW_USEC);
                policy_defrag_mode_window(t, from, now + 1, &after);
                /* the blocks: every reading since it went on */
                {
                        DefragModeWindow since;

                        policy_defrag_mode_window(t, t->on_usec, now + 1, &since);
                        after.blocks_per_hour = since.blocks_per_hour;
                        after.blocks_span_usec = since.blocks_span_usec;
                }
                num.dm.window_usec = POLICY_DM_WINDOW_USEC;
                if (!policy_defrag_mode_cost(&t->before, &after, &num.dm))
                        return;
                num.dm.hold_usec = hold_usec(t->backoffs);
                *ret = (DefragModeWant) {
                        .to = 0,
                        .wanted = 0,
                        .reason = POLICY_REASON_DEFRAG_MODE_COST,
                        .flags = LEVER_MOVE_IGNORE_TIMING,
                        .num = num,
                };
                return;
        }
        /* off (or a value the kernel does not know): only fragd's own 0 */
        if (in->current != 0 || t->outside)
                return;
        if (!pollution_grows(t, now, &num.dm))
                return;
        num.dm.demand_bytes = large_folio_demand(e);
        if (num.dm.demand_bytes == 0)
                return;
        ret->wanted = 1;
        ret->reason = POLICY_REASON_PAGEBLOCK_POLLUTION;
        ret->num = num;
        if (now < t->hold_until_usec) {
                ret->hold = POLICY_HOLD_BACKOFF;
                ret->num.dm.hold_usec = t->hold_until_usec - now;
                return;
        }
        if (psi_high) {
                ret->hold = POLICY_HOLD_PSI;
                return;
        }
        /* the lever for fallbacks, not for stalls: with it on the allocator
         * reclaims and compacts before a fallback takes another type's
         * block, so where allocations stall in direct compaction already
         * (a stock kernel's page cache at order 6) they would stall more.
         * Static defrag_mode=1 on stock 7.3 in the postgres-7.3-wal bench:
         * 1496 postgres direct compactions against kernel defaults' 8;
         * turned on by fragd 55 s after a burst, 129 stalls in the next
         * 4 s. controller.c: stalls within POLICY_DM_WINDOW_USEC */
        if (stalling) {
                ret->hold = POLICY_HOLD_DIRECT_COMPACTION;
                return;
        }
        ret->to = 1;
}

void policy_defrag_mode_update(DefragModeTrack *t, const Assessment *a, const Decision *d, usec_t now)
{
        const LeverInput *in = &d->levers[LEVER_DEFRAG_MODE];
        const DecisionItem *it = NULL;
        usec_t start = now - now % POLICY_DM_BUCKET_USEC;
        DefragModeBucket *b = &t->bucket[(now / POLICY_DM_BUCKET_USEC) % POLICY_DM_BUCKETS];

        if (start == 0)
                start = 1; /* 0 marks an empty bucket */
        if (b->start_usec != start)
                *b = (DefragModeBucket) { .start_usec = start };
        if (a->rates.valid && a->rates.interval_sec > 0.0) {
                b->span_sec += a->rates.interval_sec;
                b->stalls += (a->rates.allocstall + a->rates.compact_stall) * a->rates.interval_sec;
                b->kswapd_pages += a->rates.pgscan_kswapd * a->rates.interval_sec;
        }
        if (a->pollution.extfrag_valid) {
                b->extfrag_sec += a->pollution.extfrag_interval_sec;
                b->polluting += a->pollution.extfrag_polluting;
        }
        if (a->pollution.blocks_usec > 0 &&
            (t->blk_n == 0 || t->blk_usec[(t->blk_head + t->blk_n - 1) % POLICY_DM_SAMPLES] != a->pollution.blocks_usec)) {
                unsigned r;

                if (t->blk_n < POLICY_DM_SAMPLES)
                        r = (t->blk_head + t->blk_n++) % POLICY_DM_SAMPLES;
                else {
                        r = t->blk_head;
                        t->blk_head = (t->blk_head + 1) % POLICY_DM_SAMPLES;
                }
                t->blk_usec[r] = a->pollution.blocks_usec;
                t->blk_nonmovable[r] = a->pollution.nonmovable_blocks;
                t->blk_total = a->pollution.blocks_total;
        }

        if (!in->available)
                return;
        for (unsigned i = 0; i < d->n_items; i++)
                if (d->items[i].kind == DECISION_LEVER && d->items[i].lever == LEVER_DEFRAG_MODE && d->items[i].applied)
                        it = &d->items[i];
        if (!it) {
                /* a value fragd did not write: found on at start, or
                 * changed since to another than the kernel's own (the
                 * operator's: left alone for the run). Back at the
                 * kernel's own value is fragd's knob handed back (pause,
                 * restore): off, and fragd's to decide again. */
                if (!t->have_value && in->current != 0)
                        t->outside = true;
                if (t->have_value && in->current != t->last_value) {
                        t->outside = t->outside || in->current != in->baseline;
                        t->on = false;
                }
                t->have_value = true;
                t->last_value = in->current;
                return;
        }
        t->have_value = true;
        t->last_value = it->to;
        if (it->to == 1) {
                usec_t from = now > POLICY_DM_WINDOW_USEC ? now - POLICY_DM_WINDOW_USEC : 0;
                DefragModeWindow blocks;

                t->on = true;
                t->on_usec = now;
                policy_defrag_mode_window(t, from, now + 1, &t->before);
                /* the block growth before: over the block window */
                policy_defrag_mode_window(t, now > POLICY_DM_BLOCK_WINDOW_USEC ? now - POLICY_DM_BLOCK_WINDOW_USEC : 0,
                                          now + 1, &blocks);
                t->before.blocks_per_hour = blocks.blocks_per_hour;
                t->before.blocks_span_usec = blocks.blocks_span_usec;
        } else if (it->to == 0) {
                t->on = false;
                if (it->reason == POLICY_REASON_DEFRAG_MODE_COST) {
                        t->hold_until_usec = now + hold_usec(t->backoffs);
                        t->backoffs++;
                }
        }
}
