/* SPDX-License-Identifier: GPL-2.0-or-later */
/* policy_state_update() (policy/state.c) field by field, on hand-made
 * decisions: the history ring (wrap, same instant, a new node set), what a
 * move records, reversals and their ring, outside changes, back-off and
 * rollback holds, the episode a raise or a kick starts and a lowering ends,
 * one-shot compactions and kicks, "targets met" and since when, the
 * learned peak, activity; decision_mark_applied() and
 * decision_lever_value(). Links libpolicy.a only. */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "policy-test-util.h"

#define S USEC_PER_SEC
#define P LEVER_COMPACTION_PROACTIVENESS
#define WSF LEVER_WATERMARK_SCALE_FACTOR

typedef struct T {
        PolicyState st;
        Assessment a;
        Decision d;
        TWorld w;
} T;

static T *t_new(unsigned n_nodes)
{
        T *t = calloc(1, sizeof(*t));

        assert_non_null(t);
        policy_state_init(&t->st);
        t->w = t_world_fine(n_nodes);
        return t;
}

/* a decision that saw the world at now (levers at the test defaults) */
static void t_decision(T *t, usec_t now)
{
        memset(&t->d, 0, sizeof(t->d));
        t_assess(&t->w, now, &t->a);
        t_levers(t->d.levers);
        t->d.now_usec = now;
        t->d.eval.page_size = T_PAGE;
        t->d.eval.order[0] = 4;
        t->d.eval.order[1] = 9;
        t->d.eval.n_nodes = t->w.n_nodes;
        for (unsigned i = 0; i < t->w.n_nodes; i++)
                t->d.eval.nodes[i].node = (int) i;
        t->d.eval.hold_usec = 600 * S;
        for (unsigned l = 0; l < _LEVER_MAX; l++)
                t->d.eval.dwell_usec[l] = 10 * S;
}

static DecisionItem *t_item(T *t, Lever l, int64_t from, int64_t to, PolicyReason r)
{
        DecisionItem *it = &t->d.items[t->d.n_items++];

        *it = (DecisionItem){ .kind = DECISION_LEVER, .lever = l, .node = -1, .from = from, .to = to, .reason = r,
                              .applied = true, .num = { .node = 0, .order = 9, .eta_usec = USEC_INFINITY } };
        return it;
}

static void test_history_ring(void **state)
{
        T *t = t_new(2);
        PolicyHistory *h = &t->st.hist;

        (void) state;
        for (unsigned i = 0; i < POLICY_HISTORY_MAX + 2; i++) {
                t->w.node[1].free_pages = 1000 + i;
                t->w.node[1].ge_large_pages = 500 + i;
                t->w.node[1].ge_thp_pages = 100 + i;
                t_decision(t, (100 + i) * S);
                t->d.eval.demand_bytes = i;
                policy_state_update(&t->st, &t->a, &t->d, (100 + i) * S);
        }
        assert_int_equal(h->n, POLICY_HISTORY_MAX);
        assert_int_equal(h->head, 2);
        assert_int_equal(h->n_nodes, 2);
        assert_int_equal(h->node_id[1], 1);
        assert_int_equal(h->order[0], 4);
        assert_int_equal(h->order[1], 9);
        /* the oldest kept is the third sample, the newest the last */
        assert_int_equal(h->t_usec[h->head], 102 * S);
        assert_int_equal(h->free_pages[h->head][1], 1002);
        assert_int_equal(h->ge_pages[0][h->head][1], 502);
        assert_int_equal(h->ge_pages[1][h->head][1], 102);
        assert_int_equal(h->demand_bytes[h->head], 2);
        assert_int_equal(h->t_usec[1], (100 + POLICY_HISTORY_MAX + 1) * S);
        /* the same instant again: replaced, not added */
        t->w.node[1].free_pages = 7;
        t_decision(t, (100 + POLICY_HISTORY_MAX + 1) * S);
        policy_state_update(&t->st, &t->a, &t->d, (100 + POLICY_HISTORY_MAX + 1) * S);
        assert_int_equal(h->n, POLICY_HISTORY_MAX);
        assert_int_equal(h->head, 2);
        assert_int_equal(h->free_pages[1][1], 7);
        /* another order: the history starts over */
        t_decision(t, 1000 * S);
        t->d.eval.order[1] = 10;
        policy_state_update(&t->st, &t->a, &t->d, 1000 * S);
        assert_int_equal(h->n, 1);
        assert_int_equal(h->head, 0);
        assert_int_equal(h->order[1], 10);
        /* another node set: too */
        t_decision(t, 1001 * S);
        t->d.eval.order[1] = 10;
        policy_state_update(&t->st, &t->a, &t->d, 1001 * S);
        assert_int_equal(h->n, 2);
        t_decision(t, 1002 * S);
        t->d.eval.order[1] = 10;
        t->d.eval.nodes[1].node = 5;
        policy_state_update(&t->st, &t->a, &t->d, 1002 * S);
        assert_int_equal(h->n, 1);
        assert_int_equal(h->node_id[1], 5);
        /* an order past the buddy lists records 0 */
        t_decision(t, 1003 * S);
        t->d.eval.order[1] = FRAGD_MAX_ORDERS;
        t->d.eval.nodes[1].node = 5;
        policy_state_update(&t->st, &t->a, &t->d, 1003 * S);
        assert_int_equal(h->n, 1);
        assert_int_equal(h->ge_pages[1][0][0], 0);
        assert_int_equal(h->ge_pages[0][0][0], 400000);
        free(t);
}

