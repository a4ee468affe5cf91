/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* The policy engine (policy/controller.c, evaluate.c, trend.c, hysteresis.c,
 * envelope.c, explain.c): pure code that turns an Assessment and the recent history in a
 * PolicyState into a Decision. No I/O, no clock, no logging, no globals: time
 * comes in as an argument, history lives in fixed-size rings in PolicyState.
 *
 * One tick, as the daemon drives it:
 *
 *      LeverInput in[_LEVER_MAX] = { read each knob, its baseline };
 *      policy_decide(cfg, state, assessment, in, now, &d);   (const state)
 *      for each item: if d.apply, write it, read back, decision_mark_applied()
 *      policy_state_update(state, assessment, &d, now);
 *
 * Units are in the names: _usec, _bytes, _pages, _permyriad (1/10000),
 * _milli (x1000 per second). Trends are in bytes per second. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fragd/macro.h"
#include "fragd/metrics.h"
#include "fragd/policy-config.h"

#define POLICY_HISTORY_MAX 128  /* samples kept for trends (ring): 2 min at 1 s ticks */
#define POLICY_REVERSALS_MAX 16 /* reversal timestamps kept per lever (ring) */
#define POLICY_MAX_HELD _LEVER_MAX
#define POLICY_MAX_ITEMS (_LEVER_MAX + FRAGD_MAX_NODES + 1) /* + a kcompactd kick */

/* What the daemon knows about one knob this tick. */
typedef struct LeverInput {
        bool available;   /* the knob exists and may be written */
        int64_t current;  /* value read this tick */
        int64_t baseline; /* the kernel's value when fragd started */
} LeverInput;

/* Stable reason codes; policy_reason_name() gives the string. */
typedef enum PolicyReason {
        POLICY_REASON_NONE,
        POLICY_REASON_RESERVE_BELOW_TARGET, /* "reserve_below_target" */
        POLICY_REASON_RESERVE_TREND,        /* "reserve_trend": predicted to cross */
        POLICY_REASON_FREE_MEMORY_SHORT,    /* "free_memory_short": compaction has no material */
        POLICY_REASON_COMPACT_STALLS,       /* "compact_stalls" */
        POLICY_REASON_THP_FALLBACK,         /* "thp_fallback" */
        POLICY_REASON_TARGETS_MET_DECAY,    /* "targets_met_decay" */
        POLICY_REASON_BACKOFF_INEFFECTIVE,  /* "backoff_ineffective" */
        POLICY_REASON_SAFETY_ENVELOPE,      /* "safety_envelope" */
        POLICY_REASON_PSI_ROLLBACK,         /* "psi_rollback" */
        POLICY_REASON_PSI_CEILING,          /* "psi_ceiling" */
        POLICY_REASON_ONESHOT_COMPACT,      /* "oneshot_compact" */
        POLICY_REASON_WORKLOAD_STALLS,      /* "workload_stalls": a watched workload over its stall budget */
        POLICY_REASON_RESERVE_LEARNED,      /* "reserve_learned": below the target learned from THP bursts */
        POLICY_REASON_KCOMPACTD_KICK,       /* "kcompactd_kick": rewrite proactiveness to wake kcompactd */
        POLICY_REASON_AIM_FELL,             /* "aim_fell": lowered to the aim the reserves have now (free memory grew) */
        POLICY_REASON_PAGEBLOCK_POLLUTION,  /* "pageblock_pollution": defrag_mode on (non-movable blocks grow,
                                             * or polluting fallbacks, with large-folio demand) */
        POLICY_REASON_DEFRAG_MODE_COST,     /* "defrag_mode_cost": defrag_mode off, it cost more than it saved */
        /* "kernel_keeps_up": high-order demand this tick, no fallback and no
         * stall at its order: nothing changed (PolicyEval.keeps_up; not an
         * item's reason, decision_explain_keeps_up() says it) */
        POLICY_REASON_KERNEL_KEEPS_UP,
        _POLICY_REASON_MAX,
} PolicyReason;

/* Why a lever that wanted to move did not (or moved less). */
typedef enum PolicyHold {
        POLICY_HOLD_NONE,
        POLICY_HOLD_DWELL,             /* "dwell": moved too recently */
        POLICY_HOLD_REVERSAL_COOLDOWN, /* "reversal_cooldown" */
        POLICY_HOLD_REVERSAL_LIMIT,    /* "reversal_limit": too many reversals in the window */
        POLICY_HOLD_AT_BOUND,          /* "at_bound" */
        POLICY_HOLD_BACKOFF,           /* "backoff": raising was found ineffective */
        POLICY_HOLD_PSI,               /* "psi": pressure above the ceiling, no raise */
        POLICY_HOLD_SAFETY,            /* "safety": the envelope caps the raise */
        POLICY_HOLD_CLAMPED,           /* "clamped": the kernel or someone kept a lower value */
        POLICY_HOLD_UNMEASURED,        /* "unmeasured": a source the targets need is missing
                                        * (Assessment.unmeasured, in num.unmeasured) */
        /* "nothing_to_reclaim": free memory short, and free + reclaimable
         * (num.avail_bytes) under what the reserve needs (num.free_needed_bytes):
         * a reclaim lever raised would have kswapd scan for nothing */
        POLICY_HOLD_NOTHING_TO_RECLAIM,
        /* "watermark_cap": a reclaim lever raised no further than holds back
         * POLICY_WATERMARK_CAP_PERMYRIAD of a node's memory above the
         * kernel's own high watermark, free memory itself not short (over
         * the kernel's own high watermark; num.headroom_bytes = the cap) */
        POLICY_HOLD_WATERMARK_CAP,
        /* "direct_compaction": defrag_mode not turned on while direct
         * compaction stalls are over their limit or came within
         * POLICY_DM_WINDOW_USEC: with it the allocator compacts before
         * any fallback, so allocations that stall already would stall
         * more */
        POLICY_HOLD_DIRECT_COMPACTION,
        _POLICY_HOLD_MAX,
} PolicyHold;

/* What holds back a page-cache one-shot whose reserve is short
 * (PolicyNodeEval.pagecache_gate; docs/policy.md "Page-cache reserve at
 * its own order"). POLICY_GATE_NONE: not held (not short, or made). */
typedef enum PolicyOneshotGate {
        POLICY_GATE_NONE,
        POLICY_GATE_PSI_HIGH,       /* "psi_high": memory pressure over the ceiling */
        POLICY_GATE_PSI_CALM,       /* "psi_calm": memory PSI some over calm_psi_some */
        POLICY_GATE_BURST,          /* "burst": the page cache adds at its order this tick */
        POLICY_GATE_FREE_FALLING,   /* "free_falling": free memory or the blocks fall fast */
        POLICY_GATE_THP_INTERVAL,   /* "thp_interval": a THP one-shot wanted, within oneshot_min_interval */
        POLICY_GATE_REBUILD_WINDOW, /* "rebuild_window": within 10 s of the last one-shot */
        POLICY_GATE_NOT_DUE,        /* "not_due": neither half the target added nor half the blocks
                                     * taken since the last one-shot */
        _POLICY_GATE_MAX,
} PolicyOneshotGate;

