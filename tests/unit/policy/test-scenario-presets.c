/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Scenarios under the shipped presets (policy/presets.c, the defaults of
 * fragd.conf), not a local configuration: a THP reserve drained on a host
 * with plenty of free memory (proactiveness climbs by the preset's step
 * once per its dwell up to its maximum), its recovery (after decay_after,
 * controller v2: half way back, at least step_down, then home at the next
 * dwell, to the kernel's value), and free memory
 * itself short (watermark_scale_factor climbs to the aim the reserve needs,
 * min_free_kbytes only after it, to the preset's share of memory). The
 * expected values are worked out below from the preset table (docs/policy.md
 * "Presets") and KERNEL.md's formulas. Links libpolicy.a only. */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "controller-test-util.h"

#define P LEVER_COMPACTION_PROACTIVENESS
#define WSF LEVER_WATERMARK_SCALE_FACTOR
#define MF LEVER_MIN_FREE_KBYTES

static TSim *sim_preset(Preset p)
{
        TSim *s = sim_new();

        policy_config_preset(p, &s->cfg);
        /* the drained reserve is the configured one, with no fallback
         * behind it: database keeps it only for unmet demand
         * (test-reserve-gate.c); these are the climbs once it is kept */
        s->cfg.reserve_always = true;
        return s;
}

typedef struct Climb {
        Preset preset;
        int64_t up, half, max; /* proactiveness; half: the first decay's value */
        usec_t dwell, decay_after;
        unsigned raises;
} Climb;

/* A drained THP reserve (no order-9 block left) with 2 GiB free: the error
 * is ERR_MAX, so each raise is the whole step; the error never grows, so
 * none escalates; kcompactd scans nothing, so there is no back-off. The
 * preset's kicks are turned off here: with them the lever stops at the aim
 * the score gives (test-burst-aim.c), here under the start value, and the
 * kicks do the work; this is the climb of the integral, which a preset
 * without kicks (throughput) or a reserve with no aim still makes. */
static void climb_and_return(const Climb *x)
{
        TSim *s = sim_preset(x->preset);

        s->cfg.kick_interval_usec = 0;
        TWorld w = t_world_fine(1);
        usec_t last = 0, met_at = 0;
        unsigned raises = 0, decays = 0;

        print_message("preset %s\n", preset_name(x->preset));
        w.node[0].ge_thp_pages = 0;
        for (unsigned i = 0; i < 200; i++) {
                const DecisionItem *it;

                t_sim_tick(s, &w, 5);
                assert_true(s->d.apply);
                assert_null(t_find(&s->d, DECISION_LEVER, WSF)); /* free memory is plentiful */
                assert_null(t_find(&s->d, DECISION_LEVER, MF));
                it = t_find(&s->d, DECISION_LEVER, P);
                if (!it)
                        continue;
                assert_int_equal(it->reason, POLICY_REASON_RESERVE_BELOW_TARGET);
                assert_int_equal(it->err, 10000);
                assert_false(it->escalated);
                assert_int_equal(it->to, MIN(it->from + x->up, x->max));
                if (last)
                        assert_int_equal(s->now - last, x->dwell);
                last = s->now;
                raises++;
        }
        assert_int_equal(raises, x->raises);
        assert_int_equal(s->in[P].current, x->max);

        /* recovered: 300000 pages in order-9 blocks */
        w = t_world_fine(1);
        last = 0;
        for (unsigned i = 0; i < 2000; i++) {
                const DecisionItem *it;

                t_sim_tick(s, &w, 5);
                assert_false(t_any_raise(&s->d));
                if (!met_at && s->state.met)
                        met_at = s->state.met_since_usec;
                it = t_find(&s->d, DECISION_LEVER, P);
                if (!it)
                        continue;
                assert_int_equal(it->reason, POLICY_REASON_TARGETS_MET_DECAY);
                /* half way (at least step_down), then home 20 */
                assert_true(decays < 2);
                assert_int_equal(it->to, decays == 0 ? x->half : 20);
                if (last)
                        assert_int_equal(s->now - last, x->dwell);
                else
                        assert_int_equal(s->now, met_at + x->decay_after);
                last = s->now;
                decays++;
        }
        assert_int_equal(decays, 2);
        assert_int_equal(s->in[P].current, 20);
        free(s);
}

static void test_database_climbs_and_returns(void **state)
{
        /* 20 -> 80 by 20 every 30 s: 3 raises; after 10 min 80 - max(5,
         * ceil(60 / 2)) = 50, 30 s later 20 */
        const Climb x = { PRESET_DATABASE, 20, 50, 80, 30 * S, 600 * S, 3 };

        (void) state;
        climb_and_return(&x);
}

static void test_throughput_climbs_and_returns(void **state)
{
        /* 20 -> 50 by 10 every 60 s: 3; after 5 min 50 - max(10, ceil(30 /
         * 2)) = 35, 60 s later 20 */
        const Climb x = { PRESET_THROUGHPUT, 10, 35, 50, 60 * S, 300 * S, 3 };

        (void) state;
        climb_and_return(&x);
}

static void test_thp_max_climbs_and_returns(void **state)
{
        /* 20 -> 100 by 30 every 20 s: 50, 80, 100 = 3; after 30 min 100 -
         * max(5, ceil(80 / 2)) = 60, 20 s later 20. (watermark_boost_factor,
         * the escalation once proactiveness is at its maximum, is
         * thp-max's: see below.) */
        const Climb x = { PRESET_THP_MAX, 30, 60, 100, 20 * S, 1800 * S, 3 };

        (void) state;
        climb_and_return(&x);
}

/* thp-max only: with proactiveness at its maximum and the reserve still
 * missed, watermark_boost_factor climbs, 15000 -> 30000 by 5000 once per
 * 5 min dwell (kicks off, as above: with them proactiveness stays at the
 * aim, which is not "can go no further", and boosting waits). */
static void test_thp_max_boosts_when_proactiveness_is_spent(void **state)
{
        TSim *s = sim_preset(PRESET_THP_MAX);
        TWorld w = t_world_fine(1);
        usec_t last = 0;
        unsigned raises = 0;

        (void) state;
        s->cfg.kick_interval_usec = 0;
        w.node[0].ge_thp_pages = 0;
        for (unsigned i = 0; i < 400; i++) {
                const DecisionItem *it;

                t_sim_tick(s, &w, 5);
                it = t_find(&s->d, DECISION_LEVER, LEVER_WATERMARK_BOOST_FACTOR);
                if (!it)
                        continue;
                assert_int_equal(s->in[P].current, 100);
                assert_int_equal(it->to, it->from + 5000);
                if (last)
                        assert_int_equal(s->now - last, 300 * S);
                last = s->now;
                raises++;
        }
        assert_int_equal(raises, 3);
        assert_int_equal(s->in[LEVER_WATERMARK_BOOST_FACTOR].current, 30000);
        free(s);

        /* database leaves it alone (off) */
        s = sim_preset(PRESET_DATABASE);
        for (unsigned i = 0; i < 400; i++) {
                t_sim_tick(s, &w, 5);
                assert_null(t_find(&s->d, DECISION_LEVER, LEVER_WATERMARK_BOOST_FACTOR));
        }
        free(s);
}

/* Free memory itself short: 30000 pages free of 4 GiB, 3000 of them in
 * order-9 blocks, 600000 reclaimable; kswapd frees 50 pages more for each
 * point of watermark_scale_factor (so each raise gains, and none is backed
 * off), never enough to end the shortage. The order-4 reserve is met (25000
 * pages = 102400000 B, over 1 % and 2 % of 4 GiB): since v2 a reserve is
 * short of free memory only under the kernel's high watermark (25344 pages
 * = 103809024 B here) + T, and with the order-4 reserve missed (8000 pages)
 * free memory passes 103809024 + 42949672 = 146758696 B (35830 pages:
 * watermark_scale_factor >= 127, the step to 140) in database, and
 * compaction would rightly be raised for it. The THP reserve stays short throughout: database needs
 * 103809024 + 85899345 = 189708369 B (46316 pages; 39500 at most here),
 * thp-max 103809024 + 214748364 = 318557388 B (77773 pages; 54500).
 * The first raise is a step from 40, not from 10: up to 40 the kernel's
 * gap is min / 4 (4224 pages > 1048576 x 40 / 10000) and no watermark
 * moves (kswapd here frees pages for those points the real one would not). */
typedef struct Short {
        Preset preset;
        int64_t wsf[8]; /* the values watermark_scale_factor steps through */
        usec_t dwell;
        int64_t min_free_end;
} Short;

static void memory_short(const Short *x)
{
        TSim *s = sim_preset(x->preset);
        TWorld w = t_world_fine(1);
        usec_t last = 0;
        unsigned n = 0;

        print_message("preset %s\n", preset_name(x->preset));
        /* the watermark cap out of the way: free memory is above the
         * kernel's high watermark here (test-demand-worth.c tests it) */
        s->cfg.watermark_cap_permyriad = 10000;
        w.node[0] = t_node_memory_short();
        w.node[0].ge_large_pages = 25000;
        for (unsigned i = 0; i < 300 && x->wsf[n + 1]; i++) {
                const DecisionItem *it;

                w.node[0].free_pages = 30000 + 50 * (uint64_t) (s->in[WSF].current - 10);
                t_sim_tick(s, &w, 5);
                /* compaction only for the part free memory above the
                 * kernel's high watermark holds */
                it = t_find(&s->d, DECISION_LEVER, P);
                if (it) {
                        assert_int_equal(it->num.target_bytes, w.node[0].free_pages * T_PAGE - 103809024);
                        assert_true(it->num.short_target_bytes > it->num.target_bytes);
                }
                it = t_find(&s->d, DECISION_LEVER, WSF);
                if (!it)
                        continue;
                assert_int_equal(it->reason, POLICY_REASON_FREE_MEMORY_SHORT);
                assert_int_equal(it->from, x->wsf[n]);
                assert_int_equal(it->to, x->wsf[n + 1]);
                if (last)
                        assert_int_equal(s->now - last, x->dwell);
                last = s->now;
                n++;
        }
        assert_int_equal(x->wsf[n + 1], 0);
        assert_int_equal(s->in[WSF].current, x->wsf[n]);
        /* min_free_kbytes moves only now that watermark_scale_factor is at
         * its maximum: the next tick */
        assert_int_equal(s->in[MF].current, 67584);
        w.node[0].free_pages = 30000 + 50 * (uint64_t) (s->in[WSF].current - 10);
        t_sim_tick(s, &w, 5);
        assert_int_equal(s->in[MF].current, x->min_free_end);
        free(s);
}

static void test_database_memory_short(void **state)
{
        /* THP target 2 % of 4 GiB = 85899345 B; the error 3000 + 7000 x
         * (85899345 - 12288000) / 85899345 = 8998 asks ceil(50 x 0.8998) =
         * 45, the aim ceil(20971 x 10000 / 1048576) = 200 (kswapd's gap =
         * the target): by 50 per 60 s to the maximum 200. min_free_kbytes:
         * the preset's 1 % of memory (41943 KiB) is under the value found
         * (67584), so its ceiling is that value: it does not move. */
        const Short x = { PRESET_DATABASE, { 10, 90, 140, 190, 200 }, 60 * S, 67584 };

        (void) state;
        memory_short(&x);
}

static void test_throughput_memory_short(void **state)
{
        /* 1 %: the aim is 100, by 20 per 2 min; min_free_kbytes off */
        const Short x = { PRESET_THROUGHPUT, { 10, 60, 80, 100 }, 120 * S, 67584 };

        (void) state;
        memory_short(&x);
}

static void test_thp_max_memory_short(void **state)
{
        /* 5 %: the aim is 500, by 100 per 60 s; then min_free_kbytes to 2 %
         * of 4 GiB = 83886 KiB (one step of 128 MiB would pass it) */
        const Short x = { PRESET_THP_MAX, { 10, 140, 240, 340, 440, 500 }, 60 * S, 83886 };

        (void) state;
        memory_short(&x);
}

/* observe decides what database decides, and applies nothing. */
static void test_observe_decides_as_database(void **state)
{
        TSim *db = sim_preset(PRESET_DATABASE), *ob = sim_preset(PRESET_OBSERVE);
        TWorld w = t_world_fine(1);

        (void) state;
        w.node[0].ge_thp_pages = 0;
        for (unsigned i = 0; i < 20; i++) {
                t_sim_tick(db, &w, 5);
                t_sim_tick(ob, &w, 5);
                assert_true(db->d.apply);
                assert_false(ob->d.apply);
                assert_int_equal(ob->d.n_items, db->d.n_items);
                for (unsigned j = 0; j < db->d.n_items; j++) {
                        assert_int_equal(ob->d.items[j].kind, db->d.items[j].kind);
                        assert_int_equal(ob->d.items[j].reason, db->d.items[j].reason);
                }
                /* database moved on, observe did not: reset it to compare
                 * the same decision each tick */
                memcpy(db->in, ob->in, sizeof(db->in));
                db->state = ob->state;
        }
        free(db);
        free(ob);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_database_climbs_and_returns),
                cmocka_unit_test(test_throughput_climbs_and_returns),
                cmocka_unit_test(test_thp_max_climbs_and_returns),
                cmocka_unit_test(test_thp_max_boosts_when_proactiveness_is_spent),
                cmocka_unit_test(test_database_memory_short),
                cmocka_unit_test(test_throughput_memory_short),
                cmocka_unit_test(test_thp_max_memory_short),
                cmocka_unit_test(test_observe_decides_as_database),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
