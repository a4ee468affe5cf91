/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Exporter tests: golden expositions for every fixture tree, series counts,
 * independently computed values, the metric table's conventions, docs drift,
 * the atomic write and its error reporting.
 *
 * The Observations come from the fixture trees through the real readers
 * (observation_read()) and the real assess(); the values asserted line by
 * line below were computed by hand from the fixture files.
 * Regenerate the golden files after an intended change with
 *   FRAGD_UPDATE_GOLDEN=1 build/tests/test-exporter
 * and review the diff: the values must match the fixture. */

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/cleanup.h"
#include "core/json.h"
#include "core/root.h"
#include "core/text.h"
#include "fragd/metrics.h"
#include "output/exporter.h"
#include "sources/observe.h"
#include "sources/sources.h"

#define NOW_USEC (5000 * USEC_PER_SEC)

static const char *srcdir(void)
{
        const char *d = getenv("FRAGD_SRCDIR");
        return d && *d ? d : ".";
}

static char *slurp(const char *path)
{
        _cleanup_fclose_ FILE *f = fopen(path, "re");
        char *buf = NULL;
        size_t cap = 0, len = 0, n;

        if (!f)
                return NULL;
        do {
                if (len + 4096 + 1 > cap) {
                        cap = cap * 2 + 8192;
                        buf = realloc(buf, cap);
                        assert_non_null(buf);
                }
                n = fread(buf + len, 1, cap - len - 1, f);
                len += n;
        } while (n > 0);
        buf[len] = '\0';
        return buf;
}

/* ---- fixture observations: the real readers and assess() ------------------- */

/* pagetype_age_usec: 0 = pagetypeinfo not read (as for a non-root run) */
static Observation *load_obs(const char *fx, usec_t now, usec_t pagetype_age_usec)
{
        _cleanup_(root_freep) Root *root = NULL;
        Observation *o = calloc(1, sizeof(*o));
        char path[1024];
        unsigned mask = OBS_ALL;

        assert_non_null(o);
        snprintf(path, sizeof(path), "%s/tests/fixtures/%s", srcdir(), fx);
        assert_int_equal(root_open(path, 4096, &root), 0);
        if (!pagetype_age_usec)
                mask &= ~OBS_MASK(OBS_PAGETYPEINFO);
        assert_int_equal(observation_read(root, mask, now, o), 0);
        if (pagetype_age_usec) {
                assert_true(o->have & OBS_MASK(OBS_PAGETYPEINFO));
                o->pagetype_usec = now - pagetype_age_usec;
        } else
                o->err[OBS_PAGETYPEINFO] = -EACCES;
        return o;
}

static bool load_psi(const char *fx, const char *rel, PsiStats *ret)
{
        char path[1024];
        char *buf;
        int r;

        snprintf(path, sizeof(path), "%s/tests/fixtures/%s/%s", srcdir(), fx, rel);
        buf = slurp(path);
        if (!buf)
                return false;
        r = psi_parse(buf, strlen(buf), ret);
        free(buf);
        return r >= 0;
}

static void load_kv(const char *fx, const char *rel, KvList *ret)
{
        char path[1024];
        char *buf;

        snprintf(path, sizeof(path), "%s/tests/fixtures/%s/%s", srcdir(), fx, rel);
        buf = slurp(path);
        assert_non_null(buf);
        assert_int_equal(vmstat_parse(buf, strlen(buf), ret), 0);
        free(buf);
}

/* ---- snapshots ------------------------------------------------------------------ */

/* The units of the six levers (lever_unit()), by position in Case.knobs
 * and in test_series_bound() */
static void knob_units(KnobView *k)
{
        static const char *const defrag[] = { "never", "defer", "defer+madvise", "madvise", "always" };

        k[1].unit = KNOB_UNIT_PERMYRIAD;
        k[2].unit = KNOB_UNIT_KIB;
        k[3].unit = KNOB_UNIT_PERMYRIAD;
        k[5].unit = KNOB_UNIT_MODE;
        for (unsigned m = 0; m < ELEMENTSOF(defrag); m++)
                k[5].modes[m] = defrag[m];
}

typedef struct Case {
        Observation *obs, *prev;
        Assessment *a;
        KnobView knobs[6];
        ActionCounter actions[4];
        ReserveTargetView targets[2 * 2];
        WatermarkHeldView held[2];
        CgroupView cgroups[3];
        Snapshot s;
} Case;

/* Default settings: the 6 levers, target orders 4 and the THP order,
 * reserve targets per node, no watched cgroups. */
