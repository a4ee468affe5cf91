/* SPDX-License-Identifier: GPL-2.0-or-later */

/* Decisions in words (pure): reason codes and one sentence per item, built
 * from the numbers behind the reason. */

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "fragd/policy.h"

static const char *const reason_names[_POLICY_REASON_MAX] = {
        [POLICY_REASON_NONE] = "none",
        [POLICY_REASON_RESERVE_BELOW_TARGET] = "reserve_below_target",
        [POLICY_REASON_RESERVE_TREND] = "reserve_trend",
        [POLICY_REASON_FREE_MEMORY_SHORT] = "free_memory_short",
        [POLICY_REASON_COMPACT_STALLS] = "compact_stalls",
        [POLICY_REASON_THP_FALLBACK] = "thp_fallback",
        [POLICY_REASON_TARGETS_MET_DECAY] = "targets_met_decay",
        [POLICY_REASON_BACKOFF_INEFFECTIVE] = "backoff_ineffective",
        [POLICY_REASON_SAFETY_ENVELOPE] = "safety_envelope",
        [POLICY_REASON_PSI_ROLLBACK] = "psi_rollback",
        [POLICY_REASON_PSI_CEILING] = "psi_ceiling",
        [POLICY_REASON_ONESHOT_COMPACT] = "oneshot_compact",
        [POLICY_REASON_WORKLOAD_STALLS] = "workload_stalls",
        [POLICY_REASON_RESERVE_LEARNED] = "reserve_learned",
        [POLICY_REASON_KCOMPACTD_KICK] = "kcompactd_kick",
        [POLICY_REASON_AIM_FELL] = "aim_fell",
        [POLICY_REASON_PAGEBLOCK_POLLUTION] = "pageblock_pollution",
        [POLICY_REASON_DEFRAG_MODE_COST] = "defrag_mode_cost",
        [POLICY_REASON_KERNEL_KEEPS_UP] = "kernel_keeps_up",
};

static const char *const hold_names[_POLICY_HOLD_MAX] = {
        [POLICY_HOLD_NONE] = "none",
        [POLICY_HOLD_DWELL] = "dwell",
        [POLICY_HOLD_REVERSAL_COOLDOWN] = "reversal_cooldown",
        [POLICY_HOLD_REVERSAL_LIMIT] = "reversal_limit",
        [POLICY_HOLD_AT_BOUND] = "at_bound",
        [POLICY_HOLD_BACKOFF] = "backoff",
        [POLICY_HOLD_PSI] = "psi",
        [POLICY_HOLD_SAFETY] = "safety",
        [POLICY_HOLD_CLAMPED] = "clamped",
        [POLICY_HOLD_UNMEASURED] = "unmeasured",
        [POLICY_HOLD_NOTHING_TO_RECLAIM] = "nothing_to_reclaim",
        [POLICY_HOLD_WATERMARK_CAP] = "watermark_cap",
        [POLICY_HOLD_DIRECT_COMPACTION] = "direct_compaction",
};

static const char *const hold_words[_POLICY_HOLD_MAX] = {
        [POLICY_HOLD_NONE] = "nothing stops it",
        [POLICY_HOLD_DWELL] = "it moved too recently (dwell)",
        [POLICY_HOLD_REVERSAL_COOLDOWN] = "that would reverse its last move too soon",
        [POLICY_HOLD_REVERSAL_LIMIT] = "it already reversed direction as often as allowed in the window",
        [POLICY_HOLD_AT_BOUND] = "it is at its configured bound",
        [POLICY_HOLD_BACKOFF] = "raising it was found not to pay (back-off)",
        [POLICY_HOLD_PSI] = "memory pressure is above the ceiling",
        [POLICY_HOLD_SAFETY] = "the safety envelope allows no more",
        [POLICY_HOLD_CLAMPED] = "the kernel or someone else kept a lower value",
        [POLICY_HOLD_UNMEASURED] = "its measure is missing",
        [POLICY_HOLD_NOTHING_TO_RECLAIM] = "kswapd has too little to reclaim to supply it",
        [POLICY_HOLD_WATERMARK_CAP] = ("raised watermarks would hold back more than 1 % of the node's memory "
                                       "while free memory itself is not short"),
        [POLICY_HOLD_DIRECT_COMPACTION] = ("allocations stall in direct compaction already, and with it on they "
                                           "compact before any fallback"),
};

/* A lever's name (names.c), "?" for none. */
static const char *lever_label(Lever l)
{
        const char *n = lever_name(l);

        return n ? n : "?";
}

