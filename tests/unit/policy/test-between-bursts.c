/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The learned reserve between bursts (docs/policy.md "Between bursts"),
 * through decide/apply/update with a local config: once the learned peak
 * is past demand_hold and no THP fault came within the burst window, the
 * learned part of the THP target asks only for the proactiveness its score
 * needs. No raise past that by the integral, no kcompactd kick, no one-shot
 * compaction, no back-off episode; the configured reserve still gets all of
 * them; the next burst gets everything again. In the phased bench the cost
 * of doing otherwise is 828 k pages scanned
 * in a quiet phase the tuned-style profile spent 0 in. Every expectation is
 * worked out by hand in the comment beside it. */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "learned-fixture.h"

/* The cases' starting point (learned-fixture.h), kicks every 5 s: 1536 MiB
 * free, 200 MiB of it in order>=4 blocks, 100 MiB in order>=9 (the
 * defaults; other values per case): both configured reserves met with the
 * margin (order 4: 2 % = 81.9 MiB, x 1.1 = 90.1; THP: 1 % = 40.96 MiB,
 * x 1.1 = 45.1), a 512 MiB learned one far from it. Free memory is not
 * short: the kernel's high watermark (25344 pages, 99 MiB) + 512 MiB =
 * 611 MiB < 1536 MiB. */
static TSim *case_new(TWorld *ret_w, unsigned free_mib, unsigned large_mib, unsigned thp_mib, usec_t peak_age)
{
        return lf_new(ret_w, 5 * S, free_mib, large_mib, thp_mib, peak_age);
}

static TSim *case_default(TWorld *ret_w, usec_t peak_age)
{
        return case_new(ret_w, 1536, 200, 100, peak_age);
}

/* Without kicks, a 512 MiB burst in one tick (51.2 faults/s x 5 s x
 * 2 MiB) and 40 s after it: the integral has taken proactiveness to 80. */
static void burst_raised_to_80(TSim *s, TWorld *w)
{
        s->cfg.kick_interval_usec = 0;
        w->thp_fallback_per_sec = 51.2;
        (void) t_sim_tick(s, w, 5);
        w->thp_fallback_per_sec = 0;
        for (unsigned i = 0; i < 8; i++)
                (void) t_sim_tick(s, w, 5);
        assert_int_equal(s->in[LEVER_COMPACTION_PROACTIVENESS].current, 80);
}

/* When "between bursts" holds: a need, its peak older than demand_hold,
 * and no fault within the 30 s burst window. */
static void test_standing_when(void **state)
{
        TWorld w;
        TSim *s = case_default(&w, NO_PEAK);
        const Decision *d;

        (void) state;
        /* no need at all: nothing stands */
        d = t_sim_tick(s, &w, 5);
        assert_false(d->eval.learned_standing);

        /* a peak 290 s old, ticked 5 s later: 295 s <= 300 s, held */
        lf_seed_peak(s, 290 * S);
        d = t_sim_tick(s, &w, 5);
        assert_false(d->eval.learned_standing);
        /* 300 s exactly: still within the hold */
        d = t_sim_tick(s, &w, 5);
        assert_false(d->eval.learned_standing);
        /* 305 s: past it, no fault in the window: standing */
        d = t_sim_tick(s, &w, 5);
        assert_true(d->eval.learned_standing);

        /* a fault-free tick right after faults: the window still holds
         * them (2 faults/s x 5 s x 2 MiB = 20 MiB, less than the decayed
         * peak, so the peak is not renewed and stays past its hold) */
        w.thp_fallback_per_sec = 2;
        d = t_sim_tick(s, &w, 5);
        assert_int_equal(d->eval.burst_bytes, 20 * MIB);
        assert_false(d->eval.learned_standing);
        w.thp_fallback_per_sec = 0;
        d = t_sim_tick(s, &w, 25);
        assert_int_equal(d->eval.burst_bytes, 20 * MIB); /* 25 s ago: inside the 30 s window */
        assert_false(d->eval.learned_standing);
        d = t_sim_tick(s, &w, 5);
        assert_int_equal(d->eval.burst_bytes, 0); /* 30 s ago: out */
        assert_true(d->eval.learned_standing);
        free(s);
}