static void test_a_raise_records_everything(void **state)
{
        T *t = t_new(1);
        LeverTrack *lt = &t->st.lever[P];
        DecisionItem *it;

        (void) state;
        t_decision(t, 100 * S);
        t->d.eval.psi_full_permyriad = 77;
        it = t_item(t, P, 20, 40, POLICY_REASON_RESERVE_BELOW_TARGET);
        it->err = 4321;
        it->num.have_bytes = 12345;
        policy_state_update(&t->st, &t->a, &t->d, 100 * S);
        assert_true(lt->touched);
        assert_true(lt->changed);
        assert_int_equal(lt->before_change, 20);
        assert_int_equal(lt->last_err, 4321);
        assert_int_equal(lt->last_applied, 40);
        assert_int_equal(lt->last_change_usec, 100 * S);
        assert_int_equal(lt->last_dir, 1);
        assert_int_equal(lt->psi_full_at_change_permyriad, 77);
        assert_int_equal(lt->last_reason, POLICY_REASON_RESERVE_BELOW_TARGET);
        assert_false(lt->clamped);
        assert_int_equal(lt->n_reversals, 0);
        /* the episode for node 0's order-9 reserve, from 12345 bytes */
        assert_true(lt->episode);
        assert_int_equal(lt->ep_objective, POLICY_OBJ_RESERVE);
        assert_int_equal(lt->ep_node, 0);
        assert_int_equal(lt->ep_order, 9);
        assert_int_equal(lt->ep_ref, 12345);
        assert_int_equal(lt->ep_start_usec, 100 * S);
        assert_int_equal(lt->ep_eval_usec, 100 * S);
        assert_int_equal(lt->ep_no_gain, 0);
        /* a second raise keeps the episode as it was */
        t_decision(t, 110 * S);
        t->d.levers[P].current = 40;
        t->d.eval.want_raise[P] = true; /* evaluated (10 s): still wanted, no gain, no scanning */
        it = t_item(t, P, 40, 60, POLICY_REASON_RESERVE_BELOW_TARGET);
        it->num.have_bytes = 99999;
        policy_state_update(&t->st, &t->a, &t->d, 110 * S);
        assert_int_equal(lt->ep_ref, 12345);
        assert_int_equal(lt->ep_start_usec, 100 * S);
        assert_int_equal(lt->before_change, 40);
        /* an item that was not applied changes nothing */
        t_decision(t, 120 * S);
        t->d.levers[P].current = 60;
        it = t_item(t, P, 60, 50, POLICY_REASON_TARGETS_MET_DECAY);
        it->applied = false;
        policy_state_update(&t->st, &t->a, &t->d, 120 * S);
        assert_int_equal(lt->last_applied, 60);
        assert_int_equal(lt->last_dir, 1);
        /* a lowering: a reversal, the episode ends */
        t_decision(t, 130 * S);
        t->d.levers[P].current = 60;
        t_item(t, P, 60, 55, POLICY_REASON_TARGETS_MET_DECAY);
        policy_state_update(&t->st, &t->a, &t->d, 130 * S);
        assert_int_equal(lt->last_dir, -1);
        assert_false(lt->episode);
        assert_int_equal(lt->n_reversals, 1);
        assert_int_equal(lt->reversal_usec[0], 130 * S);
        /* a non-move (to == from) records nothing */
        t_decision(t, 140 * S);
        t->d.levers[P].current = 55;
        t_item(t, P, 55, 55, POLICY_REASON_TARGETS_MET_DECAY);
        policy_state_update(&t->st, &t->a, &t->d, 140 * S);
        assert_int_equal(lt->last_change_usec, 130 * S);
        free(t);
}

