/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The sentence of every reason and hold (policy/explain.c), with numbers
 * chosen at the edges of each unit: bytes as KiB under 1 MiB, one decimal
 * under 10 MiB, MiB under 10 GiB, GiB with a decimal above; durations in s
 * under 2 min, min under 2 h, h above, "never"; percentages and rates with
 * two decimals. Each expected sentence is written out in full. Links
 * libpolicy.a only. */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "fragd/policy.h"

#define S USEC_PER_SEC
#define KIB 1024ULL
#define MIB (1024ULL * KIB)
#define GIB (1024ULL * MIB)

static void expect_item(const DecisionItem *it, const char *want)
{
        char buf[1024];
        int n = decision_explain(it, buf, sizeof(buf));

        if (strcmp(buf, want) != 0)
                fail_msg("got  \"%s\"\nwant \"%s\"", buf, want);
        assert_int_equal(n, (int) strlen(want));
}

static void expect_held(const PolicyHeldItem *h, const char *want)
{
        char buf[1024];
        int n = decision_explain_held(h, buf, sizeof(buf));

        if (strcmp(buf, want) != 0)
                fail_msg("got  \"%s\"\nwant \"%s\"", buf, want);
        assert_int_equal(n, (int) strlen(want));
}

static DecisionItem lever_item(Lever l, int64_t from, int64_t to, PolicyReason r)
{
        return (DecisionItem){ .kind = DECISION_LEVER, .lever = l, .node = -1, .from = from, .to = to, .reason = r,
                               .num = { .node = 0, .eta_usec = USEC_INFINITY } };
}

static void test_reserve_sentences(void **state)
{
        DecisionItem it = lever_item(LEVER_COMPACTION_PROACTIVENESS, 20, 40, POLICY_REASON_RESERVE_BELOW_TARGET);

        (void) state;
        it.num.node = 1;
        it.num.order = 9;
        it.num.have_bytes = 48 * MIB;
        it.num.target_bytes = 10 * GIB; /* 10 GiB: GiB with a decimal */
        expect_item(&it, "raise compaction_proactiveness 20\u219240: node 1 has 48 MiB free in order>=9 blocks, "
                         "target 10.0 GiB");
        /* falling: the time to 0 at that rate; the kernel score */
        it.num.have_bytes = 10 * MIB - 1; /* just under 10 MiB: one decimal */
        it.num.target_bytes = MIB - 1;    /* just under 1 MiB: KiB */
        it.num.trend_bytes_per_sec = -(int64_t) (MIB / 8);
        it.num.score = 93;
        it.num.score_target = 79;
        expect_item(&it, "raise compaction_proactiveness 20\u219240: node 1 has 10.0 MiB free in order>=9 blocks, "
                         "target 1023 KiB; trend -128 KiB/s reaches 0 in 79 s; kernel score 93, the target needs 79 "
                         "or less");
        /* not for another lever */
        it.lever = LEVER_WATERMARK_SCALE_FACTOR;
        it.num.trend_bytes_per_sec = 0;
        it.num.have_bytes = 10 * MIB;
        it.num.target_bytes = MIB;
        expect_item(&it, "raise watermark_scale_factor 20\u219240: node 1 has 10 MiB free in order>=9 blocks, target "
                         "1.0 MiB");

        /* the trend: the time to the target */
        it = lever_item(LEVER_COMPACTION_PROACTIVENESS, 20, 22, POLICY_REASON_RESERVE_TREND);
        it.num.order = 9;
        it.num.have_bytes = 200 * MIB;
        it.num.target_bytes = 80 * MIB;
        it.num.trend_bytes_per_sec = -(int64_t) MIB;
        it.num.eta_usec = 120 * S; /* 2 min exactly: min */
        expect_item(&it, "raise compaction_proactiveness 20\u219222: node 0 has 200 MiB free in order>=9 blocks, "
                         "target 80 MiB; at -1.0 MiB/s it falls below target in 2 min");
        it.num.eta_usec = 119 * S;
        expect_item(&it, "raise compaction_proactiveness 20\u219222: node 0 has 200 MiB free in order>=9 blocks, "
                         "target 80 MiB; at -1.0 MiB/s it falls below target in 119 s");
        it.num.eta_usec = 7200 * S; /* 2 h: h */
        expect_item(&it, "raise compaction_proactiveness 20\u219222: node 0 has 200 MiB free in order>=9 blocks, "
                         "target 80 MiB; at -1.0 MiB/s it falls below target in 2 h");
        it.num.eta_usec = 7199 * S;
        expect_item(&it, "raise compaction_proactiveness 20\u219222: node 0 has 200 MiB free in order>=9 blocks, "
                         "target 80 MiB; at -1.0 MiB/s it falls below target in 119 min");
        /* free memory falling toward min watermark + 2 T */
        it.lever = LEVER_WATERMARK_SCALE_FACTOR;
        it.from = 10;
        it.to = 60;
        it.num.free_bytes = 3 * GIB;
        it.num.free_needed_bytes = 1 * GIB;
        it.num.eta_usec = 90 * S;
        expect_item(&it, "raise watermark_scale_factor 10\u219260: node 0 has 3072 MiB free, falling at -1.0 MiB/s "
                         "below 1024 MiB (the kernel's high watermark + the 80 MiB order>=9 target) in 90 s");

        /* free memory short */
        it = lever_item(LEVER_WATERMARK_SCALE_FACTOR, 10, 60, POLICY_REASON_FREE_MEMORY_SHORT);
        it.num.order = 4;
        it.num.free_bytes = 117 * MIB;
        it.num.free_needed_bytes = 148 * MIB;
        it.num.target_bytes = 40 * MIB;
        it.num.have_bytes = 31 * MIB;
        expect_item(&it, "raise watermark_scale_factor 10\u219260: node 0 has 117 MiB free, under the kernel's high watermark + "
                         "target (148 MiB), so compaction has no material for the 40 MiB order>=4 reserve (now 31 "
                         "MiB)");
}