/* A need past its hold, proactiveness at its start value: one move to the
 * aim and no further. The learned target is 512 MiB (the peak decayed by
 * 2^(-105/360000) on the first tick: 511.9 MiB); score target 100 -
 * ceil(100 x 511.9 / 1536) = 100 - 34 = 66; the aim is the smallest
 * proactiveness whose high threshold (100 - p + min(10, (100 - p) / 2)) is
 * <= 66: p = 44 (56 + 10 = 66; p = 43 gives 67). The first move is capped
 * by step_up 20: 20 -> 40, the next dwell 40 -> 44. Before, the integral
 * went on (44 + ceil(20 x err) with err = 3000 + 7000 x 412/512 = 8632:
 * +18) to 80, and kcompactd was kicked every 5 s in between. */
static void test_standing_raises_to_the_aim_only(void **state)
{
        TWorld w;
        TSim *s = case_default(&w, 400 * S);
        const Decision *d;
        const DecisionItem *it;

        (void) state;
        d = t_sim_tick(s, &w, 5);
        explain_print(d);
        assert_true(d->eval.learned_standing);
        assert_int_equal(d->eval.nodes[0].score_target, 66);
        it = lf_pro_move(d, 40);
        assert_int_equal(it->from, 20);
        assert_int_equal(it->reason, POLICY_REASON_RESERVE_LEARNED);
        assert_true(it->num.standing);
        assert_int_equal(it->num.node, 0);
        assert_int_equal(it->num.order, 9);
        assert_int_equal(it->num.have_bytes, 100 * MIB);
        assert_int_equal(it->num.free_bytes, 1536 * MIB);
        assert_int_equal(it->num.score, 94); /* the test world's: 100 - floor(100 x 100 / 1536) */
        assert_int_equal(it->num.score_target, 66);
        assert_int_equal(it->num.learned_share_permyriad, 10000);
        assert_int_equal(it->num.config_target_bytes, 42949672);
        assert_int_equal(it->num.learned_hold_usec, 300 * S);
        assert_int_equal(it->num.learned_age_usec, 405 * S);
        /* 3000 + 7000 x (511.9 - 100) / 511.9 = 3000 + 5632.5 */
        assert_int_equal(it->err, 8632);
        /* a standing raise opens no back-off episode */
        assert_false(s->state.lever[LEVER_COMPACTION_PROACTIVENESS].episode);

        d = t_sim_tick(s, &w, 10);
        it = lf_pro_move(d, 44);

        /* ten minutes more of the same reserve: the lever stays at 44,
         * nothing is kicked, nothing compacted on the spot (a one-shot
         * answers the configured 40.96 MiB: 100 MiB is far above a quarter
         * of it; before, a quarter of the 512 MiB learned target, 128 MiB,
         * asked for one) */
        for (unsigned i = 0; i < 120; i++) {
                d = t_sim_tick(s, &w, 5);
                assert_null(t_find(d, DECISION_LEVER, LEVER_COMPACTION_PROACTIVENESS));
                assert_int_equal(lf_count_kind(d, DECISION_KICK_KCOMPACTD), 0);
                assert_int_equal(lf_count_kind(d, DECISION_COMPACT_NODE), 0);
                assert_false(s->state.lever[LEVER_COMPACTION_PROACTIVENESS].episode);
        }
        assert_int_equal(s->in[LEVER_COMPACTION_PROACTIVENESS].current, 44);
        /* nothing reclaimed for it either */
        assert_int_equal(s->in[LEVER_WATERMARK_SCALE_FACTOR].current, 10);
        free(s);
}

/* The same with the kernel's score at 66, the threshold of the level the
 * bytes give (44: 56 + 10): that level starts no round while the learned
 * reserve is short, so the standing level is the one for 65: 45 (55 + 10;
 * 44 gives 66). 20 -> 40 (step_up), then 40 -> 45, its score target 65,
 * and no further (docs/policy.md "Kicks and the aim": an aim that starts
 * a round). */
static void test_standing_level_under_the_kernels_score(void **state)
{
        TWorld w;
        TSim *s = case_default(&w, 400 * S);
        const Decision *d;
        const DecisionItem *it;

        (void) state;
        w.node[0].score = 66;
        d = t_sim_tick(s, &w, 5);
        assert_true(d->eval.learned_standing);
        it = lf_pro_move(d, 40);
        assert_true(it->num.standing);
        assert_int_equal(it->num.score, 66);
        assert_int_equal(it->num.score_target, 65);
        d = t_sim_tick(s, &w, 10);
        explain_print(d);
        it = lf_pro_move(d, 45);
        assert_int_equal(it->num.score_target, 65);
        for (unsigned i = 0; i < 20; i++) {
                d = t_sim_tick(s, &w, 5);
                assert_null(t_find(d, DECISION_LEVER, LEVER_COMPACTION_PROACTIVENESS));
        }
        assert_int_equal(s->in[LEVER_COMPACTION_PROACTIVENESS].current, 45);
        free(s);
}