typedef enum PolicyObjective {
        POLICY_OBJ_NONE,
        POLICY_OBJ_RESERVE, /* node + order */
        POLICY_OBJ_STALLS,
        POLICY_OBJ_FALLBACK,
        POLICY_OBJ_FREE,    /* node free memory */
        POLICY_OBJ_WORKLOAD, /* the worst watched workload's stall against its budget */
} PolicyObjective;

/* The numbers behind a reason. Which fields mean something depends on the
 * reason; decision_explain() knows. */
/* The numbers behind the defrag_mode reasons (policy/defrag-mode.c;
 * docs/policy.md "defrag_mode"). Rates are x1000 per second. */
typedef struct DefragModeNumbers {
        /* pageblock_pollution: non-movable blocks from..to over span
         * (pagetypeinfo readings; span 0: not measured), of total */
        uint64_t blocks_from, blocks_to, blocks_total;
        usec_t blocks_span_usec;
        /* polluting fallbacks per second over the window (extfrag hist);
         * extfrag false: not counted */
        bool extfrag;
        uint64_t polluting_milli;
        uint64_t demand_bytes;       /* the large-folio demand it answers */
        /* defrag_mode_cost: the window before it was turned on against the
         * last window with it on */
        usec_t window_usec;
        uint64_t stall_before_milli, stall_after_milli;   /* allocstall + compact_stall per second */
        uint64_t kswapd_before_milli, kswapd_after_milli; /* pgscan_kswapd pages per second */
        /* pollution: polluting fallbacks per second, or (by_blocks)
         * non-movable blocks added per hour */
        bool by_blocks;
        uint64_t pollution_before_milli, pollution_after_milli;
        uint32_t cost_rise_permyriad, pollution_fall_permyriad;
        usec_t hold_usec;            /* held off this long after the back-off */
} DefragModeNumbers;

typedef struct PolicyNumbers {
        int node;                    /* -1 = global */
        unsigned order;              /* reserve order */
        uint64_t have_bytes;         /* free memory in blocks >= order */
        uint64_t target_bytes;       /* the objective */
        uint64_t free_bytes;         /* all free memory on the node */
        uint64_t free_needed_bytes;  /* the kernel's high watermark + target */
        /* free memory short for this whole target: target_bytes is the
         * part free memory above the kernel's high watermark can hold
         * (offered to compaction next to the reclaim levers); 0 = whole */
        uint64_t short_target_bytes;
        int64_t trend_bytes_per_sec; /* slope of have (or free); negative = shrinking */
        usec_t eta_usec;             /* until the target is crossed; USEC_INFINITY = not predicted */
        unsigned score, score_target; /* kernel fragmentation score, the score the target needs */
        uint64_t observed_milli, limit_milli; /* rates x1000 per second (stalls) */
        uint32_t observed_permyriad, limit_permyriad; /* ratios, PSI */
        uint32_t psi_some_permyriad, psi_full_permyriad;
        uint32_t psi_some_ceiling_permyriad, psi_full_ceiling_permyriad;
        uint32_t psi_before_permyriad; /* PSI full when the rolled-back change was made */
        uint64_t low_wmark_bytes, headroom_bytes, avail_bytes; /* safety: avail = free + reclaimable */
        PolicyObjective objective;   /* back-off: what the raises were for */
        unsigned evaluations;        /* back-off: evaluations without gain */
        uint64_t scanned_pages;      /* back-off: compaction pages scanned in the episode */
        int64_t gained_bytes;        /* back-off: reserve (or free memory) gained in the episode */
        uint64_t scan_per_block, scan_per_block_limit;
        usec_t met_usec;             /* decay: how long targets have been met */
        int64_t baseline;            /* decay: the kernel's own value */
        /* workload_stalls: the workload cited and its last minute
         * (observed_permyriad = stall / budget, limit_permyriad = 10000) */
        char workload[64];           /* cgroup path, as in WorkloadStall.name */
        uint64_t workload_compact_usec, workload_reclaim_usec, workload_budget_usec;
        usec_t workload_span_usec;
        /* learned reserve (order_thp target raised by recent THP bursts;
         * learned_need_bytes 0 = the configured target alone) */
        uint64_t learned_need_bytes;   /* the burst remembered now (decayed), x demand_factor */
        uint32_t learned_share_permyriad; /* the node's share of it (10000: all; 0 with no learned need) */
        bool learned_share_measured;   /* from where the kernel served the burst, not node sizes */
        uint64_t config_target_bytes;  /* reserve_thp alone */
        usec_t learned_age_usec;       /* since the burst */
        usec_t learned_hold_usec;      /* demand_hold */
        bool learned_from_boot;        /* the need is the first reserve from boot history, no burst seen */
        /* the learned reserve's standing level: the peak is past its hold
         * and no THP fault came within the burst window, so the learned
         * part of the target asks only for the proactiveness its score
         * needs (no step past it, no kick, no one-shot, no reclaim lever,
         * no back-off episode; docs/policy.md "Between bursts") */
        bool standing;
        unsigned unmeasured;           /* POLICY_HOLD_UNMEASURED: Assessment.unmeasured */
        /* a page-cache one-shot made through memory pressure over calm or
         * over the ceilings that is the reserve's own (compaction stalls,
         * free memory above the high watermark: docs/policy.md "Page-cache
         * reserve at its own order") */
        bool own_pressure;
        DefragModeNumbers dm;          /* pageblock_pollution, defrag_mode_cost */
} PolicyNumbers;

typedef enum DecisionKind {
        DECISION_LEVER,        /* set lever to `to` */
        DECISION_COMPACT_NODE, /* one-shot: write nodeN/compact (blocking: not on the loop thread) */
        /* rewrite compaction_proactiveness with its present value (from ==
         * to): the sysctl handler wakes kcompactd on every node past its
         * deferral (docs/policy.md "Kicking kcompactd"). lever =
         * LEVER_COMPACTION_PROACTIVENESS, node = -1; num.objective says
         * which objective is missed (policy_kick_cause()). */
        DECISION_KICK_KCOMPACTD,
} DecisionKind;

