/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Prometheus text exposition of a Snapshot, and the atomic textfile write.
 * metrics_render() is pure: it reads only the Snapshot and writes only to the
 * stream. Families come out in metric_families[] order; inside a family,
 * samples follow the order of the Observation/Assessment and of the views
 * (actions are sorted), so equal Snapshots give byte-identical output. */

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <string.h>

#include "core/cleanup.h"
#include "core/format.h"
#include "core/log.h"
#include "core/root.h"
#include "core/text.h"
#include "output/exporter.h"
#include "sources/observe.h"

typedef struct Out {
        FILE *f;
        int cur;                 /* family whose header was written last, -1 none */
        bool opened[_METRIC_MAX];
} Out;

const char *action_direction_name(ActionDirection d)
{
        static const char *const names[_ACTION_DIRECTION_MAX] = {
                [ACTION_UP] = "up",
                [ACTION_DOWN] = "down",
                [ACTION_ONESHOT] = "oneshot",
        };
        return (unsigned) d < _ACTION_DIRECTION_MAX ? names[d] : NULL;
}

const char *health_error_name(HealthError e)
{
        static const char *const names[_HEALTH_ERR_MAX] = {
                [HEALTH_ERR_SOURCE_READ] = "source_read",
                [HEALTH_ERR_KNOB_WRITE] = "knob_write",
                [HEALTH_ERR_EXPORT] = "export",
        };
        return (unsigned) e < _HEALTH_ERR_MAX ? names[e] : NULL;
}

/* ---- formatting ---------------------------------------------------------- */

/* Shortest decimal that reads back as the same double (core/format.h);
 * integers without exponent up to 2^53; NaN and infinities as Prometheus
 * spells them. */
static void format_double(double v, char *buf, size_t size)
{
        if (isnan(v)) {
                snprintf(buf, size, "NaN");
                return;
        }
        if (isinf(v)) {
                snprintf(buf, size, v > 0 ? "+Inf" : "-Inf");
                return;
        }
        if (v == 0) {
                snprintf(buf, size, "0"); /* also for -0 */
                return;
        }
        if (v == floor(v) && fabs(v) <= 9007199254740992.0) {
                snprintf(buf, size, "%.0f", v);
                return;
        }
        format_double_shortest(buf, size, v);
}

/* A label value as the exposition format wants it: UTF-8 with '\\', '"'
 * and newline escaped. A byte that does not start a well-formed UTF-8
 * sequence is written as U+FFFD: node_exporter rejects the whole file on
 * one invalid byte (node_textfile_scrape_error 1, every fragd metric gone). */
static void put_label_value(FILE *f, const char *s)
{
        while (*s) {
                size_t n;

                if (*s == '\\')
                        fputs("\\\\", f);
                else if (*s == '"')
                        fputs("\\\"", f);
                else if (*s == '\n')
                        fputs("\\n", f);
                else if ((n = utf8_sequence_len(s, NULL)) == 0)
                        fputs("\xEF\xBF\xBD", f);
                else {
                        fwrite(s, 1, n, f);
                        s += n;
                        continue;
                }
                s++;
        }
}

static void put_help(FILE *f, const char *s)
{
        for (; *s; s++) {
                if (*s == '\\')
                        fputs("\\\\", f);
                else if (*s == '\n')
                        fputs("\\n", f);
                else
                        fputc(*s, f);
        }
}

/* One sample; the label values follow in the table's order, as const char *. */
static void emitv(Out *o, MetricId id, const char *value, va_list ap)
{
        const MetricFamily *m = &metric_families[id];

        if (o->cur != (int) id) {
                /* a family's samples must be contiguous: a second opening is a bug here */
                assert(!o->opened[id]);
                o->opened[id] = true;
                o->cur = (int) id;
                fprintf(o->f, "# HELP %s ", m->name);
                put_help(o->f, m->help);
                fprintf(o->f, "\n# TYPE %s %s\n", m->name, metric_type_name(m->type));
        }
        fputs(m->name, o->f);
        for (unsigned i = 0; m->labels[i]; i++) {
                const char *v = va_arg(ap, const char *);

                fprintf(o->f, "%s%s=\"", i ? "," : "{", m->labels[i]);
                put_label_value(o->f, v ? v : "");
                fputc('"', o->f);
                if (!m->labels[i + 1])
                        fputc('}', o->f);
        }
        fprintf(o->f, " %s\n", value);
}

/* A sample's value as the text format writes it (a struct, so that it can
 * be made in the call and stand before the label values). */
typedef struct Value {
        char s[40];
} Value;

static Value u64v(uint64_t v)
{
        Value r;

        snprintf(r.s, sizeof(r.s), "%" PRIu64, v);
        return r;
}

static Value i64v(int64_t v)
{
        Value r;

        snprintf(r.s, sizeof(r.s), "%" PRId64, v);
        return r;
}

static Value doublev(double v)
{
        Value r;

        format_double(v, r.s, sizeof(r.s));
        return r;
}