const char *policy_reason_name(PolicyReason r)
{
        return (unsigned) r < _POLICY_REASON_MAX ? reason_names[r] : "?";
}

int policy_reason_from_name(const char *name)
{
        for (unsigned i = 0; i < _POLICY_REASON_MAX; i++)
                if (strcmp(reason_names[i], name) == 0)
                        return (int) i;
        return -ENOENT;
}

const char *policy_hold_name(PolicyHold h)
{
        return (unsigned) h < _POLICY_HOLD_MAX ? hold_names[h] : "?";
}

bool policy_hold_shown(PolicyHold h)
{
        switch (h) {
        case POLICY_HOLD_REVERSAL_LIMIT:
        case POLICY_HOLD_AT_BOUND:
        case POLICY_HOLD_PSI:
        case POLICY_HOLD_SAFETY:
        case POLICY_HOLD_CLAMPED:
        case POLICY_HOLD_UNMEASURED:
        case POLICY_HOLD_NOTHING_TO_RECLAIM:
        case POLICY_HOLD_WATERMARK_CAP:
        case POLICY_HOLD_DIRECT_COMPACTION:
                return true;
        default:
                return false;
        }
}

const PolicyHeldItem *decision_held_shown(const Decision *d, Lever l)
{
        for (unsigned i = 0; d && i < d->n_held; i++)
                if (d->held[i].lever == l && policy_hold_shown(d->held[i].hold))
                        return &d->held[i];
        return NULL;
}

static const char *const gate_names[_POLICY_GATE_MAX] = {
        [POLICY_GATE_NONE] = "none",
        [POLICY_GATE_PSI_HIGH] = "psi_high",
        [POLICY_GATE_PSI_CALM] = "psi_calm",
        [POLICY_GATE_BURST] = "burst",
        [POLICY_GATE_FREE_FALLING] = "free_falling",
        [POLICY_GATE_THP_INTERVAL] = "thp_interval",
        [POLICY_GATE_REBUILD_WINDOW] = "rebuild_window",
        [POLICY_GATE_NOT_DUE] = "not_due",
};

const char *policy_gate_name(PolicyOneshotGate g)
{
        return (unsigned) g < _POLICY_GATE_MAX ? gate_names[g] : "?";
}

/* ---- formatting --------------------------------------------------------- */

typedef struct Out {
        char *buf;
        size_t size, len;
} Out;

static void _printf_(2, 3) out(Out *o, const char *fmt, ...)
{
        va_list ap;
        int r;

        va_start(ap, fmt);
        r = vsnprintf(o->len < o->size ? o->buf + o->len : NULL, o->len < o->size ? o->size - o->len : 0, fmt,
                      ap);
        va_end(ap);
        if (r > 0)
                o->len += (size_t) r;
}

typedef struct Str {
        char s[48];
} Str;

static Str bytes_str(uint64_t b)
{
        Str r;

        if (b < (1ULL << 20))
                snprintf(r.s, sizeof(r.s), "%llu KiB", (unsigned long long) (b >> 10));
        else if (b < (10ULL << 20))
                snprintf(r.s, sizeof(r.s), "%.1f MiB", (double) b / (double) (1ULL << 20));
        else if (b < (10ULL << 30))
                snprintf(r.s, sizeof(r.s), "%llu MiB", (unsigned long long) (b >> 20));
        else
                snprintf(r.s, sizeof(r.s), "%.1f GiB", (double) b / (double) (1ULL << 30));
        return r;
}

static Str sbytes_str(int64_t b)
{
        Str r = bytes_str(b < 0 ? (uint64_t) -(b + 1) + 1 : (uint64_t) b);

        memmove(r.s + 1, r.s, sizeof(r.s) - 1);
        r.s[0] = b < 0 ? '-' : '+';
        r.s[sizeof(r.s) - 1] = '\0';
        return r;
}

static Str dur_str(usec_t u)
{
        Str r;
        unsigned long long sec = u / USEC_PER_SEC;

        if (u == USEC_INFINITY)
                snprintf(r.s, sizeof(r.s), "never");
        else if (sec < 120)
                snprintf(r.s, sizeof(r.s), "%llu s", sec);
        else if (sec < 7200)
                snprintf(r.s, sizeof(r.s), "%llu min", sec / 60);
        else
                snprintf(r.s, sizeof(r.s), "%llu h", sec / 3600);
        return r;
}