static void test_episode_objectives(void **state)
{
        static const struct {
                PolicyReason r;
                PolicyObjective obj;
                int64_t ref;
        } cases[] = {
                { POLICY_REASON_RESERVE_BELOW_TARGET, POLICY_OBJ_RESERVE, 111 },
                { POLICY_REASON_RESERVE_LEARNED, POLICY_OBJ_RESERVE, 111 },
                { POLICY_REASON_RESERVE_TREND, POLICY_OBJ_RESERVE, 111 },
                { POLICY_REASON_FREE_MEMORY_SHORT, POLICY_OBJ_FREE, 222 },
                { POLICY_REASON_COMPACT_STALLS, POLICY_OBJ_STALLS, 333 },
                { POLICY_REASON_THP_FALLBACK, POLICY_OBJ_FALLBACK, 444 },
                { POLICY_REASON_WORKLOAD_STALLS, POLICY_OBJ_WORKLOAD, 444 },
        };

        (void) state;
        for (unsigned i = 0; i < ELEMENTSOF(cases); i++) {
                T *t = t_new(1);
                DecisionItem *it;

                t_decision(t, 100 * S);
                it = t_item(t, WSF, 10, 60, cases[i].r);
                it->num.node = 0;
                it->num.have_bytes = 111;
                it->num.free_bytes = 222;
                it->num.observed_milli = 333;
                it->num.observed_permyriad = 444;
                policy_state_update(&t->st, &t->a, &t->d, 100 * S);
                assert_true(t->st.lever[WSF].episode);
                assert_int_equal(t->st.lever[WSF].ep_objective, cases[i].obj);
                assert_int_equal(t->st.lever[WSF].ep_ref, cases[i].ref);
                free(t);
        }
        /* a reserve raise for free memory's sake (free_needed set): free memory */
        {
                T *t = t_new(1);
                DecisionItem *it;

                t_decision(t, 100 * S);
                it = t_item(t, WSF, 10, 60, POLICY_REASON_RESERVE_TREND);
                it->num.free_needed_bytes = 1;
                it->num.free_bytes = 222;
                policy_state_update(&t->st, &t->a, &t->d, 100 * S);
                assert_int_equal(t->st.lever[WSF].ep_objective, POLICY_OBJ_FREE);
                assert_int_equal(t->st.lever[WSF].ep_ref, 222);
                /* a safety move starts none */
                t_decision(t, 200 * S);
                t_item(t, P, 20, 40, POLICY_REASON_SAFETY_ENVELOPE);
                policy_state_update(&t->st, &t->a, &t->d, 200 * S);
                assert_false(t->st.lever[P].episode);
                free(t);
        }
}

static void test_reversal_ring(void **state)
{
        T *t = t_new(1);
        LeverTrack *lt = &t->st.lever[P];
        int64_t v = 20;

        (void) state;
        for (unsigned i = 0; i < POLICY_REVERSALS_MAX + 4; i++) {
                int64_t to = i % 2 ? v - 1 : v + 1;

                t_decision(t, (100 + i) * S);
                t->d.levers[P].current = v;
                t_item(t, P, v, to, POLICY_REASON_RESERVE_BELOW_TARGET);
                policy_state_update(&t->st, &t->a, &t->d, (100 + i) * S);
                v = to;
        }
        /* POLICY_REVERSALS_MAX + 3 reversals (the first move is none):
         * the ring keeps the newest */
        assert_int_equal(lt->n_reversals, POLICY_REVERSALS_MAX);
        assert_int_equal(lt->reversal_head, 3);
        assert_int_equal(lt->reversal_usec[lt->reversal_head], 104 * S); /* oldest kept */
        assert_int_equal(lt->reversal_usec[2], (100 + POLICY_REVERSALS_MAX + 3) * S);
        free(t);
}

static void test_outside_change(void **state)
{
        T *t = t_new(1);
        LeverTrack *lt = &t->st.lever[P];

        (void) state;
        t_decision(t, 100 * S);
        t_item(t, P, 20, 40, POLICY_REASON_RESERVE_BELOW_TARGET);
        policy_state_update(&t->st, &t->a, &t->d, 100 * S);
        assert_true(lt->episode);
        /* the knob reads 30 at the next decide */
        t_decision(t, 105 * S);
        t->d.levers[P].current = 30;
        policy_state_update(&t->st, &t->a, &t->d, 105 * S);
        assert_true(lt->clamped);
        assert_int_equal(lt->clamp_usec, 105 * S);
        assert_int_equal(lt->clamp_value, 30);
        assert_int_equal(lt->clamp_wanted, 40);
        assert_int_equal(lt->last_applied, 30);
        assert_int_equal(lt->last_change_usec, 105 * S);
        assert_false(lt->episode);
        /* an untouched lever, or one not readable, is nobody's outside change */
        t_decision(t, 110 * S);
        t->d.levers[P].current = 30;
        t->d.levers[WSF].current = 500;
        policy_state_update(&t->st, &t->a, &t->d, 110 * S);
        assert_false(t->st.lever[WSF].clamped);
        t_decision(t, 115 * S);
        t->d.levers[P].current = 90;
        t->d.levers[P].available = false;
        policy_state_update(&t->st, &t->a, &t->d, 115 * S);
        assert_int_equal(lt->clamp_value, 30);
        /* our next move clears it */
        t_decision(t, 120 * S);
        t->d.levers[P].current = 30;
        t_item(t, P, 30, 35, POLICY_REASON_RESERVE_BELOW_TARGET);
        policy_state_update(&t->st, &t->a, &t->d, 120 * S);
        assert_false(lt->clamped);
        free(t);
}

/* A lowering, a back-off, a rollback or a held back-off ends the lever's
 * raise episode at once, not at the next episode evaluation (one dwell,
 * 10 s, after the raise at 100 s; each case acts at 105 s, before it). */
