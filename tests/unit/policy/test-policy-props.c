/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Property tests over random traces (chrony style): random configurations,
 * random worlds that fragment, recover, run short of memory and spike in
 * pressure, knobs the kernel clamps. The seed is printed and settable:
 *
 *      test-policy-props [-s SEED] [-n TRACES]      (or FRAGD_SEED=SEED)
 *
 * Invariants:
 *   bounds       every decided value is inside [min, max]
 *   idempotent   equal inputs give byte-equal decisions; decide leaves the state alone
 *   monotonic    worse fragmentation (same free memory, less of it in large
 *                blocks) and longer workload compaction stalls never give a
 *                lower value for a reserve lever, nor fewer one-shot
 *                compactions
 *   reversals    no lever reverses direction more than max_reversals times
 *                within reversal_window
 *   baseline     with every target met long enough, every lever returns
 *                to the kernel's value found at start */

#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <cmocka.h>

#include "policy-test-util.h"

#define S USEC_PER_SEC
#define DEFAULT_SEED UINT64_C(20260101)
#define MAX_MOVES 65536

static uint64_t seed = DEFAULT_SEED;
static unsigned long mono_compared, mono_stronger; /* to show the property is not vacuous */
static unsigned n_traces = 24;

typedef struct Rng {
        uint64_t s;
} Rng;

static uint64_t rng_next(Rng *r)
{
        /* splitmix64 */
        uint64_t z = (r->s += UINT64_C(0x9e3779b97f4a7c15));

        z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
        z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
        return z ^ (z >> 31);
}

static uint64_t rng_range(Rng *r, uint64_t lo, uint64_t hi) /* inclusive */
{
        return lo + rng_next(r) % (hi - lo + 1);
}

static bool rng_chance(Rng *r, unsigned percent)
{
        return rng_next(r) % 100 < percent;
}

#define CHECK(cond, trace_seed, tick, ...)                                                             \
        do {                                                                                           \
                if (!(cond)) {                                                                         \
                        print_error("property failed: %s (trace seed %" PRIu64 ", tick %u): ", #cond,  \
                                    (uint64_t) (trace_seed), (unsigned) (tick));                        \
                        print_error(__VA_ARGS__);                                                      \
                        print_error("\n");                                                             \
                        fail();                                                                        \
                }                                                                                      \
        } while (0)

/* A random but sane configuration around the test defaults. */
static void random_config(Rng *r, PolicyConfig *c, LeverInput *in)
{
        t_config(c);
        t_levers(in);
        c->reserve_large.permyriad = (uint32_t) rng_range(r, 50, 400);
        c->reserve_thp.permyriad = (uint32_t) rng_range(r, 20, c->reserve_large.permyriad);
        c->trend_window_usec = rng_range(r, 20, 120) * S;
        c->trend_horizon_usec = rng_range(r, 0, 300) * S;
        c->decay_after_usec = rng_range(r, 60, 900) * S;
        c->backoff_decisions = (unsigned) rng_range(r, 0, 5);
        c->hysteresis_permyriad = (uint32_t) rng_range(r, 0, 2000);
        c->max_reversals = (unsigned) rng_range(r, 2, 6);
        c->reversal_window_usec = rng_range(r, 0, 2) * 1800 * S; /* 0 = the default hour */
        c->backoff_hold_usec = rng_range(r, 0, 900) * S;
        c->oneshot_min_interval_usec = rng_range(r, 60, 900) * S;
        /* the learned reserve: on in half the traces, with short holds so
         * the return to baseline stays within reach */
        c->demand_learning = rng_chance(r, 50);
        c->demand_hold_usec = rng_range(r, 0, 1800) * S;
        c->demand_decay_usec = rng_range(r, 0, 1800) * S;
        c->demand_factor = (double) rng_range(r, 50, 200) / 100.0;
        c->demand_cap = (SizeSpec){ .permyriad = (uint32_t) rng_range(r, 0, 5000) };
        /* kicking kcompactd: off, every tick, or every few ticks */
        c->kick_interval_usec = (usec_t) rng_range(r, 0, 2) * 10 * S;
        c->lever[LEVER_EXTFRAG_THRESHOLD] = (LeverConfig){ .enabled = true, .min = 0, .max = 1000,
                                                           .step_up = 50, .step_down = 50,
                                                           .dwell_usec = 60 * S,
                                                           .reversal_cooldown_usec = 300 * S };
        for (unsigned l = 0; l < _LEVER_MAX; l++) {
                LeverConfig *lc = &c->lever[l];

                lc->step_up = (int64_t) rng_range(r, 1, (uint64_t) MAX(lc->step_up * 2, 1));
                lc->step_down = (int64_t) rng_range(r, 1, (uint64_t) MAX(lc->step_down * 2, 1));
                lc->dwell_usec = rng_range(r, 0, 120) * S;
                lc->reversal_cooldown_usec = rng_range(r, 0, 600) * S;
                lc->enabled = rng_chance(r, 90);
                in[l].available = rng_chance(r, 95);
                /* the baseline is somewhere inside the bounds */
                in[l].baseline = in[l].current = (int64_t) rng_range(r, (uint64_t) lc->min,
                                                                     (uint64_t) (lc->min + (lc->max - lc->min) / 3));
        }
}

