/* SPDX-License-Identifier: GPL-2.0-or-later */

/* The learned THP reserve (pure; docs/policy.md "Learned reserve").
 *
 * Demand of one tick, in bytes (vmstat counters are global):
 *   demand   = (thp_fault_alloc + thp_fault_fallback) per second x interval x PMD size
 *   fallback = thp_fault_fallback per second x interval x PMD size
 *   stalled  = min(attributed compact_stall, thp_fault_alloc) per second x interval x PMD size
 *   unmet    = fallback + stalled: the faults the free lists did not serve
 * A burst is learned only when part of it was unmet: one the free lists
 * served in full teaches nothing (the kernel keeps up; docs/policy.md
 * "Demand worth reserving for"); one that fell back or stalled anywhere in
 * its window teaches its whole size, what the workload asks for at once
 * (the free lists that served the rest of it this time are not there the
 * next). demand also says whether faults came at all (the burst window
 * of "between bursts").
 * interval is Rates.interval_sec (the two readings the rates come from), or
 * the time since the last history sample when that is missing; rate x
 * interval is then the counter delta itself.
 *
 * burst = demand of this tick + demand of the history samples within
 *         POLICY_BURST_WINDOW_USEC (a burst straddling a tick boundary
 *         counts whole), when unmet demand came within that window, else 0
 * need  = burst, when this tick has unmet demand and the burst is at least the
 *         remembered need decayed to now (the peak is renewed: held
 *         again from now); otherwise the
 *         remembered peak, held for demand_hold after it was seen, then
 *         halved every demand_decay, and 0 once under one huge page.
 * A tick with fallbacks therefore raises the need at once to at least what
 * its burst asked for (allocated + fallen back).
 *
 * Per node, its share of the need, capped:
 *   T_thp = max(reserve_thp, min(need x share x demand_factor, demand_cap of the node))
 * The vmstat counters are global; the kernel tells which node served only
 * through the THPs mapped per node (zoneinfo per-node stats,
 * NodeMeasures.thp_grown). share = the node's part of the THPs that
 * appeared over the burst window when known, else the node's part of the
 * memory (demand_shares()).
 *
 * Nothing learned exceeds the host's memory (policy_mem_total_bytes()): a
 * larger burst or remembered peak is cut to it and learned_capped_from_bytes
 * says so (a counter that jumped is already a reset in the rates).
 *
 * Across restarts (the daemon's state file): policy_learned_restore() takes
 * the peak and its real age and gives the state that decays exactly as if
 * fragd had kept running; the part of the age older than the monotonic
 * clock (a reboot) is kept in learned_peak_before_usec.
 *
 * Before any burst (no learned file, or one decayed to nothing):
 * policy_learned_from_boot() sizes the first reserve from the kernel's THP
 * fallbacks since boot, as one burst at an unknown time since boot; a host
 * whose faults never fell back gets none. */

#include <math.h>

#include "controller-internal.h"

static uint64_t decay_at_age(uint64_t peak_bytes, usec_t age, usec_t hold, usec_t decay, uint64_t min_bytes)
{
        double v;

        if (peak_bytes == 0)
                return 0;
        if (age <= hold)
                return peak_bytes;
        if (decay == 0)
                return 0;
        v = (double) peak_bytes * exp2(-(double) (age - hold) / (double) decay);
        if (!(v >= (double) min_bytes) || v < 1.0)
                return 0;
        return v >= (double) peak_bytes ? peak_bytes : (uint64_t) v;
}

uint64_t policy_learned_decay(uint64_t peak_bytes, usec_t peak_usec, usec_t now, usec_t hold, usec_t decay,
                              uint64_t min_bytes)
{
        if (peak_usec == 0)
                return 0;
        return decay_at_age(peak_bytes, now > peak_usec ? now - peak_usec : 0, hold, decay, min_bytes);
}

usec_t policy_learned_age(const PolicyState *s, usec_t now)
{
        usec_t age;

        if (s->learned_peak_bytes == 0 || s->learned_peak_usec == 0)
                return 0;
        age = now > s->learned_peak_usec ? now - s->learned_peak_usec : 0;
        return s->learned_peak_before_usec > USEC_INFINITY - age ? USEC_INFINITY
                                                                 : age + s->learned_peak_before_usec;
}