static Case *case_new(const char *fx, const char *prev_fx)
{
        Case *c = calloc(1, sizeof(*c));
        const VmSysctls *vm;

        assert_non_null(c);
        c->obs = load_obs(fx, NOW_USEC, 90 * USEC_PER_SEC);
        if (prev_fx)
                c->prev = load_obs(prev_fx, NOW_USEC - 10 * USEC_PER_SEC, 80 * USEC_PER_SEC);
        c->a = calloc(1, sizeof(*c->a));
        assert_non_null(c->a);
        assert_int_equal(assess(c->obs, c->prev, c->a), 0);
        vm = &c->obs->vm;

        c->knobs[0] = (KnobView){ "compaction_proactiveness", true, vm->value[VM_COMPACTION_PROACTIVENESS],
                                  false, 0, 0, 60, false, false, NULL, KNOB_UNIT_NUMBER, { NULL } };
        c->knobs[1] = (KnobView){ "watermark_scale_factor", true, 30, true, vm->value[VM_WATERMARK_SCALE_FACTOR],
                                  10, 200, true, false, NULL, KNOB_UNIT_NUMBER, { NULL } };
        c->knobs[2] = (KnobView){ "min_free_kbytes", true, vm->value[VM_MIN_FREE_KBYTES], false, 0, 67584, 262144,
                                  false, false, NULL, KNOB_UNIT_NUMBER, { NULL } };
        c->knobs[3] = (KnobView){ "watermark_boost_factor", true, vm->value[VM_WATERMARK_BOOST_FACTOR], false, 0,
                                  0, 15000, false, false, NULL, KNOB_UNIT_NUMBER, { NULL } };
        c->knobs[4] = (KnobView){ "extfrag_threshold", true, vm->value[VM_EXTFRAG_THRESHOLD], false, 0, 300, 500,
                                  false, false, NULL, KNOB_UNIT_NUMBER, { NULL } };
        c->knobs[5] = (KnobView){ "thp_defrag", true, 3 /* madvise */, false, 0, 1, 3, false, false, NULL,
                                  KNOB_UNIT_NUMBER, { NULL } };
        knob_units(c->knobs);
        /* deliberately not in sorted order: the renderer sorts */
        c->actions[0] = (ActionCounter){ "watermark_scale_factor", ACTION_UP, "reserve_below_target", 3 };
        c->actions[1] = (ActionCounter){ "compact_node", ACTION_ONESHOT, "reserve_below_target", 1 };
        c->actions[2] = (ActionCounter){ "watermark_scale_factor", ACTION_DOWN, "targets_met_decay", 1 };

        c->s = (Snapshot){
                .obs = c->obs,
                .assessment = c->a,
                .prev_obs = c->prev,
                .version = "0.1.0",
                .n_target_orders = 2,
                .target_orders = { 4, 9 },
                .n_knobs = 6,
                .knobs = c->knobs,
                .n_actions = 3,
                .actions = c->actions,
                .health = { .last_tick_realtime_usec = 1767225600250000ULL,
                            .tick_duration_usec = 4200,
                            .errors = { 0, 0, 0 },
                            .dry_run = false },
        };
        /* reserve targets: 64 MiB at order 4, 256 MiB at the THP order, per node */
        for (unsigned n = 0; n < c->a->n_nodes && n < 2; n++) {
                c->targets[2 * n] = (ReserveTargetView){ c->a->nodes[n].node, 4, 64ULL << 20 };
                c->targets[2 * n + 1] = (ReserveTargetView){ c->a->nodes[n].node, 9, 256ULL << 20 };
                c->s.n_targets += 2;
        }
        c->s.targets = c->targets;
        /* memory held back by raised watermarks: none on node 0; on node 1
         * scale 200 instead of 10 on a 1048576-page zone, 33494 pages */
        for (unsigned n = 0; n < c->a->n_nodes && n < 2; n++)
                c->held[c->s.n_held++] = (WatermarkHeldView){ c->a->nodes[n].node, n == 1 ? 33494ULL * 4096 : 0 };
        c->s.held = c->held;
        return c;
}

static void case_free(Case *c)
{
        if (!c)
                return;
        free(c->obs);
        free(c->prev);
        free(c->a);
        free(c);
}

static char *render(const Snapshot *s)
{
        char *buf = NULL;
        size_t len;

        assert_int_equal(metrics_render_alloc(s, &buf, &len), 0);
        assert_int_equal(strlen(buf), len);
        return buf;
}

static unsigned count_series(const char *text)
{
        unsigned n = 0;

        for (const char *p = text; *p;) {
                const char *nl = strchr(p, '\n');

                if (*p != '#' && *p != '\n')
                        n++;
                if (!nl)
                        break;
                p = nl + 1;
        }
        return n;
}

static bool has_line(const char *text, const char *line)
{
        size_t l = strlen(line);

        for (const char *p = text; (p = strstr(p, line)); p++)
                if ((p == text || p[-1] == '\n') && (p[l] == '\n' || p[l] == '\0'))
                        return true;
        return false;
}

/* value of the sample whose "name{labels}" is exactly key; NAN if absent */
static double sample_value(const char *text, const char *key)
{
        size_t l = strlen(key);

        for (const char *p = text; (p = strstr(p, key)); p++)
                if ((p == text || p[-1] == '\n') && p[l] == ' ')
                        return strtod(p + l + 1, NULL);
        return NAN;
}

static void check_golden(const char *name, const char *text)
{
        char path[1024];
        char *want;

        snprintf(path, sizeof(path), "%s/tests/golden/%s.prom", srcdir(), name);
        if (getenv("FRAGD_UPDATE_GOLDEN")) {
                FILE *f = fopen(path, "we");

                assert_non_null(f);
                fputs(text, f);
                assert_int_equal(fclose(f), 0);
                print_message("updated %s\n", path);
        }
        want = slurp(path);
        if (!want)
                fail_msg("missing golden file %s (FRAGD_UPDATE_GOLDEN=1 creates it; review it)", path);
        if (strcmp(want, text) != 0) {
                fprintf(stderr, "--- %s differs; got:\n%s", path, text);
                fail_msg("golden mismatch: %s", path);
        }
        free(want);
}

/* Line-level structure the text format requires (promtool checks more in
 * tests/integration/test-promtool.sh): every sample's family was announced
 * with HELP then TYPE, families are contiguous, no sample repeats. */
static void check_structure(const char *text)
{
        char *copy = strdup(text), *line, *save = NULL;
        char cur[128] = "";
        char seen[_METRIC_MAX][128];
        unsigned n_seen = 0, n_lines = 0;
        char **lines = calloc(4096, sizeof(char *));

        assert_non_null(copy);
        assert_non_null(lines);
        for (line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
                char name[128];

                if (strncmp(line, "# HELP ", 7) == 0) {
                        assert_int_equal(sscanf(line + 7, "%127s", name), 1);
                        for (unsigned i = 0; i < n_seen; i++)
                                assert_string_not_equal(seen[i], name);
                        snprintf(seen[n_seen++], sizeof(seen[0]), "%s", name);
                        snprintf(cur, sizeof(cur), "%s", name);
                        continue;
                }
                if (strncmp(line, "# TYPE ", 7) == 0) {
                        assert_int_equal(sscanf(line + 7, "%127s", name), 1);
                        assert_string_equal(name, cur);
                        continue;
                }
                assert_true(line[0] != '#');
                assert_int_equal(strncmp(line, cur, strlen(cur)), 0);
                assert_true(line[strlen(cur)] == '{' || line[strlen(cur)] == ' ');
                /* no timestamp: exactly one space after the labels */
                assert_non_null(strrchr(line, ' '));
                assert_true(strchr(strrchr(line, '}') ? strrchr(line, '}') : line, ' ') == strrchr(line, ' '));
                for (unsigned i = 0; i < n_lines; i++) {
                        const char *a = lines[i], *b = line;
                        size_t la = strrchr(a, ' ') - a, lb = strrchr(b, ' ') - b;

                        assert_false(la == lb && strncmp(a, b, la) == 0);
                }
                assert_true(n_lines < 4096);
                lines[n_lines++] = line;
        }
        free(lines);
        free(copy);
}