static void test_learned_sentences(void **state)
{
        DecisionItem it = lever_item(LEVER_COMPACTION_PROACTIVENESS, 20, 40, POLICY_REASON_RESERVE_LEARNED);

        (void) state;
        it.num.order = 9;
        it.num.have_bytes = 100 * MIB;
        it.num.target_bytes = 512 * MIB;
        it.num.learned_need_bytes = 512 * MIB;
        it.num.learned_age_usec = 240 * S;
        it.num.learned_hold_usec = 1800 * S;
        expect_item(&it, "raise compaction_proactiveness 20\u219240: node 0 has 100 MiB free in order>=9 blocks; "
                         "recent THP bursts that fell back or stalled asked for 512 MiB (learned reserve, seen 4 min ago, held 30 min)");
        /* past the hold: decaying; capped by demand_cap; under a second old:
         * no age */
        it.num.learned_age_usec = 1800 * S + 1;
        it.num.target_bytes = 256 * MIB;
        it.num.score = 90;
        it.num.score_target = 70;
        expect_item(&it, "raise compaction_proactiveness 20\u219240: node 0 has 100 MiB free in order>=9 blocks; "
                         "recent THP bursts that fell back or stalled asked for 512 MiB (learned reserve, seen 30 min ago, decaying), capped "
                         "at 256 MiB; kernel score 90, the target needs 70 or less");
        it.num.learned_age_usec = S - 1;
        it.num.target_bytes = 512 * MIB;
        it.num.score_target = 0;
        expect_item(&it, "raise compaction_proactiveness 20\u219240: node 0 has 100 MiB free in order>=9 blocks; "
                         "recent THP bursts that fell back or stalled asked for 512 MiB (learned reserve, held 30 min)");
        /* the learned clause after the other reserve reasons */
        it.reason = POLICY_REASON_RESERVE_BELOW_TARGET;
        it.num.learned_age_usec = 1800 * S; /* exactly the hold: still held */
        expect_item(&it, "raise compaction_proactiveness 20\u219240: node 0 has 100 MiB free in order>=9 blocks, "
                         "target 512 MiB; recent THP bursts that fell back or stalled asked for 512 MiB (learned reserve, seen 30 min ago, "
                         "held 30 min)");
        it.reason = POLICY_REASON_FREE_MEMORY_SHORT;
        it.lever = LEVER_WATERMARK_SCALE_FACTOR;
        it.num.free_bytes = 200 * MIB;
        it.num.free_needed_bytes = 1100 * MIB;
        expect_item(&it, "raise watermark_scale_factor 20\u219240: node 0 has 200 MiB free, under the kernel's high watermark + "
                         "target (1100 MiB), so compaction has no material for the 512 MiB order>=9 reserve (now "
                         "100 MiB); recent THP bursts that fell back or stalled asked for 512 MiB (learned reserve, seen 30 min ago, held 30 "
                         "min)");
        it.reason = POLICY_REASON_RESERVE_TREND;
        it.lever = LEVER_COMPACTION_PROACTIVENESS;
        it.num.free_needed_bytes = 0;
        it.num.have_bytes = 600 * MIB;
        it.num.trend_bytes_per_sec = -(int64_t) (2 * MIB);
        it.num.eta_usec = 44 * S;
        expect_item(&it, "raise compaction_proactiveness 20\u219240: node 0 has 600 MiB free in order>=9 blocks, "
                         "target 512 MiB; at -2.0 MiB/s it falls below target in 44 s; recent THP bursts that fell back or stalled asked for "
                         "512 MiB (learned reserve, seen 30 min ago, held 30 min)");
}

static void test_rate_sentences(void **state)
{
        DecisionItem it = lever_item(LEVER_COMPACTION_PROACTIVENESS, 20, 40, POLICY_REASON_COMPACT_STALLS);

        (void) state;
        it.num.observed_milli = 2345;
        it.num.limit_milli = 500;
        expect_item(&it, "raise compaction_proactiveness 20\u219240: direct compaction stalls 2.34/s, target 0.50/s");
        it.reason = POLICY_REASON_THP_FALLBACK;
        it.num.observed_permyriad = 1205;
        it.num.limit_permyriad = 1000;
        expect_item(&it, "raise compaction_proactiveness 20\u219240: THP fault fallback 12.05%, target 10.00%");
        /* THP defrag by mode name */
        it.lever = LEVER_THP_DEFRAG;
        it.from = THP_DEFRAG_MADVISE;
        it.to = THP_DEFRAG_ALWAYS;
        expect_item(&it, "raise thp_defrag madvise\u2192always: THP fault fallback 12.05%, target 10.00%");
        it.from = THP_DEFRAG_DEFER_MADVISE;
        it.to = THP_DEFRAG_DEFER;
        it.reason = POLICY_REASON_COMPACT_STALLS;
        expect_item(&it, "lower thp_defrag defer+madvise\u2192defer: direct compaction stalls 2.34/s, target 0.50/s");
        it.from = THP_DEFRAG_DEFER;
        it.to = THP_DEFRAG_NEVER;
        expect_item(&it, "lower thp_defrag defer\u2192never: direct compaction stalls 2.34/s, target 0.50/s");
        it.to = _THP_DEFRAG_MAX; /* no mode: the number */
        expect_item(&it, "raise thp_defrag defer\u21925: direct compaction stalls 2.34/s, target 0.50/s");
}