LearnedRestoreResult policy_learned_restore(const PolicyConfig *cfg, uint64_t peak_bytes, usec_t age_usec,
                                            usec_t now, uint64_t min_bytes, LearnedRestore *ret)
{
        uint64_t need;

        if (!cfg->demand_learning)
                return LEARNED_RESTORE_OFF;
        if (peak_bytes == 0)
                return LEARNED_RESTORE_EMPTY;
        need = decay_at_age(peak_bytes, age_usec, cfg->demand_hold_usec, cfg->demand_decay_usec, min_bytes);
        if (need == 0)
                return LEARNED_RESTORE_DECAYED;
        *ret = (LearnedRestore) {
                .peak_bytes = peak_bytes,
                .need_bytes = need,
                .hold_left_usec = age_usec < cfg->demand_hold_usec ? cfg->demand_hold_usec - age_usec : 0,
        };
        if (age_usec < now) /* now - age >= 1: 0 would mean "never seen" */
                ret->peak_usec = now - age_usec;
        else {
                ret->peak_usec = 1;
                ret->peak_before_usec = age_usec - now + 1;
        }
        return LEARNED_RESTORE_OK;
}

/* The part of the uptime a burst seen at a time uniformly in it would
 * still be held for, on average: (H + D/ln2 x (1 - 2^(-(U-H)/D))) / U for
 * U > H (the integral of the hold-then-halve curve over the ages 0..U, over
 * U); 1 within the hold. */
static double boot_burst_weight(usec_t uptime, usec_t hold, usec_t decay)
{
        double u = (double) uptime, h = (double) hold, d = (double) decay;

        if (uptime <= hold)
                return 1.0;
        if (decay == 0)
                return h / u;
        return (h + d / M_LN2 * (1.0 - exp2(-(u - h) / d))) / u;
}

LearnedRestoreResult policy_learned_from_boot(const PolicyConfig *cfg, const BootHistory *b, uint64_t hpage_bytes,
                                              uint64_t mem_bytes, usec_t now, LearnedRestore *ret)
{
        double bytes;
        uint64_t seed;

        if (!cfg->demand_learning || !cfg->demand_from_boot)
                return LEARNED_RESTORE_OFF;
        /* faults the kernel served in full teach nothing: only the
         * fallbacks are demand worth reserving for */
        if (b->thp_fallbacks == 0 || hpage_bytes == 0 || b->uptime_usec == 0 || now == 0)
                return LEARNED_RESTORE_EMPTY;
        /* the fallbacks as one burst at an unknown time since boot, aged */
        bytes = (double) b->thp_fallbacks * (double) hpage_bytes * boot_burst_weight(b->uptime_usec, cfg->demand_hold_usec, cfg->demand_decay_usec);
        if (mem_bytes > 0 && bytes > (double) mem_bytes)
                bytes = (double) mem_bytes;
        seed = bytes >= 1.8e19 ? UINT64_MAX / 4 : (uint64_t) bytes;
        if (seed < hpage_bytes)
                return LEARNED_RESTORE_EMPTY;
        *ret = (LearnedRestore) {
                .peak_bytes = seed,
                .peak_usec = now,
                .need_bytes = seed,
                .hold_left_usec = cfg->demand_hold_usec,
                .from_boot = true,
        };
        return LEARNED_RESTORE_OK;
}

void policy_learned_seed(PolicyState *s, const LearnedRestore *r)
{
        s->learned_peak_bytes = r->peak_bytes;
        s->learned_peak_usec = r->peak_usec;
        s->learned_peak_before_usec = r->peak_before_usec;
        s->learned_from_boot = r->from_boot;
}

static uint64_t rate_bytes(double per_sec, double interval_sec, uint64_t unit)
{
        double v = per_sec * interval_sec * (double) unit;

        if (!(v > 0.0))
                return 0;
        if (v >= 1.8e19)
                return UINT64_MAX / 4;
        return (uint64_t) (v + 0.5);
}

static uint64_t node_size_bytes(const Assessment *a, unsigned i)
{
        const NodeMeasures *n = &a->nodes[i];

        return (n->managed_pages ? n->managed_pages : n->present_pages) * (uint64_t) a->page_size;
}

/* The shares rounded down leave up to n - 1 of 10000 unassigned: the
 * largest share takes them, so the nodes' needs add up to the need. */