/* ---- tests ------------------------------------------------------------------------ */

static void test_golden_2node_compacted(void **state)
{
        Case *c = case_new("vm-6.1-x86_64-2node-compacted", "vm-6.1-x86_64-2node-fragmented");
        char *t = render(&c->s);

        check_structure(t);
        check_golden("vm-6.1-x86_64-2node-compacted", t);

        /* the documented count, and the budget */
        assert_int_equal(count_series(t), METRICS_SERIES_2NODE_FIXTURE);
        assert_true(count_series(t) <= METRICS_SERIES_2NODE_BUDGET);

        /* values computed by hand from the fixture files, not by fragd:
         * buddyinfo node 0 DMA32 order 10: 440 blocks x 1024 pages x 4 KiB */
        assert_true(has_line(t, "fragd_zone_free_bytes{node=\"0\",zone=\"DMA32\",order=\"10\"} 1845493760"));
        /* node 1, order >= 9: DMA32 1x512 + 127x1024, Normal 7x512 + 132x1024
         * = 269312 pages = 1103101952 bytes */
        assert_true(has_line(t, "fragd_node_high_order_free_bytes{node=\"1\",order=\"9\"} 1103101952"));
        /* zoneinfo node 1 Normal: high 8558 pages, boost 0 */
        assert_true(has_line(t, "fragd_zone_watermark_bytes{node=\"1\",zone=\"Normal\",level=\"high\"} 35053568"));
        /* pagetypeinfo node 1 Normal: 35 Unmovable blocks; node 1 non-movable
         * share (2 + 35 + 6) / (2 + 510 + 35 + 471 + 6) = 43/1024 -> 41 permille */
        assert_true(has_line(t, "fragd_zone_pageblocks{node=\"1\",zone=\"Normal\",migratetype=\"Unmovable\"} 35"));
        assert_true(has_line(t, "fragd_node_nonmovable_pageblocks_ratio{node=\"1\"} 0.041"));
        /* compaction_proactiveness 0: low = 100, high = min(100 + 10, 100) */
        assert_true(has_line(t, "fragd_fragmentation_score_threshold_ratio{threshold=\"low\"} 1"));
        assert_true(has_line(t, "fragd_fragmentation_score_threshold_ratio{threshold=\"high\"} 1"));
        /* node 0 score: DMA (3712 free, 3584 in >= order-9) -> 3;
         * DMA32 (464548 free, 452608 in >= order-9) -> 2;
         * (3998*3 / 524191) + (520192*2 / 524191) = 0 + 1 -> 0.01 */
        assert_true(has_line(t, "fragd_node_fragmentation_score_ratio{node=\"0\"} 0.01"));
        /* efficiency: scanned 293279 + 65546 = 358825 pages since the
         * fragmented capture; order-9 units went from 77 to 1417 (+1340) */
        assert_true(fabs(sample_value(t, "fragd_compaction_scanned_pages_per_block_gained") - 358825.0 / 1340.0) <
                    1e-9);
        assert_true(has_line(t, "fragd_compaction_scanned_pages_total{scanner=\"migrate\"} 293279"));
        /* 6.1: PMD size only, from vmstat */
        assert_true(has_line(t, "fragd_thp_fault_alloc_total{size=\"2048kB\"} 0"));
        assert_true(has_line(t, "fragd_pagetypeinfo_age_seconds 90"));
        assert_true(has_line(t, "fragd_last_tick_timestamp_seconds 1767225600.25"));
        assert_true(has_line(t, "fragd_tick_duration_seconds 0.0042"));
        /* actions come out sorted by knob, direction, reason */
        assert_true(strstr(t, "fragd_actions_total{knob=\"compact_node\"") <
                    strstr(t, "fragd_actions_total{knob=\"watermark_scale_factor\",direction=\"up\""));
        assert_true(strstr(t, "direction=\"up\",reason=\"reserve_below_target\"") <
                    strstr(t, "direction=\"down\",reason=\"targets_met_decay\""));
        free(t);
        case_free(c);
}

static void test_golden_2node_fragmented(void **state)
{
        Case *c = case_new("vm-6.1-x86_64-2node-fragmented", NULL);
        char *t = render(&c->s);

        check_structure(t);
        check_golden("vm-6.1-x86_64-2node-fragmented", t);
        /* no previous tick: no efficiency */
        assert_null(strstr(t, "fragd_compaction_scanned_pages_per_block_gained"));
        /* node 0 DMA32 at order 4: buddy free F = 464565 pages, in >= order-4
         * blocks 30*16 + 42*32 + 31*64 + 18*128 + 11*256 + 3*512 + 20*1024 = 30944,
         * unusable = (464565 - 30944) * 1000 / 464565 = 933 permille */
        assert_true(has_line(t, "fragd_zone_unusable_free_ratio{node=\"0\",zone=\"DMA32\",order=\"4\"} 0.933"));
        /* a free block of order >= 4 exists: the kernel's -1.000, no
         * index, so no series (never a -1 sentinel) */
        assert_null(strstr(t, "fragd_zone_fragmentation_index_ratio{node=\"0\",zone=\"DMA32\",order=\"4\"}"));
        assert_null(strstr(t, "} -1\n"));
        /* knob values in base units: min_free_kbytes 90112 KiB in bytes,
         * watermark_scale_factor 30 / 10000 as a ratio, thp_defrag a state set */
        assert_true(has_line(t, "fragd_knob_bytes{knob=\"min_free_kbytes\"} 92274688"));
        assert_true(has_line(t, "fragd_knob_ratio{knob=\"watermark_scale_factor\"} 0.003"));
        assert_true(has_line(t, "fragd_knob_original_ratio{knob=\"watermark_scale_factor\"} 0.001"));
        assert_true(has_line(t, "fragd_knob_min_bytes{knob=\"min_free_kbytes\"} 69206016"));
        assert_true(has_line(t, "fragd_knob_max_ratio{knob=\"watermark_boost_factor\"} 1.5"));
        assert_true(has_line(t, "fragd_knob_value{knob=\"compaction_proactiveness\"} 0"));
        assert_true(has_line(t, "fragd_knob_mode{knob=\"thp_defrag\",mode=\"madvise\"} 1"));
        assert_true(has_line(t, "fragd_knob_mode{knob=\"thp_defrag\",mode=\"always\"} 0"));
        assert_null(strstr(t, "fragd_knob_value{knob=\"thp_defrag\"}"));
        assert_null(strstr(t, "fragd_knob_value{knob=\"min_free_kbytes\"}"));
        assert_null(strstr(t, "fragd_knob_min_value{knob=\"thp_defrag\"}"));
        /* transparent_hugepage/enabled [always] madvise never */
        assert_true(has_line(t, "fragd_thp_enabled_mode{mode=\"always\"} 1"));
        assert_true(has_line(t, "fragd_thp_enabled_mode{mode=\"never\"} 0"));
        free(t);
        case_free(c);
}