typedef struct Trace {
        uint64_t seed;
        Rng rng;
        TSim *sim;
        TWorld w;
        unsigned tick;
        /* applied moves per lever, for the reversal count */
        unsigned n_moves[_LEVER_MAX];
        usec_t move_usec[_LEVER_MAX][MAX_MOVES];
        int move_dir[_LEVER_MAX][MAX_MOVES];
} Trace;

static void world_step(Trace *t)
{
        Rng *r = &t->rng;
        TWorld *w = &t->w;

        for (unsigned i = 0; i < w->n_nodes; i++) {
                TNode *n = &w->node[i];
                uint64_t managed = n->managed_pages ? n->managed_pages : T_MANAGED;

                if (rng_chance(r, 30))
                        n->free_pages = rng_range(r, managed / 50, managed * 6 / 10);
                if (rng_chance(r, 50)) /* fragment or compact a bit */
                        n->ge_large_pages = rng_range(r, 0, n->free_pages);
                if (rng_chance(r, 50))
                        n->ge_thp_pages = rng_range(r, 0, n->ge_large_pages);
                n->ge_large_pages = MIN(n->ge_large_pages, n->free_pages);
                n->ge_thp_pages = MIN(n->ge_thp_pages, n->ge_large_pages);
                if (rng_chance(r, 20))
                        n->reclaimable_pages = rng_range(r, 0, managed / 2);
        }
        if (rng_chance(r, 10)) {
                w->psi_some = (uint32_t) rng_range(r, 0, 3000);
                w->psi_full = (uint32_t) rng_range(r, 0, w->psi_some);
        } else if (rng_chance(r, 30))
                w->psi_some = w->psi_full = 0;
        w->rates_valid = !rng_chance(r, 5);
        w->stall_per_sec = rng_chance(r, 15) ? (double) rng_range(r, 0, 5000) / 1000.0 : 0.0;
        w->fallback_ratio = rng_chance(r, 20) ? (double) rng_range(r, 0, 10000) / 10000.0 : -1.0;
        w->scan_pages_per_sec = (double) rng_range(r, 0, 100000);
        /* THP fault bursts (the learned reserve's demand), some falling back */
        if (rng_chance(r, 15)) {
                w->thp_alloc_per_sec = (double) rng_range(r, 0, 200);
                w->thp_fallback_per_sec = rng_chance(r, 50) ? (double) rng_range(r, 0, 100) : 0.0;
        } else
                w->thp_alloc_per_sec = w->thp_fallback_per_sec = 0.0;
        /* watched workloads: under or over budget, compaction- or reclaim-bound */
        if (rng_chance(r, 20)) {
                w->n_workloads = (unsigned) rng_range(r, 0, 3);
                for (unsigned i = 0; i < w->n_workloads; i++) {
                        /* drawn one by one: the order a compiler evaluates
                         * arguments in is unspecified, and a seed must give
                         * the same trace under gcc and clang (the order
                         * here is the one gcc took for the arguments) */
                        uint64_t budget = rng_chance(r, 10) ? 0 : rng_range(r, 50, 300);
                        uint64_t reclaim = rng_range(r, 0, 300);
                        uint64_t compact = rng_range(r, 0, 600);

                        w->workloads[i] = t_workload(i ? "batch.slice" : "db.slice", compact, reclaim, budget);
                }
        }
}

