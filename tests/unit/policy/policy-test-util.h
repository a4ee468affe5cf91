/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* Shared by the policy tests: a local PolicyConfig (presets.c is written in
 * parallel), lever inputs at kernel defaults, synthetic Assessments and a
 * tiny simulator that applies decisions the way the daemon would. Header
 * only: each test program links libpolicy.a and cmocka, nothing else. */

#include <stdio.h>
#include <string.h>

#include "fragd/policy.h"

#define T_PAGE 4096u
#define T_MANAGED (1u << 20) /* 4 GiB per node */

static inline void t_lever(PolicyConfig *c, Lever l, int64_t min, int64_t max, int64_t up, int64_t down,
                           usec_t dwell, usec_t cooldown)
{
        c->lever[l] = (LeverConfig){ .enabled = true, .min = min, .max = max, .step_up = up,
                                     .step_down = down, .dwell_usec = dwell,
                                     .reversal_cooldown_usec = cooldown };
}

static inline void t_config(PolicyConfig *c)
{
        memset(c, 0, sizeof(*c));
        c->preset = PRESET_DATABASE;
        c->order_large = 4;
        c->order_thp = 0;
        c->reserve_large = (SizeSpec){ .permyriad = 200 }; /* 2 % = 82 MiB of 4 GiB */
        c->reserve_thp = (SizeSpec){ .permyriad = 100 };   /* 1 % = 41 MiB */
        c->max_compact_stall_rate = 0.1;
        c->max_thp_fallback_permyriad = 1000;
        c->psi_some_ceiling_permyriad = 1000;
        c->psi_full_ceiling_permyriad = 300;
        c->trend_window_usec = 60 * USEC_PER_SEC;
        c->trend_horizon_usec = 120 * USEC_PER_SEC;
        c->decay_after_usec = 600 * USEC_PER_SEC;
        c->backoff_decisions = 3;
        c->backoff_max_scan_per_block = 20000;
        c->safety_headroom = (SizeSpec){ .permyriad = 200 };
        c->rollback_window_usec = 30 * USEC_PER_SEC;
        c->rollback_psi_full_rise_permyriad = 200;
        c->oneshot_compact = true;
        c->oneshot_below_permyriad = 2500;
        c->oneshot_min_interval_usec = 600 * USEC_PER_SEC;
        c->calm_psi_some_permyriad = 100;
        t_lever(c, LEVER_COMPACTION_PROACTIVENESS, 0, 100, 20, 5, 10 * USEC_PER_SEC, 120 * USEC_PER_SEC);
        t_lever(c, LEVER_WATERMARK_SCALE_FACTOR, 10, 1000, 100, 20, 30 * USEC_PER_SEC, 300 * USEC_PER_SEC);
        t_lever(c, LEVER_MIN_FREE_KBYTES, 16384, 262144, 16384, 4096, 120 * USEC_PER_SEC, 600 * USEC_PER_SEC);
        t_lever(c, LEVER_WATERMARK_BOOST_FACTOR, 0, 30000, 5000, 1000, 60 * USEC_PER_SEC, 300 * USEC_PER_SEC);
        t_lever(c, LEVER_THP_DEFRAG, THP_DEFRAG_DEFER, THP_DEFRAG_MADVISE, 1, 1, 60 * USEC_PER_SEC,
                600 * USEC_PER_SEC);
        c->hysteresis_permyriad = 1000;
        c->max_reversals = 4;
        c->reversal_window_usec = 3600 * USEC_PER_SEC;
        c->backoff_hold_usec = 600 * USEC_PER_SEC;
}

static inline void t_levers(LeverInput *in)
{
        static const int64_t base[_LEVER_MAX] = {
                [LEVER_COMPACTION_PROACTIVENESS] = 20, [LEVER_WATERMARK_SCALE_FACTOR] = 10,
                [LEVER_MIN_FREE_KBYTES] = 67584,       [LEVER_WATERMARK_BOOST_FACTOR] = 15000,
                [LEVER_EXTFRAG_THRESHOLD] = 500,       [LEVER_THP_DEFRAG] = THP_DEFRAG_MADVISE,
        };
        for (unsigned l = 0; l < _LEVER_MAX; l++)
                in[l] = (LeverInput){ .available = true, .current = base[l], .baseline = base[l] };
}