static Str pct_str(uint32_t permyriad)
{
        Str r;

        snprintf(r.s, sizeof(r.s), "%u.%02u%%", permyriad / 100, permyriad % 100);
        return r;
}

static Str rate_str(uint64_t milli)
{
        Str r;

        snprintf(r.s, sizeof(r.s), "%llu.%02llu/s", (unsigned long long) (milli / 1000),
                 (unsigned long long) (milli % 1000 / 10));
        return r;
}

/* 380 ms; 1.2 s past 10 s */
static Str ms_str(uint64_t usec)
{
        Str r;

        if (usec < 10 * USEC_PER_SEC)
                snprintf(r.s, sizeof(r.s), "%llu ms", (unsigned long long) ((usec + 500) / 1000));
        else
                snprintf(r.s, sizeof(r.s), "%.1f s", (double) usec / (double) USEC_PER_SEC);
        return r;
}

/* "the last minute", or "the last 40 s" when the window is not full yet */
static Str window_str(usec_t span)
{
        Str r;

        if (span == 0 || span >= USEC_PER_MINUTE - USEC_PER_SEC / 2)
                snprintf(r.s, sizeof(r.s), "the last minute");
        else
                snprintf(r.s, sizeof(r.s), "the last %.38s", dur_str(span).s);
        return r;
}

static Str value_str(Lever l, int64_t v)
{
        static const char *const modes[_THP_DEFRAG_MAX] = {
                [THP_DEFRAG_NEVER] = "never",           [THP_DEFRAG_DEFER] = "defer",
                [THP_DEFRAG_DEFER_MADVISE] = "defer+madvise", [THP_DEFRAG_MADVISE] = "madvise",
                [THP_DEFRAG_ALWAYS] = "always",
        };
        Str r;

        if (l == LEVER_THP_DEFRAG && v >= 0 && v < _THP_DEFRAG_MAX)
                snprintf(r.s, sizeof(r.s), "%s", modes[v]);
        else
                snprintf(r.s, sizeof(r.s), "%lld", (long long) v);
        return r;
}

static void reserve_clause(Out *o, const PolicyNumbers *n)
{
        out(o, "node %d has %s free in order>=%u blocks, target %s", n->node, bytes_str(n->have_bytes).s,
            n->order, bytes_str(n->target_bytes).s);
}

static void trend_clause(Out *o, const PolicyNumbers *n, bool to_target)
{
        int64_t tr = n->trend_bytes_per_sec;

        if (tr >= 0)
                return;
        if (to_target && n->eta_usec != USEC_INFINITY)
                out(o, "; at %s/s it falls below target in %s", sbytes_str(tr).s, dur_str(n->eta_usec).s);
        else
                out(o, "; trend %s/s reaches 0 in %s", sbytes_str(tr).s,
                    dur_str((usec_t) ((double) n->have_bytes / (double) -tr * (double) USEC_PER_SEC)).s);
}

/* "recent THP bursts that fell back or stalled asked for 512 MiB (learned reserve, held 30 min)", or
 * for a seed no burst renewed yet "THP faults since boot fell back for 512 MiB
 * (first reserve from boot history, held 30 min)" */
static void learned_clause(Out *o, const PolicyNumbers *n)
{
        uint64_t share;
        uint32_t sh;

        if (n->learned_from_boot)
                out(o, "THP faults since boot fell back for %s (first reserve from boot history",
                    bytes_str(n->learned_need_bytes).s);
        else
                out(o, "recent THP bursts that fell back or stalled asked for %s (learned reserve", bytes_str(n->learned_need_bytes).s);
        if (n->learned_age_usec >= USEC_PER_SEC)
                out(o, n->learned_from_boot ? ", set %s ago" : ", seen %s ago", dur_str(n->learned_age_usec).s);
        if (n->learned_age_usec <= n->learned_hold_usec)
                out(o, ", held %s)", dur_str(n->learned_hold_usec).s);
        else
                out(o, ", decaying)");
        sh = n->learned_share_permyriad > 0 ? MIN(n->learned_share_permyriad, 10000u) : 10000u; /* 0: not split */
        share = (uint64_t) ((unsigned __int128) n->learned_need_bytes * sh / 10000);
        if (sh < 10000)
                out(o, ", %s of it here (%u.%02u%%, %s)", bytes_str(share).s, sh / 100, sh % 100,
                    n->learned_share_measured ? "where the kernel served the burst" : "by node size");
        if (n->target_bytes < share && n->short_target_bytes == 0)
                out(o, ", capped at %s", bytes_str(n->target_bytes).s);
}

