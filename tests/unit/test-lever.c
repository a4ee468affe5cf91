/* SPDX-License-Identifier: GPL-2.0-or-later */
/* knobs/lever.c: a lever's value as text and back (overflow refused), the
 * lever in an observation, and the apply loop through a registry on a copy
 * of a fixture tree (fake ops: clamping). */

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "core/log.h"
#include "knob-test-util.h"
#include "log-event-test-util.h"
#include "knobs/lever.h"

#define CP "proc/sys/vm/compaction_proactiveness"

static void test_value_text(void **state)
{
        char buf[LEVER_VALUE_MAX];
        int64_t v = 7;

        assert_int_equal(lever_value_parse(LEVER_COMPACTION_PROACTIVENESS, "200", &v), 0);
        assert_int_equal(v, 200);
        assert_int_equal(lever_value_parse(LEVER_MIN_FREE_KBYTES, "-5", &v), 0);
        assert_int_equal(v, -5);
        assert_int_equal(lever_value_parse(LEVER_MIN_FREE_KBYTES, "9223372036854775807", &v), 0);
        assert_true(v == INT64_MAX);
        /* the bare strtoll() this replaces took these without a word */
        v = 7;
        assert_int_equal(lever_value_parse(LEVER_MIN_FREE_KBYTES, "9223372036854775808", &v), -ERANGE);
        assert_int_equal(lever_value_parse(LEVER_MIN_FREE_KBYTES, "99999999999999999999999", &v), -ERANGE);
        assert_int_equal(lever_value_parse(LEVER_MIN_FREE_KBYTES, "12x", &v), -EBADMSG);
        assert_int_equal(lever_value_parse(LEVER_MIN_FREE_KBYTES, " 12", &v), -EBADMSG);
        assert_int_equal(lever_value_parse(LEVER_MIN_FREE_KBYTES, "", &v), -EINVAL);
        assert_int_equal(lever_value_parse(LEVER_MIN_FREE_KBYTES, NULL, &v), -EINVAL);
        assert_int_equal(v, 7); /* untouched on failure */

        assert_int_equal(lever_value_parse(LEVER_THP_DEFRAG, "defer+madvise", &v), 0);
        assert_int_equal(v, THP_DEFRAG_DEFER_MADVISE);
        assert_int_equal(lever_value_parse(LEVER_THP_DEFRAG, "12", &v), -EBADMSG);

        lever_value_format(LEVER_THP_DEFRAG, THP_DEFRAG_DEFER_MADVISE, buf, sizeof(buf));
        assert_string_equal(buf, "defer+madvise");
        lever_value_format(LEVER_WATERMARK_SCALE_FACTOR, 150, buf, sizeof(buf));
        assert_string_equal(buf, "150");
        lever_value_format(LEVER_MIN_FREE_KBYTES, INT64_MIN, buf, sizeof(buf));
        assert_string_equal(buf, "-9223372036854775808");
}

static void test_from_observation(void **state)
{
        Observation *o = calloc(1, sizeof(*o));
        PolicyConfig *p = calloc(1, sizeof(*p));
        LeverInput in[_LEVER_MAX];
        int64_t v;

        assert_non_null(o);
        assert_non_null(p);
        assert_false(lever_from_observation(o, LEVER_COMPACTION_PROACTIVENESS, &v)); /* nothing read */
        o->have = OBS_MASK(OBS_SYSCTL) | OBS_MASK(OBS_THP);
        o->vm.present[VM_COMPACTION_PROACTIVENESS] = true;
        o->vm.value[VM_COMPACTION_PROACTIVENESS] = 20;
        snprintf(o->thp.defrag, sizeof(o->thp.defrag), "madvise");
        assert_true(lever_from_observation(o, LEVER_COMPACTION_PROACTIVENESS, &v));
        assert_int_equal(v, 20);
        assert_false(lever_from_observation(o, LEVER_WATERMARK_SCALE_FACTOR, &v)); /* not present */
        assert_true(lever_from_observation(o, LEVER_THP_DEFRAG, &v));
        assert_int_equal(v, THP_DEFRAG_MADVISE);
        assert_false(lever_from_observation(o, _LEVER_MAX, &v));

        /* --once: enabled levers only, the current value is the baseline */
        p->lever[LEVER_COMPACTION_PROACTIVENESS].enabled = true;
        p->lever[LEVER_WATERMARK_SCALE_FACTOR].enabled = true;
        levers_from_observation(p, o, in);
        assert_true(in[LEVER_COMPACTION_PROACTIVENESS].available);
        assert_int_equal(in[LEVER_COMPACTION_PROACTIVENESS].current, 20);
        assert_int_equal(in[LEVER_COMPACTION_PROACTIVENESS].baseline, 20);
        assert_false(in[LEVER_WATERMARK_SCALE_FACTOR].available);
        assert_false(in[LEVER_THP_DEFRAG].available); /* not enabled */
        free(o);
        free(p);
}

