/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Built-in presets: named bundles of targets and lever bounds. Pure data.
 *
 * These are starting values, to be tuned against the VM benchmark; they are
 * kept in one table so a change is one line and its reason sits next to it.
 * Units follow the field names: *_permyriad is 1/10000 (200 = 2%), *_usec is
 * microseconds, lever bounds are in the knob's own unit (KERNEL.md §3).
 *
 * Shared reasoning:
 *  - order_large 4 is the first order past PAGE_ALLOC_COSTLY_ORDER (3): the
 *    first order that enters direct compaction and fails fast under
 *    __GFP_NORETRY, so the first order whose supply fragd must keep up.
 *  - order_thp 0 means "the kernel's PMD THP order" (9 with 4K pages, 13 with
 *    64K pages), resolved at run time from hpage_pmd_size.
 *  - Reserves are shares of the node's memory, not bytes, so one preset fits
 *    an 8 GiB and a 1 TiB host.
 *  - vm.min_free_kbytes (LEVER_MIN_FREE_KBYTES) is the slow, blunt lever:
 *    raising it raises every zone's watermarks, makes kswapd reclaim more and
 *    the kernel recomputes it on THP mode writes and hotplug. Upstream
 *    measured +16% compaction work for +2% THP success from a blunt change.
 *    Its floor is 0 = "the kernel's value at start" (fragd never lowers it
 *    below what it found) and its ceiling is a share of memory
 *    (min_free_max_permyriad), with long dwell times.
 */

#include <string.h>

#include "fragd/policy-config.h"

#define SEC(x) ((usec_t) (x) * USEC_PER_SEC)
#define MINUTES(x) ((usec_t) (x) * USEC_PER_MINUTE)
#define MIB_KB(x) ((int64_t) (x) * 1024)

/* A lever fragd leaves at the kernel default: bounds pinned to it. */
#define LEVER_OFF(v) { .enabled = false, .min = (v), .max = (v) }

/* vm.defrag_mode (6.15+, docs/policy.md "defrag_mode"): on where pageblock
 * pollution grows on a host with large-folio demand, off again when it
 * costs more than it saves. On for database and thp-max: a database host
 * runs for months and a block a fallback polluted stays polluted, so the
 * huge pages it wants later are lost for good, while the back-off bounds
 * what the extra reclaim and compaction may cost. Binary: the step is the
 * whole range; a move no sooner than 10 min after the last, and a turn
 * back against it no sooner than an hour (the back-off holds it off far
 * longer: policy/defrag-mode.c). Kernel default 0. */
#define DEFRAG_MODE_LEVER                                                                  \
        [LEVER_DEFRAG_MODE] = {                                                            \
                .enabled = true, .min = 0, .max = 1, .step_up = 1, .step_down = 1,        \
                .dwell_usec = MINUTES(10), .reversal_cooldown_usec = MINUTES(60),         \
        }