/* One sample: emit(o, id, u64v(n), label values...). */
static void emit(Out *o, MetricId id, Value v, ...)
{
        va_list ap;

        va_start(ap, v);
        emitv(o, id, v.s, ap);
        va_end(ap);
}

static double usec_to_sec(uint64_t usec)
{
        return (double) usec / (double) USEC_PER_SEC;
}

/* ---- lookups on the Observation -------------------------------------------- */

static bool vm_get(const Observation *obs, const char *name, uint64_t *ret)
{
        return (obs->have & OBS_MASK(OBS_VMSTAT)) && kv_get(&obs->vmstat, name, ret) == 0;
}

/* Free memory in units of 2^order pages: blocks of a higher order count as
 * 2^(k-order) such blocks (what fragmentation_index() calls "suitable"). */
static uint64_t buddy_blocks_at_least(const BuddyInfo *b, unsigned order)
{
        uint64_t n = 0;

        for (unsigned z = 0; z < b->n_zones && z < FRAGD_MAX_ZONES; z++) {
                const BuddyZone *bz = &b->zones[z];

                for (unsigned k = order; k < bz->n_orders && k < FRAGD_MAX_ORDERS; k++)
                        n += bz->nr_free[k] << (k - order);
        }
        return n;
}

/* ---- validation ----------------------------------------------------------- */

static int validate(const Snapshot *s)
{
        if (!s || !s->obs || !s->assessment)
                return -EINVAL;
        if (s->n_knobs > SNAPSHOT_MAX_KNOBS || s->n_actions > SNAPSHOT_MAX_ACTIONS ||
            s->n_target_orders > SNAPSHOT_MAX_TARGET_ORDERS || s->n_targets > SNAPSHOT_MAX_TARGETS ||
            s->n_cgroups > SNAPSHOT_MAX_CGROUPS || s->n_held > FRAGD_MAX_NODES)
                return -E2BIG;
        if ((s->n_knobs && !s->knobs) || (s->n_actions && !s->actions) || (s->n_targets && !s->targets) ||
            (s->n_cgroups && !s->cgroups) || (s->n_held && !s->held))
                return -EINVAL;
        if (s->assessment->n_zones > FRAGD_MAX_ZONES || s->assessment->n_nodes > FRAGD_MAX_NODES ||
            s->assessment->n_orders > FRAGD_MAX_ORDERS)
                return -EINVAL;

        for (unsigned i = 0; i < s->n_knobs; i++) {
                if (!s->knobs[i].name)
                        return -EINVAL;
                for (unsigned j = 0; j < i; j++)
                        if (strcmp(s->knobs[i].name, s->knobs[j].name) == 0)
                                return -EINVAL;
        }
        for (unsigned i = 0; i < s->n_actions; i++) {
                const ActionCounter *a = &s->actions[i];

                if (!a->knob || !a->reason || !action_direction_name(a->direction))
                        return -EINVAL;
                for (unsigned j = 0; j < i; j++) {
                        const ActionCounter *b = &s->actions[j];

                        if (a->direction == b->direction && strcmp(a->knob, b->knob) == 0 &&
                            strcmp(a->reason, b->reason) == 0)
                                return -EINVAL;
                }
        }
        for (unsigned i = 0; i < s->n_targets; i++)
                for (unsigned j = 0; j < i; j++)
                        if (s->targets[i].node == s->targets[j].node && s->targets[i].order == s->targets[j].order)
                                return -EINVAL;
        for (unsigned i = 0; i < s->n_held; i++)
                for (unsigned j = 0; j < i; j++)
                        if (s->held[i].node == s->held[j].node)
                                return -EINVAL;
        for (unsigned i = 0; i < s->n_cgroups; i++) {
                if (!s->cgroups[i].name)
                        return -EINVAL;
                for (unsigned j = 0; j < i; j++)
                        if (strcmp(s->cgroups[i].name, s->cgroups[j].name) == 0)
                                return -EINVAL;
        }
        return 0;
}

/* Configured target orders, ascending, without duplicates, below n_orders. */
static unsigned target_orders(const Snapshot *s, unsigned *ret)
{
        unsigned n = 0;

        for (unsigned i = 0; i < s->n_target_orders; i++) {
                unsigned o = s->target_orders[i], j;

                if (o >= s->assessment->n_orders)
                        continue;
                for (j = 0; j < n && ret[j] < o; j++)
                        ;
                if (j < n && ret[j] == o)
                        continue;
                memmove(ret + j + 1, ret + j, (n - j) * sizeof(*ret));
                ret[j] = o;
                n++;
        }
        return n;
}

/* ---- sections ------------------------------------------------------------- */