static void trace_init(Trace *t, uint64_t trace_seed)
{
        memset(t, 0, sizeof(*t));
        t->seed = trace_seed;
        t->rng.s = trace_seed;
        t->sim = malloc(sizeof(TSim));
        assert_non_null(t->sim);
        t_sim_init(t->sim);
        random_config(&t->rng, &t->sim->cfg, t->sim->in);
        t->w = t_world_fine((unsigned) rng_range(&t->rng, 1, 3));
        for (unsigned i = 0; i < t->w.n_nodes; i++)
                if (rng_chance(&t->rng, 30))
                        t->w.node[i].managed_pages = 1u << 18;
        /* some knobs are clamped by "the kernel" above their baseline */
        for (unsigned l = 0; l < _LEVER_MAX; l++)
                if (rng_chance(&t->rng, 15)) {
                        const LeverConfig *lc = &t->sim->cfg.lever[l];

                        t->sim->clamp_max[l] = (int64_t) rng_range(&t->rng, (uint64_t) t->sim->in[l].baseline,
                                                                   (uint64_t) lc->max);
                }
}

static void record_moves(Trace *t)
{
        const Decision *d = &t->sim->d;

        if (!d->apply)
                return;
        for (unsigned i = 0; i < d->n_items; i++) {
                const DecisionItem *it = &d->items[i];
                Lever l = it->lever;

                if (it->kind != DECISION_LEVER || it->to == it->from || t->n_moves[l] >= MAX_MOVES)
                        continue;
                t->move_usec[l][t->n_moves[l]] = t->sim->now;
                t->move_dir[l][t->n_moves[l]] = it->to > it->from ? 1 : -1;
                t->n_moves[l]++;
        }
}

/* ---- the checks ----------------------------------------------------------- */

static void check_bounds(const Trace *t)
{
        const Decision *d = &t->sim->d;

        for (unsigned i = 0; i < d->n_items; i++) {
                const DecisionItem *it = &d->items[i];
                const LeverConfig *lc;

                if (it->kind == DECISION_KICK_KCOMPACTD) {
                        /* a kick writes the value the knob has: never a move */
                        const LeverInput *in = &t->sim->in[LEVER_COMPACTION_PROACTIVENESS];

                        CHECK(it->lever == LEVER_COMPACTION_PROACTIVENESS && it->from == it->to &&
                                      in->available && it->to == in->current && in->current > 0,
                              t->seed, t->tick, "kick %" PRId64 "->%" PRId64 " with the lever at %" PRId64,
                              it->from, it->to, in->current);
                        CHECK(t->sim->cfg.kick_interval_usec > 0, t->seed, t->tick, "kick with kick_interval 0");
                        CHECK(it->reason == POLICY_REASON_KCOMPACTD_KICK && policy_kick_cause(it) != POLICY_REASON_NONE,
                              t->seed, t->tick, "kick for %s", policy_reason_name(it->reason));
                        for (unsigned j = 0; j < d->n_items; j++)
                                CHECK(d->items[j].kind != DECISION_LEVER ||
                                              d->items[j].lever != LEVER_COMPACTION_PROACTIVENESS,
                                      t->seed, t->tick, "kick and a proactiveness move in one decision");
                        continue;
                }
                if (it->kind != DECISION_LEVER)
                        continue;
                lc = &t->sim->cfg.lever[it->lever];
                CHECK(lc->enabled && t->sim->in[it->lever].available, t->seed, t->tick, "lever %d not usable",
                      it->lever);
                CHECK(it->to >= lc->min && it->to <= lc->max, t->seed, t->tick,
                      "lever %d: %" PRId64 " outside [%" PRId64 ", %" PRId64 "]", it->lever, it->to, lc->min,
                      lc->max);
                CHECK(it->reason > POLICY_REASON_NONE && it->reason < _POLICY_REASON_MAX, t->seed, t->tick,
                      "reason %d", it->reason);
        }
}

