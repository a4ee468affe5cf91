/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Controller v2 (issue 14), through decide/apply/update with a local
 * config: the reserve built by compaction unless free memory itself is
 * short, the memory raised watermarks hold back, each lever decaying by its
 * own objectives, back-off returning to the baseline with a hold that
 * doubles, the learned need per node, and the first reserve from the
 * kernel's counters since boot. Every expectation is worked out by hand in
 * the comment beside it. */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "controller-test-util.h"

#define MIB (1024ull * 1024)
#define PAGES_MIB (MIB / T_PAGE) /* 256 */

static void learning_on(PolicyConfig *c)
{
        c->demand_learning = true;
        c->demand_hold_usec = 1800 * S;
        c->demand_decay_usec = 1800 * S;
        c->demand_factor = 1.0;
        c->demand_cap = (SizeSpec){ .permyriad = 2500 }; /* 1 GiB of a 4 GiB node */
        c->demand_from_boot = true;
}

/* The probe of issue 14 item 1: a 1 GiB THP burst with 1171 MiB free and
 * 585 MiB in THP blocks. The old rule (free < min + 2 T = 66 + 2048 MiB)
 * called that short and raised watermark_scale_factor 10 -> 410. Free
 * memory covers the burst plus the kernel's high watermark (1024 + 99 MiB),
 * so the reserve is compaction's to build. */
static void test_burst_with_free_memory_uses_compaction(void **state)
{
        TSim *s = sim_new();
        TWorld w = t_world_fine(1);
        const Decision *d;
        const DecisionItem *it;

        learning_on(&s->cfg);
        /* 102.4 faults/s x 5 s x 2 MiB = 1 GiB in one tick */
        w.thp_fallback_per_sec = 102.4;
        w.node[0] = (TNode){ .free_pages = 1171 * PAGES_MIB, .ge_large_pages = 1000 * PAGES_MIB,
                             .ge_thp_pages = 585 * PAGES_MIB, .reclaimable_pages = 400000 };
        d = t_sim_tick(s, &w, 5);
        explain_print(d);
        assert_int_equal(d->eval.nodes[0].target_bytes[1], 1024 * MIB);
        /* kernel high watermark at min_free_kbytes 67584, scale 10 on a
         * 1048576-page zone: min 16896, gap max(16896/4, 1048) = 4224,
         * high 16896 + 2 x 4224 = 25344 pages */
        assert_int_equal(d->eval.nodes[0].kernel_high_bytes, 25344ull * T_PAGE);
        assert_int_equal(d->eval.nodes[0].watermark_held_bytes, 0);
        assert_null(t_find(d, DECISION_LEVER, LEVER_WATERMARK_SCALE_FACTOR));
        assert_null(t_find(d, DECISION_LEVER, LEVER_MIN_FREE_KBYTES));
        it = t_find(d, DECISION_LEVER, LEVER_COMPACTION_PROACTIVENESS);
        assert_non_null(it);
        assert_int_equal(it->reason, POLICY_REASON_RESERVE_LEARNED);
        /* score target 100 - ceil(100 x 1024 / 1171) = 12, aim 92; one step of 20 */
        assert_int_equal(it->from, 20);
        assert_int_equal(it->to, 40);

        /* an hour of the same: the reclaim levers never move */
        for (unsigned i = 0; i < 360; i++) {
                d = t_sim_tick(s, &w, 10);
                assert_null(t_find(d, DECISION_LEVER, LEVER_WATERMARK_SCALE_FACTOR));
                assert_null(t_find(d, DECISION_LEVER, LEVER_MIN_FREE_KBYTES));
        }
        assert_int_equal(s->in[LEVER_WATERMARK_SCALE_FACTOR].current, 10);
        assert_int_equal(s->in[LEVER_MIN_FREE_KBYTES].current, 67584);
        free(s);
}

/* The same burst with 1000 MiB free: less than 1024 MiB + the 99 MiB high
 * watermark, so free memory itself is short and kswapd gets headroom. */
static void test_burst_without_free_memory_uses_reclaim(void **state)
{
        TSim *s = sim_new();
        TWorld w = t_world_fine(1);
        const Decision *d;
        const DecisionItem *it;

        learning_on(&s->cfg);
        w.thp_fallback_per_sec = 102.4;
        w.node[0] = (TNode){ .free_pages = 1000 * PAGES_MIB, .ge_large_pages = 900 * PAGES_MIB,
                             .ge_thp_pages = 585 * PAGES_MIB, .reclaimable_pages = 400000 };
        /* 12 % of the faults fell back (over the 10 % limit; its err 4400
         * is weaker than the part's): compaction is offered the part */
        w.fallback_ratio = 0.12;
        d = t_sim_tick(s, &w, 5);
        explain_print(d);
        it = t_find(d, DECISION_LEVER, LEVER_WATERMARK_SCALE_FACTOR);
        assert_non_null(it);
        assert_int_equal(it->reason, POLICY_REASON_FREE_MEMORY_SHORT);
        /* needed: 25344 pages + 1 GiB */
        assert_int_equal(it->num.free_needed_bytes, 25344ull * T_PAGE + 1024 * MIB);
        /* and compaction for the part free memory above the high watermark
         * holds: 1000 - 99 = 901 MiB, 585 MiB there; err 3000 + 7000 x 316
         * / 901 = 5455, one step of 20 */
        it = t_find(d, DECISION_LEVER, LEVER_COMPACTION_PROACTIVENESS);
        assert_non_null(it);
        assert_int_equal(it->num.target_bytes, 901 * MIB);
        assert_int_equal(it->num.short_target_bytes, 1024 * MIB);
        assert_int_equal(it->err, 5455);
        assert_int_equal(it->to, 40);
        free(s);
}