static void test_golden_2node_fresh(void **state)
{
        Case *c = case_new("vm-6.1-x86_64-2node-fresh", NULL);
        char *t = render(&c->s);

        check_structure(t);
        check_golden("vm-6.1-x86_64-2node-fresh", t);
        free(t);
        case_free(c);
}

/* 1-node guest under memory pressure, two watched cgroups from the fixture
 * plus one that is configured but absent; pagetypeinfo never read (non-root);
 * dry run; a knob disabled; errors counted. */
static void test_golden_1node_pressure(void **state)
{
        const char *fx = "vm-6.1-x86_64-1node-pressure";
        Case *c;
        char *t;
        PsiStats db = {}, batch = {};
        KvList *st = calloc(1, sizeof(KvList));

        assert_non_null(st);
        c = calloc(1, sizeof(*c));
        assert_non_null(c);
        c->obs = load_obs(fx, NOW_USEC, 0);
        c->a = calloc(1, sizeof(*c->a));
        assert_int_equal(assess(c->obs, NULL, c->a), 0);
        assert_true(load_psi(fx, "sys/fs/cgroup/db.slice/memory.pressure", &db));
        assert_true(load_psi(fx, "sys/fs/cgroup/batch.slice/memory.pressure", &batch));
        load_kv(fx, "sys/fs/cgroup/db.slice/memory.stat", st);

        c->knobs[0] = (KnobView){ "compaction_proactiveness", true, 20, true, 20, 0, 60, false, false, "psi", KNOB_UNIT_NUMBER, { NULL } };
        c->knobs[1] = (KnobView){ "min_free_kbytes", false, 0, true, 45056, 22528, 131072, true, true, NULL, KNOB_UNIT_NUMBER, { NULL } };
        c->knobs[1].unit = KNOB_UNIT_KIB;
        c->cgroups[0] = (CgroupView){
                .name = "db.slice", .present = true,
                .have_psi = true, .psi_some_usec = db.some.total_usec, .psi_full_usec = db.full.total_usec,
                .have_thp = true,
                /* taskstats numbers are not in the fixture: synthetic */
                .have_delay = true, .compact_delay_ns = 1500000000ULL, .reclaim_delay_ns = 42000000000ULL,
                .thrashing_delay_ns = 7250000000ULL, .compact_count = 12, .reclaim_count = 3400,
                .thrashing_count = 880, .mechanism = "none",
        };
        for (unsigned i = 0; i < st->n; i++) {
                if (strcmp(st->e[i].name, "anon_thp") == 0)
                        c->cgroups[0].anon_thp_bytes = st->e[i].value;
                else if (strcmp(st->e[i].name, "file_thp") == 0)
                        c->cgroups[0].file_thp_bytes = st->e[i].value;
                else if (strcmp(st->e[i].name, "shmem_thp") == 0)
                        c->cgroups[0].shmem_thp_bytes = st->e[i].value;
        }
        c->cgroups[1] = (CgroupView){ .name = "batch.slice", .present = true, .have_psi = true,
                                      .psi_some_usec = batch.some.total_usec,
                                      .psi_full_usec = batch.full.total_usec, .mechanism = "prctl_launcher" };
        c->cgroups[2] = (CgroupView){ .name = "system.slice/system-postgresql.slice/postgresql@15-main.service", .present = false };
        c->s = (Snapshot){
                .obs = c->obs,
                .assessment = c->a,
                .version = "0.1.0",
                .n_target_orders = 3,
                .target_orders = { 9, 4, 9 }, /* unsorted, duplicate: rendered once each, ascending */
                .n_knobs = 2,
                .knobs = c->knobs,
                .health = { .last_tick_realtime_usec = 1767225601000000ULL,
                            .tick_duration_usec = 1250,
                            .errors = { 7, 2, 1 },
                            .dry_run = true },
                .n_cgroups = 3,
                .cgroups = c->cgroups,
        };
        t = render(&c->s);
        check_structure(t);
        check_golden(fx, t);

        /* /proc/pressure/memory: some total=37169358 us, full avg10=54.71;
         * batch.slice/memory.pressure some total=6850158 us */
        /* the totals are node_exporter's node_pressure_memory_*: not here */
        assert_null(strstr(t, "fragd_memory_pressure_stalled_seconds_total"));
        assert_true(has_line(t, "fragd_memory_pressure_avg10_ratio{kind=\"full\"} 0.5471"));
        assert_true(has_line(t, "fragd_cgroup_memory_pressure_stalled_seconds_total{cgroup=\"batch.slice\",kind=\"some\"} 6.850158"));
        assert_true(has_line(t, "fragd_cgroup_present{cgroup=\"system.slice/system-postgresql.slice/postgresql@15-main.service\"} 0"));
        assert_true(has_line(t, "fragd_cgroup_delay_seconds_total{cgroup=\"db.slice\",kind=\"compact\"} 1.5"));
        assert_true(has_line(t, "fragd_knob_disabled{knob=\"min_free_kbytes\"} 1"));
        /* held: one series with the hold; none for a knob nothing holds */
        assert_true(has_line(t, "fragd_knob_held{knob=\"compaction_proactiveness\",hold=\"psi\"} 1"));
        assert_null(strstr(t, "fragd_knob_held{knob=\"min_free_kbytes\""));
        assert_null(strstr(t, "fragd_knob_bytes{knob=\"min_free_kbytes\"}"));
        assert_true(has_line(t, "fragd_knob_original_bytes{knob=\"min_free_kbytes\"} 46137344"));
        assert_true(has_line(t, "fragd_dry_run 1"));
        assert_true(has_line(t, "fragd_errors_total{kind=\"knob_write\"} 2"));
        assert_true(has_line(t, "fragd_source_up{source=\"pagetypeinfo\"} 0"));
        assert_null(strstr(t, "fragd_zone_pageblocks"));
        assert_null(strstr(t, "fragd_pagetypeinfo_age_seconds"));
        /* node 0 DMA at order 9 has no free block: F = 1165 pages in B = 62
         * blocks; 1000 - (1000 + 1165000/512) / 62 = 1000 - 3275/62 = 948 */
        assert_true(has_line(t, "fragd_zone_fragmentation_index_ratio{node=\"0\",zone=\"DMA\",order=\"9\"} 0.948"));
        free(t);
        free(st);
        case_free(c);
}

