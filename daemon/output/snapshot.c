/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <string.h>

#include "knobs/lever.h"
#include "output/snapshot.h"

/* The lever's unit picks its families (fragd_knob_value, _bytes, _ratio,
 * _mode): a lever without an entry in lever_unit() is a number */
static void knob_view_unit(KnobView *k, Lever l)
{
        static const KnobUnit units[] = {
                [LEVER_UNIT_NUMBER] = KNOB_UNIT_NUMBER,
                [LEVER_UNIT_KIB] = KNOB_UNIT_KIB,
                [LEVER_UNIT_PERMYRIAD] = KNOB_UNIT_PERMYRIAD,
                [LEVER_UNIT_MODE] = KNOB_UNIT_MODE,
        };
        LeverUnit u = lever_unit(l);

        k->unit = (unsigned) u < ELEMENTSOF(units) ? units[u] : KNOB_UNIT_NUMBER;
        if (k->unit != KNOB_UNIT_MODE)
                return;
        for (unsigned m = 0; m < SNAPSHOT_MAX_KNOB_MODES && lever_mode_name(l, m); m++)
                k->modes[m] = lever_mode_name(l, m);
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
        b->s.held = b->held;
        b->s.cgroups = b->cgroups;

        for (unsigned l = 0; l < _LEVER_MAX && b->s.n_knobs < SNAPSHOT_MAX_KNOBS; l++) {
                KnobView *k = &b->knobs[b->s.n_knobs];
                const LeverConfig *lc = &cfg->policy.lever[l];
                const PolicyHeldItem *h = decision_held_shown(d, (Lever) l);
                KnobInfo info;

                memset(k, 0, sizeof(*k)); /* a lever skipped below leaves its fields here */
                k->name = lever_name((Lever) l);
                k->min = lc->min;
                k->max = lc->max;
                if (d && d->levers[l].available) {
                        k->has_current = true;
                        k->current = d->levers[l].current;
                } else
                        k->has_current = lever_from_observation(o, (Lever) l, &k->current);
                if (reg && knob_find_info(reg, knob_lever_name((Lever) l), &info) >= 0) {
                        k->owned = info.owned;
                        k->disabled = info.disabled || info.yielded;
                        k->has_original = lever_value_parse((Lever) l, info.original, &k->original) >= 0;
                }
                if (h)
                        k->hold = policy_hold_name(h->hold);
                knob_view_unit(k, (Lever) l);
                if (!lc->enabled && !k->owned && !k->has_current)
                        continue;
                b->s.n_knobs++;
        }

        /* target orders and per-node targets, as the policy resolved them */
        if (d) {
                b->s.pagecache_order = d->eval.pagecache_order;
                b->s.pagecache_share_permyriad = d->eval.pagecache_share_permyriad;
        }
        if (d && d->eval.n_nodes) {
                for (unsigned i = 0; i < d->eval.n_nodes && i < FRAGD_MAX_NODES; i++)
                        b->held[b->s.n_held++] = (WatermarkHeldView) {
                                .node = d->eval.nodes[i].node,
                                .bytes = d->eval.nodes[i].watermark_held_bytes,
                        };
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
