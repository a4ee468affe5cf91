/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Presets and names. Links libpolicy.a only. */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "fragd/policy-config.h"

/* Kernel ranges (KERNEL.md §3), for the invariant checks. */
static const struct {
        int64_t lo, hi;
} kernel_range[_LEVER_MAX] = {
        [LEVER_COMPACTION_PROACTIVENESS] = { 0, 100 },
        [LEVER_WATERMARK_SCALE_FACTOR] = { 1, 3000 },
        [LEVER_MIN_FREE_KBYTES] = { 0, INT32_MAX },
        [LEVER_WATERMARK_BOOST_FACTOR] = { 0, INT32_MAX },
        [LEVER_EXTFRAG_THRESHOLD] = { 0, 1000 },
        [LEVER_THP_DEFRAG] = { 0, _THP_DEFRAG_MAX - 1 },
        [LEVER_DEFRAG_MODE] = { 0, 1 },
};

static void test_names_roundtrip(void **state)
{
        (void) state;
        for (int l = 0; l < _LEVER_MAX; l++) {
                assert_non_null(lever_name(l));
                assert_int_equal(lever_from_name(lever_name(l)), l);
        }
        for (int p = 0; p < _PRESET_MAX; p++) {
                assert_non_null(preset_name(p));
                assert_int_equal(preset_from_name(preset_name(p)), p);
        }
        for (int m = 0; m < _THP_DEFRAG_MAX; m++) {
                assert_non_null(thp_defrag_name(m));
                assert_int_equal(thp_defrag_from_name(thp_defrag_name(m)), m);
        }
}

static void test_names_known(void **state)
{
        (void) state;
        assert_string_equal(lever_name(LEVER_COMPACTION_PROACTIVENESS), "compaction_proactiveness");
        assert_string_equal(lever_name(LEVER_THP_DEFRAG), "thp_defrag");
        assert_string_equal(preset_name(PRESET_DATABASE), "database");
        assert_string_equal(preset_name(PRESET_THP_MAX), "thp-max");
        assert_string_equal(thp_defrag_name(THP_DEFRAG_DEFER_MADVISE), "defer+madvise");
        assert_int_equal(thp_defrag_from_name("madvise"), THP_DEFRAG_MADVISE);
}

static void test_names_bad(void **state)
{
        (void) state;
        assert_int_equal(lever_from_name("compaction"), -ENOENT);
        assert_int_equal(lever_from_name(""), -ENOENT);
        assert_int_equal(lever_from_name(NULL), -ENOENT);
        assert_int_equal(preset_from_name("Database"), -ENOENT);
        assert_int_equal(preset_from_name("thp_max"), -ENOENT);
        assert_int_equal(thp_defrag_from_name("[madvise]"), -ENOENT);
        assert_null(lever_name(_LEVER_MAX));
        assert_null(lever_name((Lever) -1));
        assert_null(preset_name(_PRESET_MAX));
        assert_null(thp_defrag_name(_THP_DEFRAG_MAX));
}

static void test_database_guidance(void **state)
{
        PolicyConfig c;

        (void) state;
        policy_config_preset(PRESET_DATABASE, &c);
        assert_int_equal(c.preset, PRESET_DATABASE);
        assert_int_equal(c.order_large, 4);
        assert_int_equal(c.order_thp, 0);
        assert_int_equal(c.reserve_thp.bytes, 0);
        assert_int_equal(c.reserve_thp.permyriad, 200);
        assert_int_equal(c.reserve_large.permyriad, 100);
        assert_true(c.max_compact_stall_rate == 0.5);
        assert_int_equal(c.max_thp_fallback_permyriad, 1000);
        assert_int_equal(c.psi_some_ceiling_permyriad, 1000);
        assert_int_equal(c.psi_full_ceiling_permyriad, 200);
        assert_int_equal(c.trend_window_usec, 2 * USEC_PER_MINUTE);
        assert_int_equal(c.trend_horizon_usec, 60 * USEC_PER_SEC);
        assert_int_equal(c.decay_after_usec, 10 * USEC_PER_MINUTE);
        assert_int_equal(c.backoff_decisions, 5);
        assert_int_equal(c.safety_headroom.permyriad, 100);
        assert_int_equal(c.rollback_window_usec, 30 * USEC_PER_SEC);
        assert_int_equal(c.rollback_psi_full_rise_permyriad, 100);
        assert_true(c.oneshot_compact);
        assert_int_equal(c.oneshot_below_permyriad, 2500);
        assert_int_equal(c.oneshot_min_interval_usec, 10 * USEC_PER_MINUTE);
        assert_int_equal(c.calm_psi_some_permyriad, 100);

        const LeverConfig *p = &c.lever[LEVER_COMPACTION_PROACTIVENESS];
        assert_true(p->enabled);
        assert_int_equal(p->min, 20);
        assert_int_equal(p->max, 80);
        assert_int_equal(p->step_up, 20);
        assert_int_equal(p->step_down, 5);
        assert_int_equal(p->dwell_usec, 30 * USEC_PER_SEC);
        assert_int_equal(p->reversal_cooldown_usec, 2 * USEC_PER_MINUTE);

        const LeverConfig *w = &c.lever[LEVER_WATERMARK_SCALE_FACTOR];
        assert_true(w->enabled);
        assert_int_equal(w->min, 10);
        assert_int_equal(w->max, 200);
        assert_int_equal(w->step_up, 50);
        assert_int_equal(w->step_down, 10);
        assert_int_equal(w->dwell_usec, 60 * USEC_PER_SEC);

        /* min_free_kbytes: on, floor = kernel value, ceiling 1% of memory */
        assert_true(c.lever[LEVER_MIN_FREE_KBYTES].enabled);
        assert_int_equal(c.lever[LEVER_MIN_FREE_KBYTES].min, 0);
        assert_int_equal(c.lever[LEVER_MIN_FREE_KBYTES].max, 0);
        assert_int_equal(c.min_free_max_permyriad, 100);

        assert_false(c.lever[LEVER_WATERMARK_BOOST_FACTOR].enabled);
        assert_int_equal(c.lever[LEVER_WATERMARK_BOOST_FACTOR].min, 15000);
        assert_false(c.lever[LEVER_EXTFRAG_THRESHOLD].enabled);
        assert_false(c.lever[LEVER_THP_DEFRAG].enabled);
}