/* Memory held back by raised watermarks, per node: at scale 200 the gap is
 * max(4224, 1048576 x 200 / 10000 = 20971) = 20971 pages, high 16896 +
 * 41942 = 58838 pages, 33494 pages above the kernel's 25344. */
static void test_watermark_held_bytes(void **state)
{
        TSim *s = sim_new();
        TWorld w = t_world_fine(2);
        const Decision *d;

        s->in[LEVER_WATERMARK_SCALE_FACTOR].current = 200;
        s->in[LEVER_WATERMARK_SCALE_FACTOR].baseline = 10;
        d = t_sim_tick(s, &w, 5);
        /* two 4 GiB nodes: min_free_kbytes is shared, 8448 pages each,
         * gap max(2112, 20971) = 20971, high 8448 + 41942 = 50390; the
         * kernel's: gap max(2112, 1048) = 2112, high 8448 + 4224 = 12672 */
        for (unsigned i = 0; i < 2; i++) {
                assert_int_equal(d->eval.nodes[i].kernel_high_bytes, 12672ull * T_PAGE);
                assert_int_equal(d->eval.nodes[i].watermark_held_bytes, (50390ull - 12672) * T_PAGE);
        }
        free(s);
}

/* Issue 14 item 4: a miss compaction cannot fix (the reserve stays at 31
 * MiB of 41 MiB while kcompactd scans) used to cycle proactiveness up and
 * down for hours. Each back-off now gives every raise back at once and
 * holds raising 600 s, 1200 s, 2400 s, ... (backoff_hold 600 s doubling):
 * in 4 hours at most 600 + 1200 + 2400 + 4800 = 9000 s of holds fit
 * between the first and the fifth back-off, the sixth would need 9600 s
 * more. */
static void test_backoff_returns_to_baseline_and_holds_longer(void **state)
{
        TSim *s = sim_new();
        TWorld w = t_world_fine(1);
        usec_t at[16], start;
        unsigned n = 0, raises = 0;

        w.node[0].ge_thp_pages = 8000;
        w.scan_pages_per_sec = 1000;
        start = s->now;
        while (s->now - start < 4 * 3600 * S) {
                const Decision *d = t_sim_tick(s, &w, 10);
                const DecisionItem *it = t_find(d, DECISION_LEVER, LEVER_COMPACTION_PROACTIVENESS);

                if (!it)
                        continue;
                if (it->reason == POLICY_REASON_BACKOFF_INEFFECTIVE) {
                        assert_int_equal(it->to, 20); /* the baseline, in one move */
                        assert_true(it->forced);
                        assert_true(n < 16);
                        at[n++] = s->now;
                } else if (it->to > it->from)
                        raises++;
        }
        print_message("    %u back-offs, %u raises in 4 h\n", n, raises);
        assert_true(n >= 2);
        assert_true(n <= 5);
        for (unsigned k = 0; k + 1 < n; k++)
                assert_true(at[k + 1] - at[k] >= (600 * S << k));
        /* with one back-off per 600 s hold there were 4 raises per cycle,
         * ~22 cycles in 4 h; now at most 4 per cycle over 5 cycles */
        assert_true(raises <= 4 * 5 + 4);
        free(s);
}

static void test_backoff_hold_doubles(void **state)
{
        assert_int_equal(policy_backoff_hold_usec(600 * S, 0), 600 * S);
        assert_int_equal(policy_backoff_hold_usec(600 * S, 1), 1200 * S);
        assert_int_equal(policy_backoff_hold_usec(600 * S, 3), 4800 * S);
        assert_int_equal(policy_backoff_hold_usec(600 * S, 5), 19200 * S);
        assert_int_equal(policy_backoff_hold_usec(600 * S, 9), 19200 * S); /* capped at 32 x */
        assert_int_equal(policy_backoff_hold_usec(USEC_INFINITY / 2, 2), USEC_INFINITY);
}

/* A back-off that paid off in between (or the targets met once the hold is
 * over) starts the count again: the next hold is the short one. */