typedef struct TNode {
        uint64_t free_pages, ge_large_pages, ge_thp_pages, reclaimable_pages;
        uint64_t managed_pages; /* 0 = T_MANAGED */
        bool thp_grown_valid;   /* NodeMeasures.thp_grown: THPs that appeared on the node */
        uint64_t thp_grown;
        unsigned score; /* NodeMeasures.frag_score when score_set or non-zero; else from the blocks */
        bool score_set;
        bool reclaimable_unknown; /* NodeMeasures.have_reclaimable false (no per-node stats) */
} TNode;

typedef struct TWorld {
        unsigned n_nodes;
        TNode node[4];
        uint32_t psi_some, psi_full; /* permyriad */
        bool rates_valid;
        double stall_per_sec, fallback_ratio, scan_pages_per_sec;
        double kswapd_scan_per_sec; /* Rates.pgscan_kswapd */
        double thp_alloc_per_sec, thp_fallback_per_sec; /* THP faults (the learned reserve's demand) */
        unsigned n_workloads; /* copied into the Assessment as the daemon fills it */
        WorkloadStall workloads[4];
        unsigned unmeasured; /* Assessment.unmeasured: OBS_MASK bits of missing sources */
        double interval_sec; /* Rates.interval_sec; 0 = 5 */
        double allocstall_per_sec; /* Rates.allocstall */
        /* Assessment.pollution: a pagetypeinfo reading at blocks_usec (0 =
         * none), polluting fallbacks in this tick's interval when extfrag */
        usec_t blocks_usec;
        uint64_t nonmovable_blocks, blocks_total;
        bool extfrag;
        uint64_t polluting;
        /* Assessment.thp_defrag: the kernel's THP defrag mode, read whether
         * or not the lever is on; 0 = unknown (-1), else ThpDefragMode + 1 */
        int thp_defrag_plus1;
} TWorld;

/* A node in good shape: 2 GiB free, most of it in large blocks. */
static inline TNode t_node_fine(void)
{
        return (TNode){ .free_pages = 500000, .ge_large_pages = 400000, .ge_thp_pages = 300000,
                        .reclaimable_pages = 200000 };
}

static inline TWorld t_world_fine(unsigned n_nodes)
{
        TWorld w = { .n_nodes = n_nodes, .rates_valid = true, .fallback_ratio = -1 };

        for (unsigned i = 0; i < n_nodes; i++)
                w.node[i] = t_node_fine();
        return w;
}