/* The daemon's levers from an observation read this tick with nothing
 * written since (the tick's sysctls and THP settings): the knob files are
 * not read again; a lever the observation lacks is read from its knob. */
static void test_levers_fresh(void **state)
{
        _cleanup_free_ PolicyConfig *p = calloc(1, sizeof(*p));
        _cleanup_free_ Observation *o = calloc(1, sizeof(*o));
        KnobRegistry *reg = NULL;
        KnobFake *fake;
        TestTree t;
        LeverBaseline b = {};
        LeverInput in[_LEVER_MAX];

        assert_non_null(p);
        assert_non_null(o);
        tt_setup(&t);
        fake = knob_fake_new(t.root);
        assert_non_null(fake);
        assert_int_equal(knob_registry_new(t.root, "/run/fragd", &knob_ops_fake, fake, OWNERSHIP_RESPECT, &reg), 0);
        p->lever[LEVER_COMPACTION_PROACTIVENESS] = (LeverConfig) { .enabled = true, .min = 0, .max = 100 };
        p->lever[LEVER_EXTFRAG_THRESHOLD] = (LeverConfig) { .enabled = true, .min = 0, .max = 1000 };
        tt_write(&t, CP, "30\n");
        tt_write(&t, "proc/sys/vm/extfrag_threshold", "500\n");
        /* the observation says 20 for proactiveness (the file, changed
         * since, 30: which one was used shows), nothing for extfrag */
        o->have = OBS_MASK(OBS_SYSCTL);
        o->vm.present[VM_COMPACTION_PROACTIVENESS] = true;
        o->vm.value[VM_COMPACTION_PROACTIVENESS] = 20;

        levers_from_knobs(reg, p, &b, o, in);
        assert_true(in[LEVER_COMPACTION_PROACTIVENESS].available);
        assert_int_equal(in[LEVER_COMPACTION_PROACTIVENESS].current, 20);
        assert_int_equal(in[LEVER_COMPACTION_PROACTIVENESS].baseline, 20);
        assert_true(in[LEVER_EXTFRAG_THRESHOLD].available);
        assert_int_equal(in[LEVER_EXTFRAG_THRESHOLD].current, 500); /* from the knob */
        assert_false(in[LEVER_WATERMARK_SCALE_FACTOR].available); /* not enabled */

        /* without an observation: the knob files, the baseline kept */
        levers_from_knobs(reg, p, &b, NULL, in);
        assert_int_equal(in[LEVER_COMPACTION_PROACTIVENESS].current, 30);
        assert_int_equal(in[LEVER_COMPACTION_PROACTIVENESS].baseline, 20);

        /* a read that fails: unavailable without an observation, the
         * observation's value with one */
        assert_int_equal(knob_fake_fail_read(fake, "vm.extfrag_threshold", -EIO, 1), 0);
        levers_from_knobs(reg, p, &b, NULL, in);
        assert_false(in[LEVER_EXTFRAG_THRESHOLD].available);
        assert_true(in[LEVER_COMPACTION_PROACTIVENESS].available);
        knob_registry_free(reg);
        knob_fake_free(fake);
        tt_teardown(&t);
}

/* defrag_mode enabled on a kernel without the file: disabled in the
 * registry (what fragd_knob_disabled exports), said once, and no longer
 * offered to the policy; with the file, or not enabled: left alone */