/* Another THP order (order_thp = 8, not the kernel's 9): the kernel's
 * score does not count its blocks, so no standing level is offered for
 * the learned reserve between bursts (the default case's would be 20 ->
 * 40 -> 44, test_standing_raises_to_the_aim_only): proactiveness stays at
 * 20 for a minute. */
static void test_no_standing_level_for_another_thp_order(void **state)
{
        TWorld w;
        TSim *s = case_default(&w, 400 * S);
        const Decision *d;

        (void) state;
        s->cfg.order_thp = 8;
        for (unsigned i = 0; i < 12; i++) {
                d = t_sim_tick(s, &w, 5);
                assert_true(d->eval.learned_standing);
                assert_int_equal(d->eval.order[1], 8);
                assert_null(t_find(d, DECISION_LEVER, LEVER_COMPACTION_PROACTIVENESS));
        }
        assert_int_equal(s->in[LEVER_COMPACTION_PROACTIVENESS].current, 20);
        free(s);
}

/* The quiet phase of the phased bench: a burst raises proactiveness to its
 * aim (44, as above: no further while kicking, docs/policy.md "Kicks and
 * the aim") and kicks while the peak is held; past the hold, with no
 * fault, the kicks stop and the lever stays at the aim, the level the
 * standing need keeps (the configured reserves are met, so the
 * fragmentation want is 0 from the end of the hold, and the floor is 44). */
static void test_quiet_after_burst_stops_kicking(void **state)
{
        TWorld w;
        TSim *s = case_default(&w, NO_PEAK);
        const Decision *d;
        unsigned kicks_held = 0;

        (void) state;
        /* 51.2 faults/s x 5 s x 2 MiB = 512 MiB in one tick */
        w.thp_fallback_per_sec = 51.2;
        d = t_sim_tick(s, &w, 5);
        assert_int_equal(d->eval.learned_need_bytes, 512 * MIB);
        w.thp_fallback_per_sec = 0;
        /* the hold: 300 s of full action (raises to the aim 44, kicks) */
        for (unsigned i = 0; i < 60; i++) {
                d = t_sim_tick(s, &w, 5);
                assert_false(d->eval.learned_standing);
                kicks_held += lf_count_kind(d, DECISION_KICK_KCOMPACTD);
        }
        assert_int_equal(s->in[LEVER_COMPACTION_PROACTIVENESS].current, 44);
        assert_true(kicks_held > 0);
        /* past the hold (305 s after the burst) for 900 s: no kick, no raise */
        for (unsigned i = 0; i < 180; i++) {
                const DecisionItem *it;

                d = t_sim_tick(s, &w, 5);
                assert_true(d->eval.learned_standing);
                assert_int_equal(lf_count_kind(d, DECISION_KICK_KCOMPACTD), 0);
                assert_int_equal(lf_count_kind(d, DECISION_COMPACT_NODE), 0);
                it = t_find(d, DECISION_LEVER, LEVER_COMPACTION_PROACTIVENESS);
                assert_null(it);
        }
        assert_int_equal(s->in[LEVER_COMPACTION_PROACTIVENESS].current, 44);
        free(s);
}

/* Between bursts the configured reserve is still the integral's and the
 * kicks' business: 20 MiB in order>=9 blocks against the configured
 * 40.96 MiB (4 GiB x 1 % = 42949672 bytes). The want cites that target,
 * not the learned 512 MiB: err = 3000 + 7000 x (42949672 - 20 MiB) /
 * 42949672 = 3000 + 3582 = 6582 (7000 x 21978152 / 42949672 = 3582.07), a
 * step of ceil(20 x 0.6582) = 14; its aim from the configured target's
 * score (100 - ceil(100 x 40.96 / 1536) = 97, p = 13 under the lever's
 * 20) does not lift it, the standing need's aim 44 does: max(20 + 14, 44)
 * = 44, at most step_up 20: 20 -> 40 (before, 34: the raise for the
 * configured reserve stopped under the standing level), then a kick
 * inside the dwell. */