/* free memory short for the whole target: compaction for the part it holds */
static void short_clause(Out *o, const PolicyNumbers *n)
{
        if (n->short_target_bytes > 0)
                out(o, "; free memory is short for all %s (the reclaim levers answer that): compaction for the %s free memory above the kernel's high watermark can hold",
                    bytes_str(n->short_target_bytes).s, bytes_str(n->target_bytes).s);
}

/* between bursts: the standing level only */
static void standing_clause(Out *o, const PolicyNumbers *n)
{
        if (n->standing)
                out(o, "; between bursts (no THP fault in the last %s): only the level that score needs, no kicks",
                    dur_str(POLICY_BURST_WINDOW_USEC).s);
}

/* "node 1 has 48 MiB ..." and the rest of the sentence after the colon */
/* pageblock_pollution: what grew, and the demand it protects */
static void defrag_mode_pollution(Out *o, const DefragModeNumbers *dm)
{
        const char *sep = "";

        if (dm->blocks_span_usec > 0 && dm->blocks_to > dm->blocks_from) {
                out(o, "non-movable pageblocks grew from %llu to %llu of %llu in %s", (unsigned long long) dm->blocks_from,
                    (unsigned long long) dm->blocks_to, (unsigned long long) dm->blocks_total,
                    dur_str(dm->blocks_span_usec).s);
                sep = ", ";
        }
        if (dm->extfrag)
                out(o, "%s%s polluting fallbacks (non-movable allocations taking movable blocks) over the last %s", sep,
                    rate_str(dm->polluting_milli).s, dur_str(dm->window_usec).s);
        out(o, "; unmet large-folio demand %s: the allocator is to reclaim and compact before it falls back",
            bytes_str(dm->demand_bytes).s);
        if (dm->hold_usec > 0)
                out(o, "; held off %s more after it cost more than it saved", dur_str(dm->hold_usec).s);
}

/* defrag_mode_cost: the two windows side by side */
static void defrag_mode_cost(Out *o, const DefragModeNumbers *dm)
{
        out(o, "over %s with it on, stalls (direct reclaim + compaction) went %s -> %s and kswapd scanning %llu -> "
               "%llu pages/s against the %s before it; ",
            dur_str(dm->window_usec).s, rate_str(dm->stall_before_milli).s, rate_str(dm->stall_after_milli).s,
            (unsigned long long) (dm->kswapd_before_milli / 1000), (unsigned long long) (dm->kswapd_after_milli / 1000),
            dur_str(dm->window_usec).s);
        if (dm->pollution_before_milli == 0 && dm->pollution_after_milli == 0)
                out(o, "no pollution measured to fall");
        else if (dm->by_blocks)
                out(o, "non-movable blocks added per hour went %llu.%02llu -> %llu.%02llu",
                    (unsigned long long) (dm->pollution_before_milli / 1000),
                    (unsigned long long) (dm->pollution_before_milli % 1000 / 10),
                    (unsigned long long) (dm->pollution_after_milli / 1000),
                    (unsigned long long) (dm->pollution_after_milli % 1000 / 10));
        else
                out(o, "polluting fallbacks went %s -> %s", rate_str(dm->pollution_before_milli).s,
                    rate_str(dm->pollution_after_milli).s);
        out(o, ": cost up %s, pollution down %s; off, and held off for %s", pct_str(dm->cost_rise_permyriad).s,
            pct_str(dm->pollution_fall_permyriad).s, dur_str(dm->hold_usec).s);
}