static void check_idempotent(Trace *t, Decision *d1, Decision *d2, PolicyState *copy)
{
        TSim *s = t->sim;
        usec_t now = s->now + 5 * S;
        Assessment *a = &s->a;

        t_assess(&t->w, now, a);
        memcpy(copy, &s->state, sizeof(*copy));
        assert_int_equal(policy_decide(&s->cfg, &s->state, a, s->in, now, d1), 0);
        assert_int_equal(policy_decide(&s->cfg, &s->state, a, s->in, now, d2), 0);
        CHECK(memcmp(d1, d2, sizeof(*d1)) == 0, t->seed, t->tick, "two decisions differ");
        CHECK(memcmp(copy, &s->state, sizeof(*copy)) == 0, t->seed, t->tick, "decide changed the state");
}

static void check_monotonic(Trace *t, Decision *better, Decision *worse)
{
        static const Lever reserve_levers[] = { LEVER_COMPACTION_PROACTIVENESS, LEVER_WATERMARK_SCALE_FACTOR,
                                                LEVER_MIN_FREE_KBYTES, LEVER_WATERMARK_BOOST_FACTOR };
        TSim *s = t->sim;
        usec_t now = s->now + 5 * S;
        TWorld w2 = t->w;
        Assessment *a = &s->a;

        for (unsigned i = 0; i < w2.n_nodes; i++) {
                TNode *n = &w2.node[i];

                /* move some high-order memory into smaller blocks; free stays */
                n->ge_thp_pages = n->ge_thp_pages * rng_range(&t->rng, 0, 100) / 100;
                n->ge_large_pages = MAX(n->ge_thp_pages, n->ge_large_pages * rng_range(&t->rng, 0, 100) / 100);
        }
        /* and workloads stall longer in direct compaction */
        for (unsigned i = 0; i < w2.n_workloads; i++)
                w2.workloads[i].compact_usec += w2.workloads[i].compact_usec * rng_range(&t->rng, 0, 100) / 100;
        t_assess(&t->w, now, a);
        assert_int_equal(policy_decide(&s->cfg, &s->state, a, s->in, now, better), 0);
        t_assess(&w2, now, a);
        assert_int_equal(policy_decide(&s->cfg, &s->state, a, s->in, now, worse), 0);

        for (unsigned i = 0; i < ELEMENTSOF(reserve_levers); i++) {
                Lever l = reserve_levers[i];
                int64_t vb = decision_lever_value(better, l), vw = decision_lever_value(worse, l);

                mono_compared++;
                mono_stronger += vw > vb;
                if (vw < vb) {
                        /* the two decisions, to see which rule parted them */
                        char buf[512];

                        for (unsigned j = 0; j < better->n_items + worse->n_items; j++) {
                                const Decision *dd = j < better->n_items ? better : worse;
                                unsigned k = j < better->n_items ? j : j - better->n_items;

                                decision_explain(&dd->items[k], buf, sizeof(buf));
                                print_error("  %s: %s\n", dd == better ? "better" : "worse", buf);
                        }
                }
                CHECK(vw >= vb, t->seed, t->tick, "lever %d: worse fragmentation gives %" PRId64
                      " < %" PRId64, l, vw, vb);
        }
        for (unsigned i = 0; i < better->n_items; i++) {
                bool found = false;

                if (better->items[i].kind != DECISION_COMPACT_NODE)
                        continue;
                for (unsigned j = 0; j < worse->n_items; j++)
                        found |= worse->items[j].kind == DECISION_COMPACT_NODE &&
                                 worse->items[j].node == better->items[i].node;
                CHECK(found, t->seed, t->tick, "node %d compacted only in the better state",
                      better->items[i].node);
        }
        /* leave the assessment as the trace had it */
        t_assess(&t->w, s->now, a);
}

static void check_reversals(const Trace *t)
{
        const PolicyConfig *c = &t->sim->cfg;

        for (unsigned l = 0; l < _LEVER_MAX; l++) {
                usec_t window = c->reversal_window_usec ? c->reversal_window_usec
                                                        : POLICY_DEFAULT_REVERSAL_WINDOW_USEC;
                static usec_t rev[MAX_MOVES];
                unsigned n = 0;

                for (unsigned i = 1; i < t->n_moves[l]; i++)
                        if (t->move_dir[l][i] != t->move_dir[l][i - 1])
                                rev[n++] = t->move_usec[l][i];
                /* every window that ends at a reversal */
                for (unsigned i = 0; i < n; i++) {
                        unsigned in_window = 0;

                        for (unsigned j = 0; j <= i; j++)
                                if (rev[i] - rev[j] < window)
                                        in_window++;
                        CHECK(in_window <= c->max_reversals, t->seed, t->tick,
                              "lever %u reversed %u times within %" PRIu64 " s (limit %u)", l, in_window,
                              (uint64_t) (window / S), c->max_reversals);
                }
        }
}