static void shares_complete(unsigned n, PolicyEval *e)
{
        uint32_t sum = 0;
        unsigned top = 0;

        for (unsigned i = 0; i < n; i++) {
                sum += e->nodes[i].learned_share_permyriad;
                if (e->nodes[i].learned_share_permyriad > e->nodes[top].learned_share_permyriad)
                        top = i;
        }
        if (n > 0 && sum > 0 && sum < 10000)
                e->nodes[top].learned_share_permyriad += 10000 - sum;
}

static void shares_by_size(const Assessment *a, unsigned n, PolicyEval *e)
{
        unsigned __int128 sum = 0;

        for (unsigned i = 0; i < n; i++)
                sum += node_size_bytes(a, i);
        for (unsigned i = 0; i < n; i++) {
                e->nodes[i].learned_share_permyriad =
                        sum > 0 ? (uint32_t) ((unsigned __int128) node_size_bytes(a, i) * 10000 / sum) : 0;
                e->nodes[i].learned_share_measured = false;
        }
        shares_complete(n, e);
}

/* Each node's share of the learned need. A renewed peak splits by the THPs
 * that appeared on each node over the burst window (this tick and the
 * history samples within POLICY_BURST_WINDOW_USEC), when the kernel said so
 * for every node and sample and some did appear; a kept peak keeps the
 * split it was seen with; otherwise the nodes share by size. */
static void demand_shares(const PolicyState *s, const Assessment *a, usec_t now, bool renewed, PolicyEval *e)
{
        const PolicyHistory *h = &s->hist;
        unsigned n = MIN(a->n_nodes, (unsigned) FRAGD_MAX_NODES);
        uint64_t grown[FRAGD_MAX_NODES] = { 0 };
        unsigned __int128 sum = 0;
        bool known = true;

        if (renewed) {
                for (unsigned i = 0; i < n && known; i++) {
                        known = a->nodes[i].thp_grown_valid;
                        grown[i] = a->nodes[i].thp_grown;
                }
                for (unsigned j = 0; j < h->n && known; j++) {
                        unsigned r = (h->head + j) % POLICY_HISTORY_MAX;

                        if (h->t_usec[r] >= now || now - h->t_usec[r] >= POLICY_BURST_WINDOW_USEC)
                                continue;
                        for (unsigned i = 0; i < n && known; i++) {
                                int hi = policy_hist_node_index(h, a->nodes[i].node);

                                known = hi >= 0 && h->thp_grown[r][hi] != UINT64_MAX;
                                if (known)
                                        grown[i] = grown[i] > UINT64_MAX / 4 - h->thp_grown[r][hi]
                                                           ? UINT64_MAX / 4
                                                           : grown[i] + h->thp_grown[r][hi];
                        }
                }
                for (unsigned i = 0; i < n; i++)
                        sum += grown[i];
                if (!known || sum == 0) {
                        shares_by_size(a, n, e);
                        return;
                }
                for (unsigned i = 0; i < n; i++) {
                        e->nodes[i].learned_share_permyriad = (uint32_t) ((unsigned __int128) grown[i] * 10000 / sum);
                        e->nodes[i].learned_share_measured = true;
                }
                shares_complete(n, e);
                return;
        }
        /* kept: the split it was seen with, while the nodes are the same */
        known = s->learned_share_n == n && n > 0;
        for (unsigned i = 0; i < n && known; i++)
                known = s->learned_share_node[i] == a->nodes[i].node;
        if (!known) {
                shares_by_size(a, n, e);
                return;
        }
        for (unsigned i = 0; i < n; i++) {
                e->nodes[i].learned_share_permyriad = s->learned_share_permyriad[i];
                e->nodes[i].learned_share_measured = s->learned_share_measured[i];
        }
}

static uint64_t sat_add(uint64_t a, uint64_t b)
{
        return a > UINT64_MAX / 4 - b ? UINT64_MAX / 4 : a + b;
}

double policy_stalls_attributed(const Assessment *a)
{
        unsigned n = MIN(a->n_workloads, (unsigned) ASSESSMENT_MAX_WORKLOADS);

        if (!a->rates.valid || !(a->rates.compact_stall > 0.0))
                return 0.0;
        if (n == 0)
                return a->rates.compact_stall;
        for (unsigned i = 0; i < n; i++)
                if (a->workloads[i].compact_usec > 0)
                        return a->rates.compact_stall;
        return 0.0;
}