static void test_backoff_count_resets_when_met(void **state)
{
        TSim *s = sim_new();
        TWorld w = t_world_fine(1), fine = t_world_fine(1);
        unsigned n = 0;

        w.node[0].ge_thp_pages = 8000;
        w.scan_pages_per_sec = 1000;
        for (unsigned i = 0; i < 200 && n == 0; i++)
                n += t_find_reason(t_sim_tick(s, &w, 10), LEVER_COMPACTION_PROACTIVENESS,
                                   POLICY_REASON_BACKOFF_INEFFECTIVE) != NULL;
        assert_int_equal(n, 1);
        assert_int_equal(s->state.lever[LEVER_COMPACTION_PROACTIVENESS].backoffs, 1);
        /* the hold (600 s) ends with the targets met */
        for (unsigned i = 0; i < 70; i++)
                t_sim_tick(s, &fine, 10);
        assert_int_equal(s->state.lever[LEVER_COMPACTION_PROACTIVENESS].backoffs, 0);
        free(s);
}

/* Issue 14 item 3, the probe: proactiveness found at 100 (baseline 20), the
 * order-4 reserve at 1.05x its target (inside the 10 % band), everything
 * else met. The single gate held every lever up for an hour. Now the
 * reserves ask for nothing, so after decay_after (600 s) proactiveness
 * decays (half way, then home), no lower than the floor: the largest target is
 * order 4's 85899345 bytes of 2048000000 free, 100 x that / free = 4.19,
 * score 100 - 5 = 95, and the smallest p whose high threshold (100 - p +
 * min(10, (100 - p) / 2)) is <= 95 is 15; the baseline 20 is above it. */
static void test_reserve_in_band_does_not_hold_proactiveness(void **state)
{
        TSim *s = sim_new();
        TWorld w = t_world_fine(1);
        usec_t start = s->now, first = 0;

        w.node[0].ge_large_pages = 22020; /* 90193920 bytes = 1.05 x 85899345 */
        w.node[0].ge_thp_pages = 22020;
        s->in[LEVER_COMPACTION_PROACTIVENESS].current = 100;
        for (unsigned i = 0; i < 360; i++) {
                const Decision *d = t_sim_tick(s, &w, 10);
                const DecisionItem *it = t_find(d, DECISION_LEVER, LEVER_COMPACTION_PROACTIVENESS);

                assert_false(d->eval.targets_met); /* the old gate: closed all along */
                assert_int_equal(d->eval.proactiveness_floor, 15);
                if (it) {
                        assert_int_equal(it->reason, POLICY_REASON_TARGETS_MET_DECAY);
                        assert_true(it->to < it->from);
                        if (!first) {
                                first = s->now;
                                explain_print(d);
                        }
                }
        }
        assert_true(first - start >= 600 * S);
        assert_true(first - start <= 620 * S);
        assert_int_equal(s->in[LEVER_COMPACTION_PROACTIVENESS].current, 20);
        free(s);
}

/* The floor: with 150 MiB free, the 82 MiB order-4 target needs a score of
 * 100 - ceil(100 x 85899345 / 157286400 = 54.6) = 45; p = 64 gives high
 * 36 + 10 = 46, p = 65 gives 35 + 10 = 45: proactiveness stops at 65. */
static void test_decay_inside_band_stops_at_floor(void **state)
{
        TSim *s = sim_new();
        TWorld w = t_world_fine(1);

        w.node[0] = (TNode){ .free_pages = 150 * PAGES_MIB, .ge_large_pages = 22020, .ge_thp_pages = 22020,
                             .reclaimable_pages = 400000 };
        s->in[LEVER_COMPACTION_PROACTIVENESS].current = 100;
        for (unsigned i = 0; i < 360; i++)
                t_sim_tick(s, &w, 10);
        assert_int_equal(s->d.eval.proactiveness_floor, 65);
        assert_int_equal(s->in[LEVER_COMPACTION_PROACTIVENESS].current, 65);
        free(s);
}

/* Each lever by its own objectives: direct compaction stalls at 0.095/s
 * against 0.1/s (met, inside the band) hold proactiveness at 60, but
 * watermark_scale_factor, found at 200 with free memory plenty, decays from
 * 600 s: 200 -> 105 (half of 190), then 10 a 30 s dwell later. */
static void test_each_lever_decays_by_its_objectives(void **state)
{
        TSim *s = sim_new();
        TWorld w = t_world_fine(1);

        w.stall_per_sec = 0.095;
        s->in[LEVER_COMPACTION_PROACTIVENESS].current = 60;
        s->in[LEVER_WATERMARK_SCALE_FACTOR].current = 200;
        for (unsigned i = 0; i < 59; i++)
                t_sim_tick(s, &w, 10);
        assert_int_equal(s->in[LEVER_WATERMARK_SCALE_FACTOR].current, 200); /* 590 s: not yet */
        for (unsigned i = 0; i < 61; i++)
                t_sim_tick(s, &w, 10);
        assert_false(s->d.eval.targets_met);
        assert_true(s->d.eval.lever_met[LEVER_WATERMARK_SCALE_FACTOR]);
        assert_false(s->d.eval.lever_met[LEVER_COMPACTION_PROACTIVENESS]);
        assert_int_equal(s->in[LEVER_WATERMARK_SCALE_FACTOR].current, 10);
        assert_int_equal(s->in[LEVER_COMPACTION_PROACTIVENESS].current, 60);
        free(s);
}

