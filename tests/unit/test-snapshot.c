/* SPDX-License-Identifier: GPL-2.0-or-later */
/* output/snapshot.c: what the exporter is given of the knobs: the value the
 * policy saw, and the hold that stopped its move (fragd_knob_held). */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "knobs/lever.h"
#include "output/exporter.h"
#include "output/snapshot.h"

typedef struct Case {
        FragdConfig cfg;
        Observation obs;
        Assessment a;
        Decision d;
        SnapshotBuilder b;
} Case;

static Case *case_new(void)
{
        Case *c = calloc(1, sizeof(*c));

        assert_non_null(c);
        for (unsigned l = 0; l < _LEVER_MAX; l++) {
                c->cfg.policy.lever[l] = (LeverConfig) { .enabled = true, .min = 0, .max = 1000 };
                c->d.levers[l] = (LeverInput) { .available = true, .current = 10 + l };
        }
        return c;
}

static const KnobView *knob(const Case *c, const char *name)
{
        for (unsigned i = 0; i < c->b.s.n_knobs; i++)
                if (strcmp(c->b.s.knobs[i].name, name) == 0)
                        return &c->b.s.knobs[i];
        return NULL;
}

static void held(Case *c, Lever l, PolicyHold h)
{
        c->d.held[c->d.n_held++] = (PolicyHeldItem) { .lever = l, .current = 10 + l, .wanted = 11 + l,
                                                      .allowed = 10 + l, .hold = h };
}

/* The first hold worth showing per lever; the pacing ones and a back-off
 * are not shown; a knob with no held item has none */
static void test_knob_hold(void **state)
{
        Case *c = case_new();
        const KnobView *k;

        (void) state;
        held(c, LEVER_WATERMARK_SCALE_FACTOR, POLICY_HOLD_DWELL);
        held(c, LEVER_WATERMARK_SCALE_FACTOR, POLICY_HOLD_NOTHING_TO_RECLAIM);
        held(c, LEVER_WATERMARK_SCALE_FACTOR, POLICY_HOLD_PSI);
        held(c, LEVER_COMPACTION_PROACTIVENESS, POLICY_HOLD_BACKOFF);
        held(c, LEVER_COMPACTION_PROACTIVENESS, POLICY_HOLD_REVERSAL_COOLDOWN);
        held(c, LEVER_MIN_FREE_KBYTES, POLICY_HOLD_SAFETY);
        snapshot_build(&c->b, &c->cfg, &c->obs, NULL, &c->a, &c->d, NULL);

        assert_int_equal(c->b.s.n_knobs, _LEVER_MAX);
        k = knob(c, "watermark_scale_factor");
        assert_non_null(k);
        assert_true(k->has_current);
        assert_int_equal(k->current, 10 + LEVER_WATERMARK_SCALE_FACTOR);
        assert_non_null(k->hold);
        assert_string_equal(k->hold, "nothing_to_reclaim");
        k = knob(c, "min_free_kbytes");
        assert_non_null(k);
        assert_non_null(k->hold);
        assert_string_equal(k->hold, "safety");
        k = knob(c, "compaction_proactiveness");
        assert_non_null(k);
        assert_null(k->hold);
        k = knob(c, "extfrag_threshold");
        assert_non_null(k);
        assert_null(k->hold);

        /* without a decision: no hold */
        snapshot_build(&c->b, &c->cfg, &c->obs, NULL, &c->a, NULL, NULL);
        k = knob(c, "min_free_kbytes");
        assert_non_null(k);
        assert_null(k->hold);
        free(c);
}

/* A lever left out (disabled, no value) leaves nothing in the next one's
 * view: its hold is not the next knob's */
static void test_skipped_lever_leaves_nothing(void **state)
{
        Case *c = case_new();
        const KnobView *k;

        (void) state;
        c->cfg.policy.lever[LEVER_COMPACTION_PROACTIVENESS].enabled = false;
        c->d.levers[LEVER_COMPACTION_PROACTIVENESS].available = false;
        held(c, LEVER_COMPACTION_PROACTIVENESS, POLICY_HOLD_PSI);
        snapshot_build(&c->b, &c->cfg, &c->obs, NULL, &c->a, &c->d, NULL);

        assert_int_equal(c->b.s.n_knobs, _LEVER_MAX - 1);
        assert_null(knob(c, "compaction_proactiveness"));
        k = knob(c, "watermark_scale_factor");
        assert_non_null(k);
        assert_ptr_equal(k, &c->b.s.knobs[0]);
        assert_null(k->hold);
        free(c);
}

/* Every lever of the registry is exported in the family of its unit, as
 * lever_unit() says, with no code of its own: its current value once, in
 * fragd_knob_value (a number, also any lever lever_unit() does not name),
 * fragd_knob_bytes (KiB), fragd_knob_ratio (1/10000) or as a state set in
 * fragd_knob_mode, and in no other of those families */
static void test_knob_units(void **state)
{
        static const char *const fams[] = { "fragd_knob_value", "fragd_knob_bytes", "fragd_knob_ratio",
                                            "fragd_knob_mode" };
        Case *c = case_new();
        char *text = NULL;

        (void) state;
        c->d.levers[LEVER_THP_DEFRAG].current = THP_DEFRAG_MADVISE;
        snapshot_build(&c->b, &c->cfg, &c->obs, NULL, &c->a, &c->d, NULL);
        assert_int_equal(metrics_render_alloc(&c->b.s, &text, NULL), 0);
        for (unsigned l = 0; l < _LEVER_MAX; l++) {
                LeverUnit u = lever_unit((Lever) l);
                unsigned want = u == LEVER_UNIT_KIB ? 1 : u == LEVER_UNIT_PERMYRIAD ? 2 : u == LEVER_UNIT_MODE ? 3 : 0;

                for (unsigned f = 0; f < 4; f++) {
                        char needle[160];
                        unsigned n = 0;

                        snprintf(needle, sizeof(needle), "\n%s{knob=\"%s\"%s", fams[f], lever_name((Lever) l),
                                 f == 3 ? ",mode=" : "}");
                        for (const char *p = text; (p = strstr(p, needle)); p++)
                                n++;
                        if (f != want)
                                assert_int_equal(n, 0);
                        else if (f == 3) {
                                unsigned modes = 0;

                                while (lever_mode_name((Lever) l, modes))
                                        modes++;
                                assert_true(modes > 1);
                                assert_int_equal(n, modes);
                        } else
                                assert_int_equal(n, 1);
                }
        }
        /* the values in base units */
        assert_non_null(strstr(text, "\nfragd_knob_bytes{knob=\"min_free_kbytes\"} 12288\n"));
        assert_non_null(strstr(text, "\nfragd_knob_ratio{knob=\"watermark_scale_factor\"} 0.0011\n"));
        assert_non_null(strstr(text, "\nfragd_knob_mode{knob=\"thp_defrag\",mode=\"madvise\"} 1\n"));
        assert_non_null(strstr(text, "\nfragd_knob_mode{knob=\"thp_defrag\",mode=\"never\"} 0\n"));
        assert_non_null(strstr(text, "\nfragd_knob_value{knob=\"compaction_proactiveness\"} 10\n"));
        assert_non_null(strstr(text, "\nfragd_knob_max_ratio{knob=\"watermark_boost_factor\"} 0.1\n"));
        free(text);
        free(c);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_knob_hold),
                cmocka_unit_test(test_skipped_lever_leaves_nothing),
                cmocka_unit_test(test_knob_units),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