static void test_standing_keeps_configured_reserve(void **state)
{
        TWorld w;
        TSim *s = case_new(&w, 1536, 200, 20, 400 * S);
        const Decision *d;
        const DecisionItem *it;

        (void) state;
        d = t_sim_tick(s, &w, 5);
        explain_print(d);
        assert_true(d->eval.learned_standing);
        it = t_find(d, DECISION_LEVER, LEVER_COMPACTION_PROACTIVENESS);
        assert_non_null(it);
        assert_int_equal(it->reason, POLICY_REASON_RESERVE_BELOW_TARGET);
        assert_false(it->num.standing);
        assert_int_equal(it->num.target_bytes, 42949672);
        assert_int_equal(it->num.learned_need_bytes, 0);
        assert_int_equal(it->num.score_target, 97);
        assert_int_equal(it->err, 6582);
        assert_int_equal(it->to, 40);
        /* 5 s later, inside the 10 s dwell: a kick for the configured reserve */
        d = t_sim_tick(s, &w, 5);
        it = t_find(d, DECISION_KICK_KCOMPACTD, LEVER_COMPACTION_PROACTIVENESS);
        assert_non_null(it);
        assert_int_equal(it->num.target_bytes, 42949672);
        free(s);
}

/* The next burst is served as the first: a fault ends "between bursts", the
 * peak is renewed, and kicks come back. From 44 (the standing level, the
 * aim of the renewed 512 MiB need as well): no raise past the aim while
 * kicking (before, err 3000 + 7000 x 412 / 512 = 8632, step 18, 44 -> 62),
 * a kick on the burst's first tick and a back-off episode open for it. */
static void test_next_burst_served(void **state)
{
        TWorld w;
        TSim *s = case_default(&w, 400 * S);
        const Decision *d;
        const DecisionItem *it;

        (void) state;
        (void) t_sim_tick(s, &w, 5);
        (void) t_sim_tick(s, &w, 10);
        assert_int_equal(s->in[LEVER_COMPACTION_PROACTIVENESS].current, 44);
        for (unsigned i = 0; i < 6; i++)
                (void) t_sim_tick(s, &w, 5);

        w.thp_fallback_per_sec = 51.2;
        d = t_sim_tick(s, &w, 5);
        explain_print(d);
        assert_false(d->eval.learned_standing);
        assert_null(t_find(d, DECISION_LEVER, LEVER_COMPACTION_PROACTIVENESS));
        it = t_find(d, DECISION_KICK_KCOMPACTD, LEVER_COMPACTION_PROACTIVENESS);
        assert_non_null(it);
        assert_int_equal(it->to, 44);
        assert_false(it->num.standing);
        assert_int_equal(it->num.learned_need_bytes, 512 * MIB);
        assert_true(s->state.lever[LEVER_COMPACTION_PROACTIVENESS].episode);
        /* the cycle over, its faults still in the window: not between bursts */
        w.thp_fallback_per_sec = 0;
        d = t_sim_tick(s, &w, 5);
        assert_false(d->eval.learned_standing);
        assert_non_null(t_find(d, DECISION_KICK_KCOMPACTD, LEVER_COMPACTION_PROACTIVENESS));
        free(s);
}

/* watermark_scale_factor raised for a burst while free memory was short
 * for it comes home between bursts: memory short and "met" are judged
 * against the configured target then. 500 MiB free, 100 MiB of it in
 * order>=9 blocks: short for the learned 512 MiB (high watermark 99 MiB +
 * 512 MiB = 611 MiB > 500), not for the configured 40.96 MiB (140 MiB).
 * During the hold the memory want raises the lever (err 8632, aim
 * ceil(131072 x 10000 / 1048576) = 1250, a step of 100 per 30 s dwell, at
 * most 200 here: 10 -> 110 -> 200; no back-off, min_free_kbytes off, so
 * the lever stays there). From the first tick past the hold (305 s after
 * the burst) the reclaim levers' objective is met (100 MiB >= 40.96 x
 * 1.1): free memory is no longer short for what they serve, so after
 * decay_after (600 s), at 905 s, it goes home to 10 in one move (half way
 * first, 105, and home one dwell later, would make watermark_scale_factor
 * the phased bench's last knob home, 102 s after the last burst against a
 * bound of 90 s). Were "met" to keep the learned 512 MiB, the lever
 * would stay at 200 as long as the need lasted. */