/* Issue 14 item 5, issue 37 item 3: the first reserve from the kernel's
 * counters since boot. Only the fallbacks are demand worth reserving for:
 * a host whose THP faults the kernel always served gets none, however
 * many. The fallbacks, as one burst at an unknown time in the uptime,
 * give the learned need a running fragd would hold now, averaged over when
 * that burst could have come: F x (H + D/ln2 x (1 - 2^(-(U-H)/D))) / U
 * (F = fallbacks x 2 MiB). Worked by hand (ln2 = 0.693147, D/ln2 =
 * 2596.85 s for 1800 s):
 *   10000 fallbacks, U = 36000 s, H = D = 1800 s: 2^(-19) = 1.9e-6;
 *     (1800 + 2596.85 x 0.999998) / 36000 = 0.122135 -> 20000 MiB x it = 2442.7 MiB
 *   2000 of them: 4000 MiB x 0.122135 = 488.5 MiB
 *   the bench's constants, H = 30 s, D = 15 s (D/ln2 = 21.64 s), 70
 *   fallbacks (140 MiB) in U = 90 s: (30 + 21.64 x (1 - 1/16)) / 90 =
 *   0.55875 -> 78.2 MiB; demand_decay 0: 140 x 30 / 90 = 46.7 MiB
 *   up within the hold: all of it. */
static void test_first_reserve_from_boot_counters(void **state)
{
        PolicyConfig c;
        LearnedRestore r;
        const uint64_t hp = 2 * MIB;

        (void) state;
        t_config(&c);
        learning_on(&c);
        assert_int_equal(policy_learned_from_boot(&c, &(BootHistory) { 10000, 10000, 36000 * S }, hp, 65536 * MIB,
                                                  5000 * S, &r),
                         LEARNED_RESTORE_OK);
        assert_in_range(r.peak_bytes, 2442 * MIB, 2443 * MIB);
        assert_int_equal(r.need_bytes, r.peak_bytes);
        assert_int_equal(r.peak_usec, 5000 * S); /* seen now: held for demand_hold */
        assert_int_equal(r.peak_before_usec, 0);
        assert_int_equal(r.hold_left_usec, 1800 * S);
        assert_true(r.from_boot);
        /* the same faults, 2000 of them fallen back: sized from those */
        assert_int_equal(policy_learned_from_boot(&c, &(BootHistory) { 10000, 2000, 36000 * S }, hp, 65536 * MIB,
                                                  5000 * S, &r),
                         LEARNED_RESTORE_OK);
        assert_in_range(r.peak_bytes, 488 * MIB, 489 * MIB);
        /* the kernel served every fault: nothing, however many */
        assert_int_equal(policy_learned_from_boot(&c, &(BootHistory) { 10000, 0, 36000 * S }, hp, 4096 * MIB,
                                                  5000 * S, &r),
                         LEARNED_RESTORE_EMPTY);
        assert_int_equal(policy_learned_from_boot(&c, &(BootHistory) { 1000000, 0, 600 * S }, hp, 4096 * MIB,
                                                  600 * S, &r),
                         LEARNED_RESTORE_EMPTY);
        /* up for less than demand_hold: all of it, 30 x 2 MiB */
        assert_int_equal(policy_learned_from_boot(&c, &(BootHistory) { 100, 30, 600 * S }, hp, 4096 * MIB, 600 * S,
                                                  &r),
                         LEARNED_RESTORE_OK);
        assert_int_equal(r.peak_bytes, 60 * MIB);
        /* never more than the host's memory */
        assert_int_equal(policy_learned_from_boot(&c, &(BootHistory) { 1000000, 1000000, 600 * S }, hp,
                                                  4096 * MIB, 600 * S, &r),
                         LEARNED_RESTORE_OK);
        assert_int_equal(r.peak_bytes, 4096 * MIB);
        /* one fallback in 10 h: 2 MiB x 0.122, under one huge page */
        assert_int_equal(policy_learned_from_boot(&c, &(BootHistory) { 10000, 1, 36000 * S }, hp, 4096 * MIB,
                                                  600 * S, &r),
                         LEARNED_RESTORE_EMPTY);
        assert_int_equal(policy_learned_from_boot(&c, &(BootHistory) { 0, 0, 36000 * S }, hp, 4096 * MIB, 600 * S, &r),
                         LEARNED_RESTORE_EMPTY);
        /* the phased bench's time constants */
        c.demand_hold_usec = 30 * S;
        c.demand_decay_usec = 15 * S;
        assert_int_equal(policy_learned_from_boot(&c, &(BootHistory) { 256, 70, 90 * S }, hp, 2048 * MIB, 90 * S,
                                                  &r),
                         LEARNED_RESTORE_OK);
        assert_in_range(r.peak_bytes, 78 * MIB, 79 * MIB);
        c.demand_decay_usec = 0; /* a burst is forgotten after the hold */
        assert_int_equal(policy_learned_from_boot(&c, &(BootHistory) { 256, 70, 90 * S }, hp, 2048 * MIB, 90 * S,
                                                  &r),
                         LEARNED_RESTORE_OK);
        assert_int_equal(r.peak_bytes, 140 * MIB / 3);
        c.demand_learning = false;
        assert_int_equal(policy_learned_from_boot(&c, &(BootHistory) { 10000, 10000, 36000 * S }, hp, 4096 * MIB,
                                                  600 * S, &r),
                         LEARNED_RESTORE_OFF);
}