typedef struct DecisionItem {
        DecisionKind kind;
        Lever lever;     /* DECISION_LEVER */
        int node;        /* -1 = global knob; node id for DECISION_COMPACT_NODE */
        int64_t from, to;
        PolicyReason reason;
        bool forced;     /* safety move: dwell, step and cooldown did not apply */
        bool escalated;  /* a raise inside the dwell: the error outgrew the last raise's */
        bool escalated_target; /* escalated because the target outgrew the last raise's */
        bool refuted_aim; /* a raise undoing a lowering to the aim within its dwell (LEVER_MOVE_REFUTE_AIM) */
        int32_t err;     /* the error (0..10000) the move answers; 0 for safety moves */
        /* a raise made with free memory in a dip: on some node under the
         * most it had within trend_window by more than a sixteenth of what
         * is free now (beyond what the page cache added in large folios) */
        bool in_dip;
        PolicyNumbers num;
        bool applied;    /* set by the caller: written (and to = value read back) */
} DecisionItem;

typedef struct PolicyHeldItem {
        Lever lever;
        int64_t current, wanted, allowed;
        PolicyReason reason; /* why it wanted to move */
        PolicyHold hold;     /* what stopped it */
        PolicyNumbers num;
} PolicyHeldItem;

/* What decide saw for each node; exported and used by policy_state_update(). */
typedef struct PolicyNodeEval {
        int node;
        uint64_t free_bytes;
        uint64_t have_bytes[2];      /* [0] order_large, [1] order_thp */
        uint64_t target_bytes[2];
        int64_t trend_bytes_per_sec[2];
        usec_t eta_usec[2];
        int64_t free_trend_bytes_per_sec;
        bool memory_short;
        unsigned score, score_target;
        /* target_bytes[1] is the effective target: max(reserve_thp, the
         * learned need capped at demand_cap); this is reserve_thp alone */
        uint64_t config_target_bytes;
        bool learned;                /* the learned need set target_bytes[1] */
        /* the node's high watermark at the kernel's own min_free_kbytes and
         * watermark_scale_factor (LeverInput.baseline), and what fragd's
         * values hold back above it: high at the current values minus this
         * (0 when not raised). Free memory counts as short for a reserve of
         * T only under kernel_high_bytes + T (docs/policy.md). */
        uint64_t kernel_high_bytes;
        uint64_t watermark_held_bytes;
        /* this node's share of the learned need (1/10000) and whether the
         * kernel said it (THPs that appeared on the node during the burst,
         * NodeMeasures.thp_grown) or it is the node's share of memory */
        uint32_t learned_share_permyriad;
        bool learned_share_measured;
        /* the page-cache reserve short (have < target, free memory to
         * build it) and what held its one-shot this tick (NONE: made, or
         * not short); changed: another gate than the last tick's
         * (PolicyState.pagecache_gate), so the daemon logs one line per
         * change */
        bool pagecache_short;
        PolicyOneshotGate pagecache_gate;
        bool pagecache_gate_changed;
} PolicyNodeEval;

typedef struct PolicyEval {
        unsigned page_size;
        unsigned order[2];           /* resolved order_large, order_thp */
        bool targets_met;            /* every objective met with the hysteresis margin */
        /* Assessment.unmeasured: the targets were not measured, every lever
         * is held (neither met nor missed) */
        unsigned unmeasured;
        bool targets_missed;         /* some objective missed or predicted to be */
        /* per lever, the objectives it serves (docs/policy.md "Decay"):
         * lever_met = all met with the hysteresis margin, lever_quiet =
         * none of them asks for more. Each lever decays by its own. */
        bool lever_met[_LEVER_MAX];
        bool lever_quiet[_LEVER_MAX];
        /* the proactiveness that keeps every node's kernel score low enough
         * for its largest reserve (policy_proactiveness_for_score() of
         * 100 - ceil(100 max(T) / free)); -1 = none known. Inside the
         * band, proactiveness decays no lower than this. */
        int64_t proactiveness_floor;
        bool want_raise[_LEVER_MAX]; /* some objective asks this lever to go up */
        uint32_t psi_some_permyriad, psi_full_permyriad;
        uint64_t stall_milli;        /* direct compaction stalls x1000 per second, 0 if unknown */
        /* the worst watched workload whose stall is mostly direct compaction:
         * (compact + reclaim) / budget in the last minute, 10000 = at budget */
        uint32_t workload_stall_permyriad;
        uint32_t fallback_permyriad; /* worst THP/mTHP fallback ratio */
        uint64_t scan_pages_per_sec; /* compaction pages scanned per second */
        /* THP fault demand (global: vmstat is not per node) */
        uint64_t demand_bytes;          /* this tick: (thp_fault_alloc + fallback) x interval x PMD size */
        uint64_t demand_fallback_bytes; /* the part that fell back: fallback x interval x PMD size */
        /* the part served only through direct compaction: min(stalls,
         * thp_fault_alloc) x interval x PMD size; the stalls counted only
         * where a watched workload stalled in compaction, when any is
         * watched (policy_stalls_attributed()) */
        uint64_t demand_stalled_bytes;
        uint64_t demand_unmet_bytes;    /* fallback + stalled: what the learned reserve learns */
        uint64_t burst_bytes;           /* demand summed over the burst window, this tick included */
        uint64_t unmet_burst_bytes;     /* the unmet demand summed over the burst window */
        uint64_t learned_need_bytes;    /* the remembered burst now, decayed; 0 when learning is off */
        uint64_t learned_peak_bytes;    /* the burst as seen at learned_peak_usec (undecayed) */
        usec_t learned_peak_usec;       /* when it was seen; 0 = never */
        usec_t learned_peak_before_usec; /* PolicyState.learned_peak_before_usec */
        usec_t learned_hold_usec;
        /* between bursts: a learned need is held, its peak is older than
         * demand_hold and no THP fault came within the burst window. The
         * learned part of the THP target then asks only for a standing
         * proactiveness (the score it needs); raises by the integral,
         * kicks, one-shot compactions and the reclaim levers answer the
         * configured target alone (docs/policy.md "Between bursts"). */
        bool learned_standing;
        /* the learned need is still the first reserve from the kernel's
         * counters since boot (PolicyState.learned_from_boot): no burst
         * renewed it yet */
        bool learned_from_boot;
        /* > 0: the burst, or the remembered peak, was more than the host's
         * memory (policy_mem_total_bytes()) and was cut to it: no burst
         * can fault more than there is. The daemon logs it. */
        uint64_t learned_capped_from_bytes;
        /* page-cache demand (policy_pagecache_evaluate(); docs/policy.md
         * "Page-cache demand"): pagecache_order 0 = no signal, order[0]
         * is then order_large */
        unsigned pagecache_order;           /* the order the page cache asks at (see demand.c) */
        bool pagecache_order_failed;        /* taken from where the watched workload's allocations failed */
        uint32_t pagecache_share_permyriad; /* of all bytes added, those at orders >= pagecache_order */
        uint64_t pagecache_demand_bytes;    /* this tick: bytes added in folios of order >= 1 */
        uint64_t pagecache_order_demand_bytes; /* this tick: bytes added in folios of order >= pagecache_order */
        /* this tick: bytes added at orders 1..pagecache_order-1 when no
         * node had a free block above that order (the allocator splits a
         * larger block before it falls back: only then was it a fallback) */
        uint64_t pagecache_fallback_bytes;
        /* this tick: the part of pagecache_fallback_bytes counted because
         * kswapd was woken at pagecache_order while a larger block was free
         * after the tick (one block of the order per wake-up at most) */
        uint64_t pagecache_woke_bytes;
        /* this tick, where the watched tasks' failed allocations are
         * counted (PageCacheMeasures.fail_valid): one block of
         * pagecache_order per failed allocation at that order, at most the
         * bytes added under it; it is then pagecache_fallback_bytes (the
         * free-block and kswapd rules are not used) */
        uint64_t pagecache_failed_bytes;
        /* this tick: bytes at orders >= pagecache_order that came with
         * attributed compaction stalls while the free blocks at the order
         * could not hold them, at most one block of the order per stall */
        uint64_t pagecache_stalled_bytes;
        uint64_t pagecache_unmet_bytes;     /* fallback + stalled: the page-cache demand */
        uint64_t pagecache_burst_bytes;     /* the unmet demand summed over the burst window (below the
                                             * THP order: the rebuild window), this tick included */
        uint64_t pagecache_need_bytes;      /* the held burst x demand_factor, plus the THP need when
                                             * pagecache_order is the THP order (those blocks count too);
                                             * 0 when demand_learning is off */
        uint64_t pagecache_held_bytes;      /* the burst, or the remembered peak decayed to now */
        uint64_t pagecache_peak_bytes;      /* the peak as seen at pagecache_peak_usec (undecayed) */
        usec_t pagecache_peak_usec;         /* when it was seen; 0 = never */
        /* the kernel keeps up (docs/policy.md "Demand worth reserving
         * for"): THP faults or page-cache adds at its order this tick,
         * none fell back, no attributed stall, and the decision changes
         * nothing; keeps_up_order is the page-cache order when it added
         * at it, else the THP order */
        bool keeps_up;
        unsigned keeps_up_order;
        /* per target (order[0], order[1]): whether its configured reserve
         * (reserve_large, reserve_thp) is kept this tick: reserve_always,
         * or unmet demand held (policy_reserve_gate()); when not, the
         * target is only what the demand model asks (0 with none) */
        bool reserve_wanted[2];
        unsigned n_nodes;
        PolicyNodeEval nodes[FRAGD_MAX_NODES];
        /* the configuration bits policy_state_update() needs */
        usec_t dwell_usec[_LEVER_MAX];
        usec_t hold_usec;
        uint64_t scan_per_block_limit; /* 0 = none */
} PolicyEval;

