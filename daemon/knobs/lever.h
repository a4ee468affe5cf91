/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* The one translation between the policy's levers (fragd/policy.h) and the
 * knobs that carry them, and the one loop that applies a Decision through
 * the knob registry (daemon/knobs/lever.c).
 *
 * A lever's value is an int64 from the decision to the registry: a number
 * for the vm.* levers, a ThpDefragMode for thp.defrag. It becomes text once,
 * where it goes to the registry (lever_write()), and is read back as a
 * number (lever_read()). Text from outside (a journaled original) becomes a
 * value through lever_value_parse() only. */

#include "fragd/obs.h"
#include "fragd/policy.h"
#include "knobs/compact-worker.h"
#include "knobs/knob.h"

/* A lever's value as text: "200", or "defer+madvise" for thp.defrag. */
#define LEVER_VALUE_MAX 32
void lever_value_format(Lever l, int64_t v, char *ret, size_t size);
/* Text as a lever's value: a whole decimal int64 (overflow is -ERANGE), or
 * a thp.defrag mode word. -EINVAL for NULL or "", -EBADMSG for text that is
 * neither. */
int lever_value_parse(Lever l, const char *s, int64_t *ret);

/* The unit of a lever's value as the kernel has it. A lever this table
 * does not name is a number without unit. */
typedef enum LeverUnit {
        LEVER_UNIT_NUMBER,    /* compaction_proactiveness, extfrag_threshold */
        LEVER_UNIT_KIB,       /* min_free_kbytes */
        LEVER_UNIT_PERMYRIAD, /* watermark_scale_factor, watermark_boost_factor: 1/10000 */
        LEVER_UNIT_MODE,      /* thp_defrag: the value indexes lever_mode_name() */
} LeverUnit;
LeverUnit lever_unit(Lever l);
/* The name of mode v of a mode lever ("defer+madvise"), NULL for another
 * lever or past its last mode. */
const char *lever_mode_name(Lever l, int64_t v);

/* The lever's value in an observation (the sysctls, or thp.defrag from the
 * THP settings): false when that source was not read or lacks it. */
bool lever_from_observation(const Observation *o, Lever l, int64_t *ret);

/* The live value of the lever's knob, through the registry. */
int lever_read(KnobRegistry *reg, Lever l, int64_t *ret);
/* Writes v to the lever's knob through the registry (knob_set(): journal,
 * write, read back; the registry's ops make it a dry run). */
int lever_write(KnobRegistry *reg, Lever l, int64_t v, usec_t now);

/* What the policy sees of each enabled lever on a host fragd does not run
 * on (--once): the current value is the kernel's own, so is the baseline. */
void levers_from_observation(const PolicyConfig *p, const Observation *o, LeverInput in[_LEVER_MAX]);

/* The kernel's own value of each lever, found at its first read: what the
 * knob held, or the original a journal of an earlier fragd kept. */
typedef struct LeverBaseline {
        bool have[_LEVER_MAX];
        int64_t value[_LEVER_MAX];
} LeverBaseline;

/* What the policy sees of each enabled lever in the daemon: the knob's live
 * value, unless the knob is disabled or yielded to someone else. fresh: an
 * observation read this tick with no knob written since (NULL if there is
 * none): the values it holds are taken instead of reading the knob files a
 * second time (lever_from_observation()); a lever it lacks is read. */
void levers_from_knobs(KnobRegistry *reg, const PolicyConfig *p, LeverBaseline *b, const Observation *fresh,
                       LeverInput in[_LEVER_MAX]);

/* At start: a lever the configuration enables whose knob only newer
 * kernels have (vm.defrag_mode, 6.15+) and that this kernel lacks is
 * disabled in the registry (fragd_knob_disabled 1) with one log line
 * saying so. Returns how many. */
unsigned levers_check_kernel(KnobRegistry *reg, const PolicyConfig *p);

typedef enum LeverAction {
        LEVER_ACTION_UP,
        LEVER_ACTION_DOWN,
        LEVER_ACTION_ONESHOT, /* a kcompactd kick, a node compaction */
} LeverAction;

#define LEVER_TEXT_MAX DECISION_TEXT_MAX /* decision_explain()'s line, never cut */

/* A hold's end is said after this many ticks without it, and a hold that
 * was in force within this many ticks is not said again: a hold that comes
 * and goes tick by tick (pressure about the ceiling), or two holds taking
 * turns (psi while the pressure is over the ceiling, at_bound while it is
 * under), is one episode in the log, not a line or two per tick */
#define LEVER_HELD_END_TICKS 3

/* Each lever's shown hold (decision_held_shown()) at the last tick and its
 * sentence (for `fragd status`), and the hold last said at info level: a
 * hold is said when it starts or changes to one not in force within the
 * last LEVER_HELD_END_TICKS ticks, and its end after LEVER_HELD_END_TICKS
 * ticks without any; kept by the caller across ticks, zeroed at start */
typedef struct LeverHeldLog {
        PolicyHold now[_LEVER_MAX];            /* at the last tick; NONE: not held */
        char text[_LEVER_MAX][LEVER_TEXT_MAX]; /* "" while not held */
        PolicyHold said[_LEVER_MAX];           /* the hold in force as the log knows it; NONE: its end said */
        unsigned absent[_LEVER_MAX]; /* ticks since said was last held */
        /* per hold: LEVER_HELD_END_TICKS at a tick it is in force, one less
         * at each tick it is not; 0: not in force lately (said when it comes) */
        unsigned char recent[_LEVER_MAX][_POLICY_HOLD_MAX];
} LeverHeldLog;

typedef struct LeverApply {
        KnobRegistry *knobs;
        CompactWorker *worker;      /* node compactions */
        const PolicyConfig *policy; /* the levers' bounds */
        bool dry_run;               /* the log says "dry run: " (the registry's ops do the dry run) */
        /* every item applied: knob is the lever's name or "compact", text
         * the explanation; optional */
        void (*applied)(void *userdata, const DecisionItem *it, const char *knob, LeverAction action,
                        const char *text);
        void *userdata;
        LeverHeldLog *held_log; /* optional: NULL says holds at debug level only */
        /* optional: whether the last tick said "the kernel keeps up"
         * (PolicyEval.keeps_up): the line is logged at info when it starts */
        bool *keeps_up_said;
        /* optional: the configured reserves' gate as last logged (0 not
         * yet, 1 kept, 2 waiting); logged at info when it changes, unless
         * reserve_always keeps them regardless */
        int *reserve_gate_said;
} LeverApply;

/* Applies d's items (unless d->apply is false: then only logs them):
 * lever values through the registry within the bounds, kcompactd kicks as
 * a rewrite within the bounds, node compactions on the worker. Marks what
 * was applied (decision_mark_applied(), with the value read back), logs
 * each item and the held ones (each tick at debug level; with held_log a
 * shown hold's start, change and end at info). Returns how many knob
 * writes failed. */
unsigned lever_apply(const LeverApply *ap, Decision *d, usec_t now);