static void test_reclaim_lever_home_between_bursts(void **state)
{
        TWorld w;
        TSim *s = case_new(&w, 500, 200, 100, NO_PEAK);
        const Decision *d;

        (void) state;
        s->cfg.backoff_decisions = 0;
        s->cfg.lever[LEVER_MIN_FREE_KBYTES].enabled = false;
        s->cfg.lever[LEVER_WATERMARK_SCALE_FACTOR].max = 200;
        s->cfg.watermark_cap_permyriad = 10000; /* free memory above the kernel's high watermark: out of the way */
        w.thp_fallback_per_sec = 51.2;
        d = t_sim_tick(s, &w, 5);
        explain_print(d);
        assert_int_equal(s->in[LEVER_WATERMARK_SCALE_FACTOR].current, 140); /* a step of 100 from 40 */
        w.thp_fallback_per_sec = 0;
        for (unsigned i = 0; i < 61; i++) /* to 305 s */
                d = t_sim_tick(s, &w, 5);
        assert_true(d->eval.learned_standing);
        assert_int_equal(s->in[LEVER_WATERMARK_SCALE_FACTOR].current, 200);
        for (unsigned i = 0; i < 119; i++) /* to 900 s */
                d = t_sim_tick(s, &w, 5);
        assert_int_equal(s->in[LEVER_WATERMARK_SCALE_FACTOR].current, 200);
        d = t_sim_tick(s, &w, 5); /* 905 s */
        assert_non_null(t_find_reason(d, LEVER_WATERMARK_SCALE_FACTOR, POLICY_REASON_TARGETS_MET_DECAY));
        assert_int_equal(s->in[LEVER_WATERMARK_SCALE_FACTOR].current, 10);
        for (unsigned i = 0; i < 7; i++) { /* and stays there */
                d = t_sim_tick(s, &w, 5);
                assert_null(t_find(d, DECISION_LEVER, LEVER_WATERMARK_SCALE_FACTOR));
        }
        free(s);
}

/* A learned reserve met now is kept by kcompactd only while the score
 * stays under its threshold, so while the need lasts proactiveness decays
 * to the level that keeps it, not to the kernel's: the burst raises it to
 * 80 (20 -> 40 -> 58 -> 76 -> 80, step 18 per 10 s dwell, err 8632), then
 * the reserve is there (600 MiB >= 512 x 1.1, 700 MiB in order>=4 blocks)
 * and every target is met. After decay_after (600 s) it goes straight to
 * the floor, 44 as above, in one move (not half way first, 80 -> 62 ->
 * 44, a dwell at 62 where the churn keeps kcompactd working to its
 * threshold), and stays there while the need lasts. Without a floor,
 * 80 -> 50 -> 20, kcompactd would stop keeping the reserve the next burst
 * draws on (the phased bench's second burst: 29 at its second cycle, which
 * loses 75 of 256 huge pages with no compaction between the cycles).
 * Kicks off here (kick_interval 0) so that the burst's integral takes the
 * lever past the floor: with kicks it stops at the aim, which is the floor
 * (test-burst-aim.c). */
static void test_met_learned_reserve_keeps_the_floor(void **state)
{
        TWorld w;
        TSim *s = case_default(&w, NO_PEAK);
        const Decision *d;
        int64_t moves[8];
        unsigned n = 0, score0 = 0;

        (void) state;
        burst_raised_to_80(s, &w);
        w.node[0].ge_large_pages = 700 * PAGES_MIB;
        w.node[0].ge_thp_pages = 600 * PAGES_MIB;
        for (unsigned i = 0; i < 360; i++) { /* 30 min */
                const DecisionItem *it;

                d = t_sim_tick(s, &w, 5);
                it = t_find(d, DECISION_LEVER, LEVER_COMPACTION_PROACTIVENESS);
                if (it && n == 0)
                        score0 = it->num.score_target; /* the score the floor keeps */
                if (it && n < 8)
                        moves[n++] = it->to;
        }
        assert_int_equal(n, 1);
        assert_int_equal(moves[0], 44);
        assert_int_equal(score0, 66);
        assert_int_equal(s->in[LEVER_COMPACTION_PROACTIVENESS].current, 44);
        assert_int_equal(d->eval.proactiveness_floor, 44);
        free(s);
}