static void render_health(Out *o, const Snapshot *s)
{
        const HealthView *h = &s->health;

        emit(o, M_BUILD_INFO, u64v(1), s->version ? s->version : FRAGD_VERSION);
        if (h->last_tick_realtime_usec > 0)
                emit(o, M_LAST_TICK_TIMESTAMP, doublev(usec_to_sec(h->last_tick_realtime_usec)));
        if (h->last_tick_realtime_usec > 0)
                emit(o, M_TICK_DURATION, doublev(usec_to_sec(h->tick_duration_usec)));
        if (h->tick_interval_usec > 0)
                emit(o, M_TICK_INTERVAL, doublev(usec_to_sec(h->tick_interval_usec)));
        for (unsigned e = 0; e < _HEALTH_ERR_MAX; e++)
                emit(o, M_ERRORS, u64v(h->errors[e]), health_error_name(e));
        emit(o, M_DRY_RUN, u64v(h->dry_run));
        emit(o, M_PAUSED, u64v(h->paused));
        for (unsigned src = 0; src < _OBS_SOURCE_MAX; src++) {
                if (s->obs->have & OBS_MASK(src))
                        emit(o, M_SOURCE_UP, u64v(1), obs_source_name(src));
                else if (s->obs->err[src] < 0)
                        emit(o, M_SOURCE_UP, u64v(0), obs_source_name(src));
        }
}

static int action_cmp(const ActionCounter *a, const ActionCounter *b)
{
        int c = strcmp(a->knob, b->knob);

        if (c == 0)
                c = (int) a->direction - (int) b->direction;
        if (c == 0)
                c = strcmp(a->reason, b->reason);
        return c;
}

/* A knob value's role: the family is M_KNOB_VALUE + 4 * role + unit. */
enum {
        KNOB_ROLE_CURRENT,
        KNOB_ROLE_ORIGINAL,
        KNOB_ROLE_MIN,
        KNOB_ROLE_MAX,
        _KNOB_ROLE_MAX,
};

_Static_assert(M_KNOB_ORIGINAL_VALUE == M_KNOB_VALUE + 4 && M_KNOB_MIN_VALUE == M_KNOB_VALUE + 8 &&
                       M_KNOB_MAX_VALUE == M_KNOB_MIN_VALUE + 3 && M_KNOB_MODE == M_KNOB_VALUE + KNOB_UNIT_MODE &&
                       M_KNOB_BYTES == M_KNOB_VALUE + KNOB_UNIT_KIB &&
                       M_KNOB_RATIO == M_KNOB_VALUE + KNOB_UNIT_PERMYRIAD,
               "the knob families are one per role and unit, in KnobUnit order");

static unsigned knob_modes(const KnobView *k)
{
        unsigned n = 0;

        while (n < SNAPSHOT_MAX_KNOB_MODES && k->modes[n])
                n++;
        return n;
}

/* The knob's value in a role, if it has one there, in its unit's family:
 * KiB as bytes, 1/10000 as a ratio; a mode as a state set (current) or the
 * one mode, 1 (original). A mode knob has no bound families. */
static void knob_emit(Out *o, const KnobView *k, unsigned role)
{
        const int64_t v[_KNOB_ROLE_MAX] = { k->current, k->original, k->min, k->max };
        KnobUnit u = (unsigned) k->unit < _KNOB_UNIT_MAX ? k->unit : KNOB_UNIT_NUMBER;
        MetricId id;

        if ((role == KNOB_ROLE_CURRENT && !k->has_current) || (role == KNOB_ROLE_ORIGINAL && !k->has_original))
                return;
        if (u == KNOB_UNIT_MODE) {
                unsigned n = knob_modes(k);

                if (role == KNOB_ROLE_CURRENT)
                        for (unsigned m = 0; m < n; m++)
                                emit(o, M_KNOB_MODE, u64v(v[role] == (int64_t) m), k->name, k->modes[m]);
                else if (role == KNOB_ROLE_ORIGINAL && v[role] >= 0 && v[role] < (int64_t) n)
                        emit(o, M_KNOB_ORIGINAL_MODE, u64v(1), k->name, k->modes[v[role]]);
                return;
        }
        id = (MetricId) (M_KNOB_VALUE + (role == KNOB_ROLE_MAX ? M_KNOB_MAX_VALUE - M_KNOB_VALUE : 4 * role) + u);
        if (u == KNOB_UNIT_KIB)
                emit(o, id, i64v(v[role] * 1024), k->name);
        else if (u == KNOB_UNIT_PERMYRIAD)
                emit(o, id, doublev((double) v[role] / 10000.0), k->name);
        else
                emit(o, id, i64v(v[role]), k->name);
}

