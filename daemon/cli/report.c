/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The one-shot report (`fragd --once`): text for a person, JSON for tools. */

#include <inttypes.h>
#include <string.h>
#include <time.h>

#include "cli/report.h"
#include "core/json.h"
#include "sources/observe.h"
#include "sources/sources.h"

uint64_t report_reserve_bytes(const SizeSpec *s, uint64_t node_bytes)
{
        if (s->bytes)
                return s->bytes;
        return node_bytes / 10000 * s->permyriad;
}

static uint64_t pages_to_bytes(const ReportInput *in, uint64_t pages)
{
        return pages * (in->a->page_size ? in->a->page_size : 4096);
}

/* node memory for % targets: present pages (what the zones hold) */
static uint64_t node_bytes(const ReportInput *in, const NodeMeasures *n)
{
        uint64_t pages = n->managed_pages ? n->managed_pages : n->present_pages;
        return pages_to_bytes(in, pages);
}

static unsigned report_missing(const ReportInput *in)
{
        return observation_missing(in->cur, in->obs_mask ? in->obs_mask : OBS_ALL);
}

/* A node's size and targets are measured when zoneinfo described each of
 * its zones: without it the node's memory is unknown (0), and a target
 * taken from it would read "0 B: met". */
static bool node_measured(const ReportInput *in, const NodeMeasures *n)
{
        if (n->n_zones == 0)
                return false;
        for (unsigned z = n->zone_first; z < n->zone_first + n->n_zones; z++)
                if (!in->a->zones[z].have_zoneinfo)
                        return false;
        return true;
}

/* "zoneinfo unreadable (...)" or "no zoneinfo for this node" */
static const char *unmeasured_why(const ReportInput *in, char *buf, size_t size)
{
        if (!(in->cur->have & OBS_MASK(OBS_ZONEINFO)))
                return obs_source_missing_why(in->cur, OBS_ZONEINFO, buf, size);
        snprintf(buf, size, "zoneinfo does not list every zone of this node");
        return buf;
}

static unsigned order_thp(const ReportInput *in)
{
        if (in->policy && in->policy->order_thp)
                return in->policy->order_thp;
        return in->a->hpage_order;
}

/* the large-folio objective's order: the page cache's order when the
 * page-cache signal gave one, else order_large */
static unsigned order_large(const ReportInput *in)
{
        if (in->eval && in->eval->pagecache_order > 0)
                return in->eval->pagecache_order;
        return in->policy ? in->policy->order_large : 4;
}

static const PolicyNodeEval *eval_node(const ReportInput *in, int node)
{
        if (!in->eval)
                return NULL;
        for (unsigned i = 0; i < in->eval->n_nodes && i < FRAGD_MAX_NODES; i++)
                if (in->eval->nodes[i].node == node)
                        return &in->eval->nodes[i];
        return NULL;
}

/* Whether the configured reserve of target k (0 large, 1 THP) stands:
 * the decision's gate (policy_reserve_gate()), yes without a decision. */
static bool reserve_kept(const ReportInput *in, unsigned k)
{
        return !in->eval || in->eval->reserve_wanted[k];
}

/* The order_thp target of a node: the decision's (the learned reserve may
 * raise it, the demand gate may leave only it), else the configured
 * reserve_thp (in->policy is set). */
static uint64_t thp_target(const ReportInput *in, const NodeMeasures *n, bool *ret_learned)
{
        const PolicyNodeEval *ne = eval_node(in, n->node);

        *ret_learned = ne && ne->learned;
        if (ne)
                return ne->target_bytes[1];
        return report_reserve_bytes(&in->policy->reserve_thp, node_bytes(in, n));
}

/* The large-folio target: the policy's, which the page-cache need may
 * raise above reserve_large; *ret_pagecache says it did. */
static uint64_t large_target(const ReportInput *in, const NodeMeasures *n, bool *ret_pagecache)
{
        const PolicyNodeEval *ne = eval_node(in, n->node);
        uint64_t configured = report_reserve_bytes(&in->policy->reserve_large, node_bytes(in, n));

        *ret_pagecache = ne && ne->target_bytes[0] > (reserve_kept(in, 0) ? configured : 0) &&
                         in->eval->pagecache_need_bytes > 0;
        return ne ? ne->target_bytes[0] : configured;
}

/* " (reserve_thp 82 MiB waits for a fallback or stall)" when the gate left the
 * configured reserve out, else "" */
static const char *gated_clause(const ReportInput *in, const NodeMeasures *n, unsigned k, char *buf,
                                size_t size)
{
        char b[32];

        if (reserve_kept(in, k))
                return "";
        snprintf(buf, size, " (%s %s waits for a fallback or stall)", k ? "reserve_thp" : "reserve_large",
                 format_bytes(b, sizeof(b),
                              report_reserve_bytes(k ? &in->policy->reserve_thp : &in->policy->reserve_large,
                                                   node_bytes(in, n))));
        return buf;
}

static bool learned_shown(const ReportInput *in)
{
        return in->learned && in->learned->result != LEARNED_LOAD_NONE &&
               in->learned->result != LEARNED_LOAD_NOT_KEPT;
}

static void bar(FILE *f, double share, unsigned width)
{
        unsigned n = (unsigned) (share * width + 0.5);

        if (share > 0 && n == 0)
                n = 1;
        for (unsigned i = 0; i < width; i++)
                fputs(i < n ? "#" : ".", f);
}

static const char *knob_str(const Observation *o, VmKnob k, char *buf, size_t size)
{
        if (!(o->have & OBS_MASK(OBS_SYSCTL)) || !o->vm.present[k])
                return "(absent)";
        snprintf(buf, size, "%" PRId64, o->vm.value[k]);
        return buf;
}