static void test_workload_sentences(void **state)
{
        DecisionItem it = lever_item(LEVER_COMPACTION_PROACTIVENESS, 20, 40, POLICY_REASON_WORKLOAD_STALLS);

        (void) state;
        strcpy(it.num.workload, "postgres.service");
        it.num.workload_compact_usec = 380400;      /* 380 ms, rounded */
        it.num.workload_reclaim_usec = 0;
        it.num.workload_budget_usec = 10 * S;       /* 10 s: seconds with a decimal */
        it.num.workload_span_usec = 60 * S;
        expect_item(&it, "raise compaction_proactiveness 20\u219240: postgres.service spent 380 ms in direct "
                         "compaction in the last minute (budget 10.0 s)");
        it.num.workload_compact_usec = 10 * S - 1;
        it.num.workload_reclaim_usec = 1499;
        it.num.workload_budget_usec = 500 * 1000;
        it.num.workload_span_usec = 40 * S;
        it.num.workload[0] = '\0';
        expect_item(&it, "raise compaction_proactiveness 20\u219240: a workload spent 10000 ms in direct compaction "
                         "and 1 ms in direct reclaim in the last 40 s (budget 500 ms)");
        it.num.workload_span_usec = 60 * S - S / 2; /* within half a second of the minute */
        it.num.workload_reclaim_usec = 0;
        expect_item(&it, "raise compaction_proactiveness 20\u219240: a workload spent 10000 ms in direct compaction "
                         "in the last minute (budget 500 ms)");
        it.num.workload_span_usec = 60 * S - S / 2 - 1;
        expect_item(&it, "raise compaction_proactiveness 20\u219240: a workload spent 10000 ms in direct compaction "
                         "in the last 59 s (budget 500 ms)");
        it.num.workload_span_usec = 0;
        expect_item(&it, "raise compaction_proactiveness 20\u219240: a workload spent 10000 ms in direct compaction "
                         "in the last minute (budget 500 ms)");
}

static void test_lowering_and_safety_sentences(void **state)
{
        DecisionItem it = lever_item(LEVER_COMPACTION_PROACTIVENESS, 40, 35, POLICY_REASON_TARGETS_MET_DECAY);

        (void) state;
        it.num.met_usec = 600 * S;
        it.num.baseline = 20;
        expect_item(&it, "lower compaction_proactiveness 40\u219235: the targets this lever serves met for 10 min; decaying toward the "
                         "kernel's 20");

        it = lever_item(LEVER_COMPACTION_PROACTIVENESS, 60, 55, POLICY_REASON_BACKOFF_INEFFECTIVE);
        it.num.node = 1;
        it.num.order = 9;
        it.num.evaluations = 5;
        it.num.objective = POLICY_OBJ_RESERVE;
        it.num.scanned_pages = 1200000;
        it.num.gained_bytes = -(int64_t) (4 * MIB);
        expect_item(&it, "lower compaction_proactiveness 60\u219255: 5 evaluations without a gain worth its cost: "
                         "compaction scanned 1200000 pages while node 1 gained -4.0 MiB in order>=9 blocks; raising "
                         "stops");
        it.num.gained_bytes = 6 * MIB;
        it.num.scan_per_block = 400000;
        it.num.scan_per_block_limit = 16384;
        expect_item(&it, "lower compaction_proactiveness 60\u219255: 5 evaluations without a gain worth its cost: "
                         "compaction scanned 1200000 pages while node 1 gained +6.0 MiB in order>=9 blocks (400000 "
                         "pages scanned per block, limit 16384); raising stops");
        it.num.scanned_pages = 0;
        it.num.scan_per_block = 0;
        it.num.objective = POLICY_OBJ_FREE;
        it.num.gained_bytes = 0;
        expect_item(&it, "lower compaction_proactiveness 60\u219255: 5 evaluations without a gain worth its cost: "
                         "node 1 free memory changed +0 KiB; raising stops");
        it.num.objective = POLICY_OBJ_RESERVE;
        expect_item(&it, "lower compaction_proactiveness 60\u219255: 5 evaluations without a gain worth its cost: "
                         "node 1 gained +0 KiB in order>=9 blocks; raising stops");
        it.num.scanned_pages = 7;
        it.num.objective = POLICY_OBJ_FREE;
        expect_item(&it, "lower compaction_proactiveness 60\u219255: 5 evaluations without a gain worth its cost: "
                         "compaction scanned 7 pages while node 1 free memory changed +0 KiB; raising stops");
        it.num.objective = POLICY_OBJ_STALLS;
        expect_item(&it, "lower compaction_proactiveness 60\u219255: 5 evaluations without a gain worth its cost: "
                         "compaction scanned 7 pages; direct compaction stalls did not fall; raising stops");
        it.num.objective = POLICY_OBJ_FALLBACK;
        expect_item(&it, "lower compaction_proactiveness 60\u219255: 5 evaluations without a gain worth its cost: "
                         "compaction scanned 7 pages; THP fallbacks did not fall; raising stops");
        it.num.objective = POLICY_OBJ_WORKLOAD;
        expect_item(&it, "lower compaction_proactiveness 60\u219255: 5 evaluations without a gain worth its cost: "
                         "compaction scanned 7 pages; workload stalls did not fall; raising stops");

        it = lever_item(LEVER_WATERMARK_SCALE_FACTOR, 900, 615, POLICY_REASON_SAFETY_ENVELOPE);
        it.num.low_wmark_bytes = 434 * MIB;
        it.num.headroom_bytes = 81 * MIB;
        it.num.avail_bytes = 400 * MIB;
        expect_item(&it, "lower watermark_scale_factor 900\u2192615: node 0 low watermark 434 MiB + headroom 81 MiB "
                         "would exceed free + reclaimable 400 MiB");

        it = lever_item(LEVER_COMPACTION_PROACTIVENESS, 40, 20, POLICY_REASON_PSI_ROLLBACK);
        it.num.psi_before_permyriad = 50;
        it.num.psi_full_permyriad = 1250;
        it.num.met_usec = 5 * S;
        expect_item(&it, "roll back compaction_proactiveness 40\u219220: memory full pressure rose from 0.50% to "
                         "12.50% within 5 s of the change");

        it = lever_item(LEVER_WATERMARK_SCALE_FACTOR, 110, 90, POLICY_REASON_PSI_CEILING);
        it.num.psi_some_permyriad = 1501;
        it.num.psi_full_permyriad = 9;
        it.num.psi_some_ceiling_permyriad = 1000;
        it.num.psi_full_ceiling_permyriad = 200;
        expect_item(&it, "lower watermark_scale_factor 110\u219290: memory pressure some 15.01% / full 0.09% is above "
                         "the ceiling 10.00% / 2.00%; reserves yield to pressure");

        it = lever_item(LEVER_COMPACTION_PROACTIVENESS, 20, 40, POLICY_REASON_NONE);
        expect_item(&it, "raise compaction_proactiveness 20\u219240: no reason");
        it.lever = _LEVER_MAX;
        expect_item(&it, "raise ? 20\u219240: no reason");
        it.escalated = true;
        it.lever = LEVER_COMPACTION_PROACTIVENESS;
        expect_item(&it, "raise compaction_proactiveness 20\u219240: no reason; within the dwell of the last raise, "
                         "which answered a smaller error");
}