static void render_knobs(Out *o, const Snapshot *s)
{
        unsigned idx[SNAPSHOT_MAX_ACTIONS];

        /* family by family: role, then unit, then the knobs in order */
        for (unsigned role = 0; role < _KNOB_ROLE_MAX; role++)
                for (unsigned u = 0; u < _KNOB_UNIT_MAX; u++)
                        for (unsigned i = 0; i < s->n_knobs; i++) {
                                KnobUnit ku = (unsigned) s->knobs[i].unit < _KNOB_UNIT_MAX ? s->knobs[i].unit
                                                                                           : KNOB_UNIT_NUMBER;

                                if (ku == u)
                                        knob_emit(o, &s->knobs[i], role);
                        }
        for (unsigned i = 0; i < s->n_knobs; i++)
                emit(o, M_KNOB_OWNED, u64v(s->knobs[i].owned), s->knobs[i].name);
        for (unsigned i = 0; i < s->n_knobs; i++)
                emit(o, M_KNOB_DISABLED, u64v(s->knobs[i].disabled), s->knobs[i].name);
        for (unsigned i = 0; i < s->n_knobs; i++)
                if (s->knobs[i].hold)
                        emit(o, M_KNOB_HELD, u64v(1), s->knobs[i].name, s->knobs[i].hold);

        /* insertion sort of indices: at most SNAPSHOT_MAX_ACTIONS entries */
        for (unsigned i = 0; i < s->n_actions; i++) {
                unsigned j = i;

                while (j > 0 && action_cmp(&s->actions[idx[j - 1]], &s->actions[i]) > 0) {
                        idx[j] = idx[j - 1];
                        j--;
                }
                idx[j] = i;
        }
        for (unsigned i = 0; i < s->n_actions; i++) {
                const ActionCounter *a = &s->actions[idx[i]];

                emit(o, M_ACTIONS, u64v(a->count), a->knob, action_direction_name(a->direction), a->reason);
        }
}

/* The families over the assessed zones and nodes (render_free). Each is one
 * shape: for each zone (or only those whose zoneinfo was read) or node, one
 * sample per target order, per fixed label, or one; labelled node[, zone]
 * [, order or the fixed label]. render_measures() walks them. */
typedef enum Measure {
        MEASURE_ZONE_MANAGED,
        MEASURE_NODE_HIGH_ORDER_FREE,
        MEASURE_ZONE_UNUSABLE,
        MEASURE_ZONE_FRAG_INDEX,
        MEASURE_NODE_SCORE,
        MEASURE_ZONE_WATERMARK,
        MEASURE_ZONE_WATERMARK_BOOST,
} Measure;

typedef struct MeasureFamily {
        MetricId id;
        Measure measure;
        bool nodes;              /* over the nodes, else over the zones */
        bool zoneinfo_only;      /* zones whose zoneinfo was read */
        bool per_order;          /* a sample per target order */
        const char *const *fixed; /* a sample per label value (NULL-terminated) */
} MeasureFamily;

static const char *const watermark_names[] = { "min", "low", "high", NULL };

/* One sample: variant is the order (per_order) or the index into fixed. */
static void measure_emit(Out *o, const MeasureFamily *mf, const ZoneMeasures *zm, const NodeMeasures *nm,
                         unsigned variant, uint64_t ps, const char *const *l)
{
        const uint64_t wmark[] = { zm ? zm->wmark_min : 0, zm ? zm->wmark_low : 0, zm ? zm->wmark_high : 0 };

        switch (mf->measure) {
        case MEASURE_ZONE_MANAGED:
                emit(o, mf->id, u64v(zm->managed * ps), l[0], l[1], l[2]);
                break;
        case MEASURE_NODE_HIGH_ORDER_FREE:
                emit(o, mf->id, u64v(nm->free_pages_ge[variant] * ps), l[0], l[1], l[2]);
                break;
        case MEASURE_ZONE_UNUSABLE:
                emit(o, mf->id, doublev(zm->unusable_permille[variant] / 1000.0), l[0], l[1], l[2]);
                break;
        case MEASURE_ZONE_FRAG_INDEX:
                /* the kernel's -1 (a block of the order is free) is no
                 * index: absent, not a sentinel */
                if (zm->frag_index_permille[variant] != FRAG_INDEX_SUITABLE)
                        emit(o, mf->id, doublev(zm->frag_index_permille[variant] / 1000.0), l[0], l[1], l[2]);
                break;
        case MEASURE_NODE_SCORE:
                emit(o, mf->id, doublev(nm->frag_score / 100.0), l[0], l[1], l[2]);
                break;
        case MEASURE_ZONE_WATERMARK:
                emit(o, mf->id, u64v(wmark[variant] * ps), l[0], l[1], l[2]);
                break;
        case MEASURE_ZONE_WATERMARK_BOOST:
                emit(o, mf->id, u64v(zm->boost * ps), l[0], l[1], l[2]);
                break;
        }
}

static void render_measures(Out *o, const Snapshot *s, const MeasureFamily *fams, size_t n_fams,
                            const unsigned *orders, unsigned n_orders, uint64_t ps)
{
        const Assessment *a = s->assessment;

        for (size_t f = 0; f < n_fams; f++) {
                const MeasureFamily *mf = &fams[f];
                unsigned n_fixed = 0;

                while (mf->fixed && mf->fixed[n_fixed])
                        n_fixed++;
                for (unsigned i = 0; i < (mf->nodes ? a->n_nodes : a->n_zones); i++) {
                        const ZoneMeasures *zm = mf->nodes ? NULL : &a->zones[i];
                        const NodeMeasures *nm = mf->nodes ? &a->nodes[i] : NULL;
                        unsigned n_var = mf->per_order ? n_orders : mf->fixed ? n_fixed : 1;
                        char nb[16], kb[16];

                        if (zm && mf->zoneinfo_only && !zm->have_zoneinfo)
                                continue;
                        snprintf(nb, sizeof(nb), "%d", zm ? zm->node : nm->node);
                        for (unsigned v = 0; v < n_var; v++) {
                                const char *l[3] = { nb, NULL, NULL };
                                unsigned nl = 1;

                                if (zm)
                                        l[nl++] = zm->zone;
                                if (mf->per_order) {
                                        snprintf(kb, sizeof(kb), "%u", orders[v]);
                                        l[nl++] = kb;
                                } else if (mf->fixed)
                                        l[nl++] = mf->fixed[v];
                                measure_emit(o, mf, zm, nm, mf->per_order ? orders[v] : v, ps, l);
                        }
                }
        }
}