/* 6.18 host: mTHP sizes, per-size counters from the stats files. */
static void test_golden_host_618(void **state)
{
        Case *c = case_new("host-6.18-x86_64", NULL);
        char *t = render(&c->s);

        check_structure(t);
        check_golden("host-6.18-x86_64", t);
        /* hugepages-2048kB/stats/anon_fault_alloc = 19169 */
        assert_true(has_line(t, "fragd_thp_fault_alloc_total{size=\"2048kB\"} 19169"));
        assert_non_null(strstr(t, "fragd_thp_shmem_alloc_total{size=\"64kB\"}"));
        /* node score by hand: Normal has F = 1192481 free pages, 1060864 of them
         * in >= order-9 blocks -> zone score 11; DMA32 0, DMA 0; weighted by
         * present: 5505024 * 11 / (3998 + 782336 + 5505024 + 1) = 9.
         * (KERNEL.md §4.3 quotes 33 for this host; the captured files give 9.) */
        assert_true(has_line(t, "fragd_node_fragmentation_score_ratio{node=\"0\"} 0.09"));
        free(t);
        case_free(c);
}

/* The documented worst case for a 2-node host with default settings. */
static void test_series_bound(void **state)
{
        Observation *o = calloc(1, sizeof(*o));
        Assessment *a = calloc(1, sizeof(*a));
        KnobView knobs[7];
        ActionCounter actions[SNAPSHOT_MAX_ACTIONS];
        char reasons[SNAPSHOT_MAX_ACTIONS][32];
        static const char *const types[] = { "Unmovable", "Movable", "Reclaimable", "HighAtomic", "CMA", "Isolate" };
        static const char *const zones[] = { "DMA", "DMA32", "Normal" };
        ReserveTargetView targets[4];
        Snapshot s;
        char *t;

        assert_non_null(o);
        assert_non_null(a);
        o->page_size = 4096;
        o->now_usec = NOW_USEC;
        o->have = OBS_ALL | OBS_MASK(OBS_PAGECACHE);
        o->pagecache.n_orders = 14;
        for (unsigned k = 0; k < 14; k++)
                o->pagecache.folios[k] = 10 + k;
        o->kswapd_wake.valid = true;
        for (unsigned k = 0; k < 14; k++)
                o->kswapd_wake.counts[k] = 1 + k;
        o->buddy.n_orders = 14;
        for (unsigned z = 0; z < 6; z++) {
                BuddyZone *bz = &o->buddy.zones[o->buddy.n_zones++];
                ZoneInfoZone *zz = &o->zoneinfo.zones[o->zoneinfo.n_zones++];
                PageTypeZone *pz = &o->pagetype.zones[o->pagetype.n_zones++];

                bz->node = pz->node = zz->node = (int) z / 3;
                snprintf(bz->zone, sizeof(bz->zone), "%s", zones[z % 3]);
                memcpy(zz->zone, bz->zone, sizeof(zz->zone));
                memcpy(pz->zone, bz->zone, sizeof(pz->zone));
                bz->n_orders = 14;
                /* no free block of the target orders or above: every
                 * fragmentation index is defined (the kernel's -1 is absent) */
                for (unsigned k = 0; k < 4; k++)
                        bz->nr_free[k] = 100 + k;
                zz->have = ZONE_HAVE_MANAGED | ZONE_HAVE_BOOST;
                zz->present = zz->managed = 1 << 20;
                pz->have_blocks = true;
                for (unsigned m = 0; m < 6; m++)
                        pz->blocks[m] = 10 + m;
        }
        o->pagetype.n_types = 6;
        for (unsigned i = 0; i < 6; i++)
                snprintf(o->pagetype.types[i], FRAGD_NAME_MAX, "%s", types[i]);
        o->pagetype_usec = NOW_USEC - 1;
        {
                static const char *const vmk[] = {
                        "compact_stall", "compact_success", "compact_fail", "compact_migrate_scanned",
                        "compact_free_scanned", "compact_daemon_migrate_scanned", "compact_daemon_free_scanned",
                        "compact_isolated", "compact_daemon_wake", "allocstall_normal", "allocstall_dma32",
                        "thp_collapse_alloc", "thp_collapse_alloc_failed",
                };
                for (unsigned i = 0; i < ELEMENTSOF(vmk); i++) {
                        snprintf(o->vmstat.e[i].name, FRAGD_KV_NAME_MAX, "%s", vmk[i]);
                        o->vmstat.e[i].value = 1000 + i;
                }
                o->vmstat.n = ELEMENTSOF(vmk);
        }
        o->psi_memory.some.present = o->psi_memory.full.present = true;
        o->thp.hpage_pmd_size = 2 << 20;
        snprintf(o->thp.enabled, sizeof(o->thp.enabled), "madvise");
        for (unsigned i = 0; i < 9; i++) {
                static const char *const st[] = { "anon_fault_alloc", "anon_fault_fallback",
                                                  "anon_fault_fallback_charge", "shmem_alloc", "shmem_fallback" };
                ThpSize *sz = &o->thp.sizes[o->thp.n_sizes++];

                sz->size_kb = 8u << i;
                for (unsigned j = 0; j < ELEMENTSOF(st); j++)
                        snprintf(sz->stats[sz->n_stats++].name, sizeof(sz->stats[0].name), "%s", st[j]);
        }
        o->vm.present[VM_COMPACTION_PROACTIVENESS] = true;
        o->vm.value[VM_COMPACTION_PROACTIVENESS] = 20;
        assert_int_equal(assess(o, NULL, a), 0);
        /* a previous tick with less free memory, so efficiency is defined */
        Observation *prev = malloc(sizeof(*prev));
        assert_non_null(prev);
        memcpy(prev, o, sizeof(*prev));
        prev->now_usec -= 10 * USEC_PER_SEC;
        for (unsigned i = 0; i < prev->vmstat.n; i++)
                prev->vmstat.e[i].value -= 10;
        prev->buddy.zones[0].nr_free[3]--;

        for (unsigned i = 0; i < 7; i++)
                knobs[i] = (KnobView){ "", true, 1, true, 1, 0, 10, true, false, "nothing_to_reclaim", KNOB_UNIT_NUMBER, { NULL } };
        knobs[0].name = "compaction_proactiveness";
        knobs[1].name = "watermark_scale_factor";
        knobs[2].name = "min_free_kbytes";
        knobs[3].name = "watermark_boost_factor";
        knobs[4].name = "extfrag_threshold";
        knobs[5].name = "thp_defrag";
        knobs[6].name = "defrag_mode"; /* a kernel with vm.defrag_mode (6.15+) */
        knob_units(knobs);
        for (unsigned i = 0; i < SNAPSHOT_MAX_ACTIONS; i++) {
                snprintf(reasons[i], sizeof(reasons[i]), "reason_%02u", i / 3);
                actions[i] = (ActionCounter){ knobs[i % 6].name, (ActionDirection) (i % 3), reasons[i], i };
        }
        for (unsigned n = 0; n < 2; n++) {
                targets[2 * n] = (ReserveTargetView){ (int) n, 4, 1 };
                targets[2 * n + 1] = (ReserveTargetView){ (int) n, 9, 1 };
        }
        s = (Snapshot){ .obs = o, .assessment = a, .prev_obs = prev, .n_target_orders = 2,
                        .target_orders = { 4, 9 }, .n_targets = 4, .targets = targets,
                        .n_knobs = 7, .knobs = knobs, .n_actions = SNAPSHOT_MAX_ACTIONS, .actions = actions,
                        .health = { .last_tick_realtime_usec = 1, .tick_duration_usec = 1 },
                        .pagecache_order = 6, .pagecache_share_permyriad = 5000 };
        t = render(&s);
        check_structure(t);
        assert_int_equal(count_series(t), METRICS_SERIES_2NODE_WORST);
        assert_true(METRICS_SERIES_2NODE_WORST <= METRICS_SERIES_2NODE_BUDGET);

        /* arm64 with 64 KiB pages: 12 THP sizes (three more here) */
        {
                char *t64;

                for (unsigned i = 0; i < 3; i++) {
                        ThpSize *sz = &o->thp.sizes[o->thp.n_sizes++];

                        *sz = o->thp.sizes[0];
                        sz->size_kb = 4096u << i;
                }
                assert_int_equal(o->thp.n_sizes, 12);
                t64 = render(&s);
                check_structure(t64);
                assert_int_equal(count_series(t64), METRICS_SERIES_2NODE_WORST_64K);
                assert_true(METRICS_SERIES_2NODE_WORST_64K <= METRICS_SERIES_2NODE_BUDGET_64K);
                free(t64);
                o->thp.n_sizes = 9;
        }

        /* each watched cgroup adds METRICS_SERIES_PER_CGROUP */
        {
                CgroupView cg = { .name = "db.slice", .present = true, .have_psi = true, .have_thp = true,
                                  .have_delay = true, .mechanism = "madv_collapse" };
                char *t2;

                s.n_cgroups = 1;
                s.cgroups = &cg;
                t2 = render(&s);
                assert_int_equal(count_series(t2), METRICS_SERIES_2NODE_WORST + METRICS_SERIES_PER_CGROUP);
                free(t2);
                /* and, once, the failed allocations up to the highest
                 * order that failed (the instance counts their tasks) */
                o->alloc_fail.valid = true;
                o->alloc_fail.counts[6] = 412;
                o->alloc_fail.counts[3] = 2;
                t2 = render(&s);
                assert_int_equal(count_series(t2), METRICS_SERIES_2NODE_WORST + METRICS_SERIES_PER_CGROUP + 7);
                assert_non_null(strstr(t2, "fragd_page_alloc_failures_total{order=\"6\"} 412\n"));
                assert_non_null(strstr(t2, "fragd_page_alloc_failures_total{order=\"0\"} 0\n"));
                assert_null(strstr(t2, "fragd_page_alloc_failures_total{order=\"7\"}"));
                free(t2);
                o->alloc_fail = (OrderCountHist) {};
        }
        free(t);
        free(prev);
        free(o);
        free(a);
}