/* The same burst and reserve: the decay comes on the first tick at which
 * every objective has been met for decay_after exactly, not one tick (5 s)
 * later. The reserve is there from the tick the blocks appear (tick 0 of
 * the loop, t0; the last raise, to 80, was 10 s before: its dwell is
 * over), so with decay_after 600 s the move is at tick 120 (t0 + 600 s),
 * its numbers say met for 600 s and cite the floor's score 66. */
static unsigned decay_tick_in(unsigned free_mib, usec_t decay_after, uint64_t thp_mib, const DecisionItem **ret)
{
        TWorld w;
        TSim *s = case_default(&w, NO_PEAK);
        static DecisionItem copy;
        const DecisionItem *it = NULL;
        unsigned i;

        s->cfg.decay_after_usec = decay_after;
        burst_raised_to_80(s, &w);
        w.node[0].free_pages = free_mib * PAGES_MIB;
        w.node[0].ge_large_pages = MIN(700, free_mib) * PAGES_MIB;
        w.node[0].ge_thp_pages = thp_mib * PAGES_MIB;
        for (i = 0; i < 200; i++) {
                it = t_find(t_sim_tick(s, &w, 5), DECISION_LEVER, LEVER_COMPACTION_PROACTIVENESS);
                if (it)
                        break;
        }
        *ret = NULL;
        if (it) {
                copy = *it;
                *ret = &copy;
        }
        free(s);
        return i;
}

static unsigned decay_tick(usec_t decay_after, uint64_t thp_mib, const DecisionItem **ret)
{
        unsigned i = decay_tick_in(1536, decay_after, thp_mib, ret);

        assert_non_null(*ret);
        return i;
}

static void test_met_learned_decay_at_decay_after(void **state)
{
        const DecisionItem *it;

        (void) state;
        assert_int_equal(decay_tick(600 * S, 600, &it), 120);
        assert_int_equal(it->to, 44);
        assert_int_equal(it->num.met_usec, 600 * S);
        assert_int_equal(it->num.score_target, 66);
        assert_int_equal(it->reason, POLICY_REASON_TARGETS_MET_DECAY);
}

/* The learned reserve there but inside the band (520 MiB: >= 512, under
 * 512 x 1.1 = 563.2): not met with the margin, yet nothing below its
 * target (no fragmentation want) and no stall or fallback: quiet from t0.
 * After decay_after of quiet proactiveness goes to the floor all the same
 * (44, the score 66 as above), the numbers saying quiet for 600 s. */
static void test_quiet_in_band_decays_to_the_floor(void **state)
{
        const DecisionItem *it;

        (void) state;
        assert_int_equal(decay_tick(600 * S, 520, &it), 120);
        assert_int_equal(it->to, 44);
        assert_int_equal(it->num.met_usec, 600 * S);
        assert_int_equal(it->num.score_target, 66);
}

/* Quiet is judged on the tick itself, not on the last one: as above
 * (520 MiB, in the band, quiet from t0), but at t0 + 600 s, the tick the
 * decay would come, the reserve falls under the configured target (30
 * MiB < 40.96 MiB; between bursts, past the 300 s hold, the learned part
 * only stands and the fragmentation want answers the configured target):
 * not quiet, so no decay on that tick, though the lever was quiet for
 * 595 s until the tick before. */
static void test_quiet_ends_on_its_tick(void **state)
{
        TWorld w;
        TSim *s = case_default(&w, NO_PEAK);
        const Decision *d;
        const DecisionItem *it;

        (void) state;
        burst_raised_to_80(s, &w);
        w.node[0].ge_large_pages = 700 * PAGES_MIB;
        w.node[0].ge_thp_pages = 520 * PAGES_MIB;
        for (unsigned i = 0; i < 120; i++)
                assert_null(t_find(t_sim_tick(s, &w, 5), DECISION_LEVER, LEVER_COMPACTION_PROACTIVENESS));
        w.node[0].ge_thp_pages = 30 * PAGES_MIB;
        d = t_sim_tick(s, &w, 5);
        assert_true(d->eval.learned_standing);
        it = t_find(d, DECISION_LEVER, LEVER_COMPACTION_PROACTIVENESS);
        assert_true(it == NULL || it->reason != POLICY_REASON_TARGETS_MET_DECAY);
        assert_int_equal(s->in[LEVER_COMPACTION_PROACTIVENESS].current, 80);
        free(s);
}