static void test_compact_and_kick_sentences(void **state)
{
        DecisionItem it = { .kind = DECISION_COMPACT_NODE, .lever = _LEVER_MAX, .node = 1,
                            .reason = POLICY_REASON_ONESHOT_COMPACT };

        (void) state;
        it.num.node = 1;
        it.num.order = 9;
        it.num.have_bytes = 6 * MIB;
        it.num.target_bytes = 80 * MIB;
        it.num.limit_permyriad = 2500;
        it.num.psi_some_permyriad = 3;
        expect_item(&it, "compact node 1 now: 6.0 MiB free in order>=9 blocks is under 25.00% of the 80 MiB target "
                         "and memory pressure is calm (some 0.03%)");

        it = (DecisionItem){ .kind = DECISION_KICK_KCOMPACTD, .lever = LEVER_COMPACTION_PROACTIVENESS, .node = -1,
                             .from = 40, .to = 40, .reason = POLICY_REASON_KCOMPACTD_KICK };
        it.num.objective = POLICY_OBJ_STALLS;
        it.num.observed_milli = 1000;
        it.num.limit_milli = 500;
        expect_item(&it, "kick kcompactd (rewrite compaction_proactiveness=40): direct compaction stalls 1.00/s, "
                         "target 0.50/s; kcompactd may be deferring its proactive checks after a round without "
                         "progress");
        assert_int_equal(policy_kick_cause(&it), POLICY_REASON_COMPACT_STALLS);
        it.num.objective = POLICY_OBJ_FALLBACK;
        assert_int_equal(policy_kick_cause(&it), POLICY_REASON_THP_FALLBACK);
        it.num.objective = POLICY_OBJ_WORKLOAD;
        assert_int_equal(policy_kick_cause(&it), POLICY_REASON_WORKLOAD_STALLS);
        it.num.objective = POLICY_OBJ_FREE;
        assert_int_equal(policy_kick_cause(&it), POLICY_REASON_NONE);
        /* a reserve: below target, learned, or predicted */
        it.num.objective = POLICY_OBJ_RESERVE;
        it.num.have_bytes = 79 * MIB;
        it.num.target_bytes = 80 * MIB;
        assert_int_equal(policy_kick_cause(&it), POLICY_REASON_RESERVE_BELOW_TARGET);
        it.num.have_bytes = 80 * MIB;
        assert_int_equal(policy_kick_cause(&it), POLICY_REASON_RESERVE_TREND);
        it.num.have_bytes = 60 * MIB;
        it.num.learned_need_bytes = 80 * MIB;
        it.num.config_target_bytes = 60 * MIB;
        assert_int_equal(policy_kick_cause(&it), POLICY_REASON_RESERVE_LEARNED);
        it.num.config_target_bytes = 60 * MIB + 1;
        assert_int_equal(policy_kick_cause(&it), POLICY_REASON_RESERVE_BELOW_TARGET);
        it.num.learned_need_bytes = 0;
        it.num.config_target_bytes = 0;
        assert_int_equal(policy_kick_cause(&it), POLICY_REASON_RESERVE_BELOW_TARGET);
        it.kind = DECISION_LEVER;
        assert_int_equal(policy_kick_cause(&it), POLICY_REASON_NONE);
}