/* ---- driving ------------------------------------------------------------------- */

enum { P_BOUNDS = 1, P_IDEMPOTENT = 2, P_MONOTONIC = 4, P_REVERSALS = 8, P_BASELINE = 16 };

static void run_trace(uint64_t trace_seed, unsigned props)
{
        Trace *t = malloc(sizeof(Trace));
        Decision *d1 = malloc(sizeof(Decision)), *d2 = malloc(sizeof(Decision));
        PolicyState *copy = malloc(sizeof(PolicyState));
        unsigned ticks;

        assert_non_null(t);
        assert_non_null(d1);
        assert_non_null(d2);
        assert_non_null(copy);
        trace_init(t, trace_seed);
        ticks = (unsigned) rng_range(&t->rng, 100, 400);

        for (t->tick = 0; t->tick < ticks; t->tick++) {
                world_step(t);
                if (props & P_IDEMPOTENT)
                        check_idempotent(t, d1, d2, copy);
                if (props & P_MONOTONIC)
                        check_monotonic(t, d1, d2);
                t_sim_tick(t->sim, &t->w, (unsigned) rng_range(&t->rng, 1, 30));
                record_moves(t);
                if (props & P_BOUNDS)
                        check_bounds(t);
        }
        if (props & P_REVERSALS)
                check_reversals(t);

        if (props & P_BASELINE) {
                TWorld fine = t_world_fine(t->w.n_nodes);

                for (unsigned i = 0; i < fine.n_nodes; i++)
                        fine.node[i].managed_pages = t->w.node[i].managed_pages;
                const PolicyConfig *c = &t->sim->cfg;
                usec_t need = c->decay_after_usec + c->backoff_hold_usec + c->reversal_window_usec +
                              c->trend_window_usec + 3600 * S;
                /* a learned burst is held, then halves every demand_decay:
                 * under one huge page after 20 half-lives at most (a burst
                 * here sums at most 30 ticks of 3 GiB: < 2^17 huge pages).
                 * Until then the learned target may move levers further
                 * from home, so the walk back is measured after it. */
                usec_t forget = c->demand_learning ? c->demand_hold_usec + 20 * c->demand_decay_usec + 10 * S : 0;

                for (usec_t f = 0; f < forget; f += 10 * S) {
                        t->tick++;
                        t_sim_tick(t->sim, &fine, 10);
                        record_moves(t);
                        if (props & P_BOUNDS)
                                check_bounds(t);
                }
                CHECK(t->sim->d.eval.learned_need_bytes == 0, t->seed, t->tick, "learned need %" PRIu64 " left",
                      t->sim->d.eval.learned_need_bytes);
                unsigned fine_ticks;

                /* a healthy host for as long as the slowest lever needs to
                 * walk back: distance / step_down moves, one per dwell */
                for (unsigned l = 0; l < _LEVER_MAX; l++) {
                        const LeverConfig *lc = &c->lever[l];
                        int64_t dist = t->sim->in[l].current - t->sim->in[l].baseline;
                        uint64_t moves = (uint64_t) (dist < 0 ? -dist : dist) / (uint64_t) lc->step_down + 1;

                        need = MAX(need, c->decay_after_usec + c->backoff_hold_usec + POLICY_DEFAULT_REVERSAL_WINDOW_USEC +
                                                 lc->reversal_cooldown_usec +
                                                 moves * (lc->dwell_usec + 10 * S) + 3600 * S);
                }
                fine_ticks = (unsigned) (need / (10 * S));
                for (unsigned i = 0; i < fine_ticks; i++) {
                        t->tick++;
                        t_sim_tick(t->sim, &fine, 10);
                        record_moves(t);
                        if (props & P_BOUNDS)
                                check_bounds(t);
                        /* once the drop from the trace has left the trend window, a
                         * fine host gets no raise (decay back up to a baseline aside) */
                        if (i * 10 * S > t->sim->cfg.trend_window_usec + 10 * S)
                                for (unsigned k = 0; k < t->sim->d.n_items; k++) {
                                        const DecisionItem *it = &t->sim->d.items[k];

                                        /* a burst learned in the trace may still ask
                                         * for more than "fine" until it decays */
                                        if (it->num.learned_need_bytes > 0 || t->sim->d.eval.learned_need_bytes > 0)
                                                continue;
                                        CHECK(it->kind == DECISION_LEVER && (it->to < it->from ||
                                                                             it->to <= t->sim->in[it->lever].baseline),
                                              t->seed, t->tick, "a fine host got %s",
                                              policy_reason_name(it->reason));
                                }
                }
                for (unsigned l = 0; l < _LEVER_MAX; l++) {
                        const LeverInput *in = &t->sim->in[l];

                        if (!t->sim->cfg.lever[l].enabled || !in->available)
                                continue;
                        if (in->current != in->baseline && getenv("FRAGD_DEBUG")) {
                                const LeverTrack *lt = &t->sim->state.lever[l];
                                const PolicyHeldItem *h = t_find_held(&t->sim->d, (Lever) l);
                                char b[512];

                                print_message("met=%d since=%llu now=%llu last_change=%llu dir=%d hold_until=%llu "
                                              "clamped=%d clamp_value=%lld\n",
                                              t->sim->state.met, (unsigned long long) t->sim->state.met_since_usec,
                                              (unsigned long long) t->sim->now,
                                              (unsigned long long) lt->last_change_usec, lt->last_dir,
                                              (unsigned long long) lt->hold_raise_until_usec, lt->clamped,
                                              (long long) lt->clamp_value);
                                if (h) {
                                        decision_explain_held(h, b, sizeof(b));
                                        print_message("held: %s\n", b);
                                }
                        }
                        CHECK(in->current == in->baseline, t->seed, t->tick,
                              "lever %u ended at %" PRId64 ", baseline %" PRId64, l, in->current, in->baseline);
                }
                if (props & P_REVERSALS)
                        check_reversals(t);
        }
        free(t->sim);
        free(t);
        free(d1);
        free(d2);
        free(copy);
}