/* Counters no host reaches (2^60 fallbacks of 2 MiB = 2^81 bytes)
 * saturate instead of wrapping, with no memory size to cap them: the
 * estimate (weight 1: up less than demand_hold) is over 1.8e19 as a
 * double and the seed is UINT64_MAX / 4 exactly; 7 x 2^59 and 3 x 2^61
 * bytes are kept as they are. Any non-zero huge page size is taken as
 * given (1 byte: 4096 fallbacks are 4096 bytes). */
static void test_first_reserve_from_boot_saturates(void **state)
{
        PolicyConfig c;
        LearnedRestore r;

        (void) state;
        t_config(&c);
        learning_on(&c);
        assert_int_equal(policy_learned_from_boot(&c, &(BootHistory) { 1ULL << 60, 1ULL << 60, 600 * S }, 2 * MIB, 0,
                                                  600 * S, &r),
                         LEARNED_RESTORE_OK);
        assert_true(r.need_bytes == 4611686018427387903ULL);
        assert_int_equal(policy_learned_from_boot(&c, &(BootHistory) { 7ULL << 38, 7ULL << 38, 600 * S }, 2 * MIB,
                                                  0, 600 * S, &r),
                         LEARNED_RESTORE_OK);
        assert_true(r.need_bytes == 7ULL << 59);
        assert_int_equal(policy_learned_from_boot(&c, &(BootHistory) { 3ULL << 40, 3ULL << 40, 600 * S }, 2 * MIB,
                                                  0, 600 * S, &r),
                         LEARNED_RESTORE_OK);
        assert_true(r.need_bytes == 3ULL << 61);
        assert_int_equal(policy_learned_from_boot(&c, &(BootHistory) { 4096, 4096, 600 * S }, 1, 0, 600 * S, &r),
                         LEARNED_RESTORE_OK);
        assert_int_equal(r.need_bytes, 4096);
}

/* A host idle since a boot-time burst (a 4 GiB heap faulted at start,
 * 500 of its 2048 huge pages fell back) and up for 30 days: 1000 MiB x
 * (1800 + 2596.85 x (1 - 2^(-1439))) / 2592000 = 1000 x 0.0016963 = 1.7
 * MiB, under one huge page: nothing. A host with no fallback: nothing. */
static void test_first_reserve_from_boot_idle_host_small(void **state)
{
        PolicyConfig c;
        LearnedRestore r;
        const uint64_t hp = 2 * MIB;

        (void) state;
        t_config(&c);
        learning_on(&c);
        assert_int_equal(policy_learned_from_boot(&c, &(BootHistory) { 2048, 500, 2592000 * S }, hp,
                                                  65536 * MIB, 100 * S, &r),
                         LEARNED_RESTORE_EMPTY);
        /* 2000 fallbacks: 4000 MiB x 0.0016963 = 6.8 MiB */
        assert_int_equal(policy_learned_from_boot(&c, &(BootHistory) { 2048, 2000, 2592000 * S }, hp,
                                                  65536 * MIB, 100 * S, &r),
                         LEARNED_RESTORE_OK);
        assert_in_range(r.peak_bytes, 6 * MIB, 7 * MIB);
        assert_int_equal(policy_learned_from_boot(&c, &(BootHistory) { 2048, 0, 2592000 * S }, hp, 65536 * MIB,
                                                  100 * S, &r),
                         LEARNED_RESTORE_EMPTY);
        c.demand_from_boot = false;
        assert_int_equal(policy_learned_from_boot(&c, &(BootHistory) { 2048, 2000, 600 * S }, hp, 65536 * MIB,
                                                  100 * S, &r),
                         LEARNED_RESTORE_OFF);
}

/* Seeded, a fresh fragd keeps the first burst's reserve before any burst:
 * 1000 MiB, under the 1 GiB cap, is the THP target from the first tick and
 * compaction builds it (free memory covers it). */