static void numbers_sentence(Out *o, Lever l, PolicyReason r, const PolicyNumbers *n)
{
        switch (r) {
        case POLICY_REASON_RESERVE_BELOW_TARGET:
                reserve_clause(o, n);
                trend_clause(o, n, false);
                if (l == LEVER_COMPACTION_PROACTIVENESS && n->score_target > 0)
                        out(o, "; kernel score %u, the target needs %u or less", n->score, n->score_target);
                if (n->learned_need_bytes > 0) {
                        out(o, "; ");
                        learned_clause(o, n);
                }
                short_clause(o, n);
                break;
        case POLICY_REASON_RESERVE_LEARNED:
                out(o, "node %d has %s free in order>=%u blocks; ", n->node, bytes_str(n->have_bytes).s, n->order);
                learned_clause(o, n);
                if (l == LEVER_COMPACTION_PROACTIVENESS && n->score_target > 0)
                        out(o, "; kernel score %u, the target needs %u or less", n->score, n->score_target);
                short_clause(o, n);
                standing_clause(o, n);
                break;
        case POLICY_REASON_RESERVE_TREND:
                if (n->free_needed_bytes > 0) {
                        out(o, "node %d has %s free, falling at %s/s below %s (the kernel's high watermark + the %s order>=%u target) in %s",
                            n->node, bytes_str(n->free_bytes).s, sbytes_str(n->trend_bytes_per_sec).s,
                            bytes_str(n->free_needed_bytes).s, bytes_str(n->target_bytes).s, n->order,
                            dur_str(n->eta_usec).s);
                        break;
                }
                reserve_clause(o, n);
                trend_clause(o, n, true);
                if (n->learned_need_bytes > 0) {
                        out(o, "; ");
                        learned_clause(o, n);
                }
                standing_clause(o, n);
                break;
        case POLICY_REASON_FREE_MEMORY_SHORT:
                out(o, "node %d has %s free, under the kernel's high watermark + target (%s), so compaction has no material for the %s order>=%u reserve (now %s)",
                    n->node, bytes_str(n->free_bytes).s, bytes_str(n->free_needed_bytes).s,
                    bytes_str(n->target_bytes).s, n->order, bytes_str(n->have_bytes).s);
                if (n->learned_need_bytes > 0) {
                        out(o, "; ");
                        learned_clause(o, n);
                }
                break;
        case POLICY_REASON_COMPACT_STALLS:
                out(o, "direct compaction stalls %s, target %s", rate_str(n->observed_milli).s,
                    rate_str(n->limit_milli).s);
                break;
        case POLICY_REASON_THP_FALLBACK:
                out(o, "THP fault fallback %s, target %s", pct_str(n->observed_permyriad).s,
                    pct_str(n->limit_permyriad).s);
                break;
        case POLICY_REASON_WORKLOAD_STALLS:
                out(o, "%s spent %s in direct compaction", n->workload[0] ? n->workload : "a workload",
                    ms_str(n->workload_compact_usec).s);
                if (n->workload_reclaim_usec > 0)
                        out(o, " and %s in direct reclaim", ms_str(n->workload_reclaim_usec).s);
                out(o, " in %s (budget %s)", window_str(n->workload_span_usec).s,
                    ms_str(n->workload_budget_usec).s);
                break;
        case POLICY_REASON_TARGETS_MET_DECAY:
                if (n->score_target > 0)
                        out(o, "reserves met, inside the hysteresis band, nothing missed for %s; decaying toward the kernel's %s, no lower than kcompactd needs to keep the score at %u or less",
                            dur_str(n->met_usec).s, value_str(l, n->baseline).s, n->score_target);
                else
                        out(o, "the targets this lever serves met for %s; decaying toward the kernel's %s",
                            dur_str(n->met_usec).s, value_str(l, n->baseline).s);
                break;
        case POLICY_REASON_BACKOFF_INEFFECTIVE:
                out(o, "%u evaluation%s without a gain worth its cost", n->evaluations, n->evaluations == 1 ? "" : "s");
                if (n->scanned_pages > 0)
                        out(o, ": compaction scanned %llu pages", (unsigned long long) n->scanned_pages);
                if (n->objective == POLICY_OBJ_RESERVE)
                        out(o, "%s node %d gained %s in order>=%u blocks", n->scanned_pages > 0 ? " while" : ":",
                            n->node, sbytes_str(n->gained_bytes).s, n->order);
                else if (n->objective == POLICY_OBJ_FREE)
                        out(o, "%s node %d free memory changed %s", n->scanned_pages > 0 ? " while" : ":", n->node,
                            sbytes_str(n->gained_bytes).s);
                else if (n->objective == POLICY_OBJ_STALLS)
                        out(o, "; direct compaction stalls did not fall");
                else if (n->objective == POLICY_OBJ_FALLBACK)
                        out(o, "; THP fallbacks did not fall");
                else if (n->objective == POLICY_OBJ_WORKLOAD)
                        out(o, "; workload stalls did not fall");
                if (n->scan_per_block > 0)
                        out(o, " (%llu pages scanned per block, limit %llu)",
                            (unsigned long long) n->scan_per_block, (unsigned long long) n->scan_per_block_limit);
                out(o, "; raising stops");
                break;
        case POLICY_REASON_SAFETY_ENVELOPE:
                out(o, "node %d low watermark %s + headroom %s would exceed free + reclaimable %s", n->node,
                    bytes_str(n->low_wmark_bytes).s, bytes_str(n->headroom_bytes).s, bytes_str(n->avail_bytes).s);
                break;
        case POLICY_REASON_PSI_ROLLBACK:
                out(o, "memory full pressure rose from %s to %s within %s of the change",
                    pct_str(n->psi_before_permyriad).s, pct_str(n->psi_full_permyriad).s, dur_str(n->met_usec).s);
                break;
        case POLICY_REASON_PSI_CEILING:
                out(o, "memory pressure some %s / full %s is above the ceiling %s / %s; reserves yield to pressure",
                    pct_str(n->psi_some_permyriad).s, pct_str(n->psi_full_permyriad).s,
                    pct_str(n->psi_some_ceiling_permyriad).s, pct_str(n->psi_full_ceiling_permyriad).s);
                break;
        case POLICY_REASON_KCOMPACTD_KICK:
                /* a kick item's numbers are those of the missed objective */
                break;
        case POLICY_REASON_AIM_FELL:
                out(o, "node %d has %s free now: the %s order>=%u target needs a kernel score of %u or less, which a lower proactiveness keeps (free memory grew); lowered to it without waiting for decay_after, kcompactd works to the lever's threshold",
                    n->node, bytes_str(n->free_bytes).s, bytes_str(n->target_bytes).s, n->order, n->score_target);
                break;
        case POLICY_REASON_PAGEBLOCK_POLLUTION:
                defrag_mode_pollution(o, &n->dm);
                break;
        case POLICY_REASON_DEFRAG_MODE_COST:
                defrag_mode_cost(o, &n->dm);
                break;
        case POLICY_REASON_ONESHOT_COMPACT:
                if (n->limit_permyriad >= 10000 && n->own_pressure)
                        out(o, "%s free in order>=%u blocks is under the %s target, no page-cache burst and memory pressure (some %s, full %s) is the reserve's own: compaction stalls or kswapd scanning with free memory above the high watermark",
                            bytes_str(n->have_bytes).s, n->order, bytes_str(n->target_bytes).s,
                            pct_str(n->psi_some_permyriad).s, pct_str(n->psi_full_permyriad).s);
                else if (n->limit_permyriad >= 10000) /* the page cache's reserve: short is enough */
                        out(o, "%s free in order>=%u blocks is under the %s target, no page-cache burst and memory pressure is calm (some %s)",
                            bytes_str(n->have_bytes).s, n->order, bytes_str(n->target_bytes).s,
                            pct_str(n->psi_some_permyriad).s);
                else
                        out(o, "%s free in order>=%u blocks is under %s of the %s target and memory pressure is calm (some %s)",
                            bytes_str(n->have_bytes).s, n->order, pct_str(n->limit_permyriad).s,
                            bytes_str(n->target_bytes).s, pct_str(n->psi_some_permyriad).s);
                break;
        default:
                out(o, "no reason");
                break;
        }
}