static void test_check_kernel(void **state)
{
        _cleanup_free_ PolicyConfig *p = calloc(1, sizeof(*p));
        KnobRegistry *reg = NULL;
        TestTree t;
        LeverBaseline b = {};
        LeverInput in[_LEVER_MAX];
        KnobInfo info;

        (void) state;
        assert_non_null(p);
        tt_setup(&t);
        assert_int_equal(knob_registry_new(t.root, "/run/fragd", NULL, NULL, OWNERSHIP_RESPECT, &reg), 0);
        /* not enabled: not looked at */
        assert_int_equal(levers_check_kernel(reg, p), 0);
        assert_int_equal(knob_find_info(reg, "vm.defrag_mode", &info), -ENOENT);
        p->lever[LEVER_DEFRAG_MODE] = (LeverConfig) { .enabled = true, .min = 0, .max = 1 };
        tt_write(&t, "proc/sys/vm/defrag_mode", "0\n");
        assert_int_equal(levers_check_kernel(reg, p), 0);
        assert_false(knob_is_disabled(reg, "vm.defrag_mode"));
        levers_from_knobs(reg, p, &b, NULL, in);
        assert_true(in[LEVER_DEFRAG_MODE].available);
        assert_int_equal(in[LEVER_DEFRAG_MODE].current, 0);
        knob_registry_free(reg);
        tt_teardown(&t);

        tt_setup(&t);
        assert_int_equal(knob_registry_new(t.root, "/run/fragd", NULL, NULL, OWNERSHIP_RESPECT, &reg), 0);
        assert_int_equal(levers_check_kernel(reg, p), 1);
        assert_true(knob_is_disabled(reg, "vm.defrag_mode"));
        assert_int_equal(knob_find_info(reg, "vm.defrag_mode", &info), 0);
        assert_int_equal(info.disabled_error, -ENOENT);
        assert_false(info.owned);
        /* once: a second check (a reload) says nothing more */
        assert_int_equal(levers_check_kernel(reg, p), 0);
        b = (LeverBaseline) {};
        levers_from_knobs(reg, p, &b, NULL, in);
        assert_false(in[LEVER_DEFRAG_MODE].available);
        knob_registry_free(reg);
        tt_teardown(&t);
}

typedef struct Seen {
        unsigned n;
        LeverAction action;
        char knob[64];
} Seen;

static void on_applied(void *userdata, const DecisionItem *it, const char *knob, LeverAction action,
                       const char *text)
{
        Seen *s = userdata;

        s->n++;
        s->action = action;
        snprintf(s->knob, sizeof(s->knob), "%s", knob);
        assert_non_null(text);
}

static void test_apply(void **state)
{
        _cleanup_free_ PolicyConfig *p = calloc(1, sizeof(*p));
        _cleanup_free_ Decision *d = calloc(1, sizeof(*d));
        KnobRegistry *reg = NULL;
        KnobFake *fake;
        TestTree t;
        Seen seen = {};
        LeverApply ap;
        LeverBaseline b = {};
        LeverInput in[_LEVER_MAX];
        int64_t v;

        assert_non_null(p);
        assert_non_null(d);
        tt_setup(&t);
        fake = knob_fake_new(t.root);
        assert_non_null(fake);
        assert_int_equal(knob_registry_new(t.root, "/run/fragd", &knob_ops_fake, fake, OWNERSHIP_RESPECT, &reg), 0);
        p->lever[LEVER_COMPACTION_PROACTIVENESS] = (LeverConfig) { .enabled = true, .min = 0, .max = 100 };
        ap = (LeverApply) { .knobs = reg, .policy = p, .applied = on_applied, .userdata = &seen };

        /* the observe preset: logged, nothing written */
        d->n_items = 1;
        d->items[0] = (DecisionItem) { .kind = DECISION_LEVER, .lever = LEVER_COMPACTION_PROACTIVENESS,
                                       .node = -1, .from = 0, .to = 40 };
        assert_int_equal(lever_apply(&ap, d, 1), 0);
        assert_string_equal(tt_read(&t, CP), "0\n");
        assert_false(d->items[0].applied);
        assert_int_equal(seen.n, 0);

        /* applied: written as text once, read back as a number */
        d->apply = true;
        assert_int_equal(lever_apply(&ap, d, 2), 0);
        assert_string_equal(tt_read(&t, CP), "40\n");
        assert_true(d->items[0].applied);
        assert_int_equal(d->items[0].to, 40);
        assert_int_equal(seen.n, 1);
        assert_int_equal(seen.action, LEVER_ACTION_UP);
        assert_string_equal(seen.knob, "compaction_proactiveness");
        assert_int_equal(lever_read(reg, LEVER_COMPACTION_PROACTIVENESS, &v), 0);
        assert_int_equal(v, 40);

        /* the daemon's levers: live value, baseline from the journaled original */
        levers_from_knobs(reg, p, &b, NULL, in);
        assert_true(in[LEVER_COMPACTION_PROACTIVENESS].available);
        assert_int_equal(in[LEVER_COMPACTION_PROACTIVENESS].current, 40);
        assert_int_equal(in[LEVER_COMPACTION_PROACTIVENESS].baseline, 0);
        assert_false(in[LEVER_WATERMARK_SCALE_FACTOR].available);

        /* clamped by the kernel: one failed write, marked with the value it holds */
        assert_int_equal(knob_fake_clamp(fake, "vm.compaction_proactiveness", 0, 60), 0);
        d->items[0] = (DecisionItem) { .kind = DECISION_LEVER, .lever = LEVER_COMPACTION_PROACTIVENESS,
                                       .node = -1, .from = 40, .to = 80 };
        assert_int_equal(lever_apply(&ap, d, 3), 1);
        assert_true(d->items[0].applied);
        assert_int_equal(d->items[0].to, 60);
        assert_int_equal(seen.n, 1); /* not reported as applied */

        knob_registry_free(reg);
        knob_fake_free(fake);
        tt_teardown(&t);
}