static void test_first_reserve_seeded_acts_before_a_burst(void **state)
{
        TSim *s = sim_new();
        TWorld w = t_world_fine(1);
        LearnedRestore r;
        const DecisionItem *it;
        const Decision *d;

        learning_on(&s->cfg);
        w.node[0].ge_thp_pages = 585 * PAGES_MIB; /* of 1953 MiB free */
        assert_int_equal(policy_learned_from_boot(&s->cfg, &(BootHistory) { 1000, 500, 600 * S }, 2 * MIB, 4096 * MIB, s->now, &r),
                         LEARNED_RESTORE_OK);
        policy_learned_seed(&s->state, &r);
        d = t_sim_tick(s, &w, 5);
        explain_print(d);
        assert_int_equal(d->eval.demand_bytes, 0);
        assert_int_equal(d->eval.nodes[0].target_bytes[1], 1000 * MIB);
        it = t_find(d, DECISION_LEVER, LEVER_COMPACTION_PROACTIVENESS);
        assert_non_null(it);
        assert_int_equal(it->reason, POLICY_REASON_RESERVE_LEARNED);
        assert_null(t_find(d, DECISION_LEVER, LEVER_WATERMARK_SCALE_FACTOR));
        free(s);
}

/* The sentence says where the need came from: a seed from the counters
 * since boot is not a burst fragd saw. It stays a boot seed while it is
 * kept, and a real burst makes it "recent THP bursts" again: 1.5 faults/s x
 * 5 s x 2 MiB = 15 MiB, under the 1000 MiB seed, does not renew it; the next
 * tick's 102.4 faults/s x 5 s x 2 MiB = 1024 MiB, with the 15 MiB in the
 * same 30 s burst window, does (1039 MiB). */
static void test_first_reserve_seeded_says_boot(void **state)
{
        TSim *s = sim_new();
        TWorld w = t_world_fine(1);
        LearnedRestore r;
        const DecisionItem *it;
        const Decision *d;
        char buf[512];

        learning_on(&s->cfg);
        w.node[0].ge_thp_pages = 585 * PAGES_MIB;
        assert_int_equal(policy_learned_from_boot(&s->cfg, &(BootHistory) { 1000, 500, 600 * S }, 2 * MIB, 4096 * MIB, s->now, &r),
                         LEARNED_RESTORE_OK);
        assert_true(r.from_boot);
        policy_learned_seed(&s->state, &r);
        d = t_sim_tick(s, &w, 5);
        assert_true(d->eval.learned_from_boot);
        it = t_find(d, DECISION_LEVER, LEVER_COMPACTION_PROACTIVENESS);
        assert_non_null(it);
        assert_true(it->num.learned_from_boot);
        decision_explain(it, buf, sizeof(buf));
        assert_non_null(strstr(buf, "THP faults since boot fell back for 1000 MiB (first reserve from boot history, set 5 s ago, held 30 min)"));
        assert_null(strstr(buf, "recent THP bursts"));

        w.thp_fallback_per_sec = 1.5;
        d = t_sim_tick(s, &w, 5);
        assert_int_equal(d->eval.learned_peak_bytes, 1000 * MIB);
        assert_true(d->eval.learned_from_boot);

        w.thp_fallback_per_sec = 102.4;
        d = t_sim_tick(s, &w, 5);
        assert_int_equal(d->eval.learned_peak_bytes, 1039 * MIB);
        assert_false(d->eval.learned_from_boot);
        it = t_find(d, DECISION_LEVER, LEVER_COMPACTION_PROACTIVENESS);
        if (it) {
                decision_explain(it, buf, sizeof(buf));
                assert_null(strstr(buf, "since boot"));
        }
        /* a learned file's restore is not a boot seed */
        assert_int_equal(policy_learned_restore(&s->cfg, 512 * MIB, 60 * S, s->now, 2 * MIB, &r), LEARNED_RESTORE_OK);
        assert_false(r.from_boot);
        free(s);
}

/* Issue 14 item 2: the need per node. Two 4 GiB nodes, a 1 GiB burst
 * (102.4 faults/s x 5 s x 2 MiB). Without per-node counts the nodes share
 * by size: 5000/10000 each, 512 MiB each (was 1 GiB on both). */
static void test_need_split_by_node_size(void **state)
{
        TSim *s = sim_new();
        TWorld w = t_world_fine(2);
        const Decision *d;

        learning_on(&s->cfg);
        w.thp_fallback_per_sec = 102.4;
        d = t_sim_tick(s, &w, 5);
        for (unsigned i = 0; i < 2; i++) {
                assert_int_equal(d->eval.nodes[i].learned_share_permyriad, 5000);
                assert_false(d->eval.nodes[i].learned_share_measured);
                assert_int_equal(d->eval.nodes[i].target_bytes[1], 512 * MIB);
        }
        free(s);
}

/* The kernel tells: 512 THPs appeared on node 0 and none on node 1 during
 * the burst. Node 0 gets all of it (1 GiB, the 25 % cap exactly), node 1
 * its configured 1 %: 4294967296 x 100 / 10000 = 42949672 bytes. The split
 * stays with the kept peak after the burst, when nothing grows. */