static void render_free(Out *o, const Snapshot *s)
{
        static const MeasureFamily before_targets[] = {
                { M_ZONE_MANAGED, MEASURE_ZONE_MANAGED, .zoneinfo_only = true },
                { M_NODE_HIGH_ORDER_FREE, MEASURE_NODE_HIGH_ORDER_FREE, .nodes = true, .per_order = true },
        };
        static const MeasureFamily before_thresholds[] = {
                { M_ZONE_UNUSABLE, MEASURE_ZONE_UNUSABLE, .per_order = true },
                { M_ZONE_FRAG_INDEX, MEASURE_ZONE_FRAG_INDEX, .per_order = true },
                { M_NODE_SCORE, MEASURE_NODE_SCORE, .nodes = true },
        };
        static const MeasureFamily after_thresholds[] = {
                { M_ZONE_WATERMARK, MEASURE_ZONE_WATERMARK, .zoneinfo_only = true, .fixed = watermark_names },
                { M_ZONE_WATERMARK_BOOST, MEASURE_ZONE_WATERMARK_BOOST, .zoneinfo_only = true },
        };
        const Observation *obs = s->obs;
        const Assessment *a = s->assessment;
        uint64_t ps = a->page_size ? a->page_size : obs->page_size;
        unsigned orders[SNAPSHOT_MAX_TARGET_ORDERS];
        unsigned n_orders = target_orders(s, orders);
        char nb[16], kb[16];

        if (obs->have & OBS_MASK(OBS_BUDDYINFO))
                for (unsigned z = 0; z < obs->buddy.n_zones && z < FRAGD_MAX_ZONES; z++) {
                        const BuddyZone *bz = &obs->buddy.zones[z];

                        snprintf(nb, sizeof(nb), "%d", bz->node);
                        for (unsigned k = 0; k < bz->n_orders && k < FRAGD_MAX_ORDERS; k++) {
                                snprintf(kb, sizeof(kb), "%u", k);
                                emit(o, M_ZONE_FREE, u64v((bz->nr_free[k] << k) * ps), nb, bz->zone, kb);
                        }
                }
        render_measures(o, s, before_targets, ELEMENTSOF(before_targets), orders, n_orders, ps);
        for (unsigned t = 0; t < s->n_targets; t++) {
                snprintf(nb, sizeof(nb), "%d", s->targets[t].node);
                snprintf(kb, sizeof(kb), "%u", s->targets[t].order);
                emit(o, M_NODE_RESERVE_TARGET, u64v(s->targets[t].bytes), nb, kb);
        }
        for (unsigned i = 0; i < s->n_held; i++) {
                snprintf(nb, sizeof(nb), "%d", s->held[i].node);
                emit(o, M_NODE_WATERMARK_HELD, u64v(s->held[i].bytes), nb);
        }
        render_measures(o, s, before_thresholds, ELEMENTSOF(before_thresholds), orders, n_orders, ps);
        if (a->proactiveness >= 0) {
                emit(o, M_SCORE_THRESHOLD, doublev(a->score_wmark_low / 100.0), "low");
                emit(o, M_SCORE_THRESHOLD, doublev(a->score_wmark_high / 100.0), "high");
        }
        render_measures(o, s, after_thresholds, ELEMENTSOF(after_thresholds), orders, n_orders, ps);

        /* sparse pagetypeinfo: whatever the last read gave, with its age */
        if (obs->pagetype_usec > 0) {
                const PageTypeInfo *p = &obs->pagetype;

                for (unsigned z = 0; z < p->n_zones && z < FRAGD_MAX_ZONES; z++) {
                        if (!p->zones[z].have_blocks)
                                continue;
                        snprintf(nb, sizeof(nb), "%d", p->zones[z].node);
                        for (unsigned t = 0; t < p->n_types && t < FRAGD_MAX_MIGRATETYPES; t++)
                                emit(o, M_ZONE_PAGEBLOCKS, u64v(p->zones[z].blocks[t]), nb, p->zones[z].zone,
                                     p->types[t]);
                }
                for (unsigned n = 0; n < a->n_nodes; n++) {
                        if (a->nodes[n].polluted_blocks_permille < 0)
                                continue;
                        snprintf(nb, sizeof(nb), "%d", a->nodes[n].node);
                        emit(o, M_NODE_NONMOVABLE_BLOCKS,
                             doublev(a->nodes[n].polluted_blocks_permille / 1000.0), nb);
                }
                emit(o, M_PAGETYPEINFO_AGE,
                     doublev(obs->now_usec > obs->pagetype_usec
                                     ? usec_to_sec(obs->now_usec - obs->pagetype_usec)
                                     : 0.0));
        }
}