/* Each applied change is one journal event of its kind at NOTICE with the
 * knob, the values and the reason; a dry run and the observe preset send
 * none. */
static void test_apply_events(void **state)
{
        static Capture cap;
        _cleanup_free_ PolicyConfig *p = calloc(1, sizeof(*p));
        _cleanup_free_ Decision *d = calloc(1, sizeof(*d));
        KnobRegistry *reg = NULL;
        CompactWorker *w = NULL;
        KnobFake *fake;
        TestTree t;
        LeverApply ap;
        int i;

        assert_non_null(p);
        assert_non_null(d);
        tt_setup(&t);
        fake = knob_fake_new(t.root);
        assert_non_null(fake);
        assert_int_equal(knob_registry_new(t.root, "/run/fragd", &knob_ops_fake, fake, OWNERSHIP_RESPECT, &reg), 0);
        assert_int_equal(compact_worker_new(reg, &w), 0);
        p->lever[LEVER_COMPACTION_PROACTIVENESS] = (LeverConfig) { .enabled = true, .min = 0, .max = 100 };
        p->lever[LEVER_WATERMARK_SCALE_FACTOR] = (LeverConfig) { .enabled = true, .min = 10, .max = 1000 };
        p->lever[LEVER_DEFRAG_MODE] = (LeverConfig) { .enabled = true, .min = 0, .max = 1 };
        tt_write(&t, "proc/sys/vm/defrag_mode", "1\n");
        ap = (LeverApply) { .knobs = reg, .worker = w, .policy = p };
        log_set_max_level(LOG_INFO);

        /* raise, then lower, a back-off, a rollback, a node compaction, a
         * back-off that found nothing to lower and defrag_mode turned off
         * for its cost (a back-off too) */
        d->apply = true;
        d->n_items = 6;
        d->items[0] = (DecisionItem) { .kind = DECISION_LEVER, .lever = LEVER_COMPACTION_PROACTIVENESS, .node = -1,
                                       .from = 0, .to = 40, .reason = POLICY_REASON_RESERVE_BELOW_TARGET };
        d->items[1] = (DecisionItem) { .kind = DECISION_LEVER, .lever = LEVER_WATERMARK_SCALE_FACTOR, .node = -1,
                                       .from = 10, .to = 200, .reason = POLICY_REASON_RESERVE_TREND };
        d->items[2] = (DecisionItem) { .kind = DECISION_LEVER, .lever = LEVER_WATERMARK_SCALE_FACTOR, .node = -1,
                                       .from = 200, .to = 150, .reason = POLICY_REASON_TARGETS_MET_DECAY };
        d->items[3] = (DecisionItem) { .kind = DECISION_LEVER, .lever = LEVER_COMPACTION_PROACTIVENESS, .node = -1,
                                       .from = 40, .to = 35, .reason = POLICY_REASON_BACKOFF_INEFFECTIVE };
        d->items[4] = (DecisionItem) { .kind = DECISION_COMPACT_NODE, .node = 1,
                                       .reason = POLICY_REASON_ONESHOT_COMPACT };
        d->items[5] = (DecisionItem) { .kind = DECISION_LEVER, .lever = LEVER_DEFRAG_MODE, .node = -1,
                                       .from = 1, .to = 0, .reason = POLICY_REASON_DEFRAG_MODE_COST };
        d->n_held = 1;
        d->held[0] = (PolicyHeldItem) { .lever = LEVER_WATERMARK_SCALE_FACTOR, .current = 150, .wanted = 151,
                                        .allowed = 150, .reason = POLICY_REASON_BACKOFF_INEFFECTIVE,
                                        .hold = POLICY_HOLD_BACKOFF };
        capture_start(&cap);
        assert_int_equal(lever_apply(&ap, d, 1), 0);
        capture_stop();
        assert_int_equal(cap.n, 7);

        i = capture_find(&cap, ID_BACKOFF, "vm.defrag_mode");
        assert_true(i >= 0);
        assert_string_equal(capture_get(&cap, i, "FRAGD_FROM"), "1");
        assert_string_equal(capture_get(&cap, i, "FRAGD_TO"), "0");
        assert_string_equal(capture_get(&cap, i, "FRAGD_REASON"), "defrag_mode_cost");
        assert_int_equal(capture_find(&cap, ID_KNOB_LOWERED, "vm.defrag_mode"), -1);

        i = capture_find(&cap, ID_KNOB_RAISED, "vm.compaction_proactiveness");
        assert_true(i >= 0);
        assert_string_equal(capture_get(&cap, i, "PRIORITY"), "5");
        assert_string_equal(capture_get(&cap, i, "FRAGD_FROM"), "0");
        assert_string_equal(capture_get(&cap, i, "FRAGD_TO"), "40");
        assert_string_equal(capture_get(&cap, i, "FRAGD_REASON"), "reserve_below_target");
        assert_null(capture_get(&cap, i, "FRAGD_NODE"));
        assert_non_null(strstr(capture_get(&cap, i, "MESSAGE"), "raise compaction_proactiveness 0\u219240"));

        i = capture_find(&cap, ID_KNOB_RAISED, "vm.watermark_scale_factor");
        assert_true(i >= 0);
        assert_string_equal(capture_get(&cap, i, "FRAGD_REASON"), "reserve_trend");

        i = capture_find(&cap, ID_KNOB_LOWERED, "vm.watermark_scale_factor");
        assert_true(i >= 0);
        assert_string_equal(capture_get(&cap, i, "PRIORITY"), "5");
        assert_string_equal(capture_get(&cap, i, "FRAGD_FROM"), "200");
        assert_string_equal(capture_get(&cap, i, "FRAGD_TO"), "150");
        assert_string_equal(capture_get(&cap, i, "FRAGD_REASON"), "targets_met_decay");

        i = capture_find(&cap, ID_BACKOFF, "vm.compaction_proactiveness");
        assert_true(i >= 0);
        assert_string_equal(capture_get(&cap, i, "PRIORITY"), "5");
        assert_string_equal(capture_get(&cap, i, "FRAGD_FROM"), "40");
        assert_string_equal(capture_get(&cap, i, "FRAGD_TO"), "35");
        assert_string_equal(capture_get(&cap, i, "FRAGD_REASON"), "backoff_ineffective");
        assert_int_equal(capture_find(&cap, ID_KNOB_LOWERED, "vm.compaction_proactiveness"), -1);

        i = capture_find(&cap, ID_BACKOFF, "vm.watermark_scale_factor"); /* held: nothing to lower */
        assert_true(i >= 0);
        assert_string_equal(capture_get(&cap, i, "FRAGD_FROM"), "150");
        assert_string_equal(capture_get(&cap, i, "FRAGD_TO"), "150");
        assert_non_null(strstr(capture_get(&cap, i, "MESSAGE"), "held: "));

        i = capture_find(&cap, ID_COMPACTION, NULL);
        assert_true(i >= 0);
        assert_string_equal(capture_get(&cap, i, "FRAGD_KNOB"), "node1.compact");
        assert_string_equal(capture_get(&cap, i, "FRAGD_NODE"), "1");
        assert_string_equal(capture_get(&cap, i, "FRAGD_REASON"), "oneshot_compact");
        assert_string_equal(capture_get(&cap, i, "PRIORITY"), "6");

        /* a rollback is its own kind, though it lowers */
        d->n_items = 1;
        d->n_held = 0;
        d->items[0] = (DecisionItem) { .kind = DECISION_LEVER, .lever = LEVER_COMPACTION_PROACTIVENESS, .node = -1,
                                       .from = 35, .to = 20, .reason = POLICY_REASON_PSI_ROLLBACK };
        capture_start(&cap);
        assert_int_equal(lever_apply(&ap, d, 2), 0);
        capture_stop();
        assert_int_equal(cap.n, 1);
        assert_string_equal(capture_get(&cap, 0, "MESSAGE_ID"), ID_ROLLBACK);
        assert_string_equal(capture_get(&cap, 0, "FRAGD_KNOB"), "vm.compaction_proactiveness");
        assert_string_equal(capture_get(&cap, 0, "FRAGD_FROM"), "35");
        assert_string_equal(capture_get(&cap, 0, "FRAGD_TO"), "20");
        assert_string_equal(capture_get(&cap, 0, "FRAGD_REASON"), "psi_rollback");
        assert_string_equal(capture_get(&cap, 0, "PRIORITY"), "5");

        /* a dry run and the observe preset change nothing: no event */
        d->items[0] = (DecisionItem) { .kind = DECISION_LEVER, .lever = LEVER_COMPACTION_PROACTIVENESS, .node = -1,
                                       .from = 20, .to = 60, .reason = POLICY_REASON_RESERVE_BELOW_TARGET };
        ap.dry_run = true;
        capture_start(&cap);
        assert_int_equal(lever_apply(&ap, d, 3), 0);
        ap.dry_run = false;
        d->apply = false;
        assert_int_equal(lever_apply(&ap, d, 4), 0);
        capture_stop();
        assert_int_equal(cap.n, 0);

        log_set_max_level(getenv("FRAGD_TEST_VERBOSE") ? LOG_DEBUG : LOG_ERR);
        compact_worker_free(w);
        knob_registry_free(reg);
        knob_fake_free(fake);
        tt_teardown(&t);
}

