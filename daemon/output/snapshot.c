/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <string.h>

#include "output/snapshot.h"

static bool lever_from_obs(const Observation *o, Lever l, int64_t *ret)
{
        static const VmKnob vm[_LEVER_MAX] = {
                [LEVER_COMPACTION_PROACTIVENESS] = VM_COMPACTION_PROACTIVENESS,
                [LEVER_WATERMARK_SCALE_FACTOR] = VM_WATERMARK_SCALE_FACTOR,
                [LEVER_MIN_FREE_KBYTES] = VM_MIN_FREE_KBYTES,
                [LEVER_WATERMARK_BOOST_FACTOR] = VM_WATERMARK_BOOST_FACTOR,
                [LEVER_EXTFRAG_THRESHOLD] = VM_EXTFRAG_THRESHOLD,
        };
        int r;

        if (l == LEVER_THP_DEFRAG) {
                if (!(o->have & OBS_MASK(OBS_THP)))
                        return false;
                r = thp_defrag_from_name(o->thp.defrag);
                if (r < 0)
                        return false;
                *ret = r;
                return true;
        }
        if (!(o->have & OBS_MASK(OBS_SYSCTL)) || !o->vm.present[vm[l]])
                return false;
        *ret = o->vm.value[vm[l]];
        return true;
}

static bool parse_value(Lever l, const char *s, int64_t *ret)
{
        char *end;
        long long v;
        int r;

        if (!s || !*s)
                return false;
        if (l == LEVER_THP_DEFRAG) {
                r = thp_defrag_from_name(s);
                if (r < 0)
                        return false;
                *ret = r;
                return true;
        }
        errno = 0;
        v = strtoll(s, &end, 10);
        if (errno || *end)
                return false;
        *ret = v;
        return true;
}

void snapshot_build(SnapshotBuilder *b, const FragdConfig *cfg, const Observation *o, const Observation *prev,
                    const Assessment *a, const Decision *d, const KnobRegistry *reg)
{
        memset(b, 0, sizeof(*b));
        b->s.obs = o;
        b->s.assessment = a;
        b->s.prev_obs = prev;
        b->s.knobs = b->knobs;
        b->s.targets = b->targets;
        b->s.cgroups = b->cgroups;

        for (unsigned l = 0; l < _LEVER_MAX && b->s.n_knobs < SNAPSHOT_MAX_KNOBS; l++) {
                KnobView *k = &b->knobs[b->s.n_knobs];
                const LeverConfig *lc = &cfg->policy.lever[l];
                KnobInfo info;

                k->name = lever_name((Lever) l);
                k->min = lc->min;
                k->max = lc->max;
                if (d && d->levers[l].available) {
                        k->has_current = true;
                        k->current = d->levers[l].current;
                } else
                        k->has_current = lever_from_obs(o, (Lever) l, &k->current);
                if (reg && knob_find_info(reg, knob_lever_name((Lever) l), &info) >= 0) {
                        k->owned = info.owned;
                        k->disabled = info.disabled || info.yielded;
                        k->has_original = parse_value((Lever) l, info.original, &k->original);
                }
                if (!lc->enabled && !k->owned && !k->has_current)
                        continue;
                b->s.n_knobs++;
        }

        /* target orders and per-node targets, as the policy resolved them */
        if (d && d->eval.n_nodes) {
                b->s.n_target_orders = 2;
                b->s.target_orders[0] = d->eval.order[0];
                b->s.target_orders[1] = d->eval.order[1];
                if (b->s.target_orders[0] == b->s.target_orders[1])
                        b->s.n_target_orders = 1;
                for (unsigned i = 0; i < d->eval.n_nodes && b->s.n_targets + 2 <= SNAPSHOT_MAX_TARGETS; i++)
                        for (unsigned k = 0; k < b->s.n_target_orders; k++)
                                b->targets[b->s.n_targets++] = (ReserveTargetView) {
                                        .node = d->eval.nodes[i].node,
                                        .order = d->eval.order[k],
                                        .bytes = d->eval.nodes[i].target_bytes[k],
                                };
        } else {
                b->s.n_target_orders = 2;
                b->s.target_orders[0] = cfg->policy.order_large;
                b->s.target_orders[1] = cfg->policy.order_thp ? cfg->policy.order_thp : a->hpage_order;
        }
}