/* Pages scanned per THP-order block gained since the previous tick. false
 * when undefined (no previous reading, counters went backwards, nothing
 * scanned). */
static bool compaction_efficiency(const Snapshot *s, double *ret)
{
        const Observation *cur = s->obs, *prev = s->prev_obs;
        unsigned h = s->assessment->hpage_order;
        uint64_t cm, cf, pm, pf, scanned, bc, bp;

        if (!prev || !(prev->have & OBS_MASK(OBS_BUDDYINFO)) || !(cur->have & OBS_MASK(OBS_BUDDYINFO)))
                return false;
        if (!vm_get(cur, "compact_migrate_scanned", &cm) || !vm_get(cur, "compact_free_scanned", &cf) ||
            !vm_get(prev, "compact_migrate_scanned", &pm) || !vm_get(prev, "compact_free_scanned", &pf))
                return false;
        if (cm < pm || cf < pf || h >= FRAGD_MAX_ORDERS)
                return false;
        scanned = (cm - pm) + (cf - pf);
        if (scanned == 0)
                return false;
        bc = buddy_blocks_at_least(&cur->buddy, h);
        bp = buddy_blocks_at_least(&prev->buddy, h);
        *ret = bc > bp ? (double) scanned / (double) (bc - bp) : INFINITY;
        return true;
}

static void render_compaction(Out *o, const Snapshot *s)
{
        const Observation *obs = s->obs;
        uint64_t v, sum = 0;
        bool any = false;
        double eff;

        if (vm_get(obs, "compact_stall", &v))
                emit(o, M_COMPACT_STALLS, u64v(v));
        if (vm_get(obs, "compact_success", &v))
                emit(o, M_COMPACT_OUTCOMES, u64v(v), "success");
        if (vm_get(obs, "compact_fail", &v))
                emit(o, M_COMPACT_OUTCOMES, u64v(v), "fail");
        if (vm_get(obs, "compact_migrate_scanned", &v))
                emit(o, M_COMPACT_SCANNED, u64v(v), "migrate");
        if (vm_get(obs, "compact_free_scanned", &v))
                emit(o, M_COMPACT_SCANNED, u64v(v), "free");
        if (vm_get(obs, "compact_daemon_migrate_scanned", &v))
                emit(o, M_KCOMPACTD_SCANNED, u64v(v), "migrate");
        if (vm_get(obs, "compact_daemon_free_scanned", &v))
                emit(o, M_KCOMPACTD_SCANNED, u64v(v), "free");
        if (vm_get(obs, "compact_isolated", &v))
                emit(o, M_COMPACT_ISOLATED, u64v(v));
        if (vm_get(obs, "compact_daemon_wake", &v))
                emit(o, M_KCOMPACTD_WAKEUPS, u64v(v));
        if (compaction_efficiency(s, &eff))
                emit(o, M_COMPACT_EFFICIENCY, doublev(eff));
        if (obs->have & OBS_MASK(OBS_VMSTAT))
                for (unsigned i = 0; i < obs->vmstat.n && i < FRAGD_MAX_KV; i++)
                        if (strncmp(obs->vmstat.e[i].name, "allocstall_", strlen("allocstall_")) == 0) {
                                sum += obs->vmstat.e[i].value;
                                any = true;
                        }
        if (any)
                emit(o, M_RECLAIM_STALLS, u64v(sum));
}

/* transparent_hugepage/enabled as a state set: the kernel's three modes,
 * and the one in force if a kernel has another */
static void render_thp_enabled(Out *o, const Observation *obs)
{
        static const char *const modes[] = { "always", "madvise", "never" };
        bool known = false;

        if (!(obs->have & OBS_MASK(OBS_THP)) || !obs->thp.enabled[0])
                return;
        for (unsigned m = 0; m < ELEMENTSOF(modes); m++) {
                bool on = strcmp(obs->thp.enabled, modes[m]) == 0;

                known = known || on;
                emit(o, M_THP_ENABLED_MODE, u64v(on), modes[m]);
        }
        if (!known)
                emit(o, M_THP_ENABLED_MODE, u64v(1), obs->thp.enabled);
}