static void text_zone(FILE *f, const ReportInput *in, const ZoneMeasures *z, unsigned n_orders)
{
        char b1[32], b2[32], b3[32], b4[32];
        uint64_t max = 0;

        fprintf(f, "  zone %-8s free %s", z->zone, format_bytes(b1, sizeof(b1), pages_to_bytes(in, z->free_pages)));
        if (z->have_zoneinfo)
                fprintf(f, "   watermarks min/low/high %s/%s/%s%s   headroom above high %s%s\n",
                        format_bytes(b2, sizeof(b2), pages_to_bytes(in, z->wmark_min)),
                        format_bytes(b3, sizeof(b3), pages_to_bytes(in, z->wmark_low)),
                        format_bytes(b4, sizeof(b4), pages_to_bytes(in, z->wmark_high)),
                        z->boost ? " (boosted)" : "", z->headroom_pages < 0 ? "-" : "",
                        format_bytes(b1, sizeof(b1),
                                     pages_to_bytes(in, (uint64_t) (z->headroom_pages < 0 ? -z->headroom_pages
                                                                                           : z->headroom_pages))));
        else
                fputc('\n', f);
        if (z->free_pages == 0)
                return;
        for (unsigned k = 0; k < n_orders; k++) {
                uint64_t at = z->free_pages_ge[k] - (k + 1 < n_orders ? z->free_pages_ge[k + 1] : 0);
                if (at > max)
                        max = at;
        }
        fprintf(f, "    order  free in blocks of this order    in blocks >= order  unusable  frag.index\n");
        for (unsigned k = 0; k < n_orders; k++) {
                uint64_t at = z->free_pages_ge[k] - (k + 1 < n_orders ? z->free_pages_ge[k + 1] : 0);
                int32_t fi = z->frag_index_permille[k];

                fprintf(f, "    %5u  ", k);
                bar(f, max ? (double) at / (double) max : 0, 24);
                fprintf(f, " %9s  %9s %5.1f%%    %5.3f     ", format_bytes(b1, sizeof(b1), pages_to_bytes(in, at)),
                        format_bytes(b2, sizeof(b2), pages_to_bytes(in, z->free_pages_ge[k])),
                        100.0 * (double) z->free_pages_ge[k] / (double) z->free_pages,
                        z->unusable_permille[k] / 1000.0);
                if (fi == FRAG_INDEX_SUITABLE)
                        fputs("  -1 (free)\n", f);
                else
                        fprintf(f, "%5.3f\n", fi / 1000.0);
        }
}

/* A node's free memory in blocks >= order_thp and >= order_large (got) and
 * the targets for them (want; 0 without in->policy). Returns false when the
 * node is not measured (no target can be met or missed). */
static bool node_targets(const ReportInput *in, const NodeMeasures *n, uint64_t got[2], uint64_t want[2],
                         bool *ret_learned, bool *ret_pagecache)
{
        unsigned ot = order_thp(in), ol = order_large(in);

        got[0] = ot < FRAGD_MAX_ORDERS ? pages_to_bytes(in, n->free_pages_ge[ot]) : 0;
        got[1] = ol < FRAGD_MAX_ORDERS ? pages_to_bytes(in, n->free_pages_ge[ol]) : 0;
        want[0] = want[1] = 0;
        *ret_learned = *ret_pagecache = false;
        if (!in->policy || !node_measured(in, n))
                return false;
        want[0] = thp_target(in, n, ret_learned);
        want[1] = large_target(in, n, ret_pagecache);
        return true;
}

static double share_pct(uint64_t part, uint64_t whole)
{
        return whole ? 100.0 * (double) part / (double) whole : 0.0;
}

static void text_node(FILE *f, const ReportInput *in, const NodeMeasures *n)
{
        const Assessment *a = in->a;
        unsigned ot = order_thp(in), ol = order_large(in);
        char b1[32], b2[32], b3[32], b4[32];
        uint64_t free_b = pages_to_bytes(in, n->free_pages), got[2], want[2];
        bool learned, pc;
        bool measured = node_targets(in, n, got, want, &learned, &pc);
        char why[128];

        if (node_measured(in, n))
                fprintf(f, "\nNode %d: %s free of %s, fragmentation score %u/100\n", n->node,
                        format_bytes(b1, sizeof(b1), free_b), format_bytes(b2, sizeof(b2), node_bytes(in, n)),
                        n->frag_score);
        else
                fprintf(f, "\nNode %d: %s free, node size not measured (%s), fragmentation score %u/100\n",
                        n->node, format_bytes(b1, sizeof(b1), free_b), unmeasured_why(in, why, sizeof(why)),
                        n->frag_score);

        fprintf(f, "  order-%u (THP): %s free in blocks >= order %u, %.0f%% of free memory usable",
                ot, format_bytes(b1, sizeof(b1), got[0]), ot, share_pct(got[0], free_b));
        if (in->policy && !measured)
                fprintf(f, "; target not measured: %s\n", unmeasured_why(in, why, sizeof(why)));
        else if (in->policy) {
                fprintf(f, "; target %s", format_bytes(b3, sizeof(b3), want[0]));
                if (learned)
                        fprintf(f, " (learned reserve; reserve_thp %s)",
                                format_bytes(b4, sizeof(b4),
                                             report_reserve_bytes(&in->policy->reserve_thp, node_bytes(in, n))));
                fprintf(f, "%s: %s\n", gated_clause(in, n, 1, why, sizeof(why)),
                        got[0] >= want[0] ? "met" : "MISSED");
        } else
                fputc('\n', f);
        fprintf(f, "  order-%u (large folios): %s free in blocks >= order %u, %.0f%% of free memory usable",
                ol, format_bytes(b1, sizeof(b1), got[1]), ol, share_pct(got[1], free_b));
        if (in->policy && !measured)
                fprintf(f, "; target not measured: %s\n", unmeasured_why(in, why, sizeof(why)));
        else if (in->policy)
                fprintf(f, "; target %s%s%s: %s\n", format_bytes(b3, sizeof(b3), want[1]),
                        pc ? " (page-cache demand)" : "", gated_clause(in, n, 0, why, sizeof(why)),
                        got[1] >= want[1] ? "met" : "MISSED");
        else
                fputc('\n', f);
        if (a->proactiveness < 0)
                fprintf(f, "  kernel proactive compaction: unknown (compaction_proactiveness not readable)\n");
        else if (a->proactiveness == 0)
                fprintf(f, "  kernel proactive compaction: off (compaction_proactiveness=0)\n");
        else if (n->frag_score > a->score_wmark_high)
                fprintf(f, "  kernel proactive compaction would start: score %u > %u (proactiveness %d), "
                           "and run until below %u\n",
                        n->frag_score, a->score_wmark_high, a->proactiveness, a->score_wmark_low);
        else
                fprintf(f, "  kernel proactive compaction would not start: score %u <= %u (proactiveness %d)\n",
                        n->frag_score, a->score_wmark_high, a->proactiveness);
        if (n->polluted_blocks_permille >= 0)
                fprintf(f, "  pageblocks: %.1f%% of %" PRIu64 " blocks are not Movable (unmovable/reclaimable "
                           "pollution limits what compaction can recover)\n",
                        n->polluted_blocks_permille / 10.0, n->blocks_total);
        fprintf(f, "  reclaimable (file LRU + slab): %s; watermark boost %s\n",
                format_bytes(b3, sizeof(b3), pages_to_bytes(in, n->reclaimable_pages)),
                format_bytes(b4, sizeof(b4), pages_to_bytes(in, n->boost)));
        if (in->verbose)
                for (unsigned z = n->zone_first; z < n->zone_first + n->n_zones; z++)
                        text_zone(f, in, &a->zones[z], a->n_orders);
}