static void episode_ends(PolicyReason r, int64_t to, bool held)
{
        T *t = t_new(1);
        LeverTrack *lt = &t->st.lever[P];

        t_decision(t, 100 * S);
        t_item(t, P, 20, 40, POLICY_REASON_RESERVE_BELOW_TARGET);
        policy_state_update(&t->st, &t->a, &t->d, 100 * S);
        assert_true(lt->episode);
        t_decision(t, 105 * S);
        t->d.levers[P].current = 40;
        t->d.eval.want_raise[P] = true;
        if (held)
                t->d.held[t->d.n_held++] = (PolicyHeldItem){ .lever = P, .current = 40, .wanted = 41,
                                                             .allowed = 40, .reason = r,
                                                             .hold = POLICY_HOLD_BACKOFF };
        else
                t_item(t, P, 40, to, r);
        policy_state_update(&t->st, &t->a, &t->d, 105 * S);
        assert_false(lt->episode);
        free(t);
}

static void test_episode_ends_on_the_spot(void **state)
{
        T *t = t_new(1);

        (void) state;
        episode_ends(POLICY_REASON_TARGETS_MET_DECAY, 30, false);
        episode_ends(POLICY_REASON_BACKOFF_INEFFECTIVE, 20, false);
        episode_ends(POLICY_REASON_PSI_ROLLBACK, 20, false);
        episode_ends(POLICY_REASON_BACKOFF_INEFFECTIVE, 0, true);
        /* and a further raise within the dwell keeps it */
        t_decision(t, 100 * S);
        t_item(t, P, 20, 40, POLICY_REASON_RESERVE_BELOW_TARGET);
        policy_state_update(&t->st, &t->a, &t->d, 100 * S);
        t_decision(t, 105 * S);
        t->d.levers[P].current = 40;
        t->d.eval.want_raise[P] = true;
        t_item(t, P, 40, 50, POLICY_REASON_RESERVE_BELOW_TARGET);
        policy_state_update(&t->st, &t->a, &t->d, 105 * S);
        assert_true(t->st.lever[P].episode);
        free(t);
}

static void test_holds_after_backoff_and_rollback(void **state)
{
        T *t = t_new(1);
        LeverTrack *lt = &t->st.lever[P];
        PolicyHeldItem *h, held;

        (void) state;
        t_decision(t, 100 * S);
        t_item(t, P, 20, 40, POLICY_REASON_RESERVE_BELOW_TARGET);
        policy_state_update(&t->st, &t->a, &t->d, 100 * S);
        t_decision(t, 110 * S);
        t->d.levers[P].current = 40;
        t_item(t, P, 40, 35, POLICY_REASON_BACKOFF_INEFFECTIVE);
        policy_state_update(&t->st, &t->a, &t->d, 110 * S);
        /* the first back-off: backoff_hold 600 s << 0 */
        assert_int_equal(lt->hold_raise_until_usec, 710 * S);
        assert_int_equal(lt->backoffs, 1);
        assert_int_equal(lt->hold_reason, POLICY_REASON_BACKOFF_INEFFECTIVE);
        assert_false(lt->episode);

        /* a rollback holds too */
        t_decision(t, 800 * S);
        t->d.levers[P].current = 35;
        t_item(t, P, 35, 20, POLICY_REASON_PSI_ROLLBACK);
        policy_state_update(&t->st, &t->a, &t->d, 800 * S);
        assert_int_equal(lt->hold_raise_until_usec, 1400 * S);
        assert_int_equal(lt->hold_reason, POLICY_REASON_PSI_ROLLBACK);

        /* a back-off with nothing to lower (held): the hold starts when the
         * last one is over, not before */
        t_decision(t, 1000 * S);
        t->d.levers[P].current = 20;
        h = &t->d.held[t->d.n_held++];
        *h = (PolicyHeldItem){ .lever = P, .current = 20, .wanted = 21, .allowed = 20,
                               .reason = POLICY_REASON_BACKOFF_INEFFECTIVE, .hold = POLICY_HOLD_BACKOFF };
        held = *h;
        policy_state_update(&t->st, &t->a, &t->d, 1000 * S);
        assert_int_equal(lt->hold_raise_until_usec, 1400 * S);
        assert_int_equal(lt->hold_reason, POLICY_REASON_PSI_ROLLBACK);
        t_decision(t, 1400 * S);
        t->d.levers[P].current = 20;
        t->d.held[t->d.n_held++] = held;
        lt->episode = true;
        policy_state_update(&t->st, &t->a, &t->d, 1400 * S);
        /* v2: the hold doubles with each back-off in a row (backoff_hold <<
         * n; the rollback and no met target in between reset nothing): the
         * second is 600 s << 1 = 1200 s, until 1400 + 1200 = 2600 s */
        assert_int_equal(lt->backoffs, 2);
        assert_int_equal(lt->hold_raise_until_usec, 2600 * S);
        assert_int_equal(lt->hold_reason, POLICY_REASON_BACKOFF_INEFFECTIVE);
        assert_false(lt->episode);
        /* other held items do nothing */
        t_decision(t, 3000 * S);
        t->d.levers[P].current = 20;
        h = &t->d.held[t->d.n_held++];
        *h = (PolicyHeldItem){ .lever = P, .reason = POLICY_REASON_RESERVE_BELOW_TARGET, .hold = POLICY_HOLD_DWELL };
        policy_state_update(&t->st, &t->a, &t->d, 3000 * S);
        assert_int_equal(lt->hold_raise_until_usec, 2600 * S);
        assert_int_equal(lt->backoffs, 2);
        free(t);
}