/* The interval a tick's rates cover: Rates.interval_sec, else the time
 * since the last history sample; 0 when neither is known. */
static double tick_interval(const PolicyHistory *h, const Assessment *a, usec_t now)
{
        double interval = a->rates.interval_sec;

        if (!(interval > 0.0) && h->n > 0) {
                usec_t last = h->t_usec[(h->head + h->n - 1) % POLICY_HISTORY_MAX];

                if (last < now)
                        interval = (double) (now - last) / (double) USEC_PER_SEC;
        }
        return interval > 0.0 ? interval : 0.0;
}

/* v (this tick) + the history values within window before now */
static uint64_t window_sum(const PolicyHistory *h, const uint64_t *ring, uint64_t v, usec_t now, usec_t window)
{
        for (unsigned j = 0; j < h->n; j++) {
                unsigned r = (h->head + j) % POLICY_HISTORY_MAX;

                if (h->t_usec[r] < now && now - h->t_usec[r] < window)
                        v = sat_add(v, ring[r]);
        }
        return v;
}

void policy_demand_evaluate(const PolicyConfig *cfg, const PolicyState *s, const Assessment *a, usec_t now,
                            PolicyEval *e)
{
        const PolicyHistory *h = &s->hist;
        uint64_t hp = a->hpage_order < 32 ? (uint64_t) a->page_size << a->hpage_order : 0;
        uint64_t burst, unmet_burst, learn, prev, mem;
        bool renewed;

        if (a->rates.valid && hp > 0) {
                double interval = tick_interval(h, a, now);

                if (interval > 0.0) {
                        double stalled = MIN(policy_stalls_attributed(a), a->rates.thp_fault_alloc);

                        e->demand_bytes = rate_bytes(a->rates.thp_fault_alloc + a->rates.thp_fault_fallback,
                                                     interval, hp);
                        e->demand_fallback_bytes = rate_bytes(a->rates.thp_fault_fallback, interval, hp);
                        e->demand_stalled_bytes = rate_bytes(stalled, interval, hp);
                        e->demand_unmet_bytes = sat_add(e->demand_fallback_bytes, e->demand_stalled_bytes);
                }
        }

        burst = window_sum(h, h->demand_bytes, e->demand_bytes, now, POLICY_BURST_WINDOW_USEC);
        unmet_burst = window_sum(h, h->unmet_bytes, e->demand_unmet_bytes, now, POLICY_BURST_WINDOW_USEC);
        /* nothing learned passes the host's memory (a counter that wrapped
         * the rates did not catch, a peak from before a memory hot-remove) */
        mem = policy_mem_total_bytes(a);
        if (mem > 0 && burst > mem) {
                if (unmet_burst > 0)
                        e->learned_capped_from_bytes = burst;
                burst = mem;
                e->demand_bytes = MIN(e->demand_bytes, mem);
                e->demand_fallback_bytes = MIN(e->demand_fallback_bytes, mem);
                e->demand_stalled_bytes = MIN(e->demand_stalled_bytes, mem);
                e->demand_unmet_bytes = MIN(e->demand_unmet_bytes, mem);
        }
        if (mem > 0 && unmet_burst > mem)
                unmet_burst = mem;
        e->burst_bytes = burst;
        e->unmet_burst_bytes = unmet_burst;
        /* a burst with unmet demand in its window teaches its whole size */
        learn = unmet_burst > 0 ? MAX(burst, unmet_burst) : 0;

        if (!cfg->demand_learning) {
                shares_by_size(a, MIN(a->n_nodes, (unsigned) FRAGD_MAX_NODES), e);
                return;
        }
        e->learned_hold_usec = cfg->demand_hold_usec;
        prev = s->learned_peak_usec == 0 ? 0
                                         : decay_at_age(s->learned_peak_bytes, policy_learned_age(s, now),
                                                        cfg->demand_hold_usec, cfg->demand_decay_usec, hp);
        renewed = e->demand_unmet_bytes > 0 && learn >= prev;
        demand_shares(s, a, now, renewed, e);
        if (renewed) {
                e->learned_need_bytes = learn;
                e->learned_peak_bytes = learn;
                e->learned_peak_usec = now;
                e->learned_peak_before_usec = 0;
        } else if (prev > 0) {
                e->learned_need_bytes = prev;
                e->learned_peak_bytes = s->learned_peak_bytes;
                e->learned_peak_usec = s->learned_peak_usec;
                e->learned_peak_before_usec = s->learned_peak_before_usec;
                e->learned_from_boot = s->learned_from_boot;
                if (mem > 0 && e->learned_peak_bytes > mem) {
                        if (!e->learned_capped_from_bytes)
                                e->learned_capped_from_bytes = e->learned_peak_bytes;
                        e->learned_peak_bytes = mem;
                        if (e->learned_need_bytes > mem)
                                e->learned_need_bytes = mem;
                }
        }
        /* between bursts: no fault within the burst window and the peak
         * past its hold (a peak within its hold is a burst phase still
         * going on: the next cycle is expected any moment) */
        if (e->learned_need_bytes > 0 && e->burst_bytes == 0) {
                usec_t age = (now > e->learned_peak_usec ? now - e->learned_peak_usec : 0);

                age = e->learned_peak_before_usec > USEC_INFINITY - age ? USEC_INFINITY
                                                                         : age + e->learned_peak_before_usec;
                e->learned_standing = age > cfg->demand_hold_usec;
        }
}