typedef struct Decision {
        usec_t now_usec;
        bool apply;       /* false for the observe preset: report, never write */
        unsigned n_items;
        DecisionItem items[POLICY_MAX_ITEMS];
        unsigned n_held;
        PolicyHeldItem held[POLICY_MAX_HELD];
        LeverInput levers[_LEVER_MAX]; /* the input, kept for policy_state_update() */
        PolicyEval eval;
} Decision;

/* ---- state ---------------------------------------------------------------- */

typedef struct LeverTrack {
        bool touched;               /* fragd applied a value at least once */
        bool changed;               /* last_change_usec is valid */
        int64_t last_applied;
        usec_t last_change_usec;    /* our last move, or an observed outside change */
        int last_dir;               /* +1 raised, -1 lowered, 0 never moved */
        int64_t before_change;      /* the value our last move replaced (rollback target) */
        int32_t last_err;           /* the error our last move answered (DecisionItem.err) */
        uint64_t last_target_bytes; /* the target our last raise answered (DecisionItem.num; 0 after a lowering) */
        unsigned last_target_order; /* its order (DecisionItem.num.order) */
        int last_target_node;       /* its node (DecisionItem.num.node; -1 = global) */
        bool raised_in_dip;         /* our last move a raise made in a dip of free memory (DecisionItem.in_dip) */
        uint32_t psi_full_at_change_permyriad;
        PolicyReason last_reason;
        unsigned n_reversals, reversal_head;
        usec_t reversal_usec[POLICY_REVERSALS_MAX];
        /* the lever's own objectives (PolicyEval.lever_met, lever_quiet)
         * and since when */
        bool met, quiet;
        usec_t met_since_usec, quiet_since_usec;
        /* raising held after a back-off or rollback */
        usec_t hold_raise_until_usec;
        PolicyReason hold_reason;
        /* back-offs in a row without a raise that paid off or the targets
         * met in between: the next back-off holds backoff_hold << this
         * (at most << POLICY_BACKOFF_SHIFT_MAX) */
        unsigned backoffs;
        /* an outside change: we applied `clamp_wanted`, the knob read `clamp_value` */
        bool clamped;
        usec_t clamp_usec;
        int64_t clamp_value, clamp_wanted;
        /* efficiency back-off episode: raises and what they bought */
        bool episode;
        PolicyObjective ep_objective;
        int ep_node;
        unsigned ep_order;
        int64_t ep_ref;             /* bytes (reserve, free), milli (stalls), permyriad (fallback) */
        usec_t ep_start_usec, ep_eval_usec;
        uint64_t ep_scanned_pages, ep_scanned_at_eval;
        unsigned ep_no_gain;        /* evaluations without gain (or with gain at too high a cost) */
        bool ep_lost;               /* the last evaluation: compaction scanned, no gain (or a loss) */
        int64_t ep_gained_bytes;    /* reserve or free memory objectives */
        uint64_t ep_scan_per_block;
} LeverTrack;

typedef struct PolicyHistory {
        unsigned head, n;           /* ring: newest at (head + n - 1) % MAX */
        unsigned order[2];          /* orders of the samples; a change restarts the history */
        unsigned n_nodes;
        int node_id[FRAGD_MAX_NODES];
        usec_t t_usec[POLICY_HISTORY_MAX];
        uint64_t free_pages[POLICY_HISTORY_MAX][FRAGD_MAX_NODES];
        uint64_t ge_pages[2][POLICY_HISTORY_MAX][FRAGD_MAX_NODES];
        uint64_t demand_bytes[POLICY_HISTORY_MAX]; /* THP fault demand of each tick (global) */
        uint64_t unmet_bytes[POLICY_HISTORY_MAX];  /* its unmet part (PolicyEval.demand_unmet_bytes) */
        /* THPs that appeared on each node that tick (NodeMeasures.thp_grown;
         * UINT64_MAX = not known) */
        uint64_t thp_grown[POLICY_HISTORY_MAX][FRAGD_MAX_NODES];
        uint64_t pagecache_bytes[POLICY_HISTORY_MAX]; /* page-cache large-folio bytes of each tick (global) */
        uint64_t pagecache_unmet_bytes[POLICY_HISTORY_MAX]; /* their unmet part (PolicyEval.pagecache_unmet_bytes) */
} PolicyHistory;