static void test_oneshot_and_kick(void **state)
{
        T *t = t_new(2);
        DecisionItem *it;

        (void) state;
        t_decision(t, 100 * S);
        it = &t->d.items[t->d.n_items++];
        *it = (DecisionItem){ .kind = DECISION_COMPACT_NODE, .lever = _LEVER_MAX, .node = 1, .applied = true };
        policy_state_update(&t->st, &t->a, &t->d, 100 * S);
        assert_false(t->st.have_oneshot[0]);
        assert_true(t->st.have_oneshot[1]);
        assert_int_equal(t->st.last_oneshot_usec[1], 100 * S);
        /* a node not in the history: nothing recorded */
        t_decision(t, 110 * S);
        it = &t->d.items[t->d.n_items++];
        *it = (DecisionItem){ .kind = DECISION_COMPACT_NODE, .lever = _LEVER_MAX, .node = 7, .applied = true };
        policy_state_update(&t->st, &t->a, &t->d, 110 * S);
        assert_int_equal(t->st.last_oneshot_usec[1], 100 * S);
        assert_false(t->st.have_oneshot[0]);

        /* a kick: remembered, starts the episode for its cause, no move */
        t_decision(t, 120 * S);
        it = &t->d.items[t->d.n_items++];
        *it = (DecisionItem){ .kind = DECISION_KICK_KCOMPACTD, .lever = P, .node = -1, .from = 20, .to = 20,
                              .reason = POLICY_REASON_KCOMPACTD_KICK, .applied = true,
                              .num = { .node = -1, .objective = POLICY_OBJ_STALLS, .observed_milli = 900 } };
        policy_state_update(&t->st, &t->a, &t->d, 120 * S);
        assert_true(t->st.have_kick);
        assert_int_equal(t->st.last_kick_usec, 120 * S);
        assert_true(t->st.lever[P].episode);
        assert_int_equal(t->st.lever[P].ep_objective, POLICY_OBJ_STALLS);
        assert_int_equal(t->st.lever[P].ep_ref, 900);
        assert_false(t->st.lever[P].changed);
        assert_int_equal(t->st.lever[P].last_dir, 0);
        /* a second kick does not restart it */
        t_decision(t, 125 * S);
        it = &t->d.items[t->d.n_items++];
        *it = (DecisionItem){ .kind = DECISION_KICK_KCOMPACTD, .lever = P, .node = -1, .from = 20, .to = 20,
                              .reason = POLICY_REASON_KCOMPACTD_KICK, .applied = true,
                              .num = { .node = -1, .objective = POLICY_OBJ_STALLS, .observed_milli = 100 } };
        policy_state_update(&t->st, &t->a, &t->d, 125 * S);
        assert_int_equal(t->st.lever[P].ep_ref, 900);
        assert_int_equal(t->st.last_kick_usec, 125 * S);
        /* an item for no lever is skipped */
        t_decision(t, 130 * S);
        it = &t->d.items[t->d.n_items++];
        *it = (DecisionItem){ .kind = DECISION_LEVER, .lever = _LEVER_MAX, .from = 1, .to = 2, .applied = true };
        policy_state_update(&t->st, &t->a, &t->d, 130 * S);
        free(t);
}

static void test_met_learned_activity(void **state)
{
        T *t = t_new(1);

        (void) state;
        t_decision(t, 100 * S);
        t->d.eval.targets_met = true;
        t->d.eval.learned_peak_bytes = 5;
        t->d.eval.learned_peak_usec = 6;
        t->d.eval.learned_peak_before_usec = 7;
        t->w.rates_valid = false;
        t_assess(&t->w, 100 * S, &t->a);
        policy_state_update(&t->st, &t->a, &t->d, 100 * S);
        assert_true(t->st.met);
        assert_int_equal(t->st.met_since_usec, 100 * S);
        assert_int_equal(t->st.learned_peak_bytes, 5);
        assert_int_equal(t->st.learned_peak_usec, 6);
        assert_int_equal(t->st.learned_peak_before_usec, 7);
        assert_int_equal(t->st.last_activity_usec, 0);
        assert_int_equal(t->st.last_update_usec, 100 * S);
        /* still met: since the first */
        t_decision(t, 105 * S);
        t->d.eval.targets_met = true;
        t->w.rates_valid = true;
        t->w.stall_per_sec = 0.01; /* activity */
        t_assess(&t->w, 105 * S, &t->a);
        policy_state_update(&t->st, &t->a, &t->d, 105 * S);
        assert_int_equal(t->st.met_since_usec, 100 * S);
        assert_int_equal(t->st.last_activity_usec, 105 * S);
        t_decision(t, 110 * S);
        policy_state_update(&t->st, &t->a, &t->d, 110 * S);
        assert_false(t->st.met);
        t_decision(t, 115 * S);
        t->d.eval.targets_met = true;
        policy_state_update(&t->st, &t->a, &t->d, 115 * S);
        assert_int_equal(t->st.met_since_usec, 115 * S);
        free(t);
}