static void text_rates(FILE *f, const Rates *r)
{
        fprintf(f, "\nRates over %.1f s:\n", r->interval_sec);
        fprintf(f, "  direct compaction: %.2f stalls/s (%.2f success/s, %.2f fail/s); pages scanned %.0f/s "
                   "(kcompactd %.0f/s)\n",
                r->compact_stall, r->compact_success, r->compact_fail,
                r->compact_migrate_scanned + r->compact_free_scanned, r->compact_daemon_scanned);
        if (r->thp_fallback_ratio >= 0)
                fprintf(f, "  THP faults: %.1f/s, fallback ratio %.1f%%\n", r->thp_fault_alloc + r->thp_fault_fallback,
                        100 * r->thp_fallback_ratio);
        else
                fprintf(f, "  THP faults: none\n");
        for (unsigned i = 0; i < r->n_mthp; i++)
                if (r->mthp_fallback_ratio[i] >= 0)
                        fprintf(f, "  mTHP %u kB: fallback ratio %.1f%%\n", r->mthp_size_kb[i],
                                100 * r->mthp_fallback_ratio[i]);
        fprintf(f, "  direct reclaim: %.2f entries/s, %.0f pages scanned/s\n", r->allocstall, r->pgscan_direct);
        fprintf(f, "  PSI memory: %.2f%% some, %.2f%% full of wall time\n", 100 * r->psi_some, 100 * r->psi_full);
}

/* "Page cache (the daemon's trace instance): order 6 holds 64.7% of the
 * bytes added ...", one line per order with bytes */
static void text_pagecache(FILE *f, const ReportInput *in)
{
        const PageCacheMeasures *m = &in->a->pagecache;
        const PolicyEval *e = in->eval;
        char b[32];

        if (!m->valid) {
                if (in->cur->err[OBS_PAGECACHE] == -ENOENT)
                        fprintf(f, "\nPage cache: not measured (no running fragd daemon's trace instance "
                                   "'/sys/kernel/tracing/instances/fragd'): free blocks are kept for order_large\n");
                return;
        }
        fprintf(f, "\nPage cache, folios added since the daemon set up its trace instance:\n");
        for (unsigned k = 0; k < in->cur->pagecache.n_orders && k < FRAGD_MAX_ORDERS; k++)
                if (m->bytes_total[k] > 0)
                        fprintf(f, "  order %2u: %s (%" PRIu64 " folios)\n", k,
                                format_bytes(b, sizeof(b), m->bytes_total[k]), in->cur->pagecache.folios[k]);
        if (e && e->pagecache_order > 0 && e->pagecache_order_failed)
                fprintf(f, "  the page cache asks at order %u: most of the watched workload's failed allocations "
                           "at an order the page cache uses were there; %.1f%% of the bytes added are in folios of "
                           "that order or larger; free blocks are kept for it instead of order_large\n",
                        e->pagecache_order, e->pagecache_share_permyriad / 100.0);
        else if (e && e->pagecache_order > 0)
                fprintf(f, "  the page cache uses order %u: %.1f%% of the bytes added are in folios of that order "
                           "or larger; free blocks are kept for it instead of order_large\n",
                        e->pagecache_order, e->pagecache_share_permyriad / 100.0);
        else
                fprintf(f, "  no order above 0 holds 10%% of the large-folio bytes (or less than 4 MiB were "
                           "added in large folios): free blocks are kept for order_large\n");
        if (e && e->pagecache_burst_bytes > 0)
                fprintf(f, "  added in large folios within the burst window: %s\n",
                        format_bytes(b, sizeof(b), e->pagecache_burst_bytes));
}

/* "Learned reserve from the previous run: 512 MiB burst seen 4 min ago
 * (/var/lib/fragd/learned), kept ready for 26 min more, then halved every
 * 30 min", or why the file was not used */
static void text_learned(FILE *f, const ReportInput *in)
{
        const LearnedLoad *l = in->learned;
        const char *file = in->learned_file ? in->learned_file : "?";
        usec_t decay = in->policy ? in->policy->demand_decay_usec : 0;
        char b1[32], b2[32], d1[32], d2[32], why[320];

        if (!learned_shown(in))
                return;
        fprintf(f, "\nLearned reserve from the previous run: ");
        switch (l->result) {
        case LEARNED_LOAD_OK:
                fprintf(f, "%s burst seen %s ago (%s), ", format_bytes(b1, sizeof(b1), l->restore.peak_bytes),
                        format_duration(d1, sizeof(d1), l->age_usec), file);
                if (l->restore.hold_left_usec > 0)
                        fprintf(f, "kept ready for %s more, then %s%s\n",
                                format_duration(d1, sizeof(d1), l->restore.hold_left_usec),
                                decay > 0 ? "halved every " : "dropped",
                                decay > 0 ? format_duration(d2, sizeof(d2), decay) : "");
                else
                        fprintf(f, "decayed to %s kept ready now, halved every %s\n",
                                format_bytes(b2, sizeof(b2), l->restore.need_bytes),
                                format_duration(d2, sizeof(d2), decay));
                break;
        case LEARNED_LOAD_LEARNING_OFF:
        case LEARNED_LOAD_DECAYED:
                fprintf(f, "%s burst seen %s ago (%s), not used: %s\n",
                        format_bytes(b1, sizeof(b1), l->file.peak_bytes), format_duration(d1, sizeof(d1), l->age_usec),
                        file, l->why);
                break;
        default:
                fprintf(f, "ignored: '%s' %s\n", file, learned_load_explain(l, why, sizeof(why)));
                return;
        }
        if (l->future_usec > 0)
                fprintf(f, "  (its time was %s in the future, was the clock set back? Counted as seen just now)\n",
                        format_duration(d1, sizeof(d1), l->future_usec));
}

/* The THP targets the seed set, summed over the nodes it set them on: at
 * most demand_cap of each node, so less than the seed on a host whose
 * counters say more than a quarter of its memory; 0: none known */
static uint64_t boot_targets_bytes(const ReportInput *in)
{
        uint64_t sum = 0;

        if (!in->eval)
                return 0;
        for (unsigned i = 0; i < in->eval->n_nodes && i < FRAGD_MAX_NODES; i++)
                if (in->eval->nodes[i].learned)
                        sum += in->eval->nodes[i].target_bytes[1];
        return sum;
}

/* "First reserve from boot history: 768 THP faults (68 fell back) in 3 min
 * since boot: 512 MiB, ...; kept ready for 30 min, then halved every
 * 30 min", or why there is none; "; the nodes' THP targets hold 256 MiB of
 * it (demand_cap)" when the cap cut it */