/* defrag_mode (policy/defrag-mode.c): one minute of counts */
#define POLICY_DM_BUCKET_USEC (60 * USEC_PER_SEC)
#define POLICY_DM_BUCKETS 32
#define POLICY_DM_SAMPLES 16
typedef struct DefragModeBucket {
        usec_t start_usec;          /* a multiple of POLICY_DM_BUCKET_USEC; 0 = empty */
        double span_sec;            /* time the rates covered */
        double stalls, kswapd_pages; /* allocstall + compact_stall; pgscan_kswapd */
        double extfrag_sec;         /* time the polluting fallbacks were counted */
        uint64_t polluting;
} DefragModeBucket;

/* Sums over a window of buckets: what the cost check compares. */
typedef struct DefragModeWindow {
        double span_sec, stalls, kswapd_pages, extfrag_sec;
        uint64_t polluting;
        /* non-movable blocks added per hour over the window; valid with
         * blocks_span_usec > 0 */
        double blocks_per_hour;
        usec_t blocks_span_usec;
} DefragModeWindow;

typedef struct DefragModeTrack {
        /* non-movable blocks, one sample per pagetypeinfo reading (ring) */
        unsigned blk_head, blk_n;
        usec_t blk_usec[POLICY_DM_SAMPLES];
        uint64_t blk_nonmovable[POLICY_DM_SAMPLES];
        uint64_t blk_total;
        DefragModeBucket bucket[POLICY_DM_BUCKETS];
        /* the knob held a value fragd did not write: the operator's, left
         * alone for the run (fragd never turns it on then) */
        bool outside;
        bool have_value;
        int64_t last_value;
        /* fragd turned it on at on_usec; before: the window up to then */
        bool on;
        usec_t on_usec;
        DefragModeWindow before;
        /* turned off for costing more than it saved: off until hold_until,
         * backoffs in a row lengthen the hold */
        usec_t hold_until_usec;
        unsigned backoffs;
} DefragModeTrack;

typedef struct PolicyState {
        usec_t last_update_usec;    /* 0 = never updated */
        bool met;
        usec_t met_since_usec;      /* valid when met */
        PolicyHistory hist;
        LeverTrack lever[_LEVER_MAX];
        bool have_oneshot[FRAGD_MAX_NODES]; /* indexed like hist.node_id */
        usec_t last_oneshot_usec[FRAGD_MAX_NODES];
        /* learned reserve: the largest THP burst and when it was seen;
         * policy_decide() decays it (PolicyEval.learned_need_bytes). A burst
         * re-instated from an earlier run can be older than the monotonic
         * clock (after a reboot): learned_peak_usec is then 1 and
         * learned_peak_before_usec the rest of its age
         * (policy_learned_age(), policy_learned_restore()). */
        uint64_t learned_peak_bytes;
        usec_t learned_peak_usec;
        usec_t learned_peak_before_usec;
        bool learned_from_boot;     /* the peak is a seed from boot history (policy_learned_seed()) */
        /* the page-cache need's peak (burst of large-folio bytes) and when
         * it was seen, held and decayed as the learned one (not kept across
         * restarts: the signal starts afresh with fragd's trace instance) */
        uint64_t pagecache_peak_bytes;
        usec_t pagecache_peak_usec;
        /* how the learned peak split over the nodes when it was seen
         * (PolicyNodeEval.learned_share_*); n 0 = by node size */
        unsigned learned_share_n;
        int learned_share_node[FRAGD_MAX_NODES];
        uint32_t learned_share_permyriad[FRAGD_MAX_NODES];
        bool learned_share_measured[FRAGD_MAX_NODES];
        /* the last tick's PolicyNodeEval.pagecache_gate, indexed like hist.node_id */
        PolicyOneshotGate pagecache_gate[FRAGD_MAX_NODES];
        /* the last tick with direct compaction stalls or kswapd scanning
         * (Rates.compact_stall, Rates.pgscan_kswapd > 0); 0 = none seen */
        usec_t last_highorder_work_usec;
        /* the last tick with direct compaction stalls (Rates.compact_stall >
         * 0); 0 = none seen. PSI's avg10 holds them for POLICY_PSI_AVG_USEC
         * (controller.c rollback_due()) */
        usec_t last_compact_stall_usec;
        /* the stalls' own full pressure: the highest memory PSI full read
         * while direct compaction stalls were within POLICY_PSI_AVG_USEC
         * (avg10 peaks after the stalls that make it), as decayed to each
         * tick, and when it was read; 0 = none (controller.c
         * stall_pressure_now()) */
        uint32_t stall_psi_full_permyriad;
        usec_t stall_psi_full_usec;
        /* the last applied DECISION_KICK_KCOMPACTD */
        bool have_kick;
        usec_t last_kick_usec;
        /* the last tick with high-order activity (policy_tick_active()) */
        usec_t last_activity_usec;
        DefragModeTrack dm;
} PolicyState;

/* ---- the API -------------------------------------------------------------- */

void policy_state_init(PolicyState *s);

#define POLICY_DEFAULT_HYSTERESIS_PERMYRIAD 1000
#define POLICY_DEFAULT_MAX_REVERSALS 4
#define POLICY_DEFAULT_REVERSAL_WINDOW_USEC (3600 * USEC_PER_SEC)
#define POLICY_BACKOFF_SHIFT_MAX 5 /* the back-off hold grows to 32 x backoff_hold at most */

/* How long raising is held after the nth back-off in a row (n from 0):
 * hold << min(n, POLICY_BACKOFF_SHIFT_MAX), saturating. */
usec_t policy_backoff_hold_usec(usec_t hold, unsigned n);

/* The configuration decide works with: zero fields replaced by their
 * defaults, and min_free_kbytes bounds resolved: min 0 = the value found at
 * start; max = max(value at start, lever.max, min_free_max_permyriad x
 * MemTotal). in and a may be NULL (no value at start, no MemTotal). */
void policy_config_effective(const PolicyConfig *cfg, const LeverInput *in, const Assessment *a,
                             PolicyConfig *ret);
/* MemTotal as the policy counts it: managed pages x page size summed over
 * the Assessment's nodes (what /proc/meminfo MemTotal reports: totalram is
 * the sum of the zones' managed pages). 0 when a is NULL. */
uint64_t policy_mem_total_bytes(const Assessment *a);
/* min_free_max_permyriad x MemTotal in KiB (0 when either is 0), capped at
 * INT32_MAX like the sysctl. */
int64_t policy_min_free_share_kbytes(const PolicyConfig *cfg, const Assessment *a);

/* Pure and idempotent: equal inputs give byte-equal decisions. in[] has
 * _LEVER_MAX entries, indexed by Lever. Returns 0, or -EINVAL when the
 * assessment has no nodes or no page size. */
int policy_decide(const PolicyConfig *cfg, const PolicyState *s, const Assessment *a,
                  const LeverInput *in, usec_t now, Decision *ret);

