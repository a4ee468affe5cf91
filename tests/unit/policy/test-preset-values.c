/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Every value of every shipped preset (policy/presets.c) against the
 * documented table (docs/policy.md "Presets", docs/fragd.conf.5), written
 * out here field by field: a changed preset value is a changed default for
 * every host that runs it, so it must be a deliberate edit of this table
 * too. Links libpolicy.a only. */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "fragd/policy-config.h"

#define SEC (USEC_PER_SEC)
#define MINUTE (USEC_PER_MINUTE)

typedef struct L {
        bool enabled;
        int64_t min, max, up, down;
        usec_t dwell, cooldown;
} L;

typedef struct Expect {
        Preset preset;
        uint32_t reserve_large, reserve_thp; /* permyriad */
        double stall_rate;
        uint32_t fallback, psi_some, psi_full;
        usec_t window, horizon, decay_after;
        unsigned backoff_decisions;
        double max_scan_per_block;
        uint32_t headroom;
        usec_t rollback_window;
        uint32_t rollback_rise;
        bool oneshot;
        uint32_t oneshot_below;
        usec_t oneshot_interval;
        uint32_t calm;
        L lever[_LEVER_MAX];
        uint32_t min_free_max;
        bool learning;
        usec_t hold, decay;
        double factor;
        uint32_t cap;
        usec_t kick;
} Expect;

#define OFF(v) { false, v, v, 0, 0, 0, 0 }

static const Expect expect[] = {
        {
                .preset = PRESET_DATABASE,
                .reserve_large = 100, .reserve_thp = 200, .stall_rate = 0.5, .fallback = 1000,
                .psi_some = 1000, .psi_full = 200, .window = 2 * MINUTE, .horizon = 60 * SEC,
                .decay_after = 10 * MINUTE, .backoff_decisions = 5, .max_scan_per_block = 16384, .headroom = 100,
                .rollback_window = 30 * SEC, .rollback_rise = 100, .oneshot = true, .oneshot_below = 2500,
                .oneshot_interval = 10 * MINUTE, .calm = 100,
                .lever = {
                        [LEVER_COMPACTION_PROACTIVENESS] = { true, 20, 80, 20, 5, 30 * SEC, 2 * MINUTE },
                        [LEVER_WATERMARK_SCALE_FACTOR] = { true, 10, 200, 50, 10, 60 * SEC, 5 * MINUTE },
                        [LEVER_MIN_FREE_KBYTES] = { true, 0, 0, 65536, 16384, 10 * MINUTE, 30 * MINUTE },
                        [LEVER_WATERMARK_BOOST_FACTOR] = OFF(15000),
                        [LEVER_EXTFRAG_THRESHOLD] = OFF(500),
                        [LEVER_THP_DEFRAG] = OFF(THP_DEFRAG_MADVISE),
                        [LEVER_DEFRAG_MODE] = { true, 0, 1, 1, 1, 10 * MINUTE, 60 * MINUTE },
                },
                .min_free_max = 100, .learning = true, .hold = 30 * MINUTE, .decay = 30 * MINUTE, .factor = 1.0,
                .cap = 2500, .kick = 5 * SEC,
        },
        {
                .preset = PRESET_THROUGHPUT,
                .reserve_large = 50, .reserve_thp = 100, .stall_rate = 2.0, .fallback = 2500,
                .psi_some = 2000, .psi_full = 500, .window = 5 * MINUTE, .horizon = 30 * SEC,
                .decay_after = 5 * MINUTE, .backoff_decisions = 3, .max_scan_per_block = 4096, .headroom = 100,
                .rollback_window = 30 * SEC, .rollback_rise = 100, .oneshot = true, .oneshot_below = 1000,
                .oneshot_interval = 30 * MINUTE, .calm = 100,
                .lever = {
                        [LEVER_COMPACTION_PROACTIVENESS] = { true, 10, 50, 10, 10, 60 * SEC, 5 * MINUTE },
                        [LEVER_WATERMARK_SCALE_FACTOR] = { true, 10, 100, 20, 10, 2 * MINUTE, 5 * MINUTE },
                        [LEVER_MIN_FREE_KBYTES] = { false, 0, 0, 65536, 16384, 10 * MINUTE, 30 * MINUTE },
                        [LEVER_WATERMARK_BOOST_FACTOR] = OFF(15000),
                        [LEVER_EXTFRAG_THRESHOLD] = OFF(500),
                        [LEVER_THP_DEFRAG] = OFF(THP_DEFRAG_MADVISE),
                        [LEVER_DEFRAG_MODE] = OFF(0),
                },
                .min_free_max = 100, .learning = false, .hold = 30 * MINUTE, .decay = 30 * MINUTE, .factor = 1.0,
                .cap = 2500, .kick = 0,
        },
        {
                .preset = PRESET_THP_MAX,
                .reserve_large = 200, .reserve_thp = 500, .stall_rate = 0.2, .fallback = 500,
                .psi_some = 1500, .psi_full = 300, .window = 2 * MINUTE, .horizon = 2 * MINUTE,
                .decay_after = 30 * MINUTE, .backoff_decisions = 10, .max_scan_per_block = 65536, .headroom = 100,
                .rollback_window = 30 * SEC, .rollback_rise = 200, .oneshot = true, .oneshot_below = 5000,
                .oneshot_interval = 5 * MINUTE, .calm = 200,
                .lever = {
                        [LEVER_COMPACTION_PROACTIVENESS] = { true, 20, 100, 30, 5, 20 * SEC, 2 * MINUTE },
                        [LEVER_WATERMARK_SCALE_FACTOR] = { true, 10, 500, 100, 20, 60 * SEC, 5 * MINUTE },
                        [LEVER_MIN_FREE_KBYTES] = { true, 0, 0, 131072, 32768, 10 * MINUTE, 30 * MINUTE },
                        [LEVER_WATERMARK_BOOST_FACTOR] = { true, 15000, 30000, 5000, 5000, 5 * MINUTE, 10 * MINUTE },
                        [LEVER_EXTFRAG_THRESHOLD] = OFF(500),
                        [LEVER_THP_DEFRAG] = { true, THP_DEFRAG_DEFER_MADVISE, THP_DEFRAG_DEFER_MADVISE, 0, 0,
                                               10 * MINUTE, 10 * MINUTE },
                        [LEVER_DEFRAG_MODE] = { true, 0, 1, 1, 1, 10 * MINUTE, 60 * MINUTE },
                },
                .min_free_max = 200, .learning = true, .hold = 60 * MINUTE, .decay = 60 * MINUTE, .factor = 1.0,
                .cap = 3000, .kick = 5 * SEC,
        },
};