static void text_boot(FILE *f, const ReportInput *in)
{
        const BootFirst *bf = in->boot;
        usec_t hold = in->policy ? in->policy->demand_hold_usec : 0, decay = in->policy ? in->policy->demand_decay_usec : 0;
        char text[320], d1[32], d2[32];

        if (!bf || !bf->asked)
                return;
        fprintf(f, "\nFirst reserve from boot history (no learned burst): ");
        if (bf->read < 0)
                fprintf(f, "none: %s\n", bf->why);
        else if (bf->res != LEARNED_RESTORE_OK)
                fprintf(f, "%s\n", boot_history_explain(&bf->b, NULL, text, sizeof(text)));
        else {
                uint64_t held = boot_targets_bytes(in);

                fprintf(f, "%s; kept ready for %s, then %s%s", boot_history_explain(&bf->b, &bf->lr, text, sizeof(text)),
                        format_duration(d1, sizeof(d1), hold), decay > 0 ? "halved every " : "dropped",
                        decay > 0 ? format_duration(d2, sizeof(d2), decay) : "");
                /* the shares round down by a few bytes: only a cut by the cap */
                if (held > 0 && held < bf->lr.peak_bytes - bf->lr.peak_bytes / 100)
                        fprintf(f, "; the nodes' THP targets hold %s of it (at most demand_cap of a node)",
                                format_bytes(d1, sizeof(d1), held));
                fputc('\n', f);
        }
}

/* The node whose free memory is most in blocks below order_thp, among
 * those with free memory; NULL when none has half or more of it there. */
static const NodeMeasures *most_fragmented(const ReportInput *in)
{
        const NodeMeasures *worst = NULL;
        double worst_pct = 50.0;

        for (unsigned i = 0; i < in->a->n_nodes; i++) {
                const NodeMeasures *n = &in->a->nodes[i];
                uint64_t free_b = pages_to_bytes(in, n->free_pages), got[2], want[2];
                bool l, pc;
                double low;

                (void) node_targets(in, n, got, want, &l, &pc);
                low = 100.0 - share_pct(got[0], free_b);
                if (free_b > 0 && low >= worst_pct) {
                        worst = n;
                        worst_pct = low;
                }
        }
        return worst;
}

/* The first measured node that misses a target (*ret_which: 0 THP, 1 large
 * folios), NULL when every measured node meets both. */
static const NodeMeasures *first_missed(const ReportInput *in, unsigned *ret_which, uint64_t got[2],
                                        uint64_t want[2])
{
        for (unsigned i = 0; i < in->a->n_nodes; i++) {
                const NodeMeasures *n = &in->a->nodes[i];
                bool l, pc;

                if (!node_targets(in, n, got, want, &l, &pc))
                        continue;
                for (unsigned w = 0; w < 2; w++)
                        if (got[w] < want[w]) {
                                *ret_which = w;
                                return n;
                        }
        }
        return NULL;
}

/* The first lines: what fragd would change and why, or why nothing; on a
 * fragmented host whose targets are met, why that is no contradiction.
 * Then what makes the decisions degraded or a reading untrusted, once. */
static void text_verdict(FILE *f, const ReportInput *in)
{
        unsigned missing = report_missing(in), ot = order_thp(in), ol = order_large(in), which = 0;
        const Observation *o = in->cur;
        const NodeMeasures *n;
        uint64_t got[2], want[2];
        char b1[32], b2[32], why[160], keeps[DECISION_TEXT_MAX];

        if (!in->decisions_known)
                fprintf(f, "Verdict: not decided (the policy did not run)\n");
        else if (in->n_decisions > 0)
                fprintf(f, "Verdict: fragd would make %u change%s:\n", in->n_decisions,
                        in->n_decisions == 1 ? "" : "s");
        else if (in->n_held > 0)
                fprintf(f, "Verdict: no change: fragd would move %u knob%s, but holds:\n", in->n_held,
                        in->n_held == 1 ? "" : "s");
        else if (in->eval && in->eval->keeps_up && decision_explain_keeps_up(in->eval, keeps, sizeof(keeps)) > 0)
                fprintf(f, "Verdict: nothing to change: %s [%s]\n", keeps,
                        policy_reason_name(POLICY_REASON_KERNEL_KEEPS_UP));
        else if (missing)
                fprintf(f, "Verdict: nothing to change on what was measured, but some sources are missing "
                           "(DEGRADED below)\n");
        else if (in->preset && strcmp(in->preset, "observe") == 0)
                fprintf(f, "Verdict: nothing to change: preset observe watches and never moves a knob\n");
        else if ((n = first_missed(in, &which, got, want)))
                fprintf(f, "Verdict: nothing to change on this one reading, though node %d misses its order-%u "
                           "target (%s free in blocks >= order %u, target %s): no lever has a move left for it\n",
                        n->node, which ? ol : ot, format_bytes(b1, sizeof(b1), got[which]), which ? ol : ot,
                        format_bytes(b2, sizeof(b2), want[which]));
        else if (in->policy && !reserve_kept(in, 0) && !reserve_kept(in, 1)) {
                fprintf(f, "Verdict: nothing to change: no fallback or compaction stall seen, so no reserve is "
                           "kept (reserve_thp and reserve_large wait for one; reserve_always = yes keeps them "
                           "regardless)\n");
                n = most_fragmented(in);
                if (n) {
                        bool l, pc;

                        (void) node_targets(in, n, got, want, &l, &pc);
                        fprintf(f, "  Fragmented, and nothing waits: node %d has %.0f%% of its free memory in "
                                   "blocks below order %u (score %u/100); compacting it now would serve no "
                                   "allocation that fell back or stalled\n",
                                n->node, 100.0 - share_pct(got[0], pages_to_bytes(in, n->free_pages)), ot,
                                n->frag_score);
                }
        } else if (in->policy) {
                fprintf(f, "Verdict: nothing to change: the kernel keeps up, %s meets its targets "
                           "(free memory in blocks >= order %u for THP, >= order %u for large folios)\n",
                        in->a->n_nodes == 1 ? "the node" : "every node", ot, ol);
                n = most_fragmented(in);
                if (n) {
                        uint64_t free_b = pages_to_bytes(in, n->free_pages);
                        bool l, pc;

                        (void) node_targets(in, n, got, want, &l, &pc);
                        fprintf(f, "  Fragmented, yet met: node %d has %.0f%% of its free memory in blocks below "
                                   "order %u (score %u/100), but its %s in blocks >= order %u still meet the %s "
                                   "reserve; no target needs the rest in high orders%s\n",
                                n->node, 100.0 - share_pct(got[0], free_b), ot, n->frag_score,
                                format_bytes(b1, sizeof(b1), got[0]), ot, format_bytes(b2, sizeof(b2), want[0]),
                                in->a->n_nodes > 1 ? " (every node likewise)" : "");
                }
        } else
                fprintf(f, "Verdict: nothing to change\n");
        for (unsigned i = 0; i < in->n_decisions; i++)
                fprintf(f, "  %s [%s]\n", in->decisions[i].explanation, in->decisions[i].reason);
        for (unsigned i = 0; i < in->n_held; i++)
                fprintf(f, "  %s [held: %s]\n", in->held[i].explanation, in->held[i].reason);

        if (missing)
                fprintf(f, "DEGRADED: decisions are made without these sources:\n");
        for (unsigned s = 0; s < _OBS_SOURCE_MAX; s++)
                if (missing & OBS_MASK(s))
                        fprintf(f, "  %s: %s\n", obs_source_missing_why(o, (ObsSource) s, why, sizeof(why)),
                                obs_source_impact((ObsSource) s));
        if (o->n_problems)
                fprintf(f, "Readings fragd does not trust:\n");
        for (unsigned i = 0; i < o->n_problems; i++)
                fprintf(f, "  %s\n", o->problems[i]);
}