/* observe is database with preset = PRESET_OBSERVE: levers and one-shot
 * compaction included, so policy_decide() decides exactly as database and
 * only marks the decision apply = false. */
static void test_observe_is_database(void **state)
{
        PolicyConfig db, ob;

        (void) state;
        policy_config_preset(PRESET_DATABASE, &db);
        policy_config_preset(PRESET_OBSERVE, &ob);
        assert_int_equal(ob.preset, PRESET_OBSERVE);
        assert_true(ob.oneshot_compact);
        for (int l = 0; l < _LEVER_MAX; l++) {
                assert_int_equal(ob.lever[l].enabled, db.lever[l].enabled);
                assert_int_equal(ob.lever[l].min, db.lever[l].min);
                assert_int_equal(ob.lever[l].max, db.lever[l].max);
        }
        ob.preset = db.preset;
        assert_memory_equal(&ob, &db, sizeof(db));
}

static void test_thp_max_defrag(void **state)
{
        PolicyConfig c;

        (void) state;
        policy_config_preset(PRESET_THP_MAX, &c);
        assert_true(c.lever[LEVER_THP_DEFRAG].enabled);
        assert_int_equal(c.lever[LEVER_THP_DEFRAG].min, THP_DEFRAG_DEFER_MADVISE);
        assert_int_equal(c.lever[LEVER_THP_DEFRAG].max, THP_DEFRAG_DEFER_MADVISE);
}

/* Invariants every preset keeps. */
static void test_preset_invariants(void **state)
{
        PolicyConfig db, tp, tm;

        (void) state;
        for (int p = 0; p < _PRESET_MAX; p++) {
                PolicyConfig c;

                policy_config_preset(p, &c);
                assert_int_equal(c.preset, p);
                assert_true(c.order_large >= 1 && c.order_large <= 15);
                assert_true(c.order_thp == 0 || c.order_thp >= c.order_large);
                assert_true(c.reserve_thp.permyriad <= 10000);
                assert_true(c.psi_full_ceiling_permyriad <= c.psi_some_ceiling_permyriad);
                assert_true(c.calm_psi_some_permyriad < c.psi_some_ceiling_permyriad);
                assert_true(c.trend_horizon_usec <= c.trend_window_usec);
                assert_true(c.backoff_decisions >= 1);
                assert_true(c.backoff_max_scan_per_block > 0);
                assert_true(c.min_free_max_permyriad > 0 && c.min_free_max_permyriad <= 500);
                for (int l = 0; l < _LEVER_MAX; l++) {
                        const LeverConfig *lc = &c.lever[l];

                        assert_true(lc->min <= lc->max || (l == LEVER_MIN_FREE_KBYTES && lc->max == 0));
                        assert_true(lc->min >= kernel_range[l].lo && lc->max <= kernel_range[l].hi);
                        assert_true(lc->step_up >= 0 && lc->step_down >= 0);
                        if (lc->enabled && lc->min < lc->max)
                                assert_true(lc->step_up > 0 && lc->step_down > 0);
                }
        }
        /* ordering between presets: thp-max wants more than database, which
         * wants more than throughput */
        policy_config_preset(PRESET_DATABASE, &db);
        policy_config_preset(PRESET_THROUGHPUT, &tp);
        policy_config_preset(PRESET_THP_MAX, &tm);
        assert_true(tp.reserve_thp.permyriad < db.reserve_thp.permyriad);
        assert_true(db.reserve_thp.permyriad < tm.reserve_thp.permyriad);
        assert_true(tp.max_compact_stall_rate > db.max_compact_stall_rate);
        assert_true(db.max_compact_stall_rate > tm.max_compact_stall_rate);
}

static void test_out_of_range_preset_is_database(void **state)
{
        PolicyConfig c, db;

        (void) state;
        policy_config_preset(PRESET_DATABASE, &db);
        policy_config_preset(_PRESET_MAX, &c);
        assert_memory_equal(&c, &db, sizeof(c));
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_names_roundtrip),
                cmocka_unit_test(test_names_known),
                cmocka_unit_test(test_names_bad),
                cmocka_unit_test(test_database_guidance),
                cmocka_unit_test(test_observe_is_database),
                cmocka_unit_test(test_thp_max_defrag),
                cmocka_unit_test(test_preset_invariants),
                cmocka_unit_test(test_out_of_range_preset_is_database),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
