/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* What the policy is asked to achieve and the bounds it must keep. Filled by
 * presets (policy/presets.c), then overridden by configuration layers
 * (daemon/config/config.c). Pure data. */

#include <stdbool.h>
#include <stdint.h>

#include "fragd/macro.h"

/* The levers the policy moves. Values are integers in the knob's own unit;
 * LEVER_THP_DEFRAG uses ThpDefragMode. */
typedef enum Lever {
        LEVER_COMPACTION_PROACTIVENESS, /* vm.compaction_proactiveness 0..100 */
        LEVER_WATERMARK_SCALE_FACTOR,   /* vm.watermark_scale_factor 1..3000 (1/10000) */
        LEVER_MIN_FREE_KBYTES,          /* vm.min_free_kbytes, KiB */
        LEVER_WATERMARK_BOOST_FACTOR,   /* vm.watermark_boost_factor 0.. (1/10000) */
        LEVER_EXTFRAG_THRESHOLD,        /* vm.extfrag_threshold 0..1000 */
        LEVER_THP_DEFRAG,               /* transparent_hugepage/defrag */
        LEVER_DEFRAG_MODE,              /* vm.defrag_mode 0..1 (6.15+; policy/defrag-mode.c) */
        _LEVER_MAX,
} Lever;

typedef enum ThpDefragMode {
        THP_DEFRAG_NEVER,
        THP_DEFRAG_DEFER,
        THP_DEFRAG_DEFER_MADVISE,
        THP_DEFRAG_MADVISE,
        THP_DEFRAG_ALWAYS,
        _THP_DEFRAG_MAX,
} ThpDefragMode;

typedef enum Preset {
        PRESET_DATABASE,   /* default: large folios and THP without stalls, moderate cost */
        PRESET_THROUGHPUT, /* cheapest: react late, small reserves */
        PRESET_THP_MAX,    /* most huge pages, cost second */
        PRESET_OBSERVE,    /* decide and report only, never write */
        _PRESET_MAX,
} Preset;

/* A size: absolute bytes, or a share of the node's memory. */
typedef struct SizeSpec {
        uint64_t bytes;
        uint32_t permyriad; /* used when bytes == 0; 200 = 2% */
} SizeSpec;

typedef struct LeverConfig {
        bool enabled;
        int64_t min, max;        /* never written outside [min, max] */
        int64_t step_up;         /* largest raise per decision */
        int64_t step_down;       /* largest decay per decision */
        usec_t dwell_usec;       /* no move sooner than this after the last one */
        usec_t reversal_cooldown_usec; /* no move against the last direction sooner */
} LeverConfig;

typedef struct PolicyConfig {
        Preset preset;
        /* objectives */
        unsigned order_large;      /* large-folio target order (4: just past costly) */
        unsigned order_thp;        /* 0 = the kernel's THP order */
        SizeSpec reserve_large;    /* per node, free memory in blocks >= order_large */
        SizeSpec reserve_thp;      /* per node, free memory in blocks >= order_thp */
        /* false: reserve_large and reserve_thp are kept only while unmet
         * demand is held (a learned THP need, or a page-cache need;
         * policy_reserve_gate(), docs/policy.md "Demand worth reserving
         * for"); true: always, the operator's floor. Without
         * demand_learning no demand is measured and the reserves are
         * always kept. */
        bool reserve_always;
        double max_compact_stall_rate;     /* direct compaction stalls per second */
        uint32_t max_thp_fallback_permyriad; /* THP/mTHP fault fallback ratio */
        uint32_t psi_some_ceiling_permyriad; /* memory some avg10 */
        uint32_t psi_full_ceiling_permyriad; /* memory full avg10 */
        /* prediction */
        usec_t trend_window_usec;  /* least-squares window */
        usec_t trend_horizon_usec; /* act when a target is predicted to be crossed this soon */
        /* decay and back-off */
        usec_t decay_after_usec;   /* targets met this long -> levers decay to baseline */
        unsigned backoff_decisions;  /* raises without gain before backing off */
        double backoff_max_scan_per_block; /* pages scanned per order_thp block gained */
        /* safety */
        SizeSpec safety_headroom;  /* low watermark + this must stay below free+reclaimable */
        usec_t rollback_window_usec;
        uint32_t rollback_psi_full_rise_permyriad;
        /* one-shot per-node compaction */
        bool oneshot_compact;
        uint32_t oneshot_below_permyriad; /* reserve under this share of target */
        usec_t oneshot_min_interval_usec;
        uint32_t calm_psi_some_permyriad; /* "calm" means some avg10 below this */
        LeverConfig lever[_LEVER_MAX];
        /* added by the policy engine (policy/controller.c); 0 selects the
         * default in brackets (policy_config_effective()) */
        uint32_t hysteresis_permyriad; /* targets count as met only this far inside them [1000 = 10%] */
        unsigned max_reversals;        /* per lever within reversal_window_usec [4] */
        usec_t reversal_window_usec;   /* [1 h] */
        usec_t backoff_hold_usec;      /* no raise after a back-off or rollback [decay_after_usec] */
        /* LEVER_MIN_FREE_KBYTES upper bound as a share of total memory
         * (MemTotal), used when nonzero; lever.max (KiB) is then 0. For this
         * lever, lever.min == 0 means "the value the kernel had when fragd
         * first touched it", and the effective upper bound is never below
         * that value: max(value at start, lever.max or this share).
         * Added by the config branch; a blunt global reserve cannot be a
         * constant across machine sizes. */
        uint32_t min_free_max_permyriad;
        /* the watermark cap (policy.h POLICY_WATERMARK_CAP_PERMYRIAD): what
         * raised watermarks may hold back above the kernel's own, per node,
         * while free memory itself is not short; 0 = that default, 10000 =
         * no cap. Not a fragd.conf key: fragd-sim and the tests set it. */
        uint32_t watermark_cap_permyriad;
        /* Learned THP reserve (docs/policy.md "Learned reserve"): the
         * order_thp target becomes max(reserve_thp, min(need x
         * demand_factor, demand_cap)), need = the largest unmet THP fault
         * burst seen (faults fallen back or stalled in direct compaction
         * within a short window, in bytes), kept for demand_hold, then
         * halved every demand_decay.
         * Literal values: false / 0 cap switch learning off. */
        bool demand_learning;
        usec_t demand_hold_usec;   /* keep the peak this long */
        usec_t demand_decay_usec;  /* then halve it this often; 0 = forget at once */
        double demand_factor;      /* need x this; 1.0 = the burst itself */
        SizeSpec demand_cap;       /* per node, at most this (bytes or share of the node) */
        /* before any burst: the first reserve from the kernel's THP fault
         * counters since boot (policy_learned_from_boot()) */
        bool demand_from_boot;
        /* Kicking kcompactd (docs/policy.md): while a compaction objective
         * is missed and compaction_proactiveness does not move, rewrite its
         * value at most this often; 0 = never. */
        usec_t kick_interval_usec;
} PolicyConfig;

const char *lever_name(Lever l);          /* "compaction_proactiveness", "thp_defrag" */
int lever_from_name(const char *name);    /* Lever or -ENOENT */
const char *preset_name(Preset p);        /* "database" */
int preset_from_name(const char *name);   /* Preset or -ENOENT */
const char *thp_defrag_name(ThpDefragMode m); /* "defer+madvise" */
int thp_defrag_from_name(const char *name);
/* Fills *ret with the preset's values (policy/presets.c). */
void policy_config_preset(Preset p, PolicyConfig *ret);