/* compaction scanned in the episode: the rate times the time since the
 * last update, not judged while the targets are unmeasured */
static void test_episode_scanning(void **state)
{
        T *t = t_new(1);
        LeverTrack *lt = &t->st.lever[P];

        (void) state;
        t_decision(t, 100 * S);
        t_item(t, P, 20, 40, POLICY_REASON_RESERVE_BELOW_TARGET);
        policy_state_update(&t->st, &t->a, &t->d, 100 * S);
        t_decision(t, 104 * S);
        t->d.levers[P].current = 40;
        t->d.eval.scan_pages_per_sec = 1000;
        t->d.eval.want_raise[P] = true;
        policy_state_update(&t->st, &t->a, &t->d, 104 * S);
        assert_int_equal(lt->ep_scanned_pages, 4000);
        assert_int_equal(lt->ep_no_gain, 0); /* not evaluated yet: 4 s < the 10 s dwell */
        t_decision(t, 106 * S);
        t->d.levers[P].current = 40;
        t->d.eval.scan_pages_per_sec = 1000;
        t->d.eval.unmeasured = 1;
        policy_state_update(&t->st, &t->a, &t->d, 106 * S);
        assert_int_equal(lt->ep_scanned_pages, 4000);
        /* evaluated at 10 s: no gain (have 0 at the start and now) with
         * scanning: counted */
        t_decision(t, 110 * S);
        t->d.levers[P].current = 40;
        t->d.eval.scan_pages_per_sec = 1000;
        t->d.eval.want_raise[P] = true;
        policy_state_update(&t->st, &t->a, &t->d, 110 * S);
        assert_int_equal(lt->ep_scanned_pages, 8000);
        assert_int_equal(lt->ep_scanned_at_eval, 8000);
        assert_int_equal(lt->ep_eval_usec, 110 * S);
        assert_int_equal(lt->ep_no_gain, 1);
        /* the objective met (no raise wanted) at the next evaluation: over */
        t_decision(t, 120 * S);
        t->d.levers[P].current = 40;
        policy_state_update(&t->st, &t->a, &t->d, 120 * S);
        assert_false(lt->episode);
        free(t);
}

/* a stalls episode is judged by the stall rate; a new episode starts its
 * scanning count from 0; a clock behind the last evaluation waits */
static void test_episode_stalls_and_restart(void **state)
{
        T *t = t_new(1);
        LeverTrack *lt = &t->st.lever[P];
        DecisionItem *it;

        (void) state;
        t_decision(t, 100 * S);
        it = t_item(t, P, 20, 40, POLICY_REASON_COMPACT_STALLS);
        it->num.observed_milli = 900;
        policy_state_update(&t->st, &t->a, &t->d, 100 * S);
        assert_int_equal(lt->ep_ref, 900);
        lt->ep_scanned_pages = 5000;
        /* 10 s later: stalls down to 400 milli: a gain of 500, paid off */
        t_decision(t, 110 * S);
        t->d.levers[P].current = 40;
        t->d.eval.want_raise[P] = true;
        t->d.eval.stall_milli = 400;
        policy_state_update(&t->st, &t->a, &t->d, 110 * S);
        assert_int_equal(lt->ep_no_gain, 0);
        assert_int_equal(lt->ep_ref, 400);
        /* a clock behind the last evaluation: nothing evaluated */
        lt->ep_eval_usec = 200 * S;
        t_decision(t, 150 * S);
        t->d.levers[P].current = 40;
        t->d.eval.want_raise[P] = false;
        policy_state_update(&t->st, &t->a, &t->d, 150 * S);
        assert_true(lt->episode);
        assert_int_equal(lt->ep_eval_usec, 200 * S);
        /* lowered: over; the next raise starts afresh */
        lt->ep_scanned_pages = lt->ep_scanned_at_eval = 777;
        t_decision(t, 300 * S);
        t->d.levers[P].current = 40;
        t_item(t, P, 40, 35, POLICY_REASON_TARGETS_MET_DECAY);
        policy_state_update(&t->st, &t->a, &t->d, 300 * S);
        assert_false(lt->episode);
        t_decision(t, 400 * S);
        t->d.levers[P].current = 35;
        t_item(t, P, 35, 45, POLICY_REASON_THP_FALLBACK);
        policy_state_update(&t->st, &t->a, &t->d, 400 * S);
        assert_true(lt->episode);
        assert_int_equal(lt->ep_scanned_pages, 0);
        assert_int_equal(lt->ep_scanned_at_eval, 0);
        free(t);
}