/* The quiet decay goes to the floor only: with no floor there is none.
 * The burst as above (free memory 1536 MiB while the lever goes up to 80),
 * then free memory down to 512 MiB, all of it in order>=9 blocks: the
 * learned 512 MiB reserve is there (>= its target, nothing below it) but
 * not with the margin (< 563.2 MiB), and no score keeps it (it is all of
 * free memory: need 100 %, score 0, no floor). Not met, and quiet without
 * a floor: proactiveness is not decayed in 1000 s. */
static void test_quiet_without_floor_no_decay(void **state)
{
        const DecisionItem *it;

        (void) state;
        (void) decay_tick_in(512, 600 * S, 512, &it);
        if (it)
                print_message("    %s %lld -> %lld\n", policy_reason_name(it->reason), (long long) it->from, (long long) it->to);
        assert_null(it);
}

/* Where no score can keep the learned reserve (it is more than the free
 * memory: 512 MiB against 400 MiB free), nothing stands: score target 0,
 * no raise. The configured reserves are met (100 MiB >= 45.1) and free
 * memory is not short for them (99 + 40.96 MiB < 400 MiB). */
static void test_standing_needs_a_score(void **state)
{
        TWorld w;
        TSim *s = case_new(&w, 400, 200, 100, 400 * S);
        const Decision *d;

        (void) state;
        for (unsigned i = 0; i < 20; i++) {
                d = t_sim_tick(s, &w, 5);
                assert_true(d->eval.learned_standing);
                assert_int_equal(d->eval.nodes[0].score_target, 0);
                assert_null(t_find(d, DECISION_LEVER, LEVER_COMPACTION_PROACTIVENESS));
                assert_int_equal(lf_count_kind(d, DECISION_KICK_KCOMPACTD), 0);
        }
        free(s);
}

/* The score target when 100 x T / free is a whole number: a burst of
 * exactly 512 MiB (51.2 faults/s x 5 s x 2 MiB) with 1024 MiB free needs a
 * score of 100 - 50 = 50 (no rounding up). Between bursts the need has
 * decayed a little (2^(-1/360000) per second past the hold), 100 x T /
 * free is just under 50 and rounds up to it: 50 again, aim p = 60 (40 +
 * 10 = 50; p = 59 gives 51). */
static void test_standing_exact_score(void **state)
{
        TWorld w;
        TSim *s = case_new(&w, 1024, 200, 100, NO_PEAK);
        const Decision *d;

        (void) state;
        w.thp_fallback_per_sec = 51.2;
        d = t_sim_tick(s, &w, 5);
        assert_int_equal(d->eval.learned_need_bytes, 512 * MIB);
        assert_int_equal(d->eval.nodes[0].score_target, 50);
        free(s);

        s = case_new(&w, 1024, 200, 100, 400 * S);
        d = t_sim_tick(s, &w, 5);
        assert_true(d->eval.learned_standing);
        assert_int_equal(d->eval.nodes[0].score_target, 50);
        (void) t_sim_tick(s, &w, 10);
        (void) t_sim_tick(s, &w, 10);
        assert_int_equal(s->in[LEVER_COMPACTION_PROACTIVENESS].current, 60);
        free(s);
}

/* With every target met and a learned need, only proactiveness keeps the
 * floor: a watermark_scale_factor found at 60 goes home, not to 44, and in
 * one move (a reclaim lever decays only with free memory not short:
 * straight home, not half way, 60 - 25 = 35, then 10 a 30 s dwell
 * later). */
static void test_floor_is_proactiveness_only(void **state)
{
        TWorld w;
        TSim *s = case_new(&w, 1536, 700, 600, 0);
        const Decision *d = NULL;
        const DecisionItem *it = NULL;

        (void) state;
        s->in[LEVER_WATERMARK_SCALE_FACTOR].current = 60;
        for (unsigned i = 0; i < 130 && !it; i++) {
                d = t_sim_tick(s, &w, 5);
                it = t_find(d, DECISION_LEVER, LEVER_WATERMARK_SCALE_FACTOR);
        }
        assert_non_null(it);
        assert_int_equal(d->eval.proactiveness_floor, 44);
        assert_int_equal(it->from, 60);
        assert_int_equal(it->to, 10);
        for (unsigned i = 0; i < 6; i++)
                (void) t_sim_tick(s, &w, 5);
        assert_int_equal(s->in[LEVER_WATERMARK_SCALE_FACTOR].current, 10);
        free(s);
}