static int finish(Out *o)
{
        if (o->size > 0 && o->len >= o->size)
                o->buf[o->size - 1] = '\0';
        return (int) MIN(o->len, (size_t) INT32_MAX);
}

PolicyReason policy_kick_cause(const DecisionItem *it)
{
        const PolicyNumbers *n = &it->num;

        if (it->kind != DECISION_KICK_KCOMPACTD)
                return POLICY_REASON_NONE;
        switch (n->objective) {
        case POLICY_OBJ_RESERVE:
                if (n->have_bytes >= n->target_bytes)
                        return POLICY_REASON_RESERVE_TREND;
                if (n->learned_need_bytes > 0 && n->have_bytes >= n->config_target_bytes)
                        return POLICY_REASON_RESERVE_LEARNED;
                return POLICY_REASON_RESERVE_BELOW_TARGET;
        case POLICY_OBJ_STALLS:
                return POLICY_REASON_COMPACT_STALLS;
        case POLICY_OBJ_FALLBACK:
                return POLICY_REASON_THP_FALLBACK;
        case POLICY_OBJ_WORKLOAD:
                return POLICY_REASON_WORKLOAD_STALLS;
        default:
                return POLICY_REASON_NONE;
        }
}

int decision_explain(const DecisionItem *it, char *buf, size_t size)
{
        Out o = { .buf = buf, .size = size };

        if (size > 0)
                buf[0] = '\0';
        if (it->kind == DECISION_KICK_KCOMPACTD) {
                out(&o, "kick kcompactd (rewrite %s=%s): ", lever_label(it->lever), value_str(it->lever, it->to).s);
                numbers_sentence(&o, it->lever, policy_kick_cause(it), &it->num);
                out(&o, "; kcompactd may be deferring its proactive checks after a round without progress");
                return finish(&o);
        }
        if (it->kind == DECISION_COMPACT_NODE) {
                out(&o, "compact node %d now: ", it->node);
                numbers_sentence(&o, _LEVER_MAX, it->reason, &it->num);
                return finish(&o);
        }
        out(&o, "%s %s %s\u2192%s: ",
            it->reason == POLICY_REASON_PSI_ROLLBACK ? "roll back"
            : it->to > it->from                      ? "raise"
                                                     : "lower",
            lever_label(it->lever), value_str(it->lever, it->from).s, value_str(it->lever, it->to).s);
        numbers_sentence(&o, it->lever, it->reason, &it->num);
        if (it->escalated_target)
                out(&o, "; within the dwell of the last raise, which answered a smaller target");
        else if (it->escalated)
                out(&o, "; within the dwell of the last raise, which answered a smaller error");
        if (it->refuted_aim)
                out(&o, "; undoes the lowering to the aim before it within its dwell: THP faults stalled in direct "
                        "compaction or fell back since");
        return finish(&o);
}