static void test_decision_helpers(void **state)
{
        Decision d;

        (void) state;
        memset(&d, 0, sizeof(d));
        t_levers(d.levers);
        d.n_items = 2;
        d.items[0] = (DecisionItem){ .kind = DECISION_COMPACT_NODE, .lever = P, .to = 99 };
        d.items[1] = (DecisionItem){ .kind = DECISION_LEVER, .lever = P, .from = 20, .to = 40 };
        assert_int_equal(decision_lever_value(&d, P), 40);
        assert_int_equal(decision_lever_value(&d, WSF), 10);
        decision_mark_applied(&d, 1, 37);
        assert_true(d.items[1].applied);
        assert_int_equal(d.items[1].to, 37);
        decision_mark_applied(&d, 0, 5);
        assert_true(d.items[0].applied);
        assert_int_equal(d.items[0].to, 99); /* not a lever: nothing read back */
        decision_mark_applied(&d, 2, 5);      /* out of range: nothing */
        assert_false(d.items[2].applied);
        d.items[0].applied = d.items[1].applied = false;
        decision_mark_all_applied(&d);
        assert_true(d.items[0].applied && d.items[1].applied);
        assert_false(d.items[2].applied);
}

/* History edges: a first sample at clock 0 is added (the empty ring has
 * no newest sample to replace); a changed first node id restarts it; the
 * THPs grown per node are kept, UINT64_MAX when not known (and a known
 * UINT64_MAX is stored as UINT64_MAX - 1) */
static void test_history_edges(void **state)
{
        T *t = t_new(2);
        PolicyHistory *h = &t->st.hist;

        (void) state;
        t->w.node[0].thp_grown_valid = true;
        t->w.node[0].thp_grown = 7;
        t_decision(t, 0);
        policy_state_update(&t->st, &t->a, &t->d, 0);
        assert_int_equal(h->n, 1);
        assert_int_equal(h->head, 0);
        assert_int_equal(h->thp_grown[0][0], 7);
        assert_true(h->thp_grown[0][1] == UINT64_MAX);
        t->w.node[0].thp_grown = UINT64_MAX;
        t_decision(t, 1 * S);
        policy_state_update(&t->st, &t->a, &t->d, 1 * S);
        assert_int_equal(h->n, 2);
        assert_true(h->thp_grown[1][0] == UINT64_MAX - 1);
        /* node 0 is now node 3, node 1 the same: starts over */
        t_decision(t, 2 * S);
        t->d.eval.nodes[0].node = 3;
        policy_state_update(&t->st, &t->a, &t->d, 2 * S);
        assert_int_equal(h->n, 1);
        assert_int_equal(h->node_id[0], 3);
        free(t);
}

/* THP fallbacks alone, under one a second, make a tick active; the
 * back-off hold at exactly the shift's bound still shifts:
 * (UINT64_MAX >> 1) << 1 = UINT64_MAX - 1 */
static void test_active_and_backoff_bound(void **state)
{
        T *t = t_new(1);

        (void) state;
        t_decision(t, 100 * S);
        t->a.rates.valid = true;
        t->a.rates.thp_fault_alloc = t->a.rates.compact_stall = t->a.rates.allocstall = 0.0;
        t->a.rates.thp_fault_fallback = 0.5;
        assert_true(policy_tick_active(&t->a, &t->d));
        t->a.rates.thp_fault_fallback = 0.0;
        assert_false(policy_tick_active(&t->a, &t->d));
        assert_true(policy_backoff_hold_usec(USEC_INFINITY >> 1, 1) == USEC_INFINITY - 1);
        free(t);
}

/* A reserve episode of P, raised at 100 s from 1000 bytes (node 0,
 * order 9 = eval order[1]), evaluated each dwell (10 s) */
static T *episode_at(usec_t t0, uint64_t have)
{
        T *t = t_new(1);
        DecisionItem *it;

        t_decision(t, t0);
        it = t_item(t, P, 20, 40, POLICY_REASON_RESERVE_BELOW_TARGET);
        it->num.have_bytes = have;
        policy_state_update(&t->st, &t->a, &t->d, t0);
        assert_true(t->st.lever[P].episode);
        return t;
}

/* the next evaluation at now: the raise still wanted, the reserve at
 * have, compaction scanning scan pages a second since the last update */
static void episode_eval(T *t, usec_t now, uint64_t have, uint64_t scan)
{
        t_decision(t, now);
        t->d.levers[P].current = 40;
        t->d.eval.want_raise[P] = true;
        t->d.eval.nodes[0].have_bytes[1] = have;
        t->d.eval.scan_pages_per_sec = scan;
        policy_state_update(&t->st, &t->a, &t->d, now);
}

/* Episode evaluations by hand: work counted since the last evaluation
 * only, one scanned page is work, a gain ends the back-offs, free memory
 * records its gain, no block size skips the scan-per-block check. */