uint64_t policy_learned_target(const PolicyConfig *cfg, uint64_t need_bytes, uint64_t configured_bytes,
                               uint64_t node_bytes)
{
        double f = cfg->demand_factor, v;
        uint64_t want, cap;

        if (!cfg->demand_learning || need_bytes == 0 || !(f > 0.0))
                return configured_bytes;
        v = (double) need_bytes * f;
        want = v >= 1.8e19 ? UINT64_MAX / 4 : (uint64_t) ceil(v);
        cap = policy_size_bytes(&cfg->demand_cap, node_bytes);
        want = want < cap ? want : cap;
        return want > configured_bytes ? want : configured_bytes;
}

/* ---- page-cache demand (docs/policy.md "Page-cache demand") ----------------
 *
 * From fragd's hist of folios added to the page cache by order
 * (Assessment.pagecache):
 *   order  = the highest order k >= 1 whose bytes since the trigger was set
 *            are at least POLICY_PAGECACHE_MIN_SHARE_PERMYRIAD of the bytes
 *            in large folios (orders >= 1), once those reach
 *            POLICY_PAGECACHE_MIN_BYTES. Order-0 bytes (small files,
 *            metadata, and folios that fell back all the way) do not dilute
 *            it; a fallback to a lower order leaves the order found while
 *            the blocks were there in the totals.
 *            Where the watched workload's failed allocations are counted
 *            (fail_total_valid) and some failed at an order with such a
 *            share, the order is the one of those with the most failures
 *            asked at it (ties: the higher; pagecache_order_failed): the
 *            order its allocations wait on, not the largest it also adds.
 *            The page cache retries a failed order k+1 at k
 *            (__filemap_get_folio() steps down one order at a time), so
 *            failures at k less those at k+1, when k+1 has a share too,
 *            were asked at k: in three
 *            NORETRY runs order 5 failed 556, 204 and 509 times against
 *            order 6's 565, 299 and 414, nearly all retries, and by the raw
 *            count the order went to 5. PostgreSQL
 *            writes relation files in order-8 folios beside its order-6
 *            WAL; by share the order went 6 -> 8 and back within a run,
 *            and fragd sized one-shots and a watermark raise for order-8
 *            blocks while 42 of its 46 failures were at order 6. A share
 *            is still asked of the order: a task of the workload also
 *            allocates slabs and socket buffers at orders 1-3 with
 *            __GFP_NORETRY, and those failures are not the page cache's.
 *   added  = bytes added in folios of order >= 1 this tick (what the
 *            one-shot's rules count as taken); the part at orders >= order
 *            is pagecache_order_demand_bytes.
 *   fallback = bytes added at an order k, 1 <= k < order, in a tick after
 *            which no node had a free block of order > k: the allocator
 *            splits any larger free block before it gives a smaller folio
 *            (__rmqueue_smallest()), so an order-k folio with such a block
 *            free was asked for at k, not fallen back to it (a writer of
 *            256 KiB beside a streaming writer of 1 MiB folios).
 *            A block freed within the tick hides that; so the rest of
 *            those bytes count too, up to one block of the order per
 *            kswapd wake-up at the order this tick (kswapd_wakeups_delta):
 *            an allocation at the order that found no free block above
 *            the low watermark wakes kswapd before it falls back, and the
 *            page cache asks at its order first.
 *            Where the failed allocations are counted (fail_valid: the
 *            instance counts the watched cgroups' tasks alone), they are
 *            the fallback instead of both rules: one block of the order per
 *            failed allocation at the order (the page cache retries it at
 *            smaller orders), at most every byte added under the order this
 *            tick, order 0 included (pagecache_failed_bytes). An allocation
 *            that fails while kswapd is already awake wakes nothing, and
 *            one that fails on the watermarks while a larger block is free
 *            leaves that block after the tick: both rules above miss it.
 *   stalled = bytes at orders >= order this tick, when attributed
 *            compaction stalls came (policy_stalls_attributed()) and the
 *            free blocks at the order after the tick could not have held
 *            them; at most one block of the order per stall.
 *   demand = fallback + stalled (pagecache_unmet_bytes): a tick in which
 *            the page cache got every folio it asked for at its order is
 *            no demand, however much it added (a bulk stream of order-8
 *            folios nobody waits on).
 *   burst  = demand summed over POLICY_BURST_WINDOW_USEC, as THP faults;
 *            below the THP order over POLICY_PAGECACHE_REBUILD_USEC: the
 *            reserve is rebuilt by a one-shot after each burst and holds
 *            what the demand takes until the next rebuild (30 s of WAL
 *            at 64 MiB segments every 15 s plus the THP need was 104-178
 *            MiB, more than the postgres scenario's memory could build).
 *   held   = the burst when this tick has demand and the burst is at least
 *            the remembered peak decayed to now (the peak is renewed);
 *            else that decayed peak: held for demand_hold after it was
 *            seen, halved every demand_decay, 0 under one block of order
 *            (the learned THP need's rule, decay_at_age()).
 *   need   = held x demand_factor, plus the learned THP need when
 *            order_thp == order (then both draw on the same free blocks;
 *            below it the THP reserve has its own target and levers).
 * The share reported is bytes at orders >= order over all bytes added. */