static void check(const Expect *x, Preset as)
{
        PolicyConfig c;

        policy_config_preset(as, &c);
        print_message("preset %s\n", preset_name(as));
        assert_int_equal(c.preset, as);
        assert_int_equal(c.order_large, 4);
        assert_int_equal(c.order_thp, 0);
        assert_int_equal(c.reserve_large.bytes, 0);
        assert_int_equal(c.reserve_large.permyriad, x->reserve_large);
        assert_int_equal(c.reserve_thp.bytes, 0);
        assert_int_equal(c.reserve_thp.permyriad, x->reserve_thp);
        assert_true(c.max_compact_stall_rate == x->stall_rate);
        assert_int_equal(c.max_thp_fallback_permyriad, x->fallback);
        assert_int_equal(c.psi_some_ceiling_permyriad, x->psi_some);
        assert_int_equal(c.psi_full_ceiling_permyriad, x->psi_full);
        assert_int_equal(c.trend_window_usec, x->window);
        assert_int_equal(c.trend_horizon_usec, x->horizon);
        assert_int_equal(c.decay_after_usec, x->decay_after);
        assert_int_equal(c.backoff_decisions, x->backoff_decisions);
        assert_true(c.backoff_max_scan_per_block == x->max_scan_per_block);
        assert_int_equal(c.safety_headroom.bytes, 0);
        assert_int_equal(c.safety_headroom.permyriad, x->headroom);
        assert_int_equal(c.rollback_window_usec, x->rollback_window);
        assert_int_equal(c.rollback_psi_full_rise_permyriad, x->rollback_rise);
        assert_int_equal(c.oneshot_compact, x->oneshot);
        assert_int_equal(c.oneshot_below_permyriad, x->oneshot_below);
        assert_int_equal(c.oneshot_min_interval_usec, x->oneshot_interval);
        assert_int_equal(c.calm_psi_some_permyriad, x->calm);
        for (unsigned l = 0; l < _LEVER_MAX; l++) {
                const LeverConfig *lc = &c.lever[l];
                const L *e = &x->lever[l];

                print_message("  lever %s\n", lever_name(l));
                assert_int_equal(lc->enabled, e->enabled);
                assert_int_equal(lc->min, e->min);
                assert_int_equal(lc->max, e->max);
                assert_int_equal(lc->step_up, e->up);
                assert_int_equal(lc->step_down, e->down);
                assert_int_equal(lc->dwell_usec, e->dwell);
                assert_int_equal(lc->reversal_cooldown_usec, e->cooldown);
        }
        /* the policy engine's own keys: 0 = its defaults */
        assert_int_equal(c.hysteresis_permyriad, 0);
        assert_int_equal(c.max_reversals, 0);
        assert_int_equal(c.reversal_window_usec, 0);
        assert_int_equal(c.backoff_hold_usec, 0);
        assert_int_equal(c.min_free_max_permyriad, x->min_free_max);
        assert_int_equal(c.demand_learning, x->learning);
        assert_int_equal(c.demand_hold_usec, x->hold);
        assert_int_equal(c.demand_decay_usec, x->decay);
        assert_true(c.demand_factor == x->factor);
        assert_int_equal(c.demand_cap.bytes, 0);
        assert_int_equal(c.demand_cap.permyriad, x->cap);
        assert_int_equal(c.kick_interval_usec, x->kick);
}

static void test_every_preset_value(void **state)
{
        (void) state;
        for (unsigned i = 0; i < ELEMENTSOF(expect); i++)
                check(&expect[i], expect[i].preset);
        /* observe: database's values */
        check(&expect[0], PRESET_OBSERVE);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_every_preset_value),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