/* Records history and the items marked applied. d is the decision of this
 * tick, as applied. */
void policy_state_update(PolicyState *s, const Assessment *a, const Decision *d, usec_t now);

/* Whether this tick saw high-order activity: THP faults (served or fallen
 * back), direct compaction or direct reclaim, or a watched workload
 * stalling. policy_state_update() records the time. */
bool policy_tick_active(const Assessment *a, const Decision *d);

/* The sum of the /proc/vmstat counters behind policy_tick_active(): THP
 * faults served and fallen back, direct compactions, direct reclaims (every
 * allocstall_<zone>). Only its changes mean anything (a sum of counters, it
 * may wrap): a different sum from the one at the last tick is activity since
 * then. The daemon's sentinel reads it between two ticks of the long
 * interval. Counters the kernel lacks count 0. */
uint64_t policy_activity_counters(const KvList *vmstat);

/* Whether the last activity is less than hold old: the daemon then observes
 * at its short interval, because a burst can drain the reserve between two
 * ticks of the long one (hold 0: never). */
bool policy_watch_closely(const PolicyState *s, usec_t now, usec_t hold);

/* Marks item i written; readback is the value read back after the write. */
void decision_mark_applied(Decision *d, unsigned i, int64_t readback);
/* For simulations and tests: every item applied as decided. */
void decision_mark_all_applied(Decision *d);
/* The decision's target for lever l: its item's `to`, else the input value. */
int64_t decision_lever_value(const Decision *d, Lever l);

const char *policy_reason_name(PolicyReason r); /* "reserve_below_target" */
int policy_reason_from_name(const char *name);  /* PolicyReason or -ENOENT */
const char *policy_hold_name(PolicyHold h);     /* "dwell" */
/* A hold worth showing an operator while it lasts (a log line when it
 * starts and ends, the fragd_knob_held metric): false for the pacing holds
 * every move waits out (dwell, reversal_cooldown), for backoff (its own
 * event says it) and for POLICY_HOLD_NONE */
bool policy_hold_shown(PolicyHold h);
/* The hold shown for lever l this tick: the first held item of l whose
 * hold policy_hold_shown() accepts, NULL if none (the daemon's held log,
 * fragd_knob_held and fragd status all name this one) */
const PolicyHeldItem *decision_held_shown(const Decision *d, Lever l);
const char *policy_gate_name(PolicyOneshotGate g); /* "psi_calm" */
/* "page-cache one-shot on node 0 held (psi_calm): ..." for a node whose
 * pagecache_gate is not NONE; "" otherwise */
int decision_explain_pagecache_gate(const PolicyEval *e, const PolicyNodeEval *ne, uint32_t calm_psi_some_permyriad,
                                    char *buf, size_t size);

/* One sentence for a person, e.g. "raise compaction_proactiveness 20→35:
 * node 1 has 48 MiB free in order>=9 blocks, target 256 MiB; falls below
 * target in 40 s at -1.2 MiB/s". snprintf semantics: returns the length the
 * full sentence needs; the buffer always ends in NUL when size > 0. A
 * buffer of DECISION_TEXT_MAX bytes holds any sentence either writes,
 * whatever the numbers (test_explain_longest): a reserve raise with a
 * first reserve from boot history and free memory short is some 600
 * bytes on a large host. */
#define DECISION_TEXT_MAX 1024
int decision_explain(const DecisionItem *it, char *buf, size_t size);
int decision_explain_held(const PolicyHeldItem *h, char *buf, size_t size);
/* "the kernel keeps up: no fallback, no stall at order 6 (...); nothing
 * changed" when e->keeps_up; "" otherwise. snprintf semantics. */
int decision_explain_keeps_up(const PolicyEval *e, char *buf, size_t size);
/* The configured reserves' gate (PolicyEval.reserve_wanted): "configured
 * reserves kept: unmet demand is held (...)" or "configured reserves
 * waiting: no fallback or compaction stall is held ...". snprintf
 * semantics. */
int decision_explain_reserve_gate(const PolicyEval *e, char *buf, size_t size);

/* ---- building blocks, exposed for tests ------------------------------------ */

/* Least squares over time-stamped samples. */
typedef struct TrendAccum {
        usec_t ref_usec;  /* x is measured in seconds relative to this */
        unsigned n;
        double sx, sy, sxx, sxy;
        usec_t first_usec, last_usec;
} TrendAccum;

typedef struct Trend {
        bool valid;             /* >= 3 points (trend_fit_min: its minimum) over a span > 0 */
        unsigned n;
        usec_t span_usec;
        double slope_per_sec;   /* units of y per second (bytes/s for memory) */
        double value_at_ref;    /* the fitted line at ref_usec */
} Trend;

void trend_init(TrendAccum *acc, usec_t ref_usec);
void trend_add(TrendAccum *acc, usec_t t_usec, double y);
void trend_fit(const TrendAccum *acc, Trend *ret);
/* The same with at least min_points (2 or more) instead of 3: the recency
 * guard only needs the direction of the last few samples. */
void trend_fit_min(const TrendAccum *acc, unsigned min_points, Trend *ret);
/* Time until a value now at `value` falls to `level` at the trend's slope:
 * 0 when already at or below, USEC_INFINITY when not falling or not valid. */
usec_t trend_eta_usec(const Trend *t, double value, double level);

/* Movement rules for one lever: bounds, step, dwell, reversal cooldown and
 * reversal limit. Returns the value allowed now (== current: leave alone) and
 * in *ret_hold what stopped it short of wanted. */
enum {
        LEVER_MOVE_IGNORE_TIMING = 1u << 0, /* dwell, cooldown, reversal limit */
        LEVER_MOVE_IGNORE_STEP = 1u << 1,
        LEVER_MOVE_ESCALATE = 1u << 2, /* a raise after a raise: the dwell does not apply */
        LEVER_MOVE_DECAY = 1u << 3,    /* a decay toward the baseline: sized by the controller, not the step */
        /* a lowering to the aim the reserves have now (docs/policy.md "Kicks
         * and the aim"): sized by the controller, not the step, and not held
         * by the dwell; the reversal cooldown and limit still apply,
         * except that the cooldown does not hold one undoing a raise made
         * in a dip of free memory (LeverTrack.raised_in_dip; a raise with
         * it is an ordinary raise) */
        LEVER_MOVE_AIM = 1u << 4,
        /* with LEVER_MOVE_ESCALATE: the target outgrew the one the last
         * raise answered (not the error): only the sentence differs */
        LEVER_MOVE_ESCALATE_TARGET = 1u << 5,
        /* a raise for direct compaction stalls or THP fallbacks over their
         * limits with the last move a lowering to the aim (aim_fell): that
         * lowering answered free memory measured at one instant, the harm
         * measured since refutes it; neither the dwell nor the reversal
         * cooldown holds the raise, the step and the reversal limit do */
        LEVER_MOVE_REFUTE_AIM = 1u << 6,
};
int64_t lever_rules_apply(const PolicyConfig *cfg, Lever l, const LeverTrack *t, int64_t current,
                          int64_t wanted, unsigned flags, usec_t now, PolicyHold *ret_hold);