static void run_all(unsigned props)
{
        Rng r = { .s = seed };

        for (unsigned i = 0; i < n_traces; i++)
                run_trace(rng_next(&r), props);
}

static void test_bounds(void **state)
{
        run_all(P_BOUNDS);
}

static void test_idempotent(void **state)
{
        run_all(P_IDEMPOTENT);
}

static void test_monotonic(void **state)
{
        run_all(P_MONOTONIC);
        print_message("    %lu lever comparisons, %lu with a stronger action for the worse state\n", mono_compared,
                      mono_stronger);
        assert_true(mono_stronger > 0);
}

static void test_reversal_limit(void **state)
{
        run_all(P_REVERSALS);
}

static void test_returns_to_baseline(void **state)
{
        run_all(P_BASELINE | P_BOUNDS | P_REVERSALS);
}

int main(int argc, char **argv)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_bounds),
                cmocka_unit_test(test_idempotent),
                cmocka_unit_test(test_monotonic),
                cmocka_unit_test(test_reversal_limit),
                cmocka_unit_test(test_returns_to_baseline),
        };
        const char *env = getenv("FRAGD_SEED");
        int opt;

        if (env && *env)
                seed = strtoull(env, NULL, 0);
        while ((opt = getopt(argc, argv, "s:n:")) >= 0)
                switch (opt) {
                case 's':
                        seed = strtoull(optarg, NULL, 0);
                        break;
                case 'n':
                        n_traces = (unsigned) strtoul(optarg, NULL, 0);
                        break;
                default:
                        fprintf(stderr, "usage: %s [-s SEED] [-n TRACES]\n", argv[0]);
                        return 2;
                }
        printf("test-policy-props: seed %" PRIu64 ", %u traces (rerun: %s -s %" PRIu64 ")\n", seed, n_traces,
               argv[0], seed);
        fflush(stdout);
        return cmocka_run_group_tests(tests, NULL, NULL);
}