static void test_need_where_the_kernel_served(void **state)
{
        TSim *s = sim_new();
        TWorld w = t_world_fine(2);
        const Decision *d;

        learning_on(&s->cfg);
        w.thp_fallback_per_sec = 102.4;
        w.node[0].thp_grown_valid = w.node[1].thp_grown_valid = true;
        w.node[0].thp_grown = 512;
        d = t_sim_tick(s, &w, 5);
        assert_int_equal(d->eval.nodes[0].learned_share_permyriad, 10000);
        assert_true(d->eval.nodes[0].learned_share_measured);
        assert_int_equal(d->eval.nodes[1].learned_share_permyriad, 0);
        assert_int_equal(d->eval.nodes[0].target_bytes[1], 1024 * MIB);
        assert_int_equal(d->eval.nodes[1].target_bytes[1], 42949672);

        w.thp_fallback_per_sec = 0;
        w.node[0].thp_grown = 0;
        d = t_sim_tick(s, &w, 60);
        assert_int_equal(d->eval.learned_need_bytes, 1024 * MIB);
        assert_int_equal(d->eval.nodes[0].target_bytes[1], 1024 * MIB);
        assert_int_equal(d->eval.nodes[1].target_bytes[1], 42949672);

        /* a burst across a tick boundary: 3 THPs on node 0 in this tick,
         * 1 on node 1; with the 512 of 65 s ago outside the 30 s window:
         * 7500 and 2500 */
        w.thp_fallback_per_sec = 204.8; /* 2 GiB: a new peak */
        w.node[0].thp_grown = 3;
        w.node[1].thp_grown = 1;
        d = t_sim_tick(s, &w, 5);
        assert_int_equal(d->eval.nodes[0].learned_share_permyriad, 7500);
        assert_int_equal(d->eval.nodes[1].learned_share_permyriad, 2500);

        /* thirds round down to 3333 each: the largest (the first of the
         * equal ones) takes the one left, so the shares add up to 10000 */
        w.thp_fallback_per_sec = 409.6; /* 4 GiB: a new peak */
        w.node[0].thp_grown = w.node[1].thp_grown = 1;
        w.n_nodes = 3;
        w.node[2] = w.node[1];
        d = t_sim_tick(s, &w, 5);
        assert_int_equal(d->eval.nodes[0].learned_share_permyriad, 3334);
        assert_int_equal(d->eval.nodes[1].learned_share_permyriad, 3333);
        assert_int_equal(d->eval.nodes[2].learned_share_permyriad, 3333);
        free(s);
}

/* The target of issue 14: knobs back at the values found at start within
 * decay_after + two dwells. Proactiveness found at 80, everything met:
 * nothing moves for 600 s, then 80 -> 50 (half of 60, more than step_down
 * 5), and 50 -> 20 at the next 10 s dwell. */
static void test_decay_home_in_two_dwells(void **state)
{
        TSim *s = sim_new();
        TWorld w = t_world_fine(1);
        const DecisionItem *it;
        usec_t start = s->now;

        s->in[LEVER_COMPACTION_PROACTIVENESS].current = 80;
        while (s->now - start < 600 * S) {
                assert_null(t_find(t_sim_tick(s, &w, 10), DECISION_LEVER, LEVER_COMPACTION_PROACTIVENESS));
        }
        it = t_find(t_sim_tick(s, &w, 10), DECISION_LEVER, LEVER_COMPACTION_PROACTIVENESS);
        assert_non_null(it);
        assert_int_equal(it->reason, POLICY_REASON_TARGETS_MET_DECAY);
        assert_int_equal(it->from, 80);
        assert_int_equal(it->to, 50);
        assert_false(it->forced);
        it = t_find(t_sim_tick(s, &w, 10), DECISION_LEVER, LEVER_COMPACTION_PROACTIVENESS);
        assert_non_null(it);
        assert_int_equal(it->to, 20);
        assert_true(s->now - start <= 600 * S + 2 * 10 * S);
        free(s);
}

/* The sentence names the node's share of the burst and where it comes from. */
static void test_explain_share(void **state)
{
        DecisionItem it = {
                .kind = DECISION_LEVER,
                .lever = LEVER_COMPACTION_PROACTIVENESS,
                .node = -1,
                .from = 20,
                .to = 40,
                .reason = POLICY_REASON_RESERVE_LEARNED,
                .num = { .node = 1, .order = 9, .have_bytes = 100 * MIB, .target_bytes = 256 * MIB,
                         .eta_usec = USEC_INFINITY, .learned_need_bytes = 1024 * MIB,
                         .learned_share_permyriad = 2500, .learned_share_measured = true,
                         .config_target_bytes = 38 * MIB, .learned_hold_usec = 1800 * S },
        };
        char buf[512];

        decision_explain(&it, buf, sizeof(buf));
        assert_string_equal(buf, "raise compaction_proactiveness 20\u219240: node 1 has 100 MiB free in order>=9 "
                                 "blocks; recent THP bursts that fell back or stalled asked for 1024 MiB (learned reserve, held 30 min), "
                                 "256 MiB of it here (25.00%, where the kernel served the burst)");
        it.num.learned_share_measured = false;
        it.num.target_bytes = 200 * MIB;
        decision_explain(&it, buf, sizeof(buf));
        assert_non_null(strstr(buf, "256 MiB of it here (25.00%, by node size), capped at 200 MiB"));
}