/* policy_hold_shown(): which holds an operator is told of */
static void test_hold_shown(void **state)
{
        (void) state;
        assert_false(policy_hold_shown(POLICY_HOLD_NONE));
        assert_false(policy_hold_shown(POLICY_HOLD_DWELL));
        assert_false(policy_hold_shown(POLICY_HOLD_REVERSAL_COOLDOWN));
        assert_false(policy_hold_shown(POLICY_HOLD_BACKOFF));
        assert_true(policy_hold_shown(POLICY_HOLD_REVERSAL_LIMIT));
        assert_true(policy_hold_shown(POLICY_HOLD_AT_BOUND));
        assert_true(policy_hold_shown(POLICY_HOLD_PSI));
        assert_true(policy_hold_shown(POLICY_HOLD_SAFETY));
        assert_true(policy_hold_shown(POLICY_HOLD_CLAMPED));
        assert_true(policy_hold_shown(POLICY_HOLD_UNMEASURED));
        assert_true(policy_hold_shown(POLICY_HOLD_NOTHING_TO_RECLAIM));
        assert_false(policy_hold_shown(_POLICY_HOLD_MAX));
}

static void test_held_shown_item(void **state)
{
        static Decision d;

        (void) state;
        memset(&d, 0, sizeof(d));
        assert_null(decision_held_shown(NULL, LEVER_MIN_FREE_KBYTES));
        assert_null(decision_held_shown(&d, LEVER_MIN_FREE_KBYTES));
        d.held[d.n_held++] = (PolicyHeldItem) { .lever = LEVER_MIN_FREE_KBYTES, .hold = POLICY_HOLD_UNMEASURED };
        assert_ptr_equal(decision_held_shown(&d, LEVER_MIN_FREE_KBYTES), &d.held[0]);
        d.n_held = 0;
        /* a pacing hold is not shown; another lever's shown hold is not this one's */
        d.held[d.n_held++] = (PolicyHeldItem) { .lever = LEVER_MIN_FREE_KBYTES, .hold = POLICY_HOLD_DWELL };
        d.held[d.n_held++] = (PolicyHeldItem) { .lever = LEVER_COMPACTION_PROACTIVENESS, .hold = POLICY_HOLD_PSI };
        assert_null(decision_held_shown(&d, LEVER_MIN_FREE_KBYTES));
        assert_ptr_equal(decision_held_shown(&d, LEVER_COMPACTION_PROACTIVENESS), &d.held[1]);
        /* the first shown one of the lever */
        d.held[d.n_held++] = (PolicyHeldItem) { .lever = LEVER_MIN_FREE_KBYTES, .hold = POLICY_HOLD_SAFETY };
        d.held[d.n_held++] = (PolicyHeldItem) { .lever = LEVER_MIN_FREE_KBYTES, .hold = POLICY_HOLD_AT_BOUND };
        assert_ptr_equal(decision_held_shown(&d, LEVER_MIN_FREE_KBYTES), &d.held[2]);
        /* items past n_held are not looked at */
        d.n_held = 2;
        assert_null(decision_held_shown(&d, LEVER_MIN_FREE_KBYTES));
}

