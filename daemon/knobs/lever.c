/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Levers <-> knobs <-> observations, and the apply loop: see
 * daemon/knobs/lever.h. Uses the registry (knob.c), the knob names
 * (knob-name.c) and the compaction worker; nothing in knobs/ calls it. */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "core/log-event.h"
#include "core/log.h"
#include "core/parse-util.h"
#include "knobs/lever.h"

LeverUnit lever_unit(Lever l)
{
        static const LeverUnit units[_LEVER_MAX] = {
                [LEVER_MIN_FREE_KBYTES] = LEVER_UNIT_KIB,
                [LEVER_WATERMARK_SCALE_FACTOR] = LEVER_UNIT_PERMYRIAD,
                [LEVER_WATERMARK_BOOST_FACTOR] = LEVER_UNIT_PERMYRIAD,
                [LEVER_THP_DEFRAG] = LEVER_UNIT_MODE,
        };

        return (unsigned) l < _LEVER_MAX ? units[l] : LEVER_UNIT_NUMBER;
}

const char *lever_mode_name(Lever l, int64_t v)
{
        if (l == LEVER_THP_DEFRAG && v >= 0 && v < _THP_DEFRAG_MAX)
                return thp_defrag_name((ThpDefragMode) v);
        return NULL;
}

void lever_value_format(Lever l, int64_t v, char *ret, size_t size)
{
        const char *s;

        if ((s = lever_mode_name(l, v)))
                snprintf(ret, size, "%s", s);
        else
                snprintf(ret, size, "%" PRId64, v);
}

int lever_value_parse(Lever l, const char *s, int64_t *ret)
{
        int64_t v;
        int r;

        if (!s || !*s)
                return -EINVAL;
        if (l == LEVER_THP_DEFRAG) {
                r = thp_defrag_from_name(s);
                if (r < 0)
                        return -EBADMSG;
                *ret = r;
                return 0;
        }
        r = span_to_i64((Span) { s, strlen(s) }, &v);
        if (r < 0)
                return r;
        *ret = v;
        return 0;
}