/* Reversals of lever l within the reversal window ending at now. */
unsigned lever_reversals_in_window(const PolicyConfig *cfg, Lever l, const LeverTrack *t, usec_t now);

/* Watermarks the kernel would set (mm/page_alloc.c:__setup_per_zone_wmarks()),
 * summed per node, in pages. */
typedef struct NodeWatermarks {
        uint64_t min_pages, low_pages, high_pages;
} NodeWatermarks;
int envelope_node_watermarks(const Assessment *a, unsigned node_idx, int64_t min_free_kbytes,
                             int64_t watermark_scale_factor, NodeWatermarks *ret);
/* True when on every node low watermark + headroom <= free + reclaimable;
 * otherwise the first offending node's numbers go to *ret_num (may be NULL). */
bool envelope_ok(const PolicyConfig *cfg, const Assessment *a, int64_t min_free_kbytes,
                 int64_t watermark_scale_factor, PolicyNumbers *ret_num);
/* kcompactd's thresholds for a proactiveness (compaction.c:fragmentation_score_wmark()). */
unsigned policy_score_wmark(unsigned proactiveness, bool low);
/* The smallest proactiveness whose high threshold is <= score_target: kcompactd
 * then compacts whenever the score exceeds what the reserve needs. */
int64_t policy_proactiveness_for_score(unsigned score_target);
/* The learned need at now: peak kept for hold, then halved every decay
 * (0 = dropped at once); under one huge page (min_bytes) it counts as 0. */
uint64_t policy_learned_decay(uint64_t peak_bytes, usec_t peak_usec, usec_t now, usec_t hold, usec_t decay,
                              uint64_t min_bytes);
/* The age of the learned peak at now: now - learned_peak_usec +
 * learned_peak_before_usec (saturating); 0 when nothing is learned. */
usec_t policy_learned_age(const PolicyState *s, usec_t now);

/* A learned peak from an earlier run (fragd's state file), re-instated.
 * age_usec is how long ago it was seen, by a clock that survives restarts
 * and reboots (the caller's CLOCK_REALTIME difference; a time in the future
 * counts as age 0). The peak is decayed by its real age exactly as if fragd
 * had kept running: held for demand_hold, then halved every demand_decay,
 * dropped under one huge page (min_bytes). It maps onto the monotonic clock
 * at now as peak_usec = now - age; when the monotonic clock is younger than
 * the peak (it starts at boot), peak_usec is 1 and peak_before_usec keeps
 * the rest of the age, so the decay is still exact. */
typedef enum LearnedRestoreResult {
        LEARNED_RESTORE_OK,      /* *ret holds the state to seed */
        LEARNED_RESTORE_EMPTY,   /* no peak (0 bytes) */
        LEARNED_RESTORE_DECAYED, /* decayed to nothing by now: dropped */
        LEARNED_RESTORE_OFF,     /* demand_learning is off */
} LearnedRestoreResult;

typedef struct LearnedRestore {
        uint64_t peak_bytes;       /* as seen */
        usec_t peak_usec;          /* monotonic, >= 1 */
        usec_t peak_before_usec;   /* the age older than the monotonic clock */
        uint64_t need_bytes;       /* the peak decayed to now (what decide will keep ready) */
        usec_t hold_left_usec;     /* until the hold ends; 0 = decaying already */
        bool from_boot;            /* a seed from the counters since boot (policy_learned_from_boot()) */
} LearnedRestore;

LearnedRestoreResult policy_learned_restore(const PolicyConfig *cfg, uint64_t peak_bytes, usec_t age_usec,
                                            usec_t now, uint64_t min_bytes, LearnedRestore *ret);
/* The first reserve, before fragd has seen a burst (issue 14 item 5;
 * docs/policy.md "The first burst"): what the kernel counted since boot
 * (the daemon reads it: boot-history.c). */
typedef struct BootHistory {
        uint64_t thp_faults;    /* thp_fault_alloc + thp_fault_fallback since boot */
        uint64_t thp_fallbacks; /* thp_fault_fallback since boot (the host already missed) */
        usec_t uptime_usec;     /* the time they were counted in */
} BootHistory;

/* F = thp_fallbacks x hpage_bytes (the unmet THP demand since boot: no
 * unmet burst was larger; served faults teach nothing), U = uptime, H =
 * demand_hold, D = demand_decay:
 *   no fallback:  none (EMPTY)
 *   fallbacks:    seed = F                                    U <= H
 *                 seed = F x (H + D/ln2 x (1 - 2^(-(U-H)/D))) / U   U > H
 * the learned need a running fragd would hold now, averaged
 * over when in the uptime the whole count could have been one burst (held
 * H, then halved every D). Taken as a burst seen now: kept for demand_hold,
 * then decayed like any learned burst, renewed by a real one; capped at
 * mem_bytes (the host's memory) and, through the learned target, at
 * demand_cap (fleet files set it per instance type). EMPTY under one huge
 * page or with no uptime, OFF when learning or demand_from_boot is off. */
LearnedRestoreResult policy_learned_from_boot(const PolicyConfig *cfg, const BootHistory *b, uint64_t hpage_bytes,
                                              uint64_t mem_bytes, usec_t now, LearnedRestore *ret);
/* Seeds the state with a restored peak (before the first decide). */
void policy_learned_seed(PolicyState *s, const LearnedRestore *r);

/* Fills PolicyEval's demand_*, burst_bytes and learned_* fields and each
 * node's learned_share_* (policy/demand.c). */
void policy_demand_evaluate(const PolicyConfig *cfg, const PolicyState *s, const Assessment *a, usec_t now,
                            PolicyEval *e);
/* Compaction stalls per second this tick that count as demand: all of
 * Rates.compact_stall when no workload is watched; when some are
 * (Assessment.workloads), only while one of them has direct compaction
 * delay in its window (taskstats: the stall was the watched workload's,
 * not any writer's), else 0. */
double policy_stalls_attributed(const Assessment *a);
/* Memory fragd's raised watermarks may hold back on a node (its high
 * watermark above the kernel's own), as a share of the node's memory,
 * unless free memory itself is short (under the kernel's own high
 * watermark): 1 %. */
#define POLICY_WATERMARK_CAP_PERMYRIAD 100u
/* The learned order_thp target of a node of node_bytes: max(configured,
 * min(need x demand_factor, demand_cap)); configured when learning is off.
 * need is the node's share of the learned need (PolicyNodeEval.learned_share_permyriad). */
uint64_t policy_learned_target(const PolicyConfig *cfg, uint64_t need_bytes, uint64_t configured_bytes,
                               uint64_t node_bytes);