static void test_held_sentences(void **state)
{
        PolicyHeldItem h = { .lever = LEVER_COMPACTION_PROACTIVENESS, .current = 40, .wanted = 60, .allowed = 40,
                             .reason = POLICY_REASON_THP_FALLBACK, .hold = POLICY_HOLD_DWELL,
                             .num = { .node = -1, .observed_permyriad = 1500, .limit_permyriad = 1000 } };
        static const char *const words[] = {
                [POLICY_HOLD_NONE] = "nothing stops it",
                [POLICY_HOLD_DWELL] = "it moved too recently (dwell)",
                [POLICY_HOLD_REVERSAL_COOLDOWN] = "that would reverse its last move too soon",
                [POLICY_HOLD_REVERSAL_LIMIT] = "it already reversed direction as often as allowed in the window",
                [POLICY_HOLD_AT_BOUND] = "it is at its configured bound",
                [POLICY_HOLD_BACKOFF] = "raising it was found not to pay (back-off)",
                [POLICY_HOLD_PSI] = "memory pressure is above the ceiling",
                [POLICY_HOLD_SAFETY] = "the safety envelope allows no more",
                [POLICY_HOLD_CLAMPED] = "the kernel or someone else kept a lower value",
        };
        char want[512];

        (void) state;
        for (unsigned i = 0; i < ELEMENTSOF(words); i++) {
                h.hold = (PolicyHold) i;
                snprintf(want, sizeof(want),
                         "keep compaction_proactiveness at 40 (wanted 60 for thp_fallback): %s; THP fault fallback "
                         "15.00%%, target 10.00%%",
                         words[i]);
                expect_held(&h, want);
        }
        h.hold = _POLICY_HOLD_MAX;
        expect_held(&h, "keep compaction_proactiveness at 40 (wanted 60 for thp_fallback): ?; THP fault fallback "
                        "15.00%, target 10.00%");

        h.hold = POLICY_HOLD_UNMEASURED;
        h.num.unmeasured = OBS_MASK(OBS_ZONEINFO);
        expect_held(&h, "keep compaction_proactiveness at 40: decisions held, zoneinfo unreadable (no raise, no "
                        "lowering, no kick until it is back)");
        h.num.unmeasured = OBS_MASK(OBS_BUDDYINFO);
        expect_held(&h, "keep compaction_proactiveness at 40: decisions held, buddyinfo unreadable (no raise, no "
                        "lowering, no kick until it is back)");
        h.num.unmeasured = OBS_MASK(OBS_ZONEINFO) | OBS_MASK(OBS_BUDDYINFO);
        expect_held(&h, "keep compaction_proactiveness at 40: decisions held, zoneinfo and buddyinfo unreadable (no "
                        "raise, no lowering, no kick until it is back)");

        /* nothing to reclaim: short now, then predicted short (free at
         * the need exactly counts as predicted) */
        h = (PolicyHeldItem){ .lever = LEVER_WATERMARK_SCALE_FACTOR, .current = 10, .wanted = 10, .allowed = 10,
                              .reason = POLICY_REASON_FREE_MEMORY_SHORT, .hold = POLICY_HOLD_NOTHING_TO_RECLAIM,
                              .num = { .node = 0, .order = 9, .free_bytes = 500 * MIB, .free_needed_bytes = 611 * MIB,
                                       .target_bytes = 512 * MIB, .avail_bytes = 510 * MIB,
                                       .eta_usec = USEC_INFINITY } };
        expect_held(&h, "keep watermark_scale_factor at 10: node 0 has 500 MiB free, under the 611 MiB its order>=9 "
                        "reserve of 512 MiB needs (the kernel's high watermark + it), and 510 MiB with what kswapd "
                        "can reclaim (file LRU + reclaimable slab): no reclaim raise");
        h.num.free_bytes = 611 * MIB;
        h.num.trend_bytes_per_sec = -4 * (int64_t) MIB;
        h.num.eta_usec = 30 * USEC_PER_SEC;
        h.num.avail_bytes = 200 * MIB;
        expect_held(&h, "keep watermark_scale_factor at 10: node 0 has 611 MiB free, falling at -4.0 MiB/s below the "
                        "611 MiB its order>=9 reserve of 512 MiB needs in 30 s, and what is free within the horizon at "
                        "that rate + what kswapd can reclaim (file LRU + reclaimable slab) is 200 MiB: no reclaim "
                        "raise");
}

/* Too small a buffer: cut and terminated, the full length returned. */
static void test_truncation(void **state)
{
        DecisionItem it = lever_item(LEVER_COMPACTION_PROACTIVENESS, 20, 40, POLICY_REASON_NONE);
        char buf[8];

        (void) state;
        const int full = (int) strlen("raise compaction_proactiveness 20\u219240: no reason"); /* 49 bytes */

        memset(buf, 'x', sizeof(buf));
        assert_int_equal(full, 49);
        assert_int_equal(decision_explain(&it, buf, sizeof(buf)), full);
        assert_string_equal(buf, "raise c");
        assert_int_equal(decision_explain(&it, buf, 0), full);
        assert_int_equal(buf[0], 'r');
}

/* more edges: half a millisecond rounds up, a trend with no crossing
 * time, one page scanned, the score clause for proactiveness only, a held
 * sentence into no buffer */
static void test_more_edges(void **state)
{
        DecisionItem it = lever_item(LEVER_COMPACTION_PROACTIVENESS, 20, 40, POLICY_REASON_WORKLOAD_STALLS);
        PolicyHeldItem h = { .lever = LEVER_COMPACTION_PROACTIVENESS, .current = 40, .wanted = 60,
                             .reason = POLICY_REASON_NONE, .hold = POLICY_HOLD_DWELL, .num = { .node = -1 } };
        char buf[4] = "abc";

        (void) state;
        it.num.workload_compact_usec = 380500;
        it.num.workload_budget_usec = 1000;
        it.num.workload_span_usec = 60 * S;
        expect_item(&it, "raise compaction_proactiveness 20\u219240: a workload spent 381 ms in direct compaction in "
                         "the last minute (budget 1 ms)");
        it = lever_item(LEVER_COMPACTION_PROACTIVENESS, 20, 22, POLICY_REASON_RESERVE_TREND);
        it.num.order = 9;
        it.num.have_bytes = 200 * MIB;
        it.num.target_bytes = 80 * MIB;
        it.num.trend_bytes_per_sec = -(int64_t) MIB;
        it.num.eta_usec = USEC_INFINITY;
        expect_item(&it, "raise compaction_proactiveness 20\u219222: node 0 has 200 MiB free in order>=9 blocks, "
                         "target 80 MiB; trend -1.0 MiB/s reaches 0 in 3 min");
        it = lever_item(LEVER_COMPACTION_PROACTIVENESS, 60, 55, POLICY_REASON_BACKOFF_INEFFECTIVE);
        it.num.evaluations = 3;
        it.num.scanned_pages = 1;
        it.num.objective = POLICY_OBJ_STALLS;
        expect_item(&it, "lower compaction_proactiveness 60\u219255: 3 evaluations without a gain worth its cost: "
                         "compaction scanned 1 pages; direct compaction stalls did not fall; raising stops");
        it = lever_item(LEVER_WATERMARK_SCALE_FACTOR, 10, 60, POLICY_REASON_RESERVE_LEARNED);
        it.num.order = 9;
        it.num.have_bytes = 100 * MIB;
        it.num.learned_need_bytes = 512 * MIB;
        it.num.target_bytes = 512 * MIB;
        it.num.learned_hold_usec = 1800 * S;
        it.num.score = 90;
        it.num.score_target = 70;
        expect_item(&it, "raise watermark_scale_factor 10\u219260: node 0 has 100 MiB free in order>=9 blocks; recent "
                         "THP bursts that fell back or stalled asked for 512 MiB (learned reserve, held 30 min)");
        assert_int_equal(decision_explain_held(&h, buf, 0), (int) strlen("keep compaction_proactiveness at 40 "
                                                                         "(wanted 60 for none): it moved too "
                                                                         "recently (dwell); no reason"));
        assert_string_equal(buf, "abc");
}