static void test_validation(void **state)
{
        Case *c = case_new("vm-6.1-x86_64-2node-fragmented", NULL);
        Snapshot s = c->s;
        KnobView dup[2] = { c->knobs[0], c->knobs[0] };
        ActionCounter adup[2] = { c->actions[0], c->actions[0] };
        CgroupView cg[2] = { { .name = "a" }, { .name = "a" } };
        FILE *f = fopen("/dev/null", "we");

        assert_non_null(f);
        assert_int_equal(metrics_render(NULL, f), -EINVAL);
        s.obs = NULL;
        assert_int_equal(metrics_render(&s, f), -EINVAL);
        s = c->s;
        s.knobs = dup;
        s.n_knobs = 2;
        assert_int_equal(metrics_render(&s, f), -EINVAL);
        s = c->s;
        s.actions = adup;
        s.n_actions = 2;
        assert_int_equal(metrics_render(&s, f), -EINVAL);
        s = c->s;
        s.n_actions = SNAPSHOT_MAX_ACTIONS + 1;
        assert_int_equal(metrics_render(&s, f), -E2BIG);
        s = c->s;
        s.cgroups = cg;
        s.n_cgroups = 2;
        assert_int_equal(metrics_render(&s, f), -EINVAL);
        s = c->s;
        s.n_knobs = 1;
        s.knobs = NULL;
        assert_int_equal(metrics_render(&s, f), -EINVAL);
        s = c->s;
        s.n_held = 1;
        s.held = NULL;
        assert_int_equal(metrics_render(&s, f), -EINVAL);
        s = c->s;
        s.n_held = FRAGD_MAX_NODES + 1;
        assert_int_equal(metrics_render(&s, f), -E2BIG);
        if (c->s.n_held == 2) {
                WatermarkHeldView hdup[2] = { c->held[0], c->held[0] };

                s = c->s;
                s.held = hdup;
                assert_int_equal(metrics_render(&s, f), -EINVAL);
        }
        fclose(f);
        case_free(c);
}