static inline void t_assess(const TWorld *w, usec_t now, Assessment *a)
{
        uint64_t total_managed = 0, pages_min = 67584 * 1024 / T_PAGE;

        memset(a, 0, sizeof(*a));
        a->now_usec = now;
        a->page_size = T_PAGE;
        a->n_orders = 11;
        a->hpage_order = 9;
        a->pageblock_order = 9;
        a->proactiveness = -1;
        for (unsigned i = 0; i < w->n_nodes; i++)
                total_managed += w->node[i].managed_pages ? w->node[i].managed_pages : T_MANAGED;
        a->n_nodes = a->n_zones = w->n_nodes;
        for (unsigned i = 0; i < w->n_nodes; i++) {
                const TNode *t = &w->node[i];
                NodeMeasures *n = &a->nodes[i];
                ZoneMeasures *z = &a->zones[i];
                uint64_t managed = t->managed_pages ? t->managed_pages : T_MANAGED;
                uint64_t min = pages_min * managed / total_managed;
                uint64_t gap = MAX(min / 4, managed * 10 / 10000);
                uint64_t ge_large = MIN(t->ge_large_pages, t->free_pages);
                uint64_t ge_thp = MIN(t->ge_thp_pages, ge_large);

                n->node = (int) i;
                n->zone_first = i;
                n->n_zones = 1;
                n->free_pages = t->free_pages;
                for (unsigned k = 0; k < 11; k++)
                        n->free_pages_ge[k] = k == 0 ? t->free_pages : k <= 4 ? ge_large : k <= 9 ? ge_thp : ge_thp / 2;
                n->present_pages = n->managed_pages = managed;
                n->frag_score = t->free_pages ? (unsigned) (100 - ge_thp * 100 / t->free_pages) : 0;
                if (t->score || t->score_set)
                        n->frag_score = t->score; /* the kernel weighs zones by present pages */
                n->reclaimable_pages = t->reclaimable_pages;
                n->have_reclaimable = !t->reclaimable_unknown;
                n->wmark_min = min;
                n->wmark_low = min + gap;
                n->wmark_high = min + 2 * gap;
                n->polluted_blocks_permille = -1;
                n->thp_grown_valid = t->thp_grown_valid;
                n->thp_grown = t->thp_grown;

                z->node = (int) i;
                strcpy(z->zone, "Normal");
                z->have_zoneinfo = true;
                z->free_pages = t->free_pages;
                memcpy(z->free_pages_ge, n->free_pages_ge, sizeof(z->free_pages_ge));
                z->score = n->frag_score;
                z->present = z->managed = managed;
                z->wmark_min = n->wmark_min;
                z->wmark_low = n->wmark_low;
                z->wmark_high = n->wmark_high;
        }
        a->score_wmark_low = 80;
        a->score_wmark_high = 90;
        a->thp_defrag = w->thp_defrag_plus1 - 1;
        a->psi_some_avg10_permyriad = w->psi_some;
        a->psi_full_avg10_permyriad = w->psi_full;
        a->rates.valid = w->rates_valid;
        a->rates.interval_sec = w->interval_sec > 0 ? w->interval_sec : 5;
        a->rates.allocstall = w->allocstall_per_sec;
        a->pollution.blocks_usec = w->blocks_usec;
        a->pollution.nonmovable_blocks = w->nonmovable_blocks;
        a->pollution.blocks_total = w->blocks_total;
        a->pollution.extfrag_valid = w->extfrag;
        a->pollution.extfrag_interval_sec = w->extfrag ? a->rates.interval_sec : 0;
        a->pollution.extfrag_polluting = w->polluting;
        a->rates.compact_stall = w->stall_per_sec;
        a->rates.pgscan_kswapd = w->kswapd_scan_per_sec;
        a->rates.thp_fallback_ratio = w->fallback_ratio;
        a->rates.compact_migrate_scanned = w->scan_pages_per_sec;
        a->rates.thp_fault_alloc = w->thp_alloc_per_sec;
        a->rates.thp_fault_fallback = w->thp_fallback_per_sec;
        a->rates.psi_some = w->psi_some / 10000.0;
        a->rates.psi_full = w->psi_full / 10000.0;
        a->n_workloads = MIN(w->n_workloads, 4u);
        memcpy(a->workloads, w->workloads, sizeof(w->workloads));
        a->unmeasured = w->unmeasured;
}

/* A watched workload's last minute, as daemon/workload/workload.c reports it. */
static inline WorkloadStall t_workload(const char *name, uint64_t compact_ms, uint64_t reclaim_ms,
                                       uint64_t budget_ms)
{
        WorkloadStall w = { .compact_usec = compact_ms * 1000, .reclaim_usec = reclaim_ms * 1000,
                            .compact_count = compact_ms / 20, .span_usec = 60 * USEC_PER_SEC,
                            .budget_usec = budget_ms * 1000 };

        snprintf(w.name, sizeof(w.name), "%s", name);
        w.over_budget = w.budget_usec > 0 && w.compact_usec + w.reclaim_usec > w.budget_usec;
        return w;
}

/* The daemon's loop without the kernel: decide, apply every item, update. */
typedef struct TSim {
        PolicyConfig cfg;
        PolicyState state;
        LeverInput in[_LEVER_MAX];
        usec_t now;
        Assessment a;
        Decision d;
        /* the kernel clamps a lever to this value when >= 0 */
        int64_t clamp_max[_LEVER_MAX];
} TSim;