static void render_thp(Out *o, const Snapshot *s)
{
        static const struct {
                MetricId id;
                const char *mthp;  /* per-size stats file */
                const char *vmstat; /* PMD-size fallback, NULL = none */
        } fams[] = {
                { M_THP_FAULT_ALLOC, "anon_fault_alloc", "thp_fault_alloc" },
                { M_THP_FAULT_FALLBACK, "anon_fault_fallback", "thp_fault_fallback" },
                { M_THP_FAULT_FALLBACK_CHARGE, "anon_fault_fallback_charge", "thp_fault_fallback_charge" },
                { M_THP_SHMEM_ALLOC, "shmem_alloc", NULL },
                { M_THP_SHMEM_FALLBACK, "shmem_fallback", NULL },
        };
        const Observation *obs = s->obs;
        const ThpInfo *t = &obs->thp;
        bool mthp = (obs->have & OBS_MASK(OBS_THP)) && t->n_sizes > 0;
        char sb[24];
        uint64_t v;

        if (!mthp) {
                uint64_t pmd = t->hpage_pmd_size;

                if (!(obs->have & OBS_MASK(OBS_THP)) || pmd == 0)
                        pmd = (uint64_t) (s->assessment->page_size ? s->assessment->page_size : obs->page_size)
                              << s->assessment->hpage_order;
                snprintf(sb, sizeof(sb), "%" PRIu64 "kB", pmd / 1024);
        }
        for (unsigned f = 0; f < ELEMENTSOF(fams); f++) {
                if (mthp) {
                        for (unsigned i = 0; i < t->n_sizes && i < FRAGD_MAX_THP_SIZES; i++) {
                                if (thp_size_stat_get(&t->sizes[i], fams[f].mthp, &v) < 0)
                                        continue;
                                snprintf(sb, sizeof(sb), "%ukB", t->sizes[i].size_kb);
                                emit(o, fams[f].id, u64v(v), sb);
                        }
                } else if (fams[f].vmstat && vm_get(obs, fams[f].vmstat, &v))
                        emit(o, fams[f].id, u64v(v), sb);
        }
        if (vm_get(obs, "thp_collapse_alloc", &v))
                emit(o, M_THP_COLLAPSE_ALLOC, u64v(v));
        if (vm_get(obs, "thp_collapse_alloc_failed", &v))
                emit(o, M_THP_COLLAPSE_ALLOC_FAILED, u64v(v));
        render_thp_enabled(o, obs);
}

static void render_psi(Out *o, const Snapshot *s)
{
        const PsiStats *p = &s->obs->psi_memory;

        if (!(s->obs->have & OBS_MASK(OBS_PSI_MEMORY)))
                return;
        /* the totals are node_exporter's (node_pressure_memory_*): not again here */
        if (p->some.present)
                emit(o, M_PSI_AVG10, doublev(p->some.avg10_permyriad / 10000.0), "some");
        if (p->full.present)
                emit(o, M_PSI_AVG10, doublev(p->full.avg10_permyriad / 10000.0), "full");
}

static void render_cgroups(Out *o, const Snapshot *s)
{
        const CgroupView *cg = s->cgroups;
        unsigned n = s->n_cgroups;

        for (unsigned i = 0; i < n; i++)
                emit(o, M_CGROUP_PRESENT, u64v(cg[i].present), cg[i].name);
        for (unsigned i = 0; i < n; i++)
                if (cg[i].have_psi) {
                        emit(o, M_CGROUP_PSI_STALLED, doublev(usec_to_sec(cg[i].psi_some_usec)), cg[i].name,
                             "some");
                        emit(o, M_CGROUP_PSI_STALLED, doublev(usec_to_sec(cg[i].psi_full_usec)), cg[i].name,
                             "full");
                }
        for (unsigned i = 0; i < n; i++)
                if (cg[i].have_thp) {
                        emit(o, M_CGROUP_THP, u64v(cg[i].anon_thp_bytes), cg[i].name, "anon");
                        emit(o, M_CGROUP_THP, u64v(cg[i].file_thp_bytes), cg[i].name, "file");
                        emit(o, M_CGROUP_THP, u64v(cg[i].shmem_thp_bytes), cg[i].name, "shmem");
                }
        for (unsigned i = 0; i < n; i++)
                if (cg[i].have_delay) {
                        emit(o, M_CGROUP_DELAY, doublev(cg[i].compact_delay_ns / 1e9), cg[i].name,
                             "compact");
                        emit(o, M_CGROUP_DELAY, doublev(cg[i].reclaim_delay_ns / 1e9), cg[i].name,
                             "reclaim");
                        emit(o, M_CGROUP_DELAY, doublev(cg[i].thrashing_delay_ns / 1e9), cg[i].name,
                             "thrashing");
                }
        for (unsigned i = 0; i < n; i++)
                if (cg[i].have_delay) {
                        emit(o, M_CGROUP_DELAYS, u64v(cg[i].compact_count), cg[i].name, "compact");
                        emit(o, M_CGROUP_DELAYS, u64v(cg[i].reclaim_count), cg[i].name, "reclaim");
                        emit(o, M_CGROUP_DELAYS, u64v(cg[i].thrashing_count), cg[i].name, "thrashing");
                }
        for (unsigned i = 0; i < n; i++)
                if (cg[i].mechanism)
                        emit(o, M_CGROUP_THP_MECHANISM, u64v(1), cg[i].name, cg[i].mechanism);
}