/* Free pages in blocks of order >= k summed over the nodes (the page
 * cache's allocations fall back along the zonelist to every node before a
 * smaller folio; zone_reclaim_mode aside) */
static uint64_t free_ge_pages(const Assessment *a, unsigned k)
{
        uint64_t sum = 0;

        if (k >= FRAGD_MAX_ORDERS)
                return 0;
        for (unsigned i = 0; i < MIN(a->n_nodes, (unsigned) FRAGD_MAX_NODES); i++)
                sum = sat_add(sum, a->nodes[i].free_pages_ge[k]);
        return sum;
}

/* Whether some node had a free block of order > k after the tick */
static bool free_above(const Assessment *a, unsigned k)
{
        return k + 1 < FRAGD_MAX_ORDERS && free_ge_pages(a, k + 1) >= UINT64_C(1) << (k + 1);
}

/* Bytes at orders >= order this tick that came with stalls (above) */
static uint64_t pagecache_stalled(const Assessment *a, unsigned order, uint64_t at_bytes)
{
        double stalls = policy_stalls_attributed(a), interval = a->pagecache.interval_sec, v;
        uint64_t block = (uint64_t) a->page_size << order;

        if (at_bytes == 0 || !(stalls > 0.0))
                return 0;
        if (!(interval > 0.0))
                interval = a->rates.interval_sec > 0.0 ? a->rates.interval_sec : 1.0;
        if ((unsigned __int128) free_ge_pages(a, order) * a->page_size >= at_bytes)
                return 0; /* the blocks there now would have held it: the stalls were another order's */
        v = ceil(stalls * interval) * (double) block;
        return v >= (double) at_bytes ? at_bytes : (uint64_t) v;
}