static inline void t_sim_init(TSim *s)
{
        memset(s, 0, sizeof(*s));
        t_config(&s->cfg);
        policy_state_init(&s->state);
        t_levers(s->in);
        s->now = 1000 * USEC_PER_SEC;
        for (unsigned l = 0; l < _LEVER_MAX; l++)
                s->clamp_max[l] = -1;
}

/* One tick of `step` seconds; returns the decision. */
/* One decision on s->a as it stands (a test may change the assessment
 * t_assess() made): decide, apply what applies, update the state. */
static inline const Decision *t_sim_decide_apply(TSim *s)
{
        int r;

        r = policy_decide(&s->cfg, &s->state, &s->a, s->in, s->now, &s->d);
        if (r < 0)
                abort();
        if (s->d.apply)
                for (unsigned i = 0; i < s->d.n_items; i++) {
                        DecisionItem *it = &s->d.items[i];
                        int64_t v = it->to;

                        if (it->kind != DECISION_LEVER) {
                                decision_mark_applied(&s->d, i, 0);
                                continue;
                        }
                        decision_mark_applied(&s->d, i, v);
                        if (s->clamp_max[it->lever] >= 0 && v > s->clamp_max[it->lever])
                                v = s->clamp_max[it->lever]; /* the kernel keeps less: seen next tick */
                        s->in[it->lever].current = v;
                }
        policy_state_update(&s->state, &s->a, &s->d, s->now);
        return &s->d;
}

static inline const Decision *t_sim_tick(TSim *s, const TWorld *w, unsigned step_sec)
{
        s->now += step_sec * USEC_PER_SEC;
        t_assess(w, s->now, &s->a);
        return t_sim_decide_apply(s);
}

static inline const DecisionItem *t_find(const Decision *d, DecisionKind kind, Lever l)
{
        for (unsigned i = 0; i < d->n_items; i++)
                if (d->items[i].kind == kind && (kind != DECISION_LEVER || d->items[i].lever == l))
                        return &d->items[i];
        return NULL;
}

static inline const DecisionItem *t_find_reason(const Decision *d, Lever l, PolicyReason r)
{
        for (unsigned i = 0; i < d->n_items; i++)
                if (d->items[i].kind == DECISION_LEVER && d->items[i].lever == l && d->items[i].reason == r)
                        return &d->items[i];
        return NULL;
}

static inline const PolicyHeldItem *t_find_held(const Decision *d, Lever l)
{
        for (unsigned i = 0; i < d->n_held; i++)
                if (d->held[i].lever == l)
                        return &d->held[i];
        return NULL;
}

static inline bool t_any_raise(const Decision *d)
{
        for (unsigned i = 0; i < d->n_items; i++)
                if (d->items[i].kind == DECISION_COMPACT_NODE ||
                    (d->items[i].lever != LEVER_THP_DEFRAG && d->items[i].to > d->items[i].from))
                        return true;
        return false;
}

/* The safety envelope worked out by hand for one node of T_MANAGED pages in
 * one lowmem zone (KERNEL.md §3: min = min_free_kbytes in pages, gap =
 * max(min / 4, managed x wsf / 10000), low = min + gap): low plus the
 * headroom (a share of the node) must fit in free + reclaimable. Written
 * out here so that tests do not take policy/envelope.c as their oracle. */
static inline bool t_envelope_by_hand(int64_t min_free_kbytes, int64_t wsf, uint64_t avail_pages,
                                      uint32_t headroom_permyriad)
{
        uint64_t min = (uint64_t) min_free_kbytes * 1024 / T_PAGE;
        uint64_t gap = (uint64_t) T_MANAGED * (uint64_t) wsf / 10000;
        uint64_t headroom = (uint64_t) T_MANAGED * T_PAGE * headroom_permyriad / 10000;

        if (gap < min / 4)
                gap = min / 4;
        return (min + gap) * T_PAGE + headroom <= avail_pages * T_PAGE;
}