static void test_label_escaping(void **state)
{
        Case *c = case_new("vm-6.1-x86_64-2node-fragmented", NULL);
        CgroupView cg = { .name = "odd\\name\"with\nnewline", .present = true };
        char *t;

        c->s.cgroups = &cg;
        c->s.n_cgroups = 1;
        t = render(&c->s);
        assert_true(has_line(t, "fragd_cgroup_present{cgroup=\"odd\\\\name\\\"with\\nnewline\"} 1"));
        free(t);
        case_free(c);
}

/* Issue 11 item 15: a label value that is not UTF-8 never reaches the file
 * (node_exporter rejects the whole file for one bad byte); the escapes the
 * exposition format wants still apply around it. */
static void test_label_invalid_utf8(void **state)
{
        Case *c = case_new("vm-6.1-x86_64-2node-fragmented", NULL);
        CgroupView cg = { .name = "caf\xe9\\\"\n\xc3" "x\xed\xa0\x80\xf0\x9f\x98\x80.slice", .present = true };
        char *t;

        c->s.cgroups = &cg;
        c->s.n_cgroups = 1;
        t = render(&c->s);
        assert_true(has_line(t, "fragd_cgroup_present{cgroup=\"caf\xef\xbf\xbd\\\\\\\"\\n\xef\xbf\xbdx"
                                "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xf0\x9f\x98\x80.slice\"} 1"));
        assert_true(utf8_valid(t));
        free(t);
        case_free(c);
}

static char *json_of(const char *key, const char *value)
{
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        JsonWriter w;

        assert_non_null(f);
        json_init(&w, f, false);
        json_obj_begin(&w);
        json_key(&w, key);
        json_str(&w, value);
        json_obj_end(&w);
        fclose(f);
        return buf;
}

/* The JSON writer: control characters escaped, invalid UTF-8 as \ufffd,
 * valid multi-byte characters kept. The report is read by jq and by
 * monitoring: one bad byte made the whole document invalid. */
static void test_json_strings(void **state)
{
        static const struct {
                const char *in, *out;
        } cases[] = {
                { "plain", "{\"k\":\"plain\"}" },
                { "q\"b\\n\nt\tr\r", "{\"k\":\"q\\\"b\\\\n\\nt\\tr\\r\"}" },
                { "bell\x07" "esc\x1b" "del\x7f", "{\"k\":\"bell\\u0007esc\\u001bdel\\u007f\"}" },
                { "caf\xe9", "{\"k\":\"caf\\ufffd\"}" },                          /* Latin-1 */
                { "cut\xe2\x82", "{\"k\":\"cut\\ufffd\\ufffd\"}" },                /* cut short */
                { "\xc0\xaf", "{\"k\":\"\\ufffd\\ufffd\"}" },                      /* overlong '/' */
                { "\xed\xa0\x80", "{\"k\":\"\\ufffd\\ufffd\\ufffd\"}" },           /* surrogate */
                { "\xf4\x90\x80\x80", "{\"k\":\"\\ufffd\\ufffd\\ufffd\\ufffd\"}" }, /* above U+10FFFF */
                { "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", "{\"k\":\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"}" },
        };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                char *j = json_of("k", cases[i].in);

                if (strcmp(j, cases[i].out) != 0) {
                        print_error("case %zu: got %s, want %s\n", i, j, cases[i].out);
                        fail();
                }
                assert_true(utf8_valid(j));
                free(j);
        }
        /* keys go through the same escaping */
        {
                char *j = json_of("k\xff", "v");

                assert_string_equal(j, "{\"k\\ufffd\":\"v\"}");
                free(j);
        }
}