bool lever_from_observation(const Observation *o, Lever l, int64_t *ret)
{
        static const VmKnob vm[_LEVER_MAX] = {
                [LEVER_COMPACTION_PROACTIVENESS] = VM_COMPACTION_PROACTIVENESS,
                [LEVER_WATERMARK_SCALE_FACTOR] = VM_WATERMARK_SCALE_FACTOR,
                [LEVER_MIN_FREE_KBYTES] = VM_MIN_FREE_KBYTES,
                [LEVER_WATERMARK_BOOST_FACTOR] = VM_WATERMARK_BOOST_FACTOR,
                [LEVER_EXTFRAG_THRESHOLD] = VM_EXTFRAG_THRESHOLD,
                [LEVER_DEFRAG_MODE] = VM_DEFRAG_MODE,
        };
        int r;

        if ((unsigned) l >= _LEVER_MAX)
                return false;
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

int lever_read(KnobRegistry *reg, Lever l, int64_t *ret)
{
        const char *name = knob_lever_name(l);
        char buf[KNOB_VALUE_MAX];
        int r;

        if (!name)
                return -EINVAL;
        if (l != LEVER_THP_DEFRAG)
                return knob_get_int(reg, name, ret);
        r = knob_get(reg, name, buf, sizeof(buf));
        if (r < 0)
                return r;
        return lever_value_parse(l, buf, ret);
}

int lever_write(KnobRegistry *reg, Lever l, int64_t v, usec_t now)
{
        const char *name = knob_lever_name(l);

        if (!name)
                return -EINVAL;
        if (l == LEVER_THP_DEFRAG) {
                const char *s = thp_defrag_name((ThpDefragMode) v);

                return s ? knob_set(reg, name, s, now) : -EINVAL;
        }
        return knob_set_int(reg, name, v, now);
}

void levers_from_observation(const PolicyConfig *p, const Observation *o, LeverInput in[_LEVER_MAX])
{
        for (unsigned l = 0; l < _LEVER_MAX; l++) {
                int64_t v;

                in[l] = (LeverInput) {};
                if (!p->lever[l].enabled || !lever_from_observation(o, (Lever) l, &v))
                        continue;
                in[l] = (LeverInput) { .available = true, .current = v, .baseline = v };
        }
}

void levers_from_knobs(KnobRegistry *reg, const PolicyConfig *p, LeverBaseline *b, const Observation *fresh,
                       LeverInput in[_LEVER_MAX])
{
        for (unsigned l = 0; l < _LEVER_MAX; l++) {
                const char *name = knob_lever_name((Lever) l);
                KnobInfo info;
                int64_t v;

                in[l] = (LeverInput) {};
                if (!p->lever[l].enabled || knob_is_disabled(reg, name))
                        continue;
                if (knob_find_info(reg, name, &info) >= 0 && info.yielded)
                        continue;
                if (!(fresh && lever_from_observation(fresh, (Lever) l, &v)) && lever_read(reg, (Lever) l, &v) < 0)
                        continue;
                if (!b->have[l]) {
                        /* the kernel's own value: what we found, or what a
                         * journal from an earlier fragd says was there */
                        int64_t orig;

                        b->value[l] = v;
                        if (knob_find_info(reg, name, &info) >= 0 && info.owned &&
                            lever_value_parse((Lever) l, info.original, &orig) >= 0)
                                b->value[l] = orig;
                        b->have[l] = true;
                }
                in[l].available = true;
                in[l].current = v;
                in[l].baseline = b->value[l];
        }
}

unsigned levers_check_kernel(KnobRegistry *reg, const PolicyConfig *p)
{
        const char *name = knob_lever_name(LEVER_DEFRAG_MODE);
        char buf[KNOB_VALUE_MAX];
        int r;

        if (!p->lever[LEVER_DEFRAG_MODE].enabled || knob_is_disabled(reg, name))
                return 0;
        r = knob_get(reg, name, buf, sizeof(buf));
        if (r != -ENOENT)
                return 0;
        (void) knob_disable(reg, name, r);
        log_notice("Lever defrag_mode off: this kernel has no /proc/sys/vm/defrag_mode (it came with Linux 6.15); "
                   "pageblock pollution is watched, not acted on ([knob \"defrag_mode\"] enabled = false says this "
                   "is intended)");
        return 1;
}

static void applied(const LeverApply *ap, const DecisionItem *it, const char *knob, LeverAction action,
                    const char *text)
{
        if (ap->applied)
                ap->applied(ap->userdata, it, knob, action, text);
}

/* A kcompactd kick: the lever's knob written again with the value it
 * holds, when that is within the bounds. Can come every tick: debug only. */
static unsigned apply_kick(const LeverApply *ap, Decision *d, unsigned i, const char *text, usec_t now)
{
        const DecisionItem *it = &d->items[i];
        const LeverConfig *lc = &ap->policy->lever[it->lever];
        int r;

        r = knob_rewrite_within(ap->knobs, knob_lever_name(it->lever), lc->min, MAX(lc->min, lc->max), now);
        if (r >= 0) {
                decision_mark_applied(d, i, it->to);
                applied(ap, it, lever_name(it->lever), LEVER_ACTION_ONESHOT, text);
                log_debug("%s%s", ap->dry_run ? "dry run: " : "", text);
        } else if (r == -ESTALE)
                log_notice("%s was changed by someone else: fragd leaves it alone until restart "
                           "(ownership=respect)", lever_name(it->lever));
        else if (r == -EDOM)
                log_debug("Not kicking kcompactd: %s is outside its bounds %" PRId64 "..%" PRId64
                          " and a kick would write it again",
                          lever_name(it->lever), lc->min, lc->max);
        else if (r != -ECANCELED) {
                log_debug_errno(r, "Rewriting %s failed: %m", lever_name(it->lever));
                return 1;
        }
        return 0;
}

/* The event a knob change is: a rollback or back-off by its reason
 * (defrag_mode turned off for its cost is a back-off), else by its
 * direction. */
static LogEvent lever_event(const DecisionItem *it)
{
        if (it->reason == POLICY_REASON_PSI_ROLLBACK)
                return LOG_EVENT_ROLLBACK;
        if (it->reason == POLICY_REASON_BACKOFF_INEFFECTIVE || it->reason == POLICY_REASON_DEFRAG_MODE_COST)
                return LOG_EVENT_BACKOFF;
        return it->to > it->from ? LOG_EVENT_KNOB_RAISED : LOG_EVENT_KNOB_LOWERED;
}

static void apply_compact(const LeverApply *ap, Decision *d, unsigned i, const char *text)
{
        const DecisionItem *it = &d->items[i];
        char knob[KNOB_NAME_MAX];
        int r;

        r = compact_worker_submit(ap->worker, it->node);
        if (r < 0) {
                log_debug_errno(r, "Node %d compaction not started: %m", it->node);
                return;
        }
        decision_mark_applied(d, i, it->to);
        applied(ap, it, "compact", LEVER_ACTION_ONESHOT, text);
        if (ap->dry_run)
                log_info("dry run: %s", text);
        else {
                compact_worker_knob_name(it->node, knob, sizeof(knob));
                log_event(LOG_INFO, LOG_EVENT_COMPACTION, knob, it->node, NULL, NULL,
                          policy_reason_name(it->reason), "%s", text);
        }
}

static unsigned apply_lever(const LeverApply *ap, Decision *d, unsigned i, const char *text, usec_t now)
{
        const DecisionItem *it = &d->items[i];
        char from[LEVER_VALUE_MAX], to[LEVER_VALUE_MAX];
        int r;

        r = lever_write(ap->knobs, it->lever, it->to, now);
        lever_value_format(it->lever, it->from, from, sizeof(from));
        lever_value_format(it->lever, it->to, to, sizeof(to));
        if (r >= 0) {
                decision_mark_applied(d, i, it->to);
                applied(ap, it, lever_name(it->lever),
                        it->to > it->from ? LEVER_ACTION_UP : LEVER_ACTION_DOWN, text);
                if (ap->dry_run)
                        log_info("dry run: %s", text);
                else
                        log_event(LOG_NOTICE, lever_event(it), knob_lever_name(it->lever), LOG_EVENT_NO_NODE,
                                  from, to, policy_reason_name(it->reason), "%s", text);
        } else if (r == -ERANGE) {
                int64_t rb;

                if (lever_read(ap->knobs, it->lever, &rb) >= 0) {
                        char kept[LEVER_VALUE_MAX];

                        decision_mark_applied(d, i, rb);
                        lever_value_format(it->lever, rb, kept, sizeof(kept));
                        log_warning("%s: wrote %s but the kernel holds %s", lever_name(it->lever), to, kept);
                }
                return 1;
        } else if (r == -ESTALE)
                log_notice("%s was changed by someone else: fragd leaves it alone until restart "
                           "(ownership=respect)", lever_name(it->lever));
        else if (r != -ECANCELED) {
                log_debug_errno(r, "Setting %s %s -> %s failed: %m", lever_name(it->lever), from, to);
                return 1;
        }
        return 0;
}

/* One event when a lever's shown hold (decision_held_shown) starts or
 * changes to one not in force lately (knob_held: the move it wanted, from
 * its current value to the wanted one, and the hold), one when it has ended
 * (knob_hold_ended, after LEVER_HELD_END_TICKS ticks without a shown hold) */
static void say_holds(LeverHeldLog *hl, const Decision *d)
{
        for (unsigned l = 0; l < _LEVER_MAX; l++) {
                const PolicyHeldItem *h = decision_held_shown(d, (Lever) l);
                PolicyHold now = h ? h->hold : POLICY_HOLD_NONE;

                hl->now[l] = now;
                hl->text[l][0] = '\0';
                for (unsigned k = 0; k < _POLICY_HOLD_MAX; k++)
                        if (k != (unsigned) now && hl->recent[l][k] > 0)
                                hl->recent[l][k]--;
                if (h) {
                        (void) decision_explain_held(h, hl->text[l], sizeof(hl->text[l]));
                        hl->absent[l] = 0;
                        /* not for a hold that took turns with this one in
                         * the last ticks: it was said when it came */
                        if (now != hl->said[l] && hl->recent[l][now] == 0) {
                                char cur[LEVER_VALUE_MAX], want[LEVER_VALUE_MAX];
                                const LogEventFields f = {
                                        .knob = knob_lever_name((Lever) l),
                                        .node = LOG_EVENT_NO_NODE,
                                        .from = cur,
                                        .to = want,
                                        .reason = policy_reason_name(h->reason),
                                        .hold = policy_hold_name(now),
                                };

                                lever_value_format(h->lever, h->current, cur, sizeof(cur));
                                lever_value_format(h->lever, h->wanted, want, sizeof(want));
                                log_event_fields(LOG_INFO, LOG_EVENT_KNOB_HELD, &f, "Knob %s held (%s): %s", f.knob,
                                                 f.hold, hl->text[l]);
                        }
                        hl->said[l] = now;
                        hl->recent[l][now] = LEVER_HELD_END_TICKS;
                        continue;
                }
                if (hl->said[l] == POLICY_HOLD_NONE || ++hl->absent[l] < LEVER_HELD_END_TICKS)
                        continue;
                const LogEventFields f = {
                        .knob = knob_lever_name((Lever) l),
                        .node = LOG_EVENT_NO_NODE,
                        .hold = policy_hold_name(hl->said[l]),
                };

                log_event_fields(LOG_INFO, LOG_EVENT_KNOB_HOLD_ENDED, &f, "Knob %s no longer held (%s)", f.knob,
                                 f.hold);
                hl->said[l] = POLICY_HOLD_NONE;
                hl->absent[l] = 0;
        }
}

unsigned lever_apply(const LeverApply *ap, Decision *d, usec_t now)
{
        char text[LEVER_TEXT_MAX];
        unsigned n_failed = 0;

        for (unsigned i = 0; i < d->n_items; i++) {
                const DecisionItem *it = &d->items[i];

                (void) decision_explain(it, text, sizeof(text));
                if (!d->apply) {
                        if (it->kind == DECISION_KICK_KCOMPACTD)
                                log_debug("observe preset, not applied: %s", text);
                        else
                                log_info("observe preset, not applied: %s", text);
                        continue;
                }
                if (it->kind == DECISION_KICK_KCOMPACTD)
                        n_failed += apply_kick(ap, d, i, text, now);
                else if (it->kind == DECISION_COMPACT_NODE)
                        apply_compact(ap, d, i, text);
                else
                        n_failed += apply_lever(ap, d, i, text, now);
        }
        for (unsigned i = 0; i < d->n_held; i++) {
                const PolicyHeldItem *h = &d->held[i];

                (void) decision_explain_held(h, text, sizeof(text));
                if (h->reason == POLICY_REASON_BACKOFF_INEFFECTIVE && d->apply && !ap->dry_run) {
                        /* a back-off with nothing left to lower: it stops
                         * the raising (once per episode, policy/state.c) */
                        char cur[LEVER_VALUE_MAX];

                        lever_value_format(h->lever, h->current, cur, sizeof(cur));
                        log_event(LOG_NOTICE, LOG_EVENT_BACKOFF, knob_lever_name(h->lever),
                                  LOG_EVENT_NO_NODE, cur, cur, policy_reason_name(h->reason), "held: %s",
                                  text);
                } else
                        log_debug("held: %s", text);
        }
        if (ap->held_log)
                say_holds(ap->held_log, d);
        /* the kernel keeps up: said at info when it starts (the ticks
         * after it say nothing new), again after a tick that did not */
        if (ap->keeps_up_said) {
                if (d->eval.keeps_up && !*ap->keeps_up_said) {
                        (void) decision_explain_keeps_up(&d->eval, text, sizeof(text));
                        log_info("%s", text);
                }
                *ap->keeps_up_said = d->eval.keeps_up;
        }
        /* the configured reserves kept or waiting: one line per change */
        if (ap->reserve_gate_said && policy_reserve_gate_on(ap->policy)) {
                int now_said = d->eval.reserve_wanted[0] || d->eval.reserve_wanted[1] ? 1 : 2;

                if (now_said != *ap->reserve_gate_said) {
                        (void) decision_explain_reserve_gate(&d->eval, text, sizeof(text));
                        log_info("%s", text);
                }
                *ap->reserve_gate_said = now_said;
        }
        /* a page-cache one-shot held back: one line per change of what
         * holds it (PolicyNodeEval.pagecache_gate_changed) */
        for (unsigned i = 0; i < d->eval.n_nodes; i++) {
                const PolicyNodeEval *ne = &d->eval.nodes[i];

                if (ne->pagecache_gate == POLICY_GATE_NONE || !ne->pagecache_gate_changed)
                        continue;
                (void) decision_explain_pagecache_gate(&d->eval, ne, ap->policy->calm_psi_some_permyriad, text,
                                                       sizeof(text));
                log_info("%s", text);
        }
        return n_failed;
}