/* Under memory pressure the standing raise is held like any raise (PSI
 * some 20 % over the 10 % ceiling). */
static void test_standing_held_under_pressure(void **state)
{
        TWorld w;
        TSim *s = case_default(&w, 400 * S);
        const Decision *d;

        (void) state;
        w.psi_some = 2000;
        d = t_sim_tick(s, &w, 5);
        assert_true(d->eval.learned_standing);
        lf_assert_held_by_psi(d, 44);
        free(s);
}

/* Between bursts the reclaim levers' "met" takes the configured target's
 * margin: 43 MiB in order>=9 blocks is within 40.96 MiB +- 10 %, and 150
 * MiB free is under (99 + 40.96) x 1.1 = 154 MiB, so neither counts as met
 * and a watermark_scale_factor found at 60 stays there for 20 minutes (not
 * short either: 150 > 140 MiB, so no raise). */
static void test_reclaim_lever_band_between_bursts(void **state)
{
        TWorld w;
        TSim *s = case_new(&w, 150, 150, 43, 400 * S);
        const Decision *d;

        (void) state;
        s->in[LEVER_WATERMARK_SCALE_FACTOR].current = 60;
        for (unsigned i = 0; i < 240; i++) {
                d = t_sim_tick(s, &w, 5);
                assert_true(d->eval.learned_standing);
                assert_false(d->eval.lever_met[LEVER_WATERMARK_SCALE_FACTOR]);
        }
        assert_int_equal(s->in[LEVER_WATERMARK_SCALE_FACTOR].current, 60);
        free(s);
}

/* The sentence says why it stops there. */
static void test_standing_sentence(void **state)
{
        DecisionItem it = { .kind = DECISION_LEVER, .lever = LEVER_COMPACTION_PROACTIVENESS, .from = 20, .to = 40,
                            .reason = POLICY_REASON_RESERVE_LEARNED };
        char buf[512];

        (void) state;
        it.num.node = 0;
        it.num.eta_usec = USEC_INFINITY;
        it.num.order = 9;
        it.num.have_bytes = 100 * MIB;
        it.num.target_bytes = 512 * MIB;
        it.num.learned_need_bytes = 512 * MIB;
        it.num.learned_share_permyriad = 10000;
        it.num.learned_age_usec = 400 * S;
        it.num.learned_hold_usec = 300 * S;
        it.num.score = 90;
        it.num.score_target = 66;
        it.num.standing = true;
        decision_explain(&it, buf, sizeof(buf));
        print_message("%s\n", buf);
        assert_string_equal(buf,
                            "raise compaction_proactiveness 20\u219240: node 0 has 100 MiB free in order>=9 blocks; "
                            "recent THP bursts that fell back or stalled asked for 512 MiB (learned reserve, seen 6 min ago, decaying); "
                            "kernel score 90, the target needs 66 or less; between bursts (no THP fault in the "
                            "last 30 s): only the level that score needs, no kicks");
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_standing_when),
                cmocka_unit_test(test_standing_raises_to_the_aim_only),
                cmocka_unit_test(test_standing_level_under_the_kernels_score),
                cmocka_unit_test(test_no_standing_level_for_another_thp_order),
                cmocka_unit_test(test_quiet_after_burst_stops_kicking),
                cmocka_unit_test(test_standing_keeps_configured_reserve),
                cmocka_unit_test(test_next_burst_served),
                cmocka_unit_test(test_reclaim_lever_home_between_bursts),
                cmocka_unit_test(test_met_learned_reserve_keeps_the_floor),
                cmocka_unit_test(test_met_learned_decay_at_decay_after),
                cmocka_unit_test(test_quiet_in_band_decays_to_the_floor),
                cmocka_unit_test(test_quiet_without_floor_no_decay),
                cmocka_unit_test(test_quiet_ends_on_its_tick),
                cmocka_unit_test(test_standing_needs_a_score),
                cmocka_unit_test(test_standing_exact_score),
                cmocka_unit_test(test_floor_is_proactiveness_only),
                cmocka_unit_test(test_standing_held_under_pressure),
                cmocka_unit_test(test_reclaim_lever_band_between_bursts),
                cmocka_unit_test(test_standing_sentence),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