/* stderr of f() as text (the log writes there in tests) */
static char *stderr_of(void (*f)(void *), void *arg)
{
        FILE *tmp = tmpfile();
        int saved;
        long n;
        char *buf;

        assert_non_null(tmp);
        fflush(stderr);
        saved = dup(STDERR_FILENO);
        assert_true(saved >= 0);
        assert_int_equal(dup2(fileno(tmp), STDERR_FILENO), STDERR_FILENO);
        f(arg);
        fflush(stderr);
        assert_int_equal(dup2(saved, STDERR_FILENO), STDERR_FILENO);
        close(saved);
        n = ftell(tmp);
        assert_true(n >= 0);
        buf = calloc(1, (size_t) n + 1);
        assert_non_null(buf);
        rewind(tmp);
        assert_int_equal(fread(buf, 1, (size_t) n, tmp), (size_t) n);
        fclose(tmp);
        return buf;
}

static unsigned count_substr(const char *s, const char *needle)
{
        unsigned n = 0;

        for (const char *p = s; (p = strstr(p, needle)); p++)
                n++;
        return n;
}

typedef struct HeldTick {
        LeverApply ap;
        Decision *d;
        usec_t now;
} HeldTick;

static void held_tick(void *arg)
{
        HeldTick *t = arg;

        assert_int_equal(lever_apply(&t->ap, t->d, ++t->now), 0);
}