#define POLICY_BURST_WINDOW_USEC (30 * USEC_PER_SEC) /* THP faults this close count as one burst */
#define POLICY_PSI_AVG_USEC (10 * USEC_PER_SEC)       /* the window of PSI's avg10, which fragd reads */
/* A page-cache reserve below the THP order is sized by the bytes its
 * demand adds within this window (the time a rebuild by a one-shot takes
 * to come round), and its one-shots come no closer together. */
#define POLICY_PAGECACHE_REBUILD_USEC (10 * USEC_PER_SEC)
/* Memory PSI avg10 is an average with a 10 s time constant: compaction
 * stalls within this window explain an avg10 over calm (13.75 % decays
 * under 1 % in 26 s), and free memory is judged against the high
 * watermark over it (the page-cache one-shot's own pressure). */
#define POLICY_PSI_AVG10_SPAN_USEC (30 * USEC_PER_SEC)
/* The page-cache order: the highest order k >= 1 holding at least
 * POLICY_PAGECACHE_MIN_SHARE_PERMYRIAD of the bytes added in large folios
 * (orders >= 1) since the trigger was set, once those bytes reach
 * POLICY_PAGECACHE_MIN_BYTES. */
#define POLICY_PAGECACHE_MIN_SHARE_PERMYRIAD 1000u
#define POLICY_PAGECACHE_MIN_BYTES (UINT64_C(4) << 20)
/* Fills PolicyEval's pagecache_* fields (policy/demand.c); call after
 * policy_demand_evaluate() (the THP need is part of the page-cache need). */
void policy_pagecache_evaluate(const PolicyConfig *cfg, const PolicyState *s, const Assessment *a, usec_t now,
                               PolicyEval *e);
/* The large-folio target of a node: max(configured, min(pagecache_need,
 * demand_cap of the node)); configured without a page-cache need. */
uint64_t policy_pagecache_target(const PolicyConfig *cfg, uint64_t need_bytes, uint64_t configured_bytes,
                                 uint64_t node_bytes);
/* Sets PolicyEval.reserve_wanted (docs/policy.md "Demand worth reserving
 * for"): the configured reserves are kept with reserve_always, or without
 * demand learning (no demand is measured then); else order_thp's while a
 * learned THP need is held (from boot included) or a page-cache need at
 * the THP order, and the large-folio one while either need is held. Call
 * after policy_pagecache_evaluate(). */
void policy_reserve_gate(const PolicyConfig *cfg, PolicyEval *e);
/* Whether cfg gates the configured reserves at all: not with
 * reserve_always, nor without demand learning (nothing measured). */
bool policy_reserve_gate_on(const PolicyConfig *cfg);
/* The reason a DECISION_KICK_KCOMPACTD item stands for (the missed
 * objective in num.objective): reserve_below_target, reserve_trend,
 * compact_stalls, thp_fallback or workload_stalls; none for other items. */
PolicyReason policy_kick_cause(const DecisionItem *it);
/* ---- defrag_mode (policy/defrag-mode.c; docs/policy.md "defrag_mode") ---- */

/* Starting values, not yet measured against the benchmark: */
#define POLICY_DM_WINDOW_USEC (10 * USEC_PER_MINUTE)    /* the cost window, before and after */
#define POLICY_DM_SETTLE_USEC (1 * USEC_PER_MINUTE)     /* after turning on, not counted */
#define POLICY_DM_BLOCK_WINDOW_USEC (60 * USEC_PER_MINUTE) /* non-movable block growth looked at */
#define POLICY_DM_GROWTH_MIN_BLOCKS 4                   /* growth that counts: at least this many */
#define POLICY_DM_GROWTH_MIN_PERMYRIAD 50               /* and 0.5 % of all blocks */
#define POLICY_DM_POLLUTING_MIN_MILLI 100               /* polluting fallbacks: 0.1/s over the window */
#define POLICY_DM_EXTFRAG_COVER_PERMYRIAD 5000          /* counted over half the window at least */
#define POLICY_DM_STALL_FLOOR_MILLI 50                  /* stall rates under 0.05/s count as 0.05/s */
#define POLICY_DM_KSWAPD_FLOOR_MILLI (256 * 1000)       /* kswapd under 256 pages/s counts as 256 */
#define POLICY_DM_HOLD_USEC (360 * USEC_PER_MINUTE)        /* off after a back-off, doubled per repeat */
#define POLICY_DM_HOLD_SHIFT_MAX 3                      /* 48 h at most */

/* What decide wants of defrag_mode this tick: to = the value (== current:
 * nothing), reason and numbers; hold != NONE: it wanted `wanted` and the
 * policy itself holds it (back-off, psi). flags: LEVER_MOVE_* for the
 * movement rules. */
typedef struct DefragModeWant {
        int64_t to;
        int64_t wanted;
        PolicyReason reason;
        PolicyHold hold;
        unsigned flags;
        PolicyNumbers num;
} DefragModeWant;

/* The want (pure): on when non-movable blocks grew by at least
 * POLICY_DM_GROWTH_MIN_* within POLICY_DM_BLOCK_WINDOW_USEC, or polluting
 * fallbacks came at POLICY_DM_POLLUTING_MIN_MILLI over the last window,
 * with large-folio demand, not while held off, over the PSI ceiling
 * (psi_high), while direct compaction stalls (stalling) or after an outside
 * value; off when the cost check fails (policy_defrag_mode_cost()). */
void policy_defrag_mode_want(const DefragModeTrack *t, const PolicyEval *e, const LeverInput *in, bool psi_high,
                             bool stalling, usec_t now, DefragModeWant *ret);
/* The cost check: stalls (allocstall + compact_stall per second) and
 * kswapd scanning (pgscan_kswapd pages per second) each rise by
 *   rise = (after - before) / max(before, floor)   when after > before + floor, else 0
 * and the pollution falls by
 *   fall = (before - after) / before                (0 when before is 0 or after is more);
 * true (back off) when max(stall rise, kswapd rise) > fall. The numbers go
 * to num (its dm part). */
bool policy_defrag_mode_cost(const DefragModeWindow *before, const DefragModeWindow *after, DefragModeNumbers *num);
/* Sums the buckets of t that start in [from, to) and the block growth
 * between the samples in it. */
void policy_defrag_mode_window(const DefragModeTrack *t, usec_t from, usec_t to, DefragModeWindow *ret);
/* Records this tick (policy_state_update() calls it): counts into the
 * minute's bucket, a new pagetypeinfo sample, an outside value, and the
 * defrag_mode item applied (on: the window before kept; off by the cost
 * check: the hold). */
void policy_defrag_mode_update(DefragModeTrack *t, const Assessment *a, const Decision *d, usec_t now);

/* SizeSpec to bytes for a node of node_bytes. */
uint64_t policy_size_bytes(const SizeSpec *s, uint64_t node_bytes);