static void test_names(void **state)
{
        (void) state;
        for (int r = 0; r < _POLICY_REASON_MAX; r++)
                assert_int_equal(policy_reason_from_name(policy_reason_name(r)), r);
        assert_string_equal(policy_reason_name(POLICY_REASON_KCOMPACTD_KICK), "kcompactd_kick");
        assert_string_equal(policy_reason_name(POLICY_REASON_NONE), "none");
        assert_string_equal(policy_reason_name(_POLICY_REASON_MAX), "?");
        assert_int_equal(policy_reason_from_name("reserve"), -ENOENT);
        assert_string_equal(policy_hold_name(POLICY_HOLD_UNMEASURED), "unmeasured");
        assert_string_equal(policy_hold_name(POLICY_HOLD_NONE), "none");
        assert_string_equal(policy_hold_name(_POLICY_HOLD_MAX), "?");
}

/* Every sentence fits DECISION_TEXT_MAX whatever the numbers: each lever,
 * reason, hold, objective and flag, with every number at its type's far end
 * (and, for the realistic bound, a 16 TiB node 1023). The daemon's log,
 * fragd status and fragd --once size their buffers by it. */
static void extreme_numbers(PolicyNumbers *n, bool realistic)
{
        const uint64_t b = realistic ? 16 * 1024 * GIB - 12345678 : UINT64_MAX / 4;
        const usec_t t = realistic ? 24 * 3600 * S : UINT64_MAX / 4;
        const uint32_t pm = realistic ? 9999 : UINT32_MAX;

        *n = (PolicyNumbers) {
                .node = realistic ? 1023 : INT32_MAX,
                .order = realistic ? 9 : UINT32_MAX,
                .have_bytes = b, .target_bytes = b, .free_bytes = b, .free_needed_bytes = b,
                .short_target_bytes = b,
                .trend_bytes_per_sec = realistic ? -(int64_t) (b / 3) : INT64_MIN / 4,
                .eta_usec = t,
                .score = realistic ? 100 : UINT32_MAX, .score_target = realistic ? 99 : UINT32_MAX,
                .observed_milli = b, .limit_milli = b,
                .observed_permyriad = pm, .limit_permyriad = pm,
                .psi_some_permyriad = pm, .psi_full_permyriad = pm,
                .psi_some_ceiling_permyriad = pm, .psi_full_ceiling_permyriad = pm, .psi_before_permyriad = pm,
                .low_wmark_bytes = b, .headroom_bytes = b, .avail_bytes = b,
                .evaluations = realistic ? 999 : UINT32_MAX,
                .scanned_pages = b, .gained_bytes = realistic ? -(int64_t) b : INT64_MIN / 4,
                .scan_per_block = b, .scan_per_block_limit = b,
                .met_usec = t, .baseline = realistic ? 100000000 : INT64_MIN,
                .workload_compact_usec = t, .workload_reclaim_usec = t, .workload_budget_usec = t,
                .workload_span_usec = t,
                .learned_need_bytes = b, .learned_share_permyriad = 9999, .learned_share_measured = true,
                .config_target_bytes = b, .learned_age_usec = t, .learned_hold_usec = t,
                .learned_from_boot = true,
                .dm = { .blocks_from = 1, .blocks_to = b, .blocks_total = b, .blocks_span_usec = t,
                        .extfrag = true, .polluting_milli = b, .demand_bytes = b, .window_usec = t,
                        .stall_before_milli = b, .stall_after_milli = b, .kswapd_before_milli = b,
                        .kswapd_after_milli = b, .by_blocks = realistic, .pollution_before_milli = b,
                        .pollution_after_milli = b, .cost_rise_permyriad = pm, .pollution_fall_permyriad = pm,
                        .hold_usec = t },
        };
        memset(n->workload, 'w', sizeof(n->workload) - 1);
}

/* n from decision_explain*() into a DECISION_TEXT_MAX buffer: the whole
 * sentence, not cut; the longest so far kept in *longest */
static void check_whole(int n, const char *buf, int *longest)
{
        assert_in_range(n, 1, DECISION_TEXT_MAX - 1);
        assert_int_equal(strlen(buf), (size_t) n);
        if (n > *longest)
                *longest = n;
}