int report_text(FILE *f, const ReportInput *in)
{
        const Observation *o = in->cur;
        const Assessment *a = in->a;
        unsigned missing = report_missing(in);
        char b1[32], t[64];
        time_t now = time(NULL);
        struct tm tm;

        strftime(t, sizeof(t), "%Y-%m-%d %H:%M:%S %Z", localtime_r(&now, &tm));
        fprintf(f, "fragd %s: one-shot report for %s (%s)%s%s%s\n", in->version, in->root_path, t,
                in->preset ? ", preset " : "", in->preset ? in->preset : "",
                in->dry_run ? ", dry run: nothing was written" : "");
        text_verdict(f, in);

        fprintf(f, "\nEvidence:\n");
        if (in->instance)
                fprintf(f, "instance: %s (from %s)%s%s%s%s\n", in->instance->name, in->instance->source,
                        in->instance->cloud ? ", cloud " : "", in->instance->cloud ? in->instance->cloud : "",
                        in->instance->fleet_file ? ", fleet file " : ", no fleet file applied",
                        in->instance->fleet_file ? in->instance->fleet_file : "");
        fprintf(f, "memory: page size %s, %u orders (0..%u), THP order %u (%s), pageblock order %u%s\n",
                format_bytes(b1, sizeof(b1), a->page_size), a->n_orders, a->n_orders ? a->n_orders - 1 : 0,
                a->hpage_order, format_bytes(t, sizeof(t), (uint64_t) a->page_size << a->hpage_order),
                a->pageblock_order, o->pagetype_usec ? "" : " (assumed: pagetypeinfo not read)");
        if (o->have & OBS_MASK(OBS_THP)) {
                fprintf(f, "THP: enabled=%s defrag=%s shmem=%s", o->thp.enabled, o->thp.defrag,
                        o->thp.shmem_enabled[0] ? o->thp.shmem_enabled : "?");
                if (o->thp.n_sizes) {
                        fputs("; mTHP", f);
                        for (unsigned i = 0; i < o->thp.n_sizes; i++)
                                if (o->thp.sizes[i].enabled[0])
                                        fprintf(f, " %ukB=%s", o->thp.sizes[i].size_kb, o->thp.sizes[i].enabled);
                }
                fputc('\n', f);
        } else if (!(missing & OBS_MASK(OBS_THP)))
                fprintf(f, "THP: not available (%s)\n", strerror(-o->err[OBS_THP]));
        if (o->have & OBS_MASK(OBS_PSI_MEMORY))
                fprintf(f, "PSI memory: some avg10 %.2f%% avg60 %.2f%%, full avg10 %.2f%% avg60 %.2f%%\n",
                        o->psi_memory.some.avg10_permyriad / 100.0, o->psi_memory.some.avg60_permyriad / 100.0,
                        o->psi_memory.full.avg10_permyriad / 100.0, o->psi_memory.full.avg60_permyriad / 100.0);
        else if (!(missing & OBS_MASK(OBS_PSI_MEMORY)))
                fprintf(f, "PSI memory: not available (%s; boot with psi=1)\n", strerror(-o->err[OBS_PSI_MEMORY]));

        for (unsigned i = 0; i < a->n_nodes; i++)
                text_node(f, in, &a->nodes[i]);
        if (!in->verbose && a->n_nodes > 0)
                fprintf(f, "  (free memory by order in each zone, watermarks: fragd --once --verbose)\n");
        if (a->rates.valid)
                text_rates(f, &a->rates);
        text_pagecache(f, in);

        fprintf(f, "\nKnobs:");
        for (unsigned k = 0; k < _VM_KNOB_MAX; k++)
                fprintf(f, "%s vm.%s=%s", k % 3 == 0 ? "\n " : "", vm_knob_name((VmKnob) k),
                        knob_str(o, (VmKnob) k, b1, sizeof(b1)));
        fputc('\n', f);

        /* the sources not read that are not under DEGRADED already */
        {
                unsigned other = 0;

                fprintf(f, "\nSources:");
                for (unsigned s = 0; s < _OBS_SOURCE_MAX; s++) {
                        if (o->err[s] == 0)
                                continue;
                        other++;
                        if (missing & OBS_MASK(s))
                                fprintf(f, "\n  %s: under DEGRADED above", obs_source_name(s));
                        else if (o->rejected & OBS_MASK(s))
                                fprintf(f, "\n  %s: rejected as implausible (see above)", obs_source_name(s));
                        else if (s == OBS_PAGETYPEINFO && o->err[s] == -EACCES)
                                fprintf(f, "\n  %s: skipped: needs root (pageblock mix not shown)",
                                        obs_source_name(s));
                        else if (s == OBS_PAGECACHE) {
                                char why[256];

                                fprintf(f, "\n  %s", obs_source_missing_why(o, (ObsSource) s, why, sizeof(why)));
                        }
                        else
                                fprintf(f, "\n  %s: unavailable: %s", obs_source_name(s), strerror(-o->err[s]));
                }
                fprintf(f, other ? "\n  (all other sources read)\n" : " all read\n");
        }

        if (in->cgroups_text) {
                fprintf(f, "\nWatched cgroups:\n");
                for (const char *p = in->cgroups_text; *p;) {
                        size_t l = strcspn(p, "\n");

                        fprintf(f, "  %.*s\n", (int) l, p);
                        p += l + (p[l] == '\n');
                }
        }

        text_learned(f, in);
        text_boot(f, in);
        return ferror(f) ? -EIO : 0;
}

/* ---- JSON ---------------------------------------------------------------- */