int decision_explain_held(const PolicyHeldItem *h, char *buf, size_t size)
{
        Out o = { .buf = buf, .size = size };

        if (size > 0)
                buf[0] = '\0';
        if (h->hold == POLICY_HOLD_UNMEASURED) {
                out(&o, "keep %s at %s: decisions held, %s%s%s unreadable (no raise, no lowering, no kick until "
                    "it is back)",
                    lever_label(h->lever), value_str(h->lever, h->current).s,
                    (h->num.unmeasured & OBS_MASK(OBS_ZONEINFO)) ? "zoneinfo" : "",
                    (h->num.unmeasured & OBS_MASK(OBS_ZONEINFO)) && (h->num.unmeasured & OBS_MASK(OBS_BUDDYINFO))
                            ? " and "
                            : "",
                    (h->num.unmeasured & OBS_MASK(OBS_BUDDYINFO)) ? "buddyinfo" : "");
                return finish(&o);
        }
        if (h->hold == POLICY_HOLD_NOTHING_TO_RECLAIM && h->num.free_bytes >= h->num.free_needed_bytes) {
                const PolicyNumbers *n = &h->num;

                /* predicted: free memory falls under the need within the horizon */
                out(&o, "keep %s at %s: node %d has %s free, falling at %s/s below the %s its order>=%u reserve of %s "
                        "needs in %s, and what is free within the horizon at that rate + what kswapd can reclaim "
                        "(file LRU + reclaimable slab) is %s: no reclaim raise",
                    lever_label(h->lever), value_str(h->lever, h->current).s, n->node, bytes_str(n->free_bytes).s,
                    sbytes_str(n->trend_bytes_per_sec).s, bytes_str(n->free_needed_bytes).s, n->order,
                    bytes_str(n->target_bytes).s, dur_str(n->eta_usec).s, bytes_str(n->avail_bytes).s);
                return finish(&o);
        }
        if (h->hold == POLICY_HOLD_NOTHING_TO_RECLAIM) {
                const PolicyNumbers *n = &h->num;

                out(&o, "keep %s at %s: node %d has %s free, under the %s its order>=%u reserve of %s needs (the "
                        "kernel's high watermark + it), and %s with what kswapd can reclaim (file LRU + reclaimable "
                        "slab): no reclaim raise",
                    lever_label(h->lever), value_str(h->lever, h->current).s, n->node, bytes_str(n->free_bytes).s,
                    bytes_str(n->free_needed_bytes).s, n->order, bytes_str(n->target_bytes).s,
                    bytes_str(n->avail_bytes).s);
                return finish(&o);
        }
        if (h->hold == POLICY_HOLD_WATERMARK_CAP) {
                out(&o, "%s %s at %s (wanted %s for %s): the watermark cap binds: more would hold back over %s "
                        "(1 %% of node %d's memory) above the kernel's own high watermark while free memory is "
                        "above it; ",
                    h->allowed > h->current ? "raise" : "keep", lever_label(h->lever),
                    value_str(h->lever, h->allowed > h->current ? h->allowed : h->current).s,
                    value_str(h->lever, h->wanted).s, policy_reason_name(h->reason),
                    bytes_str(h->num.headroom_bytes).s, h->num.node);
                numbers_sentence(&o, h->lever, h->reason, &h->num);
                return finish(&o);
        }
        out(&o, "keep %s at %s (wanted %s for %s): %s; ", lever_label(h->lever), value_str(h->lever, h->current).s,
            value_str(h->lever, h->wanted).s, policy_reason_name(h->reason),
            (unsigned) h->hold < _POLICY_HOLD_MAX ? hold_words[h->hold] : "?");
        numbers_sentence(&o, h->lever, h->reason, &h->num);
        return finish(&o);
}