/* defrag_mode's two reasons in words: what grew, the demand, the windows */
static void test_defrag_mode_sentences(void **state)
{
        DecisionItem it = { .kind = DECISION_LEVER, .lever = LEVER_DEFRAG_MODE, .from = 0, .to = 1,
                            .reason = POLICY_REASON_PAGEBLOCK_POLLUTION, .num = { .node = -1 } };
        char buf[DECISION_TEXT_MAX];

        (void) state;
        it.num.dm = (DefragModeNumbers) { .blocks_from = 120, .blocks_to = 160, .blocks_total = 4288,
                                          .blocks_span_usec = 40 * 60 * S, .extfrag = true,
                                          .polluting_milli = 1250, .window_usec = 600 * S,
                                          .demand_bytes = 512 * MIB };
        (void) decision_explain(&it, buf, sizeof(buf));
        assert_string_equal(buf, "raise defrag_mode 0\u21921: non-movable pageblocks grew from 120 to 160 of 4288 "
                                 "in 40 min, 1.25/s polluting fallbacks (non-movable allocations taking movable "
                                 "blocks) over the last 10 min; unmet large-folio demand 512 MiB: the allocator is to "
                                 "reclaim and compact before it falls back");
        it = (DecisionItem) { .kind = DECISION_LEVER, .lever = LEVER_DEFRAG_MODE, .from = 1, .to = 0,
                              .reason = POLICY_REASON_DEFRAG_MODE_COST, .num = { .node = -1 } };
        it.num.dm = (DefragModeNumbers) { .window_usec = 600 * S, .stall_before_milli = 100,
                                          .stall_after_milli = 1000, .kswapd_before_milli = 2000000,
                                          .kswapd_after_milli = 2500000, .by_blocks = true,
                                          .pollution_before_milli = 30000, .pollution_after_milli = 24000,
                                          .cost_rise_permyriad = 90000, .pollution_fall_permyriad = 2000,
                                          .hold_usec = 6 * 3600 * S };
        (void) decision_explain(&it, buf, sizeof(buf));
        assert_string_equal(buf, "lower defrag_mode 1\u21920: over 10 min with it on, stalls (direct reclaim + "
                                 "compaction) went 0.10/s -> 1.00/s and kswapd scanning 2000 -> 2500 pages/s "
                                 "against the 10 min before it; non-movable blocks added per hour went 30.00 -> "
                                 "24.00: cost up 900.00%, pollution down 20.00%; off, and held off for 6 h");
}

static void test_explain_longest(void **state)
{
        char buf[DECISION_TEXT_MAX];
        int longest[2] = { 0, 0 };

        (void) state;
        for (int re = 0; re < 2; re++)
                for (int l = 0; l < _LEVER_MAX; l++)
                        for (int r = 0; r < _POLICY_REASON_MAX; r++)
                                for (int o = POLICY_OBJ_NONE; o <= POLICY_OBJ_WORKLOAD; o++) {
                                        const int64_t lo = re ? 4194304 : INT64_MIN, hi = re ? 4194303 : INT64_MAX;
                                        int n;

                                        for (int h = 0; h < _POLICY_HOLD_MAX; h++) {
                                                PolicyHeldItem it = { .lever = (Lever) l, .current = lo, .wanted = hi,
                                                                      .allowed = lo + 1, .reason = (PolicyReason) r,
                                                                      .hold = (PolicyHold) h };

                                                extreme_numbers(&it.num, re);
                                                it.num.objective = (PolicyObjective) o;
                                                n = decision_explain_held(&it, buf, sizeof(buf));
                                                check_whole(n, buf, &longest[re]);
                                        }
                                        for (int k = DECISION_LEVER; k <= DECISION_KICK_KCOMPACTD; k++)
                                                for (unsigned f = 0; f < 16; f++) {
                                                        DecisionItem it = {
                                                                .kind = (DecisionKind) k, .lever = (Lever) l,
                                                                .node = re ? 1023 : INT32_MAX, .from = lo, .to = hi,
                                                                .reason = (PolicyReason) r, .forced = f & 1,
                                                                .escalated = f & 2, .escalated_target = f & 4,
                                                                .in_dip = f & 8, .err = 10000,
                                                        };

                                                        extreme_numbers(&it.num, re);
                                                        it.num.objective = (PolicyObjective) o;
                                                        n = decision_explain(&it, buf, sizeof(buf));
                                                        check_whole(n, buf, &longest[re]);
                                                }
                                }
        /* what the 320- and 400-byte buffers before DECISION_TEXT_MAX cut:
         * a realistic sentence is longer than either */
        print_message("longest sentence: %d bytes (extreme numbers), %d (16 TiB node)\n", longest[0], longest[1]);
        assert_true(longest[1] > 400);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_reserve_sentences),
                cmocka_unit_test(test_defrag_mode_sentences),
                cmocka_unit_test(test_learned_sentences),
                cmocka_unit_test(test_rate_sentences),
                cmocka_unit_test(test_workload_sentences),
                cmocka_unit_test(test_lowering_and_safety_sentences),
                cmocka_unit_test(test_compact_and_kick_sentences),
                cmocka_unit_test(test_held_sentences),
                cmocka_unit_test(test_hold_shown),
                cmocka_unit_test(test_held_shown_item),
                cmocka_unit_test(test_truncation),
                cmocka_unit_test(test_more_edges),
                cmocka_unit_test(test_names),
                cmocka_unit_test(test_explain_longest),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