void policy_pagecache_evaluate(const PolicyConfig *cfg, const PolicyState *s, const Assessment *a, usec_t now,
                               PolicyEval *e)
{
        const PageCacheMeasures *m = &a->pagecache;
        const PolicyHistory *h = &s->hist;
        uint64_t large = 0, all = 0, at = 0, burst, mem, block, prev, held, fails = 0;
        unsigned order = 0, failed_order = 0, thp_order;
        bool share_k = false; /* the last order looked at (k + 1 in the loop) has a share */
        usec_t window;
        double v;

        /* what was seen so far survives a tick without the signal */
        e->pagecache_peak_bytes = s->pagecache_peak_bytes;
        e->pagecache_peak_usec = s->pagecache_peak_usec;
        if (!m->valid)
                return;
        for (unsigned k = 0; k < FRAGD_MAX_ORDERS; k++) {
                all = sat_add(all, m->bytes_total[k]);
                if (k >= 1)
                        large = sat_add(large, m->bytes_total[k]);
        }
        if (large < POLICY_PAGECACHE_MIN_BYTES)
                return;
        for (unsigned k = FRAGD_MAX_ORDERS - 1; k >= 1; k--) {
                bool share_above = share_k;

                share_k = (double) m->bytes_total[k] * 10000.0 >=
                          (double) large * (double) POLICY_PAGECACHE_MIN_SHARE_PERMYRIAD;
                if (!share_k)
                        continue;
                if (order == 0)
                        order = k; /* the highest with a share */
                if (m->fail_total_valid) {
                        /* the page cache retries a failed order k+1 at k
                         * (when it uses k+1: a THP's failures at 9 are
                         * not retried at 8): at least this many of the
                         * failures at k were asked at k */
                        uint64_t above = share_above ? m->alloc_fail_total[k + 1] : 0;
                        uint64_t own = m->alloc_fail_total[k] > above ? m->alloc_fail_total[k] - above : 0;

                        if (own > fails) {
                                fails = own;
                                failed_order = k;
                        }
                }
        }
        if (order == 0)
                return;
        if (failed_order > 0) {
                order = failed_order;
                e->pagecache_order_failed = true;
        }
        for (unsigned k = order; k < FRAGD_MAX_ORDERS; k++)
                at = sat_add(at, m->bytes_total[k]);
        e->pagecache_order = order;
        e->pagecache_share_permyriad = (uint32_t) ((double) at * 10000.0 / (double) all + 0.5);

        if (m->delta_valid) {
                uint64_t below = 0; /* bytes under the order a free larger block leaves unexplained */
                uint64_t smaller = m->bytes_delta[0]; /* every byte under the order */
                uint64_t blk = a->page_size > 0 ? (uint64_t) a->page_size << order : 0;

                for (unsigned k = 1; k < FRAGD_MAX_ORDERS; k++) {
                        e->pagecache_demand_bytes = sat_add(e->pagecache_demand_bytes, m->bytes_delta[k]);
                        if (k >= order) {
                                e->pagecache_order_demand_bytes =
                                        sat_add(e->pagecache_order_demand_bytes, m->bytes_delta[k]);
                                continue;
                        }
                        smaller = sat_add(smaller, m->bytes_delta[k]);
                        if (!free_above(a, k))
                                e->pagecache_fallback_bytes =
                                        sat_add(e->pagecache_fallback_bytes, m->bytes_delta[k]);
                        else
                                below = sat_add(below, m->bytes_delta[k]);
                }
                if (m->fail_valid && blk > 0) {
                        /* the failures counted: every failed allocation at
                         * the order came back smaller, one block each */
                        uint64_t failed = m->alloc_fail_delta[order] > UINT64_MAX / blk
                                                  ? UINT64_MAX
                                                  : m->alloc_fail_delta[order] * blk;

                        e->pagecache_failed_bytes = MIN(smaller, failed);
                        e->pagecache_fallback_bytes = e->pagecache_failed_bytes;
                } else if (m->wake_valid && below > 0 && m->kswapd_wakeups_delta[order] > 0 && blk > 0) {
                        uint64_t woke = m->kswapd_wakeups_delta[order] > UINT64_MAX / blk
                                                ? UINT64_MAX
                                                : m->kswapd_wakeups_delta[order] * blk;

                        e->pagecache_woke_bytes = MIN(below, woke);
                        e->pagecache_fallback_bytes = sat_add(e->pagecache_fallback_bytes, e->pagecache_woke_bytes);
                }
                e->pagecache_stalled_bytes = pagecache_stalled(a, order, e->pagecache_order_demand_bytes);
                e->pagecache_unmet_bytes = sat_add(e->pagecache_fallback_bytes, e->pagecache_stalled_bytes);
        }
        /* below the THP order the reserve is rebuilt by one-shots after
         * each burst (controller.c): it holds what comes within a rebuild */
        thp_order = cfg->order_thp ? cfg->order_thp : a->hpage_order;
        window = order < thp_order ? POLICY_PAGECACHE_REBUILD_USEC : POLICY_BURST_WINDOW_USEC;
        burst = window_sum(h, h->pagecache_unmet_bytes, e->pagecache_unmet_bytes, now, window);
        mem = policy_mem_total_bytes(a);
        if (mem > 0 && burst > mem)
                burst = mem;
        e->pagecache_burst_bytes = burst;

        if (!cfg->demand_learning || !(cfg->demand_factor > 0.0))
                return;
        /* held and decayed as the learned THP need; gone under one block */
        block = a->page_size > 0 && order < 32 ? (uint64_t) a->page_size << order : 0;
        prev = s->pagecache_peak_usec == 0
                       ? 0
                       : decay_at_age(s->pagecache_peak_bytes,
                                      now > s->pagecache_peak_usec ? now - s->pagecache_peak_usec : 0,
                                      cfg->demand_hold_usec, cfg->demand_decay_usec, block);
        if (e->pagecache_unmet_bytes > 0 && burst >= prev) {
                e->pagecache_peak_bytes = burst;
                e->pagecache_peak_usec = now;
                held = burst;
        } else if (prev > 0)
                held = prev;
        else {
                e->pagecache_peak_bytes = 0;
                e->pagecache_peak_usec = 0;
                held = burst;
        }
        e->pagecache_held_bytes = held;
        v = (double) held * cfg->demand_factor;
        e->pagecache_need_bytes = v >= 1.8e19 ? UINT64_MAX / 4 : (uint64_t) ceil(v);
        if (e->pagecache_need_bytes > 0 && thp_order == order && e->learned_need_bytes > 0) {
                v = (double) e->learned_need_bytes * cfg->demand_factor;
                e->pagecache_need_bytes =
                        sat_add(e->pagecache_need_bytes, v >= 1.8e19 ? UINT64_MAX / 4 : (uint64_t) ceil(v));
        }
}