/* Each lever's objectives on one tick, by hand (t_config: stalls at most
 * 0.1/s, fallback at most 1000 permyriad, band 10 %; t_world_fine's
 * reserves are met) */
static void test_lever_met_flags(void **state)
{
        TSim *s = sim_new();
        TWorld w = t_world_fine(1);
        const Decision *d;

        (void) state;
        /* all fine: extfrag_threshold quiet (nothing missed) */
        d = t_sim_tick(s, &w, 5);
        assert_true(d->eval.lever_met[LEVER_COMPACTION_PROACTIVENESS]);
        assert_true(d->eval.lever_met[LEVER_THP_DEFRAG]);
        assert_true(d->eval.lever_quiet[LEVER_EXTFRAG_THRESHOLD]);
        free(s);
        /* fallback 50 % (5000 > 1000): proactiveness and THP defrag not
         * met; the boost factor (reserves only) met */
        s = sim_new();
        w.fallback_ratio = 0.5;
        d = t_sim_tick(s, &w, 5);
        assert_int_equal(d->eval.fallback_permyriad, 5000);
        assert_false(d->eval.lever_met[LEVER_COMPACTION_PROACTIVENESS]);
        assert_false(d->eval.lever_met[LEVER_THP_DEFRAG]);
        assert_true(d->eval.lever_met[LEVER_WATERMARK_BOOST_FACTOR]);
        free(s);
        /* stalls 1/s (1000 milli > 100), fallback none: THP defrag not met */
        s = sim_new();
        w.fallback_ratio = -1;
        w.stall_per_sec = 1.0;
        d = t_sim_tick(s, &w, 5);
        assert_int_equal(d->eval.stall_milli, 1000);
        assert_false(d->eval.lever_met[LEVER_THP_DEFRAG]);
        free(s);
}

static void floor_tick(uint64_t thp_target_bytes, uint64_t free_pages, int64_t want_floor)
{
        TSim *s = sim_new();
        TWorld w = t_world_fine(1);
        const Decision *d;

        s->cfg.reserve_large = (SizeSpec){ 0 };
        s->cfg.reserve_thp = (SizeSpec){ .bytes = thp_target_bytes };
        if (thp_target_bytes == 0)
                s->cfg.reserve_thp.permyriad = 0;
        w.node[0].free_pages = free_pages;
        d = t_sim_tick(s, &w, 5);
        assert_int_equal(d->eval.proactiveness_floor, want_floor);
        free(s);
}

/* The proactiveness floor from the score the largest target needs:
 * high threshold(p) = min(100, 100 - p + min(10, (100 - p) / 2)).
 * Free 500000 pages = 2048000000 bytes. */
static void test_proactiveness_floor_edges(void **state)
{
        (void) state;
        /* a 1-byte target: need ceil(100 x 1 / 2048000000) = 1, score 99;
         * p = 11: 89 + 10 = 99 <= 99 (p = 10: 90 + 10 = 100) */
        floor_tick(1, 500000, 11);
        /* 2007040001 bytes: 100 x that / 2048000000 = 98.00000005, need 99,
         * score 1; p = 99: 1 + min(10, 0) = 1 <= 1 (p = 98: 2 + 1 = 3) */
        floor_tick(2007040001, 500000, 99);
        /* no target at all, no free memory: score 100, p = 0 (100 <= 100) */
        floor_tick(0, 0, 0);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_burst_with_free_memory_uses_compaction),
                cmocka_unit_test(test_lever_met_flags),
                cmocka_unit_test(test_proactiveness_floor_edges),
                cmocka_unit_test(test_burst_without_free_memory_uses_reclaim),
                cmocka_unit_test(test_watermark_held_bytes),
                cmocka_unit_test(test_backoff_returns_to_baseline_and_holds_longer),
                cmocka_unit_test(test_backoff_hold_doubles),
                cmocka_unit_test(test_backoff_count_resets_when_met),
                cmocka_unit_test(test_reserve_in_band_does_not_hold_proactiveness),
                cmocka_unit_test(test_decay_inside_band_stops_at_floor),
                cmocka_unit_test(test_each_lever_decays_by_its_objectives),
                cmocka_unit_test(test_decay_home_in_two_dwells),
                cmocka_unit_test(test_first_reserve_from_boot_counters),
                cmocka_unit_test(test_first_reserve_from_boot_saturates),
                cmocka_unit_test(test_first_reserve_from_boot_idle_host_small),
                cmocka_unit_test(test_first_reserve_seeded_acts_before_a_burst),
                cmocka_unit_test(test_first_reserve_seeded_says_boot),
                cmocka_unit_test(test_need_split_by_node_size),
                cmocka_unit_test(test_need_where_the_kernel_served),
                cmocka_unit_test(test_explain_share),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