static void render_pagecache(Out *o, const Snapshot *s)
{
        const PageCacheMeasures *m = &s->assessment->pagecache;
        char ob[12];

        if (!m->valid)
                return;
        for (unsigned k = 0; k < s->obs->pagecache.n_orders && k < FRAGD_MAX_ORDERS; k++) {
                snprintf(ob, sizeof(ob), "%u", k);
                emit(o, M_PAGECACHE_ADDED, u64v(m->bytes_total[k]), ob);
        }
        if (s->pagecache_order == 0)
                return;
        emit(o, M_PAGECACHE_ORDER, u64v(s->pagecache_order));
        snprintf(ob, sizeof(ob), "%u", s->pagecache_order);
        emit(o, M_PAGECACHE_SHARE, doublev(s->pagecache_share_permyriad / 10000.0), ob);
}

/* A hist of counts by order beside the page cache's folios (kswapd woken,
 * failed allocations): one series per order up to the highest seen */
static void render_order_counts(Out *o, const Snapshot *s, const OrderCountHist *w, MetricId id)
{
        unsigned top = 0;
        char ob[12];

        if (!(s->obs->have & OBS_MASK(OBS_PAGECACHE)) || !w->valid)
                return;
        for (unsigned k = 0; k < FRAGD_MAX_ORDERS; k++)
                if (w->counts[k] > 0)
                        top = k + 1;
        for (unsigned k = 0; k < top; k++) {
                snprintf(ob, sizeof(ob), "%u", k);
                emit(o, id, u64v(w->counts[k]), ob);
        }
}

int metrics_render(const Snapshot *s, FILE *f)
{
        Out o = { .f = f, .cur = -1 };
        int r;

        r = validate(s);
        if (r < 0)
                return r;
        render_health(&o, s);
        render_knobs(&o, s);
        render_free(&o, s);
        render_compaction(&o, s);
        render_thp(&o, s);
        render_pagecache(&o, s);
        render_order_counts(&o, s, &s->obs->kswapd_wake, M_KSWAPD_WAKEUPS);
        render_order_counts(&o, s, &s->obs->alloc_fail, M_ALLOC_FAILURES);
        render_psi(&o, s);
        render_cgroups(&o, s);
        if (fflush(f) != 0 || ferror(f))
                return -EIO;
        return 0;
}

int metrics_render_alloc(const Snapshot *s, char **ret_buf, size_t *ret_len)
{
        char *buf = NULL;
        size_t len = 0;
        FILE *f;
        int r;

        f = open_memstream(&buf, &len);
        if (!f)
                return negative_errno();
        r = metrics_render(s, f);
        if (fclose(f) != 0 && r >= 0)
                r = -EIO;
        if (r < 0) {
                free(buf);
                return r;
        }
        *ret_buf = buf;
        if (ret_len)
                *ret_len = len;
        return 0;
}

/* ---- the textfile ---------------------------------------------------------- */

int metrics_dir_open(int root_fd, const char *path)
{
        if (!path || !*path)
                return -EINVAL;
        return root_openat(root_fd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0, 0);
}

int metrics_write(int dirfd, const char *dir_path_for_messages, const Snapshot *s)
{
        _cleanup_free_ char *buf = NULL;
        size_t len = 0;
        int r;

        if (dirfd < 0)
                return dirfd < -1 ? dirfd : -EBADF;
        r = metrics_render_alloc(s, &buf, &len);
        if (r < 0)
                return r;
        return write_file_atomic_at(dirfd, FRAGD_METRICS_FILE, buf, len, 0644);
}

int metrics_writer_write(MetricsWriter *w, int dirfd, const char *dir_path, const Snapshot *s)
{
        int r = metrics_write(dirfd, dir_path, s);

        w->n_writes++;
        if (r < 0) {
                w->n_failures++;
                /* once per error: a missing directory would otherwise be
                 * logged every interval for as long as it is missing */
                if (r != w->last_r) {
                        if (dirfd < 0 && r == -ENOENT)
                                log_warning("Metrics textfile directory '%s' does not exist (node_exporter's "
                                            "textfile collector not installed?): not writing %s; set [daemon] "
                                            "textfile_dir to the collector's directory, or empty to turn the "
                                            "textfile off. Retrying every interval; logged again when it "
                                            "works or the error changes",
                                            dir_path ? dir_path : "?", FRAGD_METRICS_FILE);
                        else
                                log_warning_errno(r, "Failed to write metrics to '%s/%s': %m ([daemon] "
                                                  "textfile_dir). Retrying every interval; logged again when "
                                                  "it works or the error changes",
                                                  dir_path ? dir_path : "?", FRAGD_METRICS_FILE);
                }
        } else if (w->last_r < 0)
                log_info("Metrics written to '%s/%s' again", dir_path ? dir_path : "?", FRAGD_METRICS_FILE);
        w->last_r = r;
        return r;
}

int metrics_writer_write_path(MetricsWriter *w, int root_fd, const char *dir_path, const Snapshot *s)
{
        _cleanup_close_ int dfd = -1;

        if (!dir_path || !*dir_path)
                return 0;
        dfd = metrics_dir_open(root_fd, dir_path);
        return metrics_writer_write(w, dfd, dir_path, s);
}