/* A decision to apply each tick with held_log hl, logging at info level */
static HeldTick held_tick_new(LeverHeldLog *hl)
{
        HeldTick t = { .ap = { .held_log = hl }, .d = calloc(1, sizeof(Decision)) };

        assert_non_null(t.d);
        t.d->apply = true;
        log_set_max_level(LOG_INFO);
        return t;
}

static void held_set(Decision *d, unsigned n, const PolicyHold *holds, const Lever *levers)
{
        d->n_held = n;
        for (unsigned i = 0; i < n; i++)
                d->held[i] = (PolicyHeldItem) { .lever = levers[i], .current = 10, .wanted = 11, .allowed = 10,
                                                .reason = POLICY_REASON_FREE_MEMORY_SHORT, .hold = holds[i] };
}

/* A shown hold is said at info level when it starts, changes and ends,
 * not every tick; pacing holds are not; without held_log nothing is */
static void test_holds_said(void **state)
{
        static const char wsf_ntr[] = "Knob vm.watermark_scale_factor held (nothing_to_reclaim): ";
        static const char wsf_psi[] = "Knob vm.watermark_scale_factor held (psi): ";
        static const char wsf_end[] = "Knob vm.watermark_scale_factor no longer held (psi)";
        LeverHeldLog hl = { 0 };
        HeldTick t = held_tick_new(&hl);
        char *out;

        (void) state;

        /* starts: said once over two ticks; the proactiveness dwell is not */
        held_set(t.d, 2, (const PolicyHold[]) { POLICY_HOLD_DWELL, POLICY_HOLD_NOTHING_TO_RECLAIM },
                 (const Lever[]) { LEVER_COMPACTION_PROACTIVENESS, LEVER_WATERMARK_SCALE_FACTOR });
        out = stderr_of(held_tick, &t);
        assert_int_equal(count_substr(out, wsf_ntr), 1);
        assert_non_null(strstr(out, "keep watermark_scale_factor at 10"));
        assert_null(strstr(out, "compaction_proactiveness held"));
        free(out);
        /* the sentence kept for fragd status; none for a pacing hold */
        assert_non_null(strstr(hl.text[LEVER_WATERMARK_SCALE_FACTOR], "keep watermark_scale_factor at 10"));
        assert_string_equal(hl.text[LEVER_COMPACTION_PROACTIVENESS], "");
        out = stderr_of(held_tick, &t);
        assert_int_equal(count_substr(out, "held"), 0);
        free(out);

        /* changes */
        held_set(t.d, 1, (const PolicyHold[]) { POLICY_HOLD_PSI }, (const Lever[]) { LEVER_WATERMARK_SCALE_FACTOR });
        out = stderr_of(held_tick, &t);
        assert_int_equal(count_substr(out, wsf_psi), 1);
        assert_int_equal(count_substr(out, wsf_ntr), 0);
        free(out);

        /* gone for a tick (a pacing hold is no hold to show) and back:
         * nothing said, the sentence follows the tick */
        held_set(t.d, 1, (const PolicyHold[]) { POLICY_HOLD_DWELL }, (const Lever[]) { LEVER_WATERMARK_SCALE_FACTOR });
        out = stderr_of(held_tick, &t);
        assert_int_equal(count_substr(out, "held"), 0);
        free(out);
        assert_string_equal(hl.text[LEVER_WATERMARK_SCALE_FACTOR], "");
        assert_int_equal(hl.now[LEVER_WATERMARK_SCALE_FACTOR], POLICY_HOLD_NONE);
        held_set(t.d, 1, (const PolicyHold[]) { POLICY_HOLD_PSI }, (const Lever[]) { LEVER_WATERMARK_SCALE_FACTOR });
        out = stderr_of(held_tick, &t);
        assert_int_equal(count_substr(out, "held"), 0);
        free(out);
        assert_int_equal(hl.now[LEVER_WATERMARK_SCALE_FACTOR], POLICY_HOLD_PSI);

        /* ends: said once, after LEVER_HELD_END_TICKS ticks without it */
        t.d->n_held = 0;
        for (unsigned i = 1; i < LEVER_HELD_END_TICKS; i++) {
                out = stderr_of(held_tick, &t);
                assert_int_equal(count_substr(out, "held"), 0);
                free(out);
        }
        out = stderr_of(held_tick, &t);
        assert_int_equal(count_substr(out, wsf_end), 1);
        free(out);
        out = stderr_of(held_tick, &t);
        assert_int_equal(count_substr(out, "held"), 0);
        free(out);

        /* no held_log: debug only */
        t.ap.held_log = NULL;
        held_set(t.d, 1, (const PolicyHold[]) { POLICY_HOLD_SAFETY }, (const Lever[]) { LEVER_MIN_FREE_KBYTES });
        out = stderr_of(held_tick, &t);
        assert_int_equal(count_substr(out, "held"), 0);
        free(out);
        free(t.d);
}