/* Conventions every family of the table must follow. */
static void test_table_conventions(void **state)
{
        for (unsigned i = 0; i < _METRIC_MAX; i++) {
                const MetricFamily *m = &metric_families[i];
                size_t l;

                assert_non_null(m->name);
                l = strlen(m->name);
                assert_int_equal(strncmp(m->name, "fragd_", 6), 0);
                for (const char *p = m->name; *p; p++)
                        assert_true(islower((unsigned char) *p) || isdigit((unsigned char) *p) || *p == '_');
                if (m->type == METRIC_COUNTER)
                        assert_true(l > 6 && strcmp(m->name + l - 6, "_total") == 0);
                else
                        assert_false(l > 6 && strcmp(m->name + l - 6, "_total") == 0);
                if (*m->unit) {
                        char suffix[40];

                        snprintf(suffix, sizeof(suffix), "_%s%s", m->unit,
                                 m->type == METRIC_COUNTER ? "_total" : "");
                        assert_true(l > strlen(suffix) && strcmp(m->name + l - strlen(suffix), suffix) == 0);
                }
                assert_true(m->help && *m->help);
                if (strlen(m->help) > METRIC_HELP_MAX)
                        fail_msg("%s: HELP of %zu characters, more than %d: move the rest to .more", m->name,
                                 strlen(m->help), METRIC_HELP_MAX);
                assert_true(!m->more || (*m->more && !strchr(m->more, '\n') && !strchr(m->more, '|')));
                assert_null(strchr(m->help, '\n'));
                assert_null(strchr(m->help, '|'));
                assert_true(m->section && *m->section);
                assert_true(m->series && *m->series);
                for (unsigned j = 0; m->labels[j]; j++) {
                        assert_true(j < METRIC_MAX_LABELS);
                        for (const char *p = m->labels[j]; *p; p++)
                                assert_true(islower((unsigned char) *p) || *p == '_');
                }
                for (unsigned j = 0; j < i; j++)
                        assert_string_not_equal(metric_families[j].name, m->name);
        }
}

/* docs/metrics.md is generated from the table and must not drift. */
static void test_docs_up_to_date(void **state)
{
        char path[1024];
        char *buf = NULL, *want;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);

        assert_non_null(f);
        assert_int_equal(metrics_doc_render(f), 0);
        assert_int_equal(fclose(f), 0);
        snprintf(path, sizeof(path), "%s/docs/metrics.md", srcdir());
        want = slurp(path);
        assert_non_null(want);
        if (strcmp(want, buf) != 0)
                fail_msg("docs/metrics.md is stale: run build/fragd-metrics-doc > docs/metrics.md");
        /* every family is documented */
        for (unsigned i = 0; i < _METRIC_MAX; i++) {
                char needle[160];

                snprintf(needle, sizeof(needle), "| `%s` |", metric_families[i].name);
                assert_non_null(strstr(want, needle));
        }
        free(want);
        free(buf);
}

static void test_write_atomic(void **state)
{
        Case *c = case_new("vm-6.1-x86_64-2node-compacted", "vm-6.1-x86_64-2node-fragmented");
        char dir[] = "/tmp/fragd-test-exporter-XXXXXX";
        char path[128];
        char *want = render(&c->s), *got;
        MetricsWriter w = METRICS_WRITER_INIT;
        struct stat st;
        int dfd;
        DIR *d;
        struct dirent *de;
        unsigned n_files = 0;
        /* the host's root, as fragd without --root */
        int rootfd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

        assert_true(rootfd >= 0);
        assert_non_null(mkdtemp(dir));
        dfd = metrics_dir_open(rootfd, dir);
        assert_true(dfd >= 0);
        assert_int_equal(metrics_writer_write(&w, dfd, dir, &c->s), 0);
        /* a second write replaces the file */
        assert_int_equal(metrics_writer_write(&w, dfd, dir, &c->s), 0);
        assert_int_equal(w.n_writes, 2);
        assert_int_equal(w.n_failures, 0);
        snprintf(path, sizeof(path), "%s/%s", dir, FRAGD_METRICS_FILE);
        got = slurp(path);
        assert_non_null(got);
        assert_string_equal(got, want);
        assert_int_equal(stat(path, &st), 0);
        assert_int_equal(st.st_mode & 0777, 0644);
        /* no temp file left behind */
        d = opendir(dir);
        assert_non_null(d);
        while ((de = readdir(d)))
                if (de->d_name[0] != '.')
                        n_files++;
        closedir(d);
        assert_int_equal(n_files, 1);

        /* failures: counted every time, never fatal; recovery resets state */
        assert_int_equal(metrics_dir_open(rootfd, NULL), -EINVAL);
        assert_int_equal(metrics_writer_write(&w, -ENOENT, "/nonexistent", &c->s), -ENOENT);
        assert_int_equal(metrics_writer_write(&w, -ENOENT, "/nonexistent", &c->s), -ENOENT);
        assert_int_equal(w.n_failures, 2);
        assert_int_equal(w.last_r, -ENOENT);
        assert_int_equal(metrics_write(-1, dir, &c->s), -EBADF);
        assert_int_equal(metrics_writer_write(&w, dfd, dir, &c->s), 0);
        assert_int_equal(w.last_r, 0);
        assert_int_equal(w.n_failures, 2);

        assert_int_equal(unlink(path), 0);
        close(dfd);
        assert_int_equal(rmdir(dir), 0);
        assert_int_equal(metrics_dir_open(rootfd, dir), -ENOENT);

        /* by path: a missing directory is an error each tick until it appears */
        assert_int_equal(metrics_writer_write_path(&w, rootfd, "", &c->s), 0);
        assert_int_equal(metrics_writer_write_path(&w, rootfd, dir, &c->s), -ENOENT);
        assert_int_equal(w.n_failures, 3);
        assert_int_equal(mkdir(dir, 0755), 0);
        assert_int_equal(metrics_writer_write_path(&w, rootfd, dir, &c->s), 0);
        free(got);
        got = slurp(path);
        assert_non_null(got);
        assert_string_equal(got, want);
        assert_int_equal(unlink(path), 0);
        assert_int_equal(rmdir(dir), 0);
        close(rootfd);
        free(got);
        free(want);
        case_free(c);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_table_conventions),
                cmocka_unit_test(test_docs_up_to_date),
                cmocka_unit_test(test_golden_2node_compacted),
                cmocka_unit_test(test_golden_2node_fragmented),
                cmocka_unit_test(test_golden_2node_fresh),
                cmocka_unit_test(test_golden_1node_pressure),
                cmocka_unit_test(test_golden_host_618),
                cmocka_unit_test(test_series_bound),
                cmocka_unit_test(test_validation),
                cmocka_unit_test(test_label_escaping),
                cmocka_unit_test(test_label_invalid_utf8),
                cmocka_unit_test(test_json_strings),
                cmocka_unit_test(test_write_atomic),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