static const PolicyConfig presets[_PRESET_MAX] = {
        /* database (default): keep large folios and THP available without
         * stalls, at moderate compaction cost. */
        [PRESET_DATABASE] = {
                .preset = PRESET_DATABASE,
                .order_large = 4,
                .order_thp = 0,
                .reserve_large = { .permyriad = 100 },  /* 1% of the node in >= order 4 */
                .reserve_thp = { .permyriad = 200 },    /* 2% of the node in THP blocks */
                /* only while unmet demand is held: the kernel keeps up otherwise */
                .reserve_always = false,
                .max_compact_stall_rate = 0.5,          /* stalls/s: one every 2 s is already felt */
                .max_thp_fallback_permyriad = 1000,     /* 10% of THP faults may fall back */
                .psi_some_ceiling_permyriad = 1000,     /* memory some avg10 10% */
                .psi_full_ceiling_permyriad = 200,      /* memory full avg10 2% */
                .trend_window_usec = MINUTES(2),        /* enough ticks for a stable slope */
                .trend_horizon_usec = SEC(60),          /* act a minute before a predicted miss */
                .decay_after_usec = MINUTES(10),
                .backoff_decisions = 5,
                /* 32 pageblocks scanned per THP block gained (4K pages:
                 * 16384 pages = 64 MiB of scanning per 2 MiB won) */
                .backoff_max_scan_per_block = 16384,
                .safety_headroom = { .permyriad = 100 }, /* 1% */
                .rollback_window_usec = SEC(30),
                .rollback_psi_full_rise_permyriad = 100, /* +1% full avg10 after a move: undo */
                .oneshot_compact = true,
                .oneshot_below_permyriad = 2500,        /* reserve < 25% of target */
                .oneshot_min_interval_usec = MINUTES(10),
                .calm_psi_some_permyriad = 100,         /* some avg10 < 1% */
                .lever = {
                        /* kernel default 20; never below it, 80 keeps
                         * kcompactd from running flat out */
                        [LEVER_COMPACTION_PROACTIVENESS] = {
                                .enabled = true, .min = 20, .max = 80,
                                .step_up = 20, .step_down = 5,
                                .dwell_usec = SEC(30), .reversal_cooldown_usec = MINUTES(2),
                        },
                        /* kernel default 10 (0.1%); 200 = 2% gap between
                         * watermarks gives kswapd room before direct reclaim */
                        [LEVER_WATERMARK_SCALE_FACTOR] = {
                                .enabled = true, .min = 10, .max = 200,
                                .step_up = 50, .step_down = 10,
                                .dwell_usec = SEC(60), .reversal_cooldown_usec = MINUTES(5),
                        },
                        /* floor: the kernel's value; ceiling 1% of memory
                         * (min_free_max_permyriad below); slow */
                        [LEVER_MIN_FREE_KBYTES] = {
                                .enabled = true, .min = 0, .max = 0,
                                .step_up = MIB_KB(64), .step_down = MIB_KB(16),
                                .dwell_usec = MINUTES(10), .reversal_cooldown_usec = MINUTES(30),
                        },
                        /* kernel default 15000: left alone */
                        [LEVER_WATERMARK_BOOST_FACTOR] = LEVER_OFF(15000),
                        /* kernel default 500: left alone */
                        [LEVER_EXTFRAG_THRESHOLD] = LEVER_OFF(500),
                        /* kernel default madvise: left alone */
                        [LEVER_THP_DEFRAG] = LEVER_OFF(THP_DEFRAG_MADVISE),
                        DEFRAG_MODE_LEVER,
                },
                .min_free_max_permyriad = 100,
                /* learned reserve: a host that has shown a THP burst keeps
                 * that much ready for the next one for 30 min, then halves
                 * it every 30 min; at most a quarter of the node */
                .demand_learning = true,
                .demand_from_boot = true,
                .demand_hold_usec = MINUTES(30),
                .demand_decay_usec = MINUTES(30),
                .demand_factor = 1.0,
                .demand_cap = { .permyriad = 2500 },
                /* rewrite proactiveness every 5 s while a reserve is
                 * missed: kcompactd otherwise defers 32 s after a round
                 * without progress */
                .kick_interval_usec = 5 * USEC_PER_SEC,
        },

        /* throughput: cheapest. Smaller reserves, tolerate more misses,
         * react later and decay sooner; min_free_kbytes untouched. */
        [PRESET_THROUGHPUT] = {
                .preset = PRESET_THROUGHPUT,
                .order_large = 4,
                .order_thp = 0,
                .reserve_large = { .permyriad = 50 },   /* 0.5% */
                .reserve_thp = { .permyriad = 100 },    /* 1% */
                /* no demand measured (learning off): the floor is kept */
                .reserve_always = true,
                .max_compact_stall_rate = 2.0,
                .max_thp_fallback_permyriad = 2500,     /* 25% */
                .psi_some_ceiling_permyriad = 2000,     /* 20% */
                .psi_full_ceiling_permyriad = 500,      /* 5% */
                .trend_window_usec = MINUTES(5),        /* slower, steadier slope */
                .trend_horizon_usec = SEC(30),          /* act late */
                .decay_after_usec = MINUTES(5),         /* give work back soon */
                .backoff_decisions = 3,
                .backoff_max_scan_per_block = 4096,     /* 8 pageblocks per block won */
                .safety_headroom = { .permyriad = 100 },
                .rollback_window_usec = SEC(30),
                .rollback_psi_full_rise_permyriad = 100,
                .oneshot_compact = true,
                .oneshot_below_permyriad = 1000,        /* only when nearly empty */
                .oneshot_min_interval_usec = MINUTES(30),
                .calm_psi_some_permyriad = 100,
                .lever = {
                        /* may go below the kernel default to save work */
                        [LEVER_COMPACTION_PROACTIVENESS] = {
                                .enabled = true, .min = 10, .max = 50,
                                .step_up = 10, .step_down = 10,
                                .dwell_usec = SEC(60), .reversal_cooldown_usec = MINUTES(5),
                        },
                        [LEVER_WATERMARK_SCALE_FACTOR] = {
                                .enabled = true, .min = 10, .max = 100,
                                .step_up = 20, .step_down = 10,
                                .dwell_usec = MINUTES(2), .reversal_cooldown_usec = MINUTES(5),
                        },
                        [LEVER_MIN_FREE_KBYTES] = {
                                .enabled = false, .min = 0, .max = 0,
                                .step_up = MIB_KB(64), .step_down = MIB_KB(16),
                                .dwell_usec = MINUTES(10), .reversal_cooldown_usec = MINUTES(30),
                        },
                        [LEVER_WATERMARK_BOOST_FACTOR] = LEVER_OFF(15000),
                        [LEVER_EXTFRAG_THRESHOLD] = LEVER_OFF(500),
                        [LEVER_THP_DEFRAG] = LEVER_OFF(THP_DEFRAG_MADVISE),
                        /* more reclaim and compaction for cleaner
                         * pageblocks: not the cheapest */
                        [LEVER_DEFRAG_MODE] = LEVER_OFF(0),
                },
                .min_free_max_permyriad = 100,
                /* off: no compaction work ahead of demand; the values
                 * are database's for whoever turns it on */
                .demand_learning = false,
                .demand_hold_usec = MINUTES(30),
                .demand_decay_usec = MINUTES(30),
                .demand_factor = 1.0,
                .demand_cap = { .permyriad = 2500 },
                .kick_interval_usec = 0, /* off: the cheapest preset */
        },

        /* thp-max: the most huge pages; compaction cost comes second. */
        [PRESET_THP_MAX] = {
                .preset = PRESET_THP_MAX,
                .order_large = 4,
                .order_thp = 0,
                .reserve_large = { .permyriad = 200 },  /* 2% */
                .reserve_thp = { .permyriad = 500 },    /* 5% */
                /* the floor is kept whatever the demand */
                .reserve_always = true,
                .max_compact_stall_rate = 0.2,
                .max_thp_fallback_permyriad = 500,      /* 5% */
                .psi_some_ceiling_permyriad = 1500,     /* compaction may cost some pressure */
                .psi_full_ceiling_permyriad = 300,
                .trend_window_usec = MINUTES(2),
                .trend_horizon_usec = MINUTES(2),       /* act early */
                .decay_after_usec = MINUTES(30),        /* hold levers up longer */
                .backoff_decisions = 10,
                .backoff_max_scan_per_block = 65536,    /* 128 pageblocks per block won */
                .safety_headroom = { .permyriad = 100 },
                .rollback_window_usec = SEC(30),
                .rollback_psi_full_rise_permyriad = 200,
                .oneshot_compact = true,
                .oneshot_below_permyriad = 5000,        /* reserve < 50% of target */
                .oneshot_min_interval_usec = MINUTES(5),
                .calm_psi_some_permyriad = 200,
                .lever = {
                        [LEVER_COMPACTION_PROACTIVENESS] = {
                                .enabled = true, .min = 20, .max = 100,
                                .step_up = 30, .step_down = 5,
                                .dwell_usec = SEC(20), .reversal_cooldown_usec = MINUTES(2),
                        },
                        [LEVER_WATERMARK_SCALE_FACTOR] = {
                                .enabled = true, .min = 10, .max = 500,
                                .step_up = 100, .step_down = 20,
                                .dwell_usec = SEC(60), .reversal_cooldown_usec = MINUTES(5),
                        },
                        [LEVER_MIN_FREE_KBYTES] = {
                                .enabled = true, .min = 0, .max = 0,
                                .step_up = MIB_KB(128), .step_down = MIB_KB(32),
                                .dwell_usec = MINUTES(10), .reversal_cooldown_usec = MINUTES(30),
                        },
                        /* a larger boost makes kswapd reclaim after each
                         * fragmenting fallback and then wake kcompactd at
                         * pageblock order: more THP-sized blocks */
                        [LEVER_WATERMARK_BOOST_FACTOR] = {
                                .enabled = true, .min = 15000, .max = 30000,
                                .step_up = 5000, .step_down = 5000,
                                .dwell_usec = MINUTES(5), .reversal_cooldown_usec = MINUTES(10),
                        },
                        [LEVER_EXTFRAG_THRESHOLD] = LEVER_OFF(500),
                        /* asserted, not moved: madvised regions compact
                         * directly, everyone else wakes kswapd/kcompactd */
                        [LEVER_THP_DEFRAG] = {
                                .enabled = true,
                                .min = THP_DEFRAG_DEFER_MADVISE, .max = THP_DEFRAG_DEFER_MADVISE,
                                .dwell_usec = MINUTES(10), .reversal_cooldown_usec = MINUTES(10),
                        },
                        DEFRAG_MODE_LEVER,
                },
                .min_free_max_permyriad = 200,
                /* remember bursts twice as long, allow a larger share */
                .demand_learning = true,
                .demand_from_boot = true,
                .demand_hold_usec = MINUTES(60),
                .demand_decay_usec = MINUTES(60),
                .demand_factor = 1.0,
                .demand_cap = { .permyriad = 3000 },
                .kick_interval_usec = 5 * USEC_PER_SEC,
        },
        /* PRESET_OBSERVE is database with preset = PRESET_OBSERVE, below. */
};

void policy_config_preset(Preset p, PolicyConfig *ret)
{
        if ((unsigned) p >= _PRESET_MAX)
                p = PRESET_DATABASE;

        if (p != PRESET_OBSERVE) {
                memcpy(ret, &presets[p], sizeof(*ret)); /* padding included: comparable */
                return;
        }

        /* observe: database's values, levers and one-shot compaction
         * included, so policy_decide() makes database's decisions; it marks
         * them apply = false and the daemon runs dry (nothing is written).
         * A lever that is off here is not read by the daemon either. */
        memcpy(ret, &presets[PRESET_DATABASE], sizeof(*ret));
        ret->preset = PRESET_OBSERVE;
}