static void json_rates(JsonWriter *w, const Rates *r)
{
        json_obj_begin(w);
        json_key(w, "interval_seconds"); json_num(w, r->interval_sec);
        json_key(w, "compact_stall_per_second"); json_num(w, r->compact_stall);
        json_key(w, "compact_success_per_second"); json_num(w, r->compact_success);
        json_key(w, "compact_fail_per_second"); json_num(w, r->compact_fail);
        json_key(w, "compact_scanned_pages_per_second");
        json_num(w, r->compact_migrate_scanned + r->compact_free_scanned);
        json_key(w, "kcompactd_scanned_pages_per_second"); json_num(w, r->compact_daemon_scanned);
        json_key(w, "thp_fault_alloc_per_second"); json_num(w, r->thp_fault_alloc);
        json_key(w, "thp_fault_fallback_per_second"); json_num(w, r->thp_fault_fallback);
        json_key(w, "thp_fallback_ratio");
        if (r->thp_fallback_ratio >= 0)
                json_num(w, r->thp_fallback_ratio);
        else
                json_null(w);
        json_key(w, "mthp_fallback_ratio");
        json_obj_begin(w);
        for (unsigned i = 0; i < r->n_mthp; i++) {
                char k[32];
                snprintf(k, sizeof(k), "%ukB", r->mthp_size_kb[i]);
                json_key(w, k);
                if (r->mthp_fallback_ratio[i] >= 0)
                        json_num(w, r->mthp_fallback_ratio[i]);
                else
                        json_null(w);
        }
        json_obj_end(w);
        json_key(w, "direct_reclaim_per_second"); json_num(w, r->allocstall);
        json_key(w, "pgscan_direct_per_second"); json_num(w, r->pgscan_direct);
        json_key(w, "psi_some_ratio"); json_num(w, r->psi_some);
        json_key(w, "psi_full_ratio"); json_num(w, r->psi_full);
        json_obj_end(w);
}

static void json_zone(JsonWriter *w, const ReportInput *in, const ZoneMeasures *z, const BuddyZone *bz)
{
        unsigned n = in->a->n_orders;

        json_obj_begin(w);
        json_key(w, "zone"); json_str(w, z->zone);
        json_key(w, "free_pages"); json_u64(w, z->free_pages);
        json_key(w, "free_bytes"); json_u64(w, pages_to_bytes(in, z->free_pages));
        json_key(w, "free_blocks");
        json_arr_begin(w);
        for (unsigned k = 0; k < n; k++)
                json_u64(w, bz ? bz->nr_free[k] : 0);
        json_arr_end(w);
        json_key(w, "free_bytes_ge_order");
        json_arr_begin(w);
        for (unsigned k = 0; k < n; k++)
                json_u64(w, pages_to_bytes(in, z->free_pages_ge[k]));
        json_arr_end(w);
        json_key(w, "unusable_index");
        json_arr_begin(w);
        for (unsigned k = 0; k < n; k++)
                json_num(w, z->unusable_permille[k] / 1000.0);
        json_arr_end(w);
        json_key(w, "fragmentation_index");
        json_arr_begin(w);
        for (unsigned k = 0; k < n; k++)
                json_num(w, z->frag_index_permille[k] / 1000.0);
        json_arr_end(w);
        json_key(w, "fragmentation_score"); json_u64(w, z->score);
        json_key(w, "watermarks");
        if (z->have_zoneinfo) {
                json_obj_begin(w);
                json_key(w, "min_pages"); json_u64(w, z->wmark_min);
                json_key(w, "low_pages"); json_u64(w, z->wmark_low);
                json_key(w, "high_pages"); json_u64(w, z->wmark_high);
                json_key(w, "boost_pages"); json_u64(w, z->boost);
                json_key(w, "present_pages"); json_u64(w, z->present);
                json_key(w, "managed_pages"); json_u64(w, z->managed);
                json_key(w, "headroom_pages"); json_i64(w, z->headroom_pages);
                json_obj_end(w);
        } else
                json_null(w);
        json_obj_end(w);
}

/* "learned": what the learned reserve file gave, or null when there is none */
static void json_learned(JsonWriter *w, const ReportInput *in)
{
        const LearnedLoad *l = in->learned;
        char why[320], text[1024];

        json_key(w, "learned");
        if (!learned_shown(in)) {
                json_null(w);
                return;
        }
        json_obj_begin(w);
        json_key(w, "file"); json_str(w, in->learned_file);
        if (l->result == LEARNED_LOAD_OK || l->result == LEARNED_LOAD_NOT_APPLICABLE ||
            l->result == LEARNED_LOAD_LEARNING_OFF || l->result == LEARNED_LOAD_DECAYED) { /* parsed */
                json_key(w, "peak_bytes"); json_u64(w, l->file.peak_bytes);
                json_key(w, "age_seconds"); json_u64(w, l->age_usec / USEC_PER_SEC);
        }
        if (l->result == LEARNED_LOAD_OK) {
                json_key(w, "need_bytes"); json_u64(w, l->restore.need_bytes);
                json_key(w, "hold_left_seconds"); json_u64(w, l->restore.hold_left_usec / USEC_PER_SEC);
        } else {
                json_key(w, "ignored"); json_str(w, learned_load_result_name(l->result));
                snprintf(text, sizeof(text), "'%s' %s", in->learned_file ? in->learned_file : "?",
                         learned_load_explain(l, why, sizeof(why)));
                json_key(w, "explanation"); json_str(w, text);
                if (l->result == LEARNED_LOAD_MALFORMED) {
                        json_key(w, "line");
                        if (l->line > 0) json_u64(w, l->line); else json_null(w);
                }
        }
        json_obj_end(w);
}

/* "boot_history": the first reserve from the counters since boot, or null
 * when it was not asked (a learned file applied, learning off) */
static void json_boot(JsonWriter *w, const ReportInput *in)
{
        const BootFirst *bf = in->boot;
        char text[320];

        json_key(w, "boot_history");
        if (!bf || !bf->asked) {
                json_null(w);
                return;
        }
        json_obj_begin(w);
        if (bf->read < 0) {
                json_key(w, "unavailable"); json_str(w, bf->why);
        } else {
                json_key(w, "thp_faults"); json_u64(w, bf->b.thp_faults);
                json_key(w, "thp_fallbacks"); json_u64(w, bf->b.thp_fallbacks);
                json_key(w, "uptime_seconds"); json_u64(w, bf->b.uptime_usec / USEC_PER_SEC);
                json_key(w, "reserve_bytes");
                if (bf->res == LEARNED_RESTORE_OK)
                        json_u64(w, bf->lr.peak_bytes);
                else
                        json_null(w);
                /* what the nodes' THP targets hold of it (demand_cap) */
                json_key(w, "targets_bytes");
                if (bf->res == LEARNED_RESTORE_OK && boot_targets_bytes(in) > 0)
                        json_u64(w, boot_targets_bytes(in));
                else
                        json_null(w);
                json_key(w, "explanation");
                json_str(w, boot_history_explain(&bf->b, bf->res == LEARNED_RESTORE_OK ? &bf->lr : NULL, text,
                                                 sizeof(text)));
        }
        json_obj_end(w);
}