/* Under journald the start of a hold is a knob_held entry (the wanted
 * move and the hold in fields), its end a knob_hold_ended one */
static void test_holds_journal(void **state)
{
        static Capture cap;
        LeverHeldLog hl = { 0 };
        HeldTick t = held_tick_new(&hl);

        (void) state;
        capture_start(&cap);
        held_set(t.d, 2, (const PolicyHold[]) { POLICY_HOLD_DWELL, POLICY_HOLD_SAFETY },
                 (const Lever[]) { LEVER_COMPACTION_PROACTIVENESS, LEVER_MIN_FREE_KBYTES });
        held_tick(&t);
        held_tick(&t); /* still held: no second entry */
        t.d->n_held = 0;
        for (unsigned i = 0; i < LEVER_HELD_END_TICKS + 2; i++)
                held_tick(&t);
        capture_stop();

        assert_int_equal(cap.n, 2);
        assert_string_equal(capture_get(&cap, 0, "MESSAGE_ID"), ID_KNOB_HELD);
        assert_string_equal(capture_get(&cap, 0, "FRAGD_EVENT"), "knob_held");
        assert_string_equal(capture_get(&cap, 0, "PRIORITY"), "6");
        assert_string_equal(capture_get(&cap, 0, "FRAGD_KNOB"), "vm.min_free_kbytes");
        assert_string_equal(capture_get(&cap, 0, "FRAGD_FROM"), "10");
        assert_string_equal(capture_get(&cap, 0, "FRAGD_TO"), "11");
        assert_string_equal(capture_get(&cap, 0, "FRAGD_REASON"), "free_memory_short");
        assert_string_equal(capture_get(&cap, 0, "FRAGD_HOLD"), "safety");
        assert_non_null(strstr(capture_get(&cap, 0, "MESSAGE"), "Knob vm.min_free_kbytes held (safety): keep"));

        assert_string_equal(capture_get(&cap, 1, "MESSAGE_ID"), ID_KNOB_HOLD_ENDED);
        assert_string_equal(capture_get(&cap, 1, "FRAGD_EVENT"), "knob_hold_ended");
        assert_string_equal(capture_get(&cap, 1, "FRAGD_KNOB"), "vm.min_free_kbytes");
        assert_string_equal(capture_get(&cap, 1, "FRAGD_HOLD"), "safety");
        assert_null(capture_get(&cap, 1, "FRAGD_FROM"));
        assert_string_equal(capture_get(&cap, 1, "MESSAGE"), "Knob vm.min_free_kbytes no longer held (safety)");
        free(t.d);
}