uint64_t policy_pagecache_target(const PolicyConfig *cfg, uint64_t need_bytes, uint64_t configured_bytes,
                                 uint64_t node_bytes)
{
        uint64_t cap, want;

        if (need_bytes == 0)
                return configured_bytes;
        cap = policy_size_bytes(&cfg->demand_cap, node_bytes);
        want = need_bytes < cap ? need_bytes : cap;
        return want > configured_bytes ? want : configured_bytes;
}

/* ---- the configured reserves, gated on demand -----------------------------
 *
 * reserve_large and reserve_thp are a floor under the demand model's
 * targets. Kept whatever the demand, they had fragd compacting for a
 * reserve nobody waited on: on an aged 7.3 host whose WAL got every
 * order-6 folio it asked for, the database preset's 2 % THP reserve alone
 * doubled the compaction the kernel did by itself. So, unless the
 * operator asks for the floor always (reserve_always), it stands only
 * while unmet demand is held: the THP floor with a learned THP need (the
 * one from boot included) or a page-cache need at the THP order (its
 * blocks count there), the large-folio floor with either need. The needs
 * are held demand_hold after the last fallback or stall and then decay,
 * so the floor follows them: it comes with the first fallback, stays
 * through the hold, and goes when the need has decayed to nothing. */
bool policy_reserve_gate_on(const PolicyConfig *cfg)
{
        return !cfg->reserve_always && cfg->demand_learning && cfg->demand_factor > 0.0;
}

void policy_reserve_gate(const PolicyConfig *cfg, PolicyEval *e)
{
        bool thp, pc;

        if (!policy_reserve_gate_on(cfg)) {
                e->reserve_wanted[0] = e->reserve_wanted[1] = true;
                return;
        }
        thp = e->learned_need_bytes > 0;
        pc = e->pagecache_held_bytes > 0;
        e->reserve_wanted[1] = thp || (pc && e->pagecache_order >= e->order[1]);
        e->reserve_wanted[0] = thp || pc;
}