static void test_episode_evaluations(void **state)
{
        T *t = episode_at(100 * S, 1000);
        LeverTrack *lt = &t->st.lever[P];

        (void) state;
        /* 110 s: no gain, 100 pages/s x 10 s = 1000 scanned: no gain 1 */
        episode_eval(t, 110 * S, 1000, 100);
        assert_int_equal(lt->ep_no_gain, 1);
        assert_int_equal(lt->ep_scanned_pages, 1000);
        /* 120 s: no gain, nothing scanned since (1000 - 1000 = 0): P is a
         * compaction lever, so no work, no count */
        episode_eval(t, 120 * S, 1000, 0);
        assert_int_equal(lt->ep_no_gain, 1);
        /* 129 s: not due (9 s since 120 s), nothing scanned; 130 s: 1 page/s
         * x 1 s = exactly one page scanned: work without gain, counted */
        episode_eval(t, 129 * S, 1000, 0);
        assert_int_equal(lt->ep_no_gain, 1);
        episode_eval(t, 130 * S, 1000, 1);
        assert_int_equal(lt->ep_scanned_pages, 1001);
        assert_int_equal(lt->ep_no_gain, 2);
        /* 140 s: the reserve grew 4 MiB, two back-offs before: paid off */
        lt->backoffs = 2;
        episode_eval(t, 140 * S, 1000 + 4 * 1048576, 0);
        assert_int_equal(lt->backoffs, 0);
        assert_int_equal(lt->ep_no_gain, 0);
        assert_int_equal(lt->ep_ref, 1000 + 4 * 1048576);
        assert_int_equal(lt->ep_gained_bytes, 4 * 1048576);
        free(t);

        /* a page size of 0 (no block size): the scan-per-block limit is
         * not judged; 4 MiB gained with 10^6 pages scanned is paid off */
        t = episode_at(100 * S, 1000);
        lt = &t->st.lever[P];
        t_decision(t, 110 * S);
        t->d.levers[P].current = 40;
        t->d.eval.want_raise[P] = true;
        t->d.eval.nodes[0].have_bytes[1] = 1000 + 4 * 1048576;
        t->d.eval.scan_pages_per_sec = 100000;
        t->d.eval.scan_per_block_limit = 1;
        t->d.eval.page_size = 0;
        policy_state_update(&t->st, &t->a, &t->d, 110 * S);
        assert_int_equal(lt->ep_no_gain, 0);
        assert_int_equal(lt->ep_ref, 1000 + 4 * 1048576);
        free(t);

        /* free memory: 222 bytes then 200: gain 200 - 222 = -22 */
        t = t_new(1);
        t_decision(t, 100 * S);
        DecisionItem *it = t_item(t, WSF, 10, 60, POLICY_REASON_FREE_MEMORY_SHORT);
        it->num.free_bytes = 222;
        policy_state_update(&t->st, &t->a, &t->d, 100 * S);
        assert_int_equal(t->st.lever[WSF].ep_objective, POLICY_OBJ_FREE);
        t_decision(t, 110 * S);
        t->d.levers[WSF].current = 60;
        t->d.eval.want_raise[WSF] = true;
        t->d.eval.nodes[0].free_bytes = 200;
        policy_state_update(&t->st, &t->a, &t->d, 110 * S);
        assert_int_equal(t->st.lever[WSF].ep_gained_bytes, -22);
        free(t);
}

/* Only the decision's n_items count (a stale slot past them is not an
 * item); a kick is no move even with from != to */
static void test_items_bounds_and_kick(void **state)
{
        T *t = t_new(1);

        (void) state;
        t_decision(t, 100 * S);
        t_item(t, WSF, 10, 60, POLICY_REASON_FREE_MEMORY_SHORT);
        t->d.n_items = 0;
        t->d.items[1] = (DecisionItem){ .kind = DECISION_KICK_KCOMPACTD, .lever = P, .node = -1, .from = 20,
                                        .to = 21, .reason = POLICY_REASON_RESERVE_BELOW_TARGET, .applied = true };
        t->d.n_items = 1;
        t->d.items[0] = t->d.items[1];
        t->d.items[1] = (DecisionItem){ .kind = DECISION_LEVER, .lever = WSF, .node = -1, .from = 10, .to = 60,
                                        .reason = POLICY_REASON_FREE_MEMORY_SHORT, .applied = true };
        policy_state_update(&t->st, &t->a, &t->d, 100 * S);
        assert_true(t->st.have_kick);
        assert_false(t->st.lever[P].touched);
        assert_int_equal(t->st.lever[P].last_dir, 0);
        assert_false(t->st.lever[WSF].touched);
        free(t);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_history_ring),
                cmocka_unit_test(test_history_edges),
                cmocka_unit_test(test_active_and_backoff_bound),
                cmocka_unit_test(test_episode_evaluations),
                cmocka_unit_test(test_items_bounds_and_kick),
                cmocka_unit_test(test_a_raise_records_everything),
                cmocka_unit_test(test_episode_objectives),
                cmocka_unit_test(test_reversal_ring),
                cmocka_unit_test(test_outside_change),
                cmocka_unit_test(test_holds_after_backoff_and_rollback),
                cmocka_unit_test(test_episode_ends_on_the_spot),
                cmocka_unit_test(test_oneshot_and_kick),
                cmocka_unit_test(test_met_learned_activity),
                cmocka_unit_test(test_episode_scanning),
                cmocka_unit_test(test_episode_stalls_and_restart),
                cmocka_unit_test(test_decision_helpers),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