/* Two holds taking turns tick by tick (psi while the pressure is over the
 * ceiling, at_bound while it is under, for a lever at its max) are said
 * once each, not at every tick; one gone for LEVER_HELD_END_TICKS ticks is
 * said again when it comes back */
static void test_holds_taking_turns(void **state)
{
        static const char wsf_psi[] = "Knob vm.watermark_scale_factor held (psi): ";
        static const char wsf_bound[] = "Knob vm.watermark_scale_factor held (at_bound): ";
        LeverHeldLog hl = { 0 };
        HeldTick t = held_tick_new(&hl);
        unsigned n_psi = 0, n_bound = 0;
        char *out;

        (void) state;

        for (unsigned i = 0; i < 12; i++) {
                held_set(t.d, 1, (const PolicyHold[]) { i % 2 ? POLICY_HOLD_AT_BOUND : POLICY_HOLD_PSI },
                         (const Lever[]) { LEVER_WATERMARK_SCALE_FACTOR });
                out = stderr_of(held_tick, &t);
                n_psi += count_substr(out, wsf_psi);
                n_bound += count_substr(out, wsf_bound);
                free(out);
                /* the sentence and the hold follow each tick all the same */
                assert_int_equal(hl.now[LEVER_WATERMARK_SCALE_FACTOR], i % 2 ? POLICY_HOLD_AT_BOUND : POLICY_HOLD_PSI);
        }
        assert_int_equal(n_psi, 1);
        assert_int_equal(n_bound, 1);

        /* at_bound alone for LEVER_HELD_END_TICKS ticks: psi is news again */
        held_set(t.d, 1, (const PolicyHold[]) { POLICY_HOLD_AT_BOUND }, (const Lever[]) { LEVER_WATERMARK_SCALE_FACTOR });
        for (unsigned i = 0; i < LEVER_HELD_END_TICKS; i++) {
                out = stderr_of(held_tick, &t);
                assert_int_equal(count_substr(out, "held"), 0);
                free(out);
        }
        held_set(t.d, 1, (const PolicyHold[]) { POLICY_HOLD_PSI }, (const Lever[]) { LEVER_WATERMARK_SCALE_FACTOR });
        out = stderr_of(held_tick, &t);
        assert_int_equal(count_substr(out, wsf_psi), 1);
        free(out);

        /* the end names the hold in force last */
        t.d->n_held = 0;
        for (unsigned i = 0; i < LEVER_HELD_END_TICKS; i++) {
                out = stderr_of(held_tick, &t);
                assert_int_equal(count_substr(out, "no longer held (psi)"), i + 1 == LEVER_HELD_END_TICKS);
                free(out);
        }
        free(t.d);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_value_text),
                cmocka_unit_test(test_from_observation),
                cmocka_unit_test(test_levers_fresh),
                cmocka_unit_test(test_apply),
                cmocka_unit_test(test_apply_events),
                cmocka_unit_test(test_check_kernel),
                cmocka_unit_test(test_holds_said),
                cmocka_unit_test(test_holds_journal),
                cmocka_unit_test(test_holds_taking_turns),
        };

        log_set_max_level(getenv("FRAGD_TEST_VERBOSE") ? LOG_DEBUG : LOG_ERR);
        return cmocka_run_group_tests(tests, NULL, NULL);
}