int decision_explain_keeps_up(const PolicyEval *e, char *buf, size_t size)
{
        Out o = { .buf = buf, .size = size };
        bool pc = e->pagecache_order_demand_bytes > 0;

        if (size > 0)
                buf[0] = '\0';
        if (!e->keeps_up)
                return finish(&o);
        out(&o, "the kernel keeps up: no fallback, no stall at order %u (", e->keeps_up_order);
        if (pc)
                out(&o, "the page cache added %s at order>=%u", bytes_str(e->pagecache_order_demand_bytes).s,
                    e->pagecache_order);
        if (e->demand_bytes > 0)
                out(&o, "%sTHP faults took %s, all served without direct compaction", pc ? "; " : "",
                    bytes_str(e->demand_bytes).s);
        out(&o, "); nothing changed");
        return finish(&o);
}

int decision_explain_reserve_gate(const PolicyEval *e, char *buf, size_t size)
{
        Out o = { .buf = buf, .size = size };

        if (size > 0)
                buf[0] = '\0';
        if (e->reserve_wanted[0] || e->reserve_wanted[1]) {
                out(&o, "configured reserves kept (%s%s%s): unmet demand is held",
                    e->reserve_wanted[1] ? "reserve_thp" : "", e->reserve_wanted[0] && e->reserve_wanted[1] ? ", " : "",
                    e->reserve_wanted[0] ? "reserve_large" : "");
                if (e->learned_need_bytes > 0)
                        out(&o, "; THP faults fell back or stalled: %s learned", bytes_str(e->learned_need_bytes).s);
                if (e->pagecache_held_bytes > 0)
                        out(&o, "; page-cache folios fell back or stalled at order %u: %s held", e->pagecache_order,
                            bytes_str(e->pagecache_held_bytes).s);
        } else
                out(&o, "configured reserves waiting: no fallback or compaction stall is held, so reserve_thp and "
                        "reserve_large stand only once one comes (reserve_always = no)");
        return finish(&o);
}

int decision_explain_pagecache_gate(const PolicyEval *e, const PolicyNodeEval *ne, uint32_t calm_psi_some_permyriad,
                                    char *buf, size_t size)
{
        Out o = { .buf = buf, .size = size };

        if (size > 0)
                buf[0] = '\0';
        if (ne->pagecache_gate == POLICY_GATE_NONE)
                return finish(&o);
        out(&o, "page-cache one-shot on node %d held (%s): %s free in order>=%u blocks is under the %s target; ",
            ne->node, policy_gate_name(ne->pagecache_gate), bytes_str(ne->have_bytes[0]).s, e->order[0],
            bytes_str(ne->target_bytes[0]).s);
        switch (ne->pagecache_gate) {
        case POLICY_GATE_PSI_HIGH:
                out(&o, "memory pressure is over its ceiling (some %s, full %s)", pct_str(e->psi_some_permyriad).s,
                    pct_str(e->psi_full_permyriad).s);
                break;
        case POLICY_GATE_PSI_CALM:
                out(&o, "memory pressure some %s is over calm_psi_some %s", pct_str(e->psi_some_permyriad).s,
                    pct_str(calm_psi_some_permyriad).s);
                break;
        case POLICY_GATE_BURST:
                out(&o, "the page cache added %s at order>=%u this tick", bytes_str(e->pagecache_order_demand_bytes).s,
                    e->order[0]);
                break;
        case POLICY_GATE_FREE_FALLING:
                out(&o, "free memory or its order>=%u blocks fell by more than a sixteenth within 10 s", e->order[0]);
                break;
        case POLICY_GATE_THP_INTERVAL:
                out(&o, "a THP one-shot is wanted and the last one-shot was within oneshot_min_interval");
                break;
        case POLICY_GATE_REBUILD_WINDOW:
                out(&o, "the last one-shot was less than 10 s ago and no page-cache burst emptied what it built");
                break;
        case POLICY_GATE_NOT_DUE:
                out(&o, "since the last one-shot the page cache added less than half the target and less than "
                        "half of it was taken from the blocks");
                break;
        default:
                out(&o, "?");
                break;
        }
        return finish(&o);
}