int report_json(FILE *f, const ReportInput *in)
{
        const Observation *o = in->cur;
        const Assessment *a = in->a;
        JsonWriter w;

        json_init(&w, f, true);
        json_obj_begin(&w);
        json_key(&w, "version"); json_str(&w, in->version);
        json_key(&w, "root"); json_str(&w, in->root_path);
        json_key(&w, "dry_run"); json_bool(&w, in->dry_run);
        json_key(&w, "page_size"); json_u64(&w, a->page_size);
        json_key(&w, "orders"); json_u64(&w, a->n_orders);
        json_key(&w, "hpage_order"); json_u64(&w, a->hpage_order);
        json_key(&w, "pageblock_order"); json_u64(&w, a->pageblock_order);
        json_key(&w, "instance_type");
        if (in->instance) {
                json_obj_begin(&w);
                json_key(&w, "name"); json_str(&w, in->instance->name);
                json_key(&w, "source"); json_str(&w, in->instance->source);
                json_key(&w, "cloud"); json_str(&w, in->instance->cloud);
                json_key(&w, "fleet_file"); json_str(&w, in->instance->fleet_file);
                json_obj_end(&w);
        } else
                json_null(&w);
        json_key(&w, "proactive_compaction");
        json_obj_begin(&w);
        json_key(&w, "proactiveness");
        if (a->proactiveness >= 0) json_i64(&w, a->proactiveness); else json_null(&w);
        json_key(&w, "score_wmark_low"); json_u64(&w, a->score_wmark_low);
        json_key(&w, "score_wmark_high"); json_u64(&w, a->score_wmark_high);
        json_obj_end(&w);

        json_key(&w, "nodes");
        json_arr_begin(&w);
        for (unsigned i = 0; i < a->n_nodes; i++) {
                const NodeMeasures *n = &a->nodes[i];
                bool learned;

                json_obj_begin(&w);
                json_key(&w, "node"); json_i64(&w, n->node);
                json_key(&w, "fragmentation_score"); json_u64(&w, n->frag_score);
                json_key(&w, "free_bytes"); json_u64(&w, pages_to_bytes(in, n->free_pages));
                json_key(&w, "memory_bytes"); json_u64(&w, node_bytes(in, n));
                json_key(&w, "free_bytes_ge_order");
                json_arr_begin(&w);
                for (unsigned k = 0; k < a->n_orders; k++)
                        json_u64(&w, pages_to_bytes(in, n->free_pages_ge[k]));
                json_arr_end(&w);
                json_key(&w, "reclaimable_bytes"); json_u64(&w, pages_to_bytes(in, n->reclaimable_pages));
                json_key(&w, "polluted_pageblocks_ratio");
                if (n->polluted_blocks_permille >= 0)
                        json_num(&w, n->polluted_blocks_permille / 1000.0);
                else
                        json_null(&w);
                if (in->policy) {
                        bool measured = node_measured(in, n);
                        char why[128];

                        json_key(&w, "targets");
                        json_obj_begin(&w);
                        /* not measured: the byte values are null, never "0 B: met" */
                        json_key(&w, "measured"); json_bool(&w, measured);
                        if (!measured) {
                                json_key(&w, "not_measured_because");
                                json_str(&w, unmeasured_why(in, why, sizeof(why)));
                        }
                        json_key(&w, "order_thp"); json_u64(&w, order_thp(in));
                        json_key(&w, "reserve_thp_bytes");
                        if (measured)
                                json_u64(&w, report_reserve_bytes(&in->policy->reserve_thp, node_bytes(in, n)));
                        else
                                json_null(&w);
                        uint64_t thp_t = thp_target(in, n, &learned);

                        json_key(&w, "thp_target_bytes");
                        if (measured) json_u64(&w, thp_t); else json_null(&w);
                        json_key(&w, "thp_target_learned"); json_bool(&w, learned);
                        json_key(&w, "reserve_thp_kept"); json_bool(&w, reserve_kept(in, 1));
                        json_key(&w, "order_large"); json_u64(&w, order_large(in));
                        json_key(&w, "reserve_large_bytes");
                        if (measured)
                                json_u64(&w, report_reserve_bytes(&in->policy->reserve_large, node_bytes(in, n)));
                        else
                                json_null(&w);
                        {
                                bool pc;
                                uint64_t lt = large_target(in, n, &pc);

                                json_key(&w, "large_target_bytes");
                                if (measured) json_u64(&w, lt); else json_null(&w);
                                json_key(&w, "large_target_pagecache"); json_bool(&w, pc);
                                json_key(&w, "reserve_large_kept"); json_bool(&w, reserve_kept(in, 0));
                        }
                        json_obj_end(&w);
                }
                json_key(&w, "zones");
                json_arr_begin(&w);
                for (unsigned z = n->zone_first; z < n->zone_first + n->n_zones; z++) {
                        const ZoneMeasures *zm = &a->zones[z];

                        json_zone(&w, in, zm, buddyinfo_find(&o->buddy, zm->node, zm->zone));
                }
                json_arr_end(&w);
                json_obj_end(&w);
        }
        json_arr_end(&w);

        json_key(&w, "knobs");
        json_obj_begin(&w);
        for (unsigned k = 0; k < _VM_KNOB_MAX; k++) {
                json_key(&w, vm_knob_name((VmKnob) k));
                if ((o->have & OBS_MASK(OBS_SYSCTL)) && o->vm.present[k])
                        json_i64(&w, o->vm.value[k]);
                else
                        json_null(&w);
        }
        if (o->have & OBS_MASK(OBS_THP)) {
                json_key(&w, "thp_enabled"); json_str(&w, o->thp.enabled);
                json_key(&w, "thp_defrag"); json_str(&w, o->thp.defrag);
                json_key(&w, "thp_shmem_enabled"); json_str(&w, o->thp.shmem_enabled);
        }
        json_obj_end(&w);

        json_key(&w, "thp_sizes");
        json_arr_begin(&w);
        for (unsigned i = 0; (o->have & OBS_MASK(OBS_THP)) && i < o->thp.n_sizes; i++) {
                const ThpSize *s = &o->thp.sizes[i];
                json_obj_begin(&w);
                json_key(&w, "size_kb"); json_u64(&w, s->size_kb);
                json_key(&w, "enabled"); json_str(&w, s->enabled[0] ? s->enabled : NULL);
                json_key(&w, "stats");
                json_obj_begin(&w);
                for (unsigned j = 0; j < s->n_stats; j++) {
                        json_key(&w, s->stats[j].name);
                        json_u64(&w, s->stats[j].value);
                }
                json_obj_end(&w);
                json_obj_end(&w);
        }
        json_arr_end(&w);

        json_key(&w, "psi_memory");
        if (o->have & OBS_MASK(OBS_PSI_MEMORY)) {
                const PsiLine *l[2] = { &o->psi_memory.some, &o->psi_memory.full };
                const char *names[2] = { "some", "full" };
                json_obj_begin(&w);
                for (int i = 0; i < 2; i++) {
                        json_key(&w, names[i]);
                        if (!l[i]->present) {
                                json_null(&w);
                                continue;
                        }
                        json_obj_begin(&w);
                        json_key(&w, "avg10"); json_num(&w, l[i]->avg10_permyriad / 100.0);
                        json_key(&w, "avg60"); json_num(&w, l[i]->avg60_permyriad / 100.0);
                        json_key(&w, "avg300"); json_num(&w, l[i]->avg300_permyriad / 100.0);
                        json_key(&w, "total_usec"); json_u64(&w, l[i]->total_usec);
                        json_obj_end(&w);
                }
                json_obj_end(&w);
        } else
                json_null(&w);

        json_key(&w, "rates");
        if (a->rates.valid)
                json_rates(&w, &a->rates);
        else
                json_null(&w);

        /* page-cache folios by order (the daemon's trace instance), null without */
        json_key(&w, "pagecache");
        if (a->pagecache.valid) {
                json_obj_begin(&w);
                json_key(&w, "added_bytes_by_order");
                json_arr_begin(&w);
                for (unsigned k = 0; k < o->pagecache.n_orders && k < FRAGD_MAX_ORDERS; k++)
                        json_u64(&w, a->pagecache.bytes_total[k]);
                json_arr_end(&w);
                json_key(&w, "order");
                if (in->eval && in->eval->pagecache_order > 0)
                        json_u64(&w, in->eval->pagecache_order);
                else
                        json_null(&w);
                json_key(&w, "order_share");
                if (in->eval && in->eval->pagecache_order > 0)
                        json_num(&w, in->eval->pagecache_share_permyriad / 10000.0);
                else
                        json_null(&w);
                json_key(&w, "burst_bytes"); json_u64(&w, in->eval ? in->eval->pagecache_burst_bytes : 0);
                json_obj_end(&w);
        } else
                json_null(&w);

        json_key(&w, "sources");
        json_obj_begin(&w);
        for (unsigned s = 0; s < _OBS_SOURCE_MAX; s++) {
                json_key(&w, obs_source_name(s));
                if (o->have & OBS_MASK(s))
                        json_str(&w, "ok");
                else if (o->rejected & OBS_MASK(s))
                        json_str(&w, "rejected as implausible");
                else if (o->err[s])
                        json_str(&w, strerror(-o->err[s]));
                else
                        json_str(&w, "not read");
        }
        json_obj_end(&w);

        /* degraded: true when a source the decisions use is missing; each
         * with why and what its absence disables; problems: the readings
         * rejected or incomplete (observation_check()) */
        {
                unsigned missing = report_missing(in);
                char why[160];

                json_key(&w, "degraded"); json_bool(&w, missing != 0);
                json_key(&w, "missing_sources");
                json_arr_begin(&w);
                for (unsigned s = 0; s < _OBS_SOURCE_MAX; s++) {
                        if (!(missing & OBS_MASK(s)))
                                continue;
                        json_obj_begin(&w);
                        json_key(&w, "source"); json_str(&w, obs_source_name(s));
                        json_key(&w, "rejected"); json_bool(&w, (o->rejected & OBS_MASK(s)) != 0);
                        json_key(&w, "error");
                        json_str(&w, obs_source_missing_why(o, (ObsSource) s, why, sizeof(why)));
                        json_key(&w, "disables"); json_str(&w, obs_source_impact((ObsSource) s));
                        json_obj_end(&w);
                }
                json_arr_end(&w);
                json_key(&w, "problems");
                json_arr_begin(&w);
                for (unsigned i = 0; i < o->n_problems; i++)
                        json_str(&w, o->problems[i]);
                json_arr_end(&w);
        }

        json_learned(&w, in);
        json_boot(&w, in);

        json_key(&w, "decisions");
        if (in->decisions_known) {
                json_arr_begin(&w);
                for (unsigned i = 0; i < in->n_decisions; i++) {
                        const ReportDecision *d = &in->decisions[i];
                        json_obj_begin(&w);
                        json_key(&w, "knob"); json_str(&w, d->knob);
                        json_key(&w, "node");
                        if (d->node >= 0) json_i64(&w, d->node); else json_null(&w);
                        json_key(&w, "from"); json_str(&w, d->from[0] ? d->from : NULL);
                        json_key(&w, "to"); json_str(&w, d->to[0] ? d->to : NULL);
                        json_key(&w, "reason"); json_str(&w, d->reason);
                        json_key(&w, "explanation"); json_str(&w, d->explanation);
                        json_obj_end(&w);
                }
                json_arr_end(&w);
        } else
                json_null(&w);
        /* the kernel keeps up (PolicyEval.keeps_up): the sentence, null otherwise */
        json_key(&w, "kernel_keeps_up");
        if (in->decisions_known && in->eval && in->eval->keeps_up) {
                char keeps[DECISION_TEXT_MAX];

                (void) decision_explain_keeps_up(in->eval, keeps, sizeof(keeps));
                json_str(&w, keeps);
        } else
                json_null(&w);
        json_key(&w, "held");
        if (in->decisions_known) {
                json_arr_begin(&w);
                for (unsigned i = 0; i < in->n_held; i++) {
                        const ReportDecision *h = &in->held[i];

                        json_obj_begin(&w);
                        json_key(&w, "knob"); json_str(&w, h->knob);
                        json_key(&w, "value"); json_str(&w, h->from);
                        json_key(&w, "hold"); json_str(&w, h->reason);
                        json_key(&w, "explanation"); json_str(&w, h->explanation);
                        json_obj_end(&w);
                }
                json_arr_end(&w);
        } else
                json_null(&w);
        if (in->cgroups_json) {
                json_key(&w, "cgroups");
                json_raw(&w, in->cgroups_json);
        }
        json_obj_end(&w);
        json_end(&w);
        return ferror(f) ? -EIO : 0;
}
