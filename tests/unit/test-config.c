/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Loading fragd.conf: layers, sources, the preset rule, errors with
 * file:line, did-you-mean and ranges, --set, reload atomicity, printing.
 * Each test builds its own root tree under /tmp. */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <cmocka.h>

#include "cli/main-internal.h"
#include "config-test-util.h"
#include "core/text.h"

#define SRC(l, sec, key, sub) tl_source((l), (sec), (key), (sub), (char[320]) { 0 }, 320)

static void test_no_config_is_database_defaults(void **state)
{
        TestRoot *t = tr_new();
        TestLoad *l = tl_load_root(t, NULL, NULL, 0);
        FragdConfig d;
        PolicyConfig db;

        (void) state;
        assert_int_equal(l->r, 0);
        assert_int_equal(l->errs.n, 0);
        config_defaults(&d);
        assert_memory_equal(&l->cfg, &d, sizeof(d));
        policy_config_preset(PRESET_DATABASE, &db);
        assert_memory_equal(&l->cfg.policy, &db, sizeof(db));
        assert_int_equal(l->cfg.daemon.interval_usec, 5 * USEC_PER_SEC);
        assert_string_equal(l->cfg.fleet.instance_type, "auto");
        assert_string_equal(l->cfg.fleet.fleet_dir, "/etc/fragd/fleet.d");
        assert_int_equal(l->src.n_files, 0);
        assert_string_equal(SRC(l, "daemon", "interval", 0), "default");
        assert_string_equal(SRC(l, "policy", "preset", 0), "default");
        assert_string_equal(SRC(l, "policy", "reserve_thp", 0), "preset database");
        assert_string_equal(SRC(l, "knob", "max", LEVER_WATERMARK_SCALE_FACTOR), "preset database");
        /* no probe: nothing detected */
        assert_null(l->src.instance.source);
        assert_string_equal(l->src.instance.fleet_file, "");
        free(l);
        tr_free(t);
}

static void test_layers_and_sources(void **state)
{
        TestRoot *t = tr_new();
        static const char *const set[] = { "daemon.log_level=debug", "knob.compaction_proactiveness.max=70" };
        InstanceProbe probe = { .mem_total_kb = 125ULL << 20, .n_cpus = 16, .arch = "arm64", .page_size = 4096 };
        TestLoad *l;

        (void) state;
        tr_write(t, "etc/fragd/fleet.d/r7g.conf",
                 "[match]\n"
                 "instance_type = r7g.4xlarge\n"
                 "[daemon]\n"
                 "interval = 1s\n"
                 "dry_run = yes\n"
                 "[policy]\n"
                 "reserve_thp = 3%\n"
                 "order_large = 5\n");
        tr_write(t, "etc/fragd/fragd.conf",
                 "; main file\n"
                 "[daemon]\n"
                 "interval = 2s\n"
                 "log_level = warning\n"
                 "[policy]\n"
                 "order_large = 6\n"
                 "[fleet]\n"
                 "instance_type = r7g.4xlarge\n");
        /* sorted by name: 10 before 20, though written after */
        tr_write(t, "etc/fragd/fragd.conf.d/20-late.conf", "[daemon]\ninterval = 4s\n");
        tr_write(t, "etc/fragd/fragd.conf.d/10-early.conf", "[daemon]\ninterval = 3s\npagetypeinfo_interval = 0\n");
        tr_write(t, "etc/fragd/fragd.conf.d/ignored.txt", "[daemon]\ninterval = 9s\n");
        tr_write(t, "etc/fragd/fragd.conf.d/.hidden.conf", "[daemon]\ninterval = 9s\n");

        l = tl_load_root(t, &probe, set, ELEMENTSOF(set));
        tl_dump_errors(l);
        assert_int_equal(l->r, 0);

        /* highest layer wins, each value knows its layer */
        assert_int_equal(l->cfg.daemon.interval_usec, 4 * USEC_PER_SEC);
        assert_string_equal(SRC(l, "daemon", "interval", 0), "/etc/fragd/fragd.conf.d/20-late.conf:2");
        assert_int_equal(l->cfg.daemon.pagetypeinfo_interval_usec, 0);
        assert_string_equal(SRC(l, "daemon", "pagetypeinfo_interval", 0),
                            "/etc/fragd/fragd.conf.d/10-early.conf:3");
        assert_true(l->cfg.daemon.dry_run);
        assert_string_equal(SRC(l, "daemon", "dry_run", 0), "fleet /etc/fragd/fleet.d/r7g.conf:5");
        assert_int_equal(l->cfg.daemon.log_level, LOG_DEBUG);
        assert_string_equal(SRC(l, "daemon", "log_level", 0), "command line");
        assert_int_equal(l->cfg.policy.order_large, 6);
        assert_string_equal(SRC(l, "policy", "order_large", 0), "/etc/fragd/fragd.conf:6");
        assert_int_equal(l->cfg.policy.reserve_thp.permyriad, 300);
        assert_string_equal(SRC(l, "policy", "reserve_thp", 0), "fleet /etc/fragd/fleet.d/r7g.conf:7");
        assert_int_equal(l->cfg.policy.lever[LEVER_COMPACTION_PROACTIVENESS].max, 70);
        assert_string_equal(SRC(l, "knob", "max", LEVER_COMPACTION_PROACTIVENESS), "command line");
        assert_string_equal(SRC(l, "knob", "min", LEVER_COMPACTION_PROACTIVENESS), "preset database");
        assert_string_equal(SRC(l, "daemon", "textfile_dir", 0), "default");

        /* detection: configured type, class from the probe, fleet file */
        assert_string_equal(l->src.instance.name, "r7g.4xlarge");
        assert_string_equal(l->src.instance.source, "config");
        assert_string_equal(l->src.instance.class_name, "mem-128g-16c-arm64");
        assert_string_equal(l->src.instance.fleet_file, "/etc/fragd/fleet.d/r7g.conf");
        assert_string_equal(l->src.instance.fleet_match, "instance_type = r7g.4xlarge");
        /* every file read is listed: main, drop-ins in order, fleet */
        assert_int_equal(l->src.n_files, 4);
        assert_string_equal(l->src.files[0], "/etc/fragd/fragd.conf");
        assert_string_equal(l->src.files[1], "/etc/fragd/fragd.conf.d/10-early.conf");
        assert_string_equal(l->src.files[2], "/etc/fragd/fragd.conf.d/20-late.conf");
        free(l);
        tr_free(t);
}

/* The rule: a higher layer's preset re-bases every value nobody set; values
 * set explicitly in any layer, even a lower one, still win. */
static void test_preset_rebase_rule(void **state)
{
        TestRoot *t = tr_new();
        InstanceProbe probe = { .mem_total_kb = 64ULL << 20, .n_cpus = 8, .arch = "x86_64", .page_size = 4096 };
        PolicyConfig tm;
        TestLoad *l;

        (void) state;
        tr_write(t, "etc/fragd/fleet.d/small.conf",
                 "[match]\nclass = mem-64g-8c-x86_64\n[policy]\nreserve_thp = 3%\npreset = throughput\n");
        tr_write(t, "etc/fragd/fragd.conf", "[policy]\npreset = database\n");
        tr_write(t, "etc/fragd/fragd.conf.d/50-preset.conf",
                 "[policy]\npreset = thp-max\n[knob \"watermark_scale_factor\"]\nmax = 300\n");

        l = tl_load_root(t, &probe, NULL, 0);
        tl_dump_errors(l);
        assert_int_equal(l->r, 0);
        policy_config_preset(PRESET_THP_MAX, &tm);
        assert_int_equal(l->cfg.policy.preset, PRESET_THP_MAX);
        assert_string_equal(SRC(l, "policy", "preset", 0), "/etc/fragd/fragd.conf.d/50-preset.conf:2");
        /* explicit in the lower fleet layer: kept */
        assert_int_equal(l->cfg.policy.reserve_thp.permyriad, 300);
        assert_string_equal(SRC(l, "policy", "reserve_thp", 0), "fleet /etc/fragd/fleet.d/small.conf:4");
        /* nobody set it: thp-max's */
        assert_int_equal(l->cfg.policy.reserve_large.permyriad, tm.reserve_large.permyriad);
        assert_string_equal(SRC(l, "policy", "reserve_large", 0), "preset thp-max");
        assert_true(l->cfg.policy.lever[LEVER_THP_DEFRAG].enabled);
        assert_int_equal(l->cfg.policy.lever[LEVER_WATERMARK_SCALE_FACTOR].max, 300);
        assert_int_equal(l->cfg.policy.lever[LEVER_WATERMARK_SCALE_FACTOR].step_up,
                         tm.lever[LEVER_WATERMARK_SCALE_FACTOR].step_up);

        /* --set preset re-bases again, explicit values still kept */
        static const char *const set[] = { "policy.preset=observe" };
        free(l);
        l = tl_load_root(t, &probe, set, 1);
        assert_int_equal(l->r, 0);
        assert_int_equal(l->cfg.policy.preset, PRESET_OBSERVE);
        /* observe is database's values (levers too); the daemon runs dry */
        policy_config_preset(PRESET_DATABASE, &tm);
        for (int lv = 0; lv < _LEVER_MAX; lv++)
                assert_int_equal(l->cfg.policy.lever[lv].enabled, tm.lever[lv].enabled);
        assert_int_equal(l->cfg.policy.reserve_thp.permyriad, 300);
        assert_int_equal(l->cfg.policy.lever[LEVER_WATERMARK_SCALE_FACTOR].max, 300);
        assert_string_equal(SRC(l, "policy", "oneshot_compact", 0), "preset observe");
        free(l);
        tr_free(t);
}

static void test_errors_all_at_once(void **state)
{
        TestRoot *t = tr_new();
        TestLoad *l;
        const char *m;

        (void) state;
        tr_write(t, "etc/fragd/fragd.conf",
                 "[daemon]\n"                            /* 1 */
                 "intervall = 5s\n"                      /* 2 did you mean */
                 "interval = 5 parsecs\n"                /* 3 bad duration */
                 "interval = 1h\n"                       /* 4 out of range */
                 "[deamon]\n"                            /* 5 unknown section */
                 "interval = 5s\n"                       /* 6 skipped: section reported */
                 "[policy]\n"                            /* 7 */
                 "psi_some_ceiling = 150%\n"             /* 8 out of range */
                 "reserve_thp = 60%\n"                   /* 9 out of range */
                 "preset = databse\n"                    /* 10 bad enum */
                 "this line has no separator\n"          /* 11 */
                 "[knob \"compaction_proactivenes\"]\n"  /* 12 unknown knob */
                 "[knob \"watermark_scale_factor\"]\n"   /* 13 */
                 "max = 5000\n"                          /* 14 out of kernel range */
                 "stepup = 10\n"                         /* 15 did you mean step_up */
                 "[policy\n"                             /* 16 missing ] */
                 "[match]\n"                             /* 17 not in main file */
                 "[completely_unknown]\n"                /* 18 no suggestion */
                 "[cgroup]\n"                            /* 19 needs a name */
                 "[daemon]\n"                            /* 20 */
                 "interval = 5s  # five seconds\n");     /* 21 '#' after a value */
        l = tl_load_root(t, NULL, NULL, 0);
        assert_int_equal(l->r, -EINVAL);
        if (l->errs.n != 16)
                tl_dump_errors(l);
        assert_int_equal(l->errs.n, 16);

        m = tl_error(l, "fragd.conf:2:", NULL);
        assert_non_null(m);
        assert_string_equal(m, "/etc/fragd/fragd.conf:2: unknown key 'intervall' in [daemon]; did you mean 'interval'?");
        assert_non_null(tl_error(l, "fragd.conf:3:", "invalid duration '5 parsecs'"));
        m = tl_error(l, "fragd.conf:4:", NULL);
        assert_string_equal(m, "/etc/fragd/fragd.conf:4: [daemon] interval = 1h: out of range: allowed 100ms..10min");
        assert_non_null(tl_error(l, "fragd.conf:5: unknown section [deamon]; did you mean [daemon]?", NULL));
        assert_null(tl_error(l, "fragd.conf:6:", NULL));
        assert_non_null(tl_error(l, "fragd.conf:8: [policy] psi_some_ceiling = 150%", "allowed 0.01%..100%"));
        assert_non_null(tl_error(l, "fragd.conf:9: [policy] reserve_thp = 60%", "allowed 0%..50%"));
        assert_non_null(tl_error(l, "fragd.conf:10:", "one of database, throughput, thp-max, observe"));
        assert_non_null(tl_error(l, "fragd.conf:11: expected 'key = value'", NULL));
        assert_non_null(tl_error(l, "fragd.conf:12: unknown knob \"compaction_proactivenes\"; did you mean "
                                    "\"compaction_proactiveness\"?",
                                 NULL));
        assert_non_null(tl_error(l, "fragd.conf:14:", "allowed 1..3000"));
        assert_non_null(tl_error(l, "fragd.conf:15: unknown key 'stepup'", "did you mean 'step_up'?"));
        assert_non_null(tl_error(l, "fragd.conf:16: section header without ']'", NULL));
        assert_non_null(tl_error(l, "fragd.conf:17: [match] is only valid in fleet files", NULL));
        m = tl_error(l, "fragd.conf:18:", NULL);
        assert_non_null(m);
        assert_null(strstr(m, "did you mean"));
        assert_non_null(tl_error(l, "fragd.conf:19: [cgroup] needs a name", NULL));
        /* the value error says why: '#' is no comment after a value */
        assert_non_null(tl_error(l, "fragd.conf:21: [daemon] interval = 5s  # five seconds: invalid duration",
                                 "('#' starts a comment only at the start of a line; after a value, use ';')"));
        assert_null(strstr(tl_error(l, "fragd.conf:3:", NULL), "comment"));
        free(l);
        tr_free(t);
}

static void test_syntax_corners(void **state)
{
        TestRoot *t = tr_new();
        char longline[400];
        char *text;
        TestLoad *l;

        (void) state;
        memset(longline, 'x', sizeof(longline));
        memcpy(longline, "textfile_dir = /", 16);
        longline[sizeof(longline) - 1] = '\0';
        if (asprintf(&text,
                     "interval = 5s\n"                       /* 1 outside any section */
                     "[daemon]\n"                            /* 2 */
                     "%s\n"                                  /* 3 too long */
                     "  interval = 2s ; inline comment\n"    /* 4 fine: indentation stripped */
                     "# comment\n"                           /* 5 */
                     "; comment\n"                           /* 6 */
                     "dry_run: yes\n"                        /* 7 ':' works like '=' */
                     "[daemon] trailing\n"                   /* 8 */
                     "[knob compaction_proactiveness]\n"     /* 9 unquoted */
                     "[knob \"thp_defrag\" x]\n"             /* 10 */
                     "[daemon \"x\"]\n"                      /* 11 takes no name */
                     "[cgroup \"../escape\"]\n",             /* 12 */
                     longline) < 0)
                abort();
        tr_write(t, "etc/fragd/fragd.conf", text);
        free(text);
        l = tl_load_root(t, NULL, NULL, 0);
        assert_int_equal(l->r, -EINVAL);
        assert_non_null(tl_error(l, "fragd.conf:1: 'interval' is outside of any section", NULL));
        assert_non_null(tl_error(l, "fragd.conf:3: line longer than", NULL));
        assert_null(tl_error(l, "fragd.conf:4:", NULL));
        assert_null(tl_error(l, "fragd.conf:7:", NULL));
        assert_non_null(tl_error(l, "fragd.conf:8: unexpected text after ']'", NULL));
        assert_non_null(tl_error(l, "fragd.conf:9: section header: quote the name", NULL));
        assert_non_null(tl_error(l, "fragd.conf:10: unexpected text after the quoted name", NULL));
        assert_non_null(tl_error(l, "fragd.conf:11: [daemon] takes no name", NULL));
        assert_non_null(tl_error(l, "fragd.conf:12:", "without '..'"));
        assert_int_equal(l->errs.n, 7);
        free(l);

        /* CRLF, a BOM and an indented key after a value stay separate keys */
        tr_write(t, "etc/fragd/fragd.conf", "\xEF\xBB\xBF[daemon]\r\ninterval = 2s\r\n   dry_run = yes\r\n");
        l = tl_load_root(t, NULL, NULL, 0);
        tl_dump_errors(l);
        assert_int_equal(l->r, 0);
        assert_int_equal(l->cfg.daemon.interval_usec, 2 * USEC_PER_SEC);
        assert_true(l->cfg.daemon.dry_run);
        free(l);
        tr_free(t);
}

static void test_cross_key_errors_name_both_sources(void **state)
{
        TestRoot *t = tr_new();
        static const char *const set[] = { "knob.compaction_proactiveness.max=30" };
        TestLoad *l;

        (void) state;
        tr_write(t, "etc/fragd/fragd.conf",
                 "[knob \"compaction_proactiveness\"]\nmin = 50\n"
                 "[policy]\norder_thp = 3\n"
                 "[daemon]\npsi_trigger_threshold = 2s\n");
        l = tl_load_root(t, NULL, set, 1);
        assert_int_equal(l->r, -EINVAL);
        assert_non_null(tl_error(l,
                                 "[knob \"compaction_proactiveness\"] min = 50 (/etc/fragd/fragd.conf:2) is above "
                                 "max = 30 (command line)",
                                 NULL));
        assert_non_null(tl_error(l,
                                 "[policy] order_thp = 3 (/etc/fragd/fragd.conf:4) is below order_large = 4 "
                                 "(preset database)",
                                 NULL));
        assert_non_null(tl_error(l, "psi_trigger_threshold = 2s (/etc/fragd/fragd.conf:6) must be below "
                                    "psi_trigger_window = 1s (default)",
                                 NULL));
        free(l);
        tr_free(t);
}

static void test_set_overrides(void **state)
{
        TestRoot *t = tr_new();
        static const char *const good[] = {
                "knob.min_free_kbytes.max=2%",
                "knob.thp_defrag.min=defer",
                "knob.thp_defrag.max=defer+madvise",
                "cgroup.system.slice/system-postgresql.slice/postgresql@15-main.service.thp=always",
                "cgroup./system.slice/system-postgresql.slice/postgresql@15-main.service.collapse=yes",
                "policy.max_compact_stall_rate=30/min",
                "daemon.textfile_dir=",
                /* the section as a file writes it (a cgroup path with
                 * dots is unambiguous in quotes) */
                "knob \"watermark_scale_factor\".enabled=no",
                "cgroup\"system.slice/pg.v2.service\".thp=never",
        };
        static const char *const bad[] = {
                "daemon.interval",          /* no = */
                "interval=5s",              /* no section */
                "daemon.intervl=5s",        /* did you mean */
                "knob.nope.max=1",          /* unknown knob */
                "knob.min_free_kbytes.min=1%", /* share only for max */
                "cgroup.x.service.thp=sometimes",
                "fleet.instance_type=r7g 4xlarge",
                "knob \"watermark_scale_factor.enabled=no",  /* no closing quote */
                "knob \"watermark_scale_factor\"enabled=no", /* no dot after it */
                "knob \"watermark_scale_factor\".=no",       /* no key */
                "knob \"nope\".max=1",
        };
        TestLoad *l;

        (void) state;
        l = tl_load_root(t, NULL, good, ELEMENTSOF(good));
        tl_dump_errors(l);
        assert_int_equal(l->r, 0);
        assert_int_equal(l->cfg.policy.min_free_max_permyriad, 200);
        assert_int_equal(l->cfg.policy.lever[LEVER_MIN_FREE_KBYTES].max, 0);
        assert_int_equal(l->cfg.policy.lever[LEVER_THP_DEFRAG].min, THP_DEFRAG_DEFER);
        assert_int_equal(l->cfg.policy.lever[LEVER_THP_DEFRAG].max, THP_DEFRAG_DEFER_MADVISE);
        assert_false(l->cfg.policy.lever[LEVER_WATERMARK_SCALE_FACTOR].enabled);
        assert_int_equal(l->cfg.n_cgroups, 2);
        assert_string_equal(l->cfg.cgroups[1].path, "system.slice/pg.v2.service");
        assert_int_equal(l->cfg.cgroups[1].thp, CGROUP_THP_NEVER);
        assert_string_equal(l->cfg.cgroups[0].path, "system.slice/system-postgresql.slice/postgresql@15-main.service");
        assert_int_equal(l->cfg.cgroups[0].thp, CGROUP_THP_ALWAYS);
        assert_true(l->cfg.cgroups[0].collapse);
        assert_true(l->cfg.cgroups[0].watch); /* default */
        assert_string_equal(SRC(l, "cgroup", "collapse", 0), "command line");
        assert_string_equal(SRC(l, "cgroup", "watch", 0), "default");
        assert_true(l->cfg.policy.max_compact_stall_rate == 0.5);
        assert_string_equal(l->cfg.daemon.textfile_dir, "");
        free(l);

        l = tl_load_root(t, NULL, bad, ELEMENTSOF(bad));
        assert_int_equal(l->r, -EINVAL);
        assert_int_equal(l->errs.n, ELEMENTSOF(bad));
        assert_non_null(tl_error(l, "command line: --set 'daemon.interval': expected SECTION.KEY=VALUE", NULL));
        assert_non_null(tl_error(l, "command line: --set 'interval=5s': expected SECTION.KEY=VALUE", NULL));
        assert_non_null(tl_error(l, "--set 'daemon.intervl=5s': unknown key 'intervl'", "did you mean 'interval'"));
        assert_non_null(tl_error(l, "--set 'knob.nope.max=1': unknown knob \"nope\"", NULL));
        assert_non_null(tl_error(l, "min_free_kbytes.min=1%", "only allowed for max"));
        assert_non_null(tl_error(l, "sometimes", "one of inherit, always, madvise, never"));
        assert_non_null(tl_error(l, "r7g 4xlarge", "invalid instance type"));
        assert_non_null(tl_error(l, "--set 'knob \"watermark_scale_factor.enabled=no': expected "
                                    "SECTION \"NAME\".KEY=VALUE (no closing quote)",
                                 NULL));
        assert_non_null(tl_error(l, "--set 'knob \"watermark_scale_factor\"enabled=no': expected "
                                    "SECTION \"NAME\".KEY=VALUE (no dot after the name)",
                                 NULL));
        assert_non_null(tl_error(l, "--set 'knob \"watermark_scale_factor\".=no': expected "
                                    "SECTION \"NAME\".KEY=VALUE (no key)",
                                 NULL));
        assert_non_null(tl_error(l, "--set 'knob \"nope\".max=1': unknown knob \"nope\"", NULL));
        free(l);
        tr_free(t);
}

/* A key set twice in one file: the later value is used, as it always was,
 * but a warning names both lines (it used to be silent, and which one the
 * operator meant cannot be known). Across layers (fleet file, main file,
 * drop-ins, --set) the later one wins without a word, as documented. */
static void test_key_twice_in_one_file(void **state)
{
        TestRoot *t = tr_new();
        static const char *const set[] = { "daemon.interval=3s", "daemon.interval=4s" };
        TestLoad *l;

        (void) state;
        tr_write(t, "etc/fragd/fragd.conf",
                 "[daemon]\n"                                          /* 1 */
                 "interval = 2s\n"                                     /* 2 */
                 "[policy]\n"                                          /* 3 */
                 "order_large = 5\n"                                   /* 4 */
                 "[daemon]\n"                                          /* 5 */
                 "interval = 3s\n"                                     /* 6 */
                 "[knob \"compaction_proactiveness\"]\nmax = 60\n"     /* 7, 8 */
                 "[knob \"watermark_scale_factor\"]\nmax = 300\n"      /* 9, 10 another knob: fine */
                 "[knob \"compaction_proactiveness\"]\nmax = 70\n"     /* 11, 12 */
                 "[cgroup \"system.slice/a.service\"]\nthp = never\n"  /* 13, 14 */
                 "[cgroup \"b.slice\"]\nthp = never\n"                 /* 15, 16 another cgroup: fine */
                 "[cgroup \"/system.slice/a.service\"]\nthp = always\n" /* 17, 18 the same cgroup */
                 "[policy]\norder_large = 5\n"                         /* 19, 20 the same value: still twice */
                 "[daemon]\ninterval = 4s\n");                         /* 21, 22 a third time */
        l = tl_load_root(t, NULL, NULL, 0);
        tl_dump_errors(l);
        assert_int_equal(l->r, 0);
        assert_int_equal(l->errs.n, 0);
        assert_int_equal(l->errs.n_warnings, 5);
        assert_string_equal(l->errs.warning[0],
                            "/etc/fragd/fragd.conf:6: [daemon] interval is set again, first at line 2 of this file: "
                            "the value here is used (set a key once in a file; a drop-in in fragd.conf.d/ "
                            "overrides the main file)");
        assert_non_null(strstr(l->errs.warning[1], "fragd.conf:12: [knob \"compaction_proactiveness\"] max is set "
                                                   "again, first at line 8 of this file"));
        assert_non_null(strstr(l->errs.warning[2], "fragd.conf:18: [cgroup \"system.slice/a.service\"] thp is set "
                                                   "again, first at line 14 of this file"));
        assert_non_null(strstr(l->errs.warning[3], "fragd.conf:20: [policy] order_large is set again, first at "
                                                   "line 4"));
        assert_non_null(strstr(l->errs.warning[4], "fragd.conf:22: [daemon] interval is set again, first at "
                                                   "line 2"));
        /* the later value, and its line */
        assert_int_equal(l->cfg.daemon.interval_usec, 4 * USEC_PER_SEC);
        assert_string_equal(SRC(l, "daemon", "interval", 0), "/etc/fragd/fragd.conf:22");
        assert_int_equal(l->cfg.policy.lever[LEVER_COMPACTION_PROACTIVENESS].max, 70);
        assert_int_equal(l->cfg.cgroups[0].thp, CGROUP_THP_ALWAYS);
        free(l);

        /* one file each: the drop-in overrides the main file, the later
         * --set the earlier, without a warning */
        tr_write(t, "etc/fragd/fragd.conf", "[daemon]\ninterval = 2s\n[policy]\norder_large = 5\n");
        tr_write(t, "etc/fragd/fragd.conf.d/10-a.conf", "[policy]\norder_large = 6\n");
        tr_write(t, "etc/fragd/fragd.conf.d/20-b.conf", "[policy]\norder_large = 7\n");
        l = tl_load_root(t, NULL, set, ELEMENTSOF(set));
        tl_dump_errors(l);
        assert_int_equal(l->r, 0);
        assert_int_equal(l->errs.n_warnings, 0);
        assert_int_equal(l->cfg.daemon.interval_usec, 4 * USEC_PER_SEC);
        assert_int_equal(l->cfg.policy.order_large, 7);
        assert_string_equal(SRC(l, "policy", "order_large", 0), "/etc/fragd/fragd.conf.d/20-b.conf:2");
        free(l);

        /* a fleet file is checked on its own, matched or not; warnings stay
         * beside the errors of a load that fails */
        tr_write(t, "etc/fragd/fleet.d/any.conf", "[match]\ncloud = aws\n[daemon]\ndry_run = yes\ndry_run = no\n");
        tr_write(t, "etc/fragd/fragd.conf.d/30-bad.conf", "[daemon]\nintervall = 1s\n");
        l = tl_load_root(t, NULL, NULL, 0);
        assert_int_equal(l->r, -EINVAL);
        assert_int_equal(l->errs.n, 1);
        assert_int_equal(l->errs.n_warnings, 1);
        assert_non_null(strstr(l->errs.warning[0], "fleet.d/any.conf:5: [daemon] dry_run is set again, first at "
                                                   "line 4 of this file: the value here is used (set a key once in "
                                                   "a file)"));
        free(l);

        /* more than CONFIG_MAX_WARNINGS: counted, and said so when printed */
        {
                char text[1024] = "[daemon]\n", *out = NULL;
                size_t outlen = 0;
                FILE *f;

                for (int i = 0; i < CONFIG_MAX_WARNINGS + 5; i++)
                        strcat(text, "dry_run = no\n");
                tr_write(t, "etc/fragd/fragd.conf", text);
                tr_unlink(t, "etc/fragd/fragd.conf.d/30-bad.conf");
                tr_unlink(t, "etc/fragd/fleet.d/any.conf");
                l = tl_load_root(t, NULL, NULL, 0);
                assert_int_equal(l->r, 0);
                assert_int_equal(l->errs.n_warnings, CONFIG_MAX_WARNINGS);
                assert_int_equal(l->errs.n_warnings_dropped, 4);
                f = open_memstream(&out, &outlen);
                assert_non_null(f);
                config_warnings_print(f, &l->errs);
                fclose(f);
                assert_non_null(strstr(out, "warning: /etc/fragd/fragd.conf:3: [daemon] dry_run is set again, "
                                            "first at line 2"));
                assert_non_null(strstr(out, "\nwarning: ... and 4 more warnings\n"));
                free(out);
                free(l);
        }
        tr_free(t);
}

static void test_min_free_kbytes_units(void **state)
{
        TestRoot *t = tr_new();
        TestLoad *l;

        (void) state;
        tr_write(t, "etc/fragd/fragd.conf",
                 "[knob \"min_free_kbytes\"]\nmin = 64MiB\nmax = 1GiB\nstep_up = 32MiB\nstep_down = 8MiB\n");
        l = tl_load_root(t, NULL, NULL, 0);
        tl_dump_errors(l);
        assert_int_equal(l->r, 0);
        assert_int_equal(l->cfg.policy.lever[LEVER_MIN_FREE_KBYTES].min, 65536);
        assert_int_equal(l->cfg.policy.lever[LEVER_MIN_FREE_KBYTES].max, 1048576);
        assert_int_equal(l->cfg.policy.min_free_max_permyriad, 0); /* absolute max replaces the share */
        assert_int_equal(l->cfg.policy.lever[LEVER_MIN_FREE_KBYTES].step_up, 32768);
        free(l);

        tr_write(t, "etc/fragd/fragd.conf", "[knob \"min_free_kbytes\"]\nmax = 11%\nmin = 1000\n");
        l = tl_load_root(t, NULL, NULL, 0);
        assert_int_equal(l->r, -EINVAL);
        assert_non_null(tl_error(l, ":2:", "allowed 0..10% of memory"));
        assert_non_null(tl_error(l, ":3:", "not a whole number of KiB"));
        free(l);
        tr_free(t);
}

static void test_config_file_option(void **state)
{
        TestRoot *t = tr_new();
        char path[256];
        ConfigLoadArgs a;
        TestLoad *l;

        (void) state;
        tr_write(t, "etc/fragd/fragd.conf", "[daemon]\ninterval = 2s\n");
        tr_write(t, "etc/fragd/fragd.conf.d/x.conf", "[daemon]\ndry_run = yes\n");
        tr_write(t, "other.conf", "[daemon]\ninterval = 7s\n");
        snprintf(path, sizeof(path), "%s/other.conf", t->dir);

        /* -c replaces the main file; drop-ins still apply */
        a = (ConfigLoadArgs) { .root = t->root, .config_file = path };
        l = tl_load(&a);
        assert_int_equal(l->r, 0);
        assert_int_equal(l->cfg.daemon.interval_usec, 7 * USEC_PER_SEC);
        assert_true(l->cfg.daemon.dry_run);
        assert_string_equal(l->src.files[0], path);
        free(l);

        /* a missing -c file is an error; a missing default file is not */
        snprintf(path, sizeof(path), "%s/missing.conf", t->dir);
        a.config_file = path;
        l = tl_load(&a);
        assert_int_equal(l->r, -EINVAL);
        assert_non_null(tl_error(l, "missing.conf: cannot read:", NULL));
        free(l);
        tr_free(t);
}

static void test_cgroups(void **state)
{
        TestRoot *t = tr_new();
        char text[4096] = "";
        TestLoad *l;

        (void) state;
        tr_write(t, "etc/fragd/fragd.conf",
                 "[cgroup \"system.slice/system-postgresql.slice/postgresql@15-main.service\"]\n"
                 "thp = always\ncollapse = yes\nstall_budget = 50ms\ncollapse_max_per_tick = 128MiB\n"
                 "[cgroup \"batch.slice\"]\n"
                 "[cgroup \"/system.slice/system-postgresql.slice/postgresql@15-main.service\"]\n" /* the same one again */
                 "watch = no\n");
        l = tl_load_root(t, NULL, NULL, 0);
        tl_dump_errors(l);
        assert_int_equal(l->r, 0);
        assert_int_equal(l->cfg.n_cgroups, 2);
        assert_string_equal(l->cfg.cgroups[0].path, "system.slice/system-postgresql.slice/postgresql@15-main.service");
        assert_int_equal(l->cfg.cgroups[0].thp, CGROUP_THP_ALWAYS);
        assert_false(l->cfg.cgroups[0].watch);
        assert_int_equal(l->cfg.cgroups[0].stall_budget_usec, 50 * USEC_PER_MSEC);
        assert_int_equal(l->cfg.cgroups[0].collapse_max_bytes_per_tick, 128ULL << 20);
        assert_string_equal(l->cfg.cgroups[1].path, "batch.slice");
        assert_true(l->cfg.cgroups[1].watch);
        assert_string_equal(SRC(l, "cgroup", "watch", 0), "/etc/fragd/fragd.conf:8");
        assert_string_equal(SRC(l, "cgroup", "thp", 1), "default");
        free(l);

        /* section names past inih's 50-character limit are kept whole */
        char longpath[160], conf[256];
        memset(longpath, 'a', sizeof(longpath));
        memcpy(longpath, "system.slice/docker-", 20);
        memcpy(longpath + 140, ".scope", 7);
        snprintf(conf, sizeof(conf), "[cgroup \"%s\"]\nthp = never\n", longpath);
        tr_write(t, "etc/fragd/fragd.conf", conf);
        l = tl_load_root(t, NULL, NULL, 0);
        tl_dump_errors(l);
        assert_int_equal(l->r, 0);
        assert_int_equal(l->cfg.n_cgroups, 1);
        assert_string_equal(l->cfg.cgroups[0].path, longpath);
        assert_int_equal(l->cfg.cgroups[0].thp, CGROUP_THP_NEVER);
        free(l);

        for (int i = 0; i < FRAGD_MAX_CGROUPS + 2; i++) {
                size_t len = strlen(text);
                snprintf(text + len, sizeof(text) - len, "[cgroup \"w%d.slice\"]\n", i);
        }
        tr_write(t, "etc/fragd/fragd.conf", text);
        l = tl_load_root(t, NULL, NULL, 0);
        assert_int_equal(l->r, -EINVAL);
        assert_int_equal(l->errs.n, 2);
        assert_non_null(tl_error(l, "fragd.conf:17: too many [cgroup] sections: at most 16", NULL));
        free(l);
        tr_free(t);
}

/* SIGHUP: a bad layer leaves the configuration in force untouched. */
static void test_reload_is_atomic(void **state)
{
        TestRoot *t = tr_new();
        ConfigLoadArgs a;
        FragdConfig *cfg = malloc(sizeof(*cfg)), *before = malloc(sizeof(*before));
        ConfigSources *src = malloc(sizeof(*src)), *src_before = malloc(sizeof(*src_before));
        ConfigErrors *errs = calloc(1, sizeof(*errs));

        (void) state;
        tr_write(t, "etc/fragd/fragd.conf", "[daemon]\ninterval = 2s\n[policy]\nreserve_thp = 3%\n");
        a = (ConfigLoadArgs) { .root = t->root };
        assert_int_equal(config_load(&a, cfg, src, errs), 0);
        memcpy(before, cfg, sizeof(*cfg));
        memcpy(src_before, src, sizeof(*src));

        /* the main file changes (good values) and a drop-in is broken */
        tr_write(t, "etc/fragd/fragd.conf", "[daemon]\ninterval = 9s\n[policy]\nreserve_thp = 4%\n");
        tr_write(t, "etc/fragd/fragd.conf.d/broken.conf", "[policy]\nreserve_thp = lots\n");
        assert_int_equal(config_reload(&a, cfg, src, errs), -EINVAL);
        assert_int_equal(errs->n, 1);
        assert_non_null(strstr(errs->msg[0], "broken.conf:2:"));
        assert_memory_equal(cfg, before, sizeof(*cfg));
        assert_memory_equal(src, src_before, sizeof(*src));
        assert_int_equal(cfg->daemon.interval_usec, 2 * USEC_PER_SEC);

        /* fixed: the reload goes through */
        tr_unlink(t, "etc/fragd/fragd.conf.d/broken.conf");
        assert_int_equal(config_reload(&a, cfg, src, errs), 0);
        assert_int_equal(cfg->daemon.interval_usec, 9 * USEC_PER_SEC);
        assert_int_equal(cfg->policy.reserve_thp.permyriad, 400);
        free(cfg);
        free(before);
        free(src);
        free(src_before);
        free(errs);
        tr_free(t);
}

/* config_print() writes fragd.conf text: loading it gives the same values. */
static void test_print_roundtrip(void **state)
{
        TestRoot *t = tr_new();
        static const char *const set[] = { "policy.preset=thp-max", "knob.min_free_kbytes.max=256MiB",
                                           "cgroup.db.slice.thp=never", "policy.max_compact_stall_rate=0.2" };
        char path[256];
        ConfigLoadArgs a;
        TestLoad *l, *l2;
        FILE *f;

        (void) state;
        l = tl_load_root(t, NULL, set, ELEMENTSOF(set));
        assert_int_equal(l->r, 0);
        snprintf(path, sizeof(path), "%s/printed.conf", t->dir);
        f = fopen(path, "we");
        assert_non_null(f);
        config_print(f, &l->cfg, &l->src);
        fclose(f);

        a = (ConfigLoadArgs) { .root = t->root, .config_file = path };
        l2 = tl_load(&a);
        tl_dump_errors(l2);
        assert_int_equal(l2->r, 0);
        assert_memory_equal(&l2->cfg, &l->cfg, sizeof(l->cfg));

        /* every line names its source */
        char buf[512];
        bool seen_cmdline = false, seen_preset = false;
        f = fopen(path, "re");
        while (fgets(buf, sizeof(buf), f)) {
                if (strstr(buf, "max = 256MiB") && strstr(buf, "; command line"))
                        seen_cmdline = true;
                if (strstr(buf, "reserve_thp = 5%") && strstr(buf, "; preset thp-max"))
                        seen_preset = true;
        }
        fclose(f);
        assert_true(seen_cmdline);
        assert_true(seen_preset);
        free(l);
        free(l2);
        tr_free(t);
}

static void test_check_main(void **state)
{
        TestRoot *t = tr_new();
        ConfigLoadArgs a = { .root = NULL };
        char *out_buf = NULL, *err_buf = NULL;
        size_t out_len = 0, err_len = 0;
        FILE *out, *err;

        (void) state;
        a.root = t->root;
        tr_write(t, "etc/fragd/fragd.conf", "[daemon]\ninterval = 3s\n");
        out = open_memstream(&out_buf, &out_len);
        err = open_memstream(&err_buf, &err_len);
        assert_int_equal(check_config_main(&a, out, err), 0);
        fclose(out);
        fclose(err);
        assert_non_null(strstr(out_buf, "interval = 3s"));
        assert_non_null(strstr(out_buf, "; /etc/fragd/fragd.conf:2"));
        assert_non_null(strstr(out_buf, "[knob \"thp_defrag\"]"));
        assert_int_equal(err_len, 0);
        free(out_buf);
        free(err_buf);

        tr_write(t, "etc/fragd/fragd.conf", "[daemon]\ninterval = 3\ndry_run = maybe\n");
        out = open_memstream(&out_buf, &out_len);
        err = open_memstream(&err_buf, &err_len);
        assert_int_equal(check_config_main(&a, out, err), -EINVAL);
        fclose(out);
        fclose(err);
        assert_int_equal(out_len, 0);
        assert_non_null(strstr(err_buf, "configuration has 2 errors"));
        assert_non_null(strstr(err_buf, "fragd.conf:2:"));
        assert_non_null(strstr(err_buf, "fragd.conf:3:"));
        free(out_buf);
        free(err_buf);
        tr_free(t);
}

/* Reads a repo file into a malloc'ed string. */
static char *repo_file(const char *rel)
{
        char path[512];
        char *buf = NULL;
        size_t len = 0;
        int dirfd;

        snprintf(path, sizeof(path), "%s/%s", srcdir(), rel);
        dirfd = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dirfd < 0)
                return NULL;
        if (read_file_alloc_at(dirfd, path, &buf, &len) < 0)
                buf = NULL;
        close(dirfd);
        return buf;
}

/* Issue 11 item 5: a FIFO, a device, a dangling or looping link where a
 * configuration file is expected never blocks the loader and is never
 * skipped in silence. (On the old code the FIFO test blocked in open():
 * the alarm ends it.) */
static void tr_path(TestRoot *t, const char *rel, char *buf, size_t size)
{
        snprintf(buf, size, "%s/%s", t->dir, rel);
        tr_mkdirs(buf);
}

static void test_config_files_never_block(void **state)
{
        TestRoot *t = tr_new();
        char p[1024], q[1024];
        TestLoad *l;

        (void) state;
        alarm(20);

        /* the main file is a FIFO: no writer, the load must not wait */
        tr_path(t, "etc/fragd/fragd.conf", p, sizeof(p));
        assert_int_equal(mkfifo(p, 0600), 0);
        l = tl_load_root(t, NULL, NULL, 0);
        tl_dump_errors(l);
        assert_int_equal(l->r, -EINVAL);
        assert_non_null(tl_error(l, "/etc/fragd/fragd.conf: is a FIFO, not a regular file", NULL));
        free(l);
        tr_unlink(t, "etc/fragd/fragd.conf");

        /* the same in fragd.conf.d and as a fleet file: reported, not skipped */
        tr_path(t, "etc/fragd/fragd.conf.d/10-fifo.conf", p, sizeof(p));
        assert_int_equal(mkfifo(p, 0600), 0);
        tr_path(t, "etc/fragd/fleet.d/r7g.conf", p, sizeof(p));
        assert_int_equal(mkfifo(p, 0600), 0);
        l = tl_load_root(t, NULL, NULL, 0);
        tl_dump_errors(l);
        assert_int_equal(l->r, -EINVAL);
        assert_non_null(tl_error(l, "/etc/fragd/fragd.conf.d/10-fifo.conf: is a FIFO", NULL));
        assert_non_null(tl_error(l, "/etc/fragd/fleet.d/r7g.conf: is a FIFO", NULL));
        free(l);
        tr_unlink(t, "etc/fragd/fragd.conf.d/10-fifo.conf");
        tr_unlink(t, "etc/fragd/fleet.d/r7g.conf");

        /* a dangling link, a link loop, a directory, /dev/null: each named with what it is */
        tr_path(t, "etc/fragd/fragd.conf.d/20-dangling.conf", p, sizeof(p));
        assert_int_equal(symlink("/nonexistent/fragd-test.conf", p), 0);
        tr_path(t, "etc/fragd/fragd.conf.d/30-loop.conf", p, sizeof(p));
        assert_int_equal(symlink("30-loop.conf", p), 0);
        tr_path(t, "etc/fragd/fragd.conf.d/40-dir.conf/x", p, sizeof(p));
        tr_path(t, "etc/fragd/fragd.conf.d/50-null.conf", p, sizeof(p));
        assert_int_equal(symlink("/dev/null", p), 0);
        l = tl_load_root(t, NULL, NULL, 0);
        tl_dump_errors(l);
        assert_int_equal(l->r, -EINVAL);
        assert_non_null(tl_error(l, "/etc/fragd/fragd.conf.d/20-dangling.conf: dangling symbolic link", NULL));
        assert_non_null(tl_error(l, "/etc/fragd/fragd.conf.d/30-loop.conf: symbolic link loop", NULL));
        assert_non_null(tl_error(l, "/etc/fragd/fragd.conf.d/40-dir.conf: is a directory", NULL));
        /* "/dev/null" is <root>/dev/null: missing in this tree */
        assert_non_null(tl_error(l, "/etc/fragd/fragd.conf.d/50-null.conf: dangling symbolic link", NULL));
        free(l);

        /* a dangling fragd.conf is not "no fragd.conf" (a fresh tree: no drop-ins) */
        tr_free(t);
        t = tr_new();
        tr_path(t, "etc/fragd/fragd.conf", q, sizeof(q));
        assert_int_equal(symlink("gone.conf", q), 0);
        l = tl_load_root(t, NULL, NULL, 0);
        assert_int_equal(l->r, -EINVAL);
        assert_non_null(tl_error(l, "/etc/fragd/fragd.conf: dangling symbolic link", NULL));
        free(l);
        tr_unlink(t, "etc/fragd/fragd.conf");

        /* larger than 1 MiB: refused before parsing */
        {
                char *big = malloc((1 << 20) + 64);

                assert_non_null(big);
                memset(big, ';', (1 << 20) + 63);
                big[(1 << 20) + 63] = '\0';
                tr_write(t, "etc/fragd/fragd.conf", big);
                free(big);
                l = tl_load_root(t, NULL, NULL, 0);
                assert_int_equal(l->r, -EINVAL);
                assert_non_null(tl_error(l, "/etc/fragd/fragd.conf: larger than 1024 KiB", NULL));
                free(l);
        }
        alarm(0);
        tr_free(t);
}

/* Under --root, fragd.conf, fragd.conf.d and fleet_dir resolve inside the
 * root: an absolute symlink there pointing at a host file outside the tree
 * is taken below the root (dangling when missing there), never read from the
 * host. (On the old code the host files were read: interval 7s, dry_run.) */
static void test_config_symlinks_stay_in_root(void **state)
{
        TestRoot *t = tr_new();
        char host[] = "/tmp/fragd-config-host.XXXXXX", hp[256], p[1024], rel[256];
        TestLoad *l;
        FILE *f;

        (void) state;
        assert_non_null(mkdtemp(host));
        snprintf(hp, sizeof(hp), "%s/host.conf", host);
        f = fopen(hp, "we");
        assert_non_null(f);
        fputs("[daemon]\ninterval = 7s\ndry_run = yes\n", f);
        assert_int_equal(fclose(f), 0);

        /* a drop-in, a fleet file and fragd.conf: absolute links to the host file */
        tr_write(t, "etc/fragd/fragd.conf.d/00-first.conf", "[daemon]\ninterval = 3s\n");
        tr_path(t, "etc/fragd/fragd.conf.d/10-host.conf", p, sizeof(p));
        assert_int_equal(symlink(hp, p), 0);
        tr_path(t, "etc/fragd/fleet.d/host.conf", p, sizeof(p));
        assert_int_equal(symlink(hp, p), 0);
        tr_path(t, "etc/fragd/fragd.conf", p, sizeof(p));
        assert_int_equal(symlink(hp, p), 0);
        l = tl_load_root(t, NULL, NULL, 0);
        tl_dump_errors(l);
        assert_int_equal(l->r, -EINVAL);
        assert_true(l->cfg.daemon.interval_usec != 7 * USEC_PER_SEC);
        assert_false(l->cfg.daemon.dry_run);
        assert_non_null(tl_error(l, "/etc/fragd/fragd.conf: dangling symbolic link", "inside the root"));
        assert_non_null(tl_error(l, "/etc/fragd/fragd.conf.d/10-host.conf: dangling symbolic link", "--root"));
        assert_non_null(tl_error(l, "/etc/fragd/fleet.d/host.conf: dangling symbolic link", NULL));
        free(l);

        /* the same absolute path inside the tree is the file read */
        snprintf(rel, sizeof(rel), "%s/host.conf", host + 1);
        tr_write(t, rel, "[daemon]\ninterval = 5s\n");
        tr_unlink(t, "etc/fragd/fleet.d/host.conf");
        l = tl_load_root(t, NULL, NULL, 0);
        tl_dump_errors(l);
        assert_int_equal(l->r, 0);
        assert_int_equal(l->cfg.daemon.interval_usec, 5 * USEC_PER_SEC);
        assert_false(l->cfg.daemon.dry_run);
        free(l);

        /* the drop-in directory itself an absolute symlink to a host directory */
        tr_unlink(t, "etc/fragd/fragd.conf.d/00-first.conf");
        tr_unlink(t, "etc/fragd/fragd.conf.d/10-host.conf");
        tr_unlink(t, "etc/fragd/fragd.conf");
        tr_path(t, "etc/fragd/fragd.conf.d", p, sizeof(p));
        assert_int_equal(rmdir(p), 0);
        assert_int_equal(symlink(host, p), 0);
        snprintf(hp, sizeof(hp), "%s/20-host.conf", host);
        f = fopen(hp, "we");
        assert_non_null(f);
        fputs("[daemon]\ninterval = 7s\n", f);
        assert_int_equal(fclose(f), 0);
        l = tl_load_root(t, NULL, NULL, 0);
        tl_dump_errors(l);
        assert_int_equal(l->r, 0);
        assert_true(l->cfg.daemon.interval_usec != 7 * USEC_PER_SEC);
        free(l);

        assert_int_equal(unlink(hp), 0);
        snprintf(hp, sizeof(hp), "%s/host.conf", host);
        assert_int_equal(unlink(hp), 0);
        assert_int_equal(rmdir(host), 0);
        tr_free(t);
}

/* A FIFO appearing on SIGHUP: the reload fails at once and the
 * configuration in force stays. */
static void test_reload_fifo_keeps_config(void **state)
{
        TestRoot *t = tr_new();
        ConfigLoadArgs a;
        FragdConfig *cfg = malloc(sizeof(*cfg)), *before = malloc(sizeof(*before));
        ConfigErrors *errs = calloc(1, sizeof(*errs));
        char p[1024];

        (void) state;
        alarm(20);
        tr_write(t, "etc/fragd/fragd.conf", "[daemon]\ninterval = 2s\n");
        a = (ConfigLoadArgs) { .root = t->root };
        assert_int_equal(config_load(&a, cfg, NULL, errs), 0);
        memcpy(before, cfg, sizeof(*cfg));
        tr_unlink(t, "etc/fragd/fragd.conf");
        tr_path(t, "etc/fragd/fragd.conf", p, sizeof(p));
        assert_int_equal(mkfifo(p, 0600), 0);
        assert_int_equal(config_reload(&a, cfg, NULL, errs), -EINVAL);
        assert_int_equal(errs->n, 1);
        assert_non_null(strstr(errs->msg[0], "is a FIFO"));
        assert_memory_equal(cfg, before, sizeof(*cfg));
        alarm(0);
        free(cfg);
        free(before);
        free(errs);
        tr_free(t);
}

/* Issue 11 item 6: directories are checked at load, with file:line and the
 * key, exactly as the daemon will use them. */
static void test_dirs_validated_at_load(void **state)
{
        static const struct {
                const char *line, *why;
        } bad[] = {
                { "runtime_dir = /", "is the root directory" },
                { "runtime_dir = ///", "is the root directory" },
                { "runtime_dir = /.", "'.' or '..' component" },
                { "state_dir = /", "is the root directory" },
                { "state_dir = /var/lib/../../etc", "'.' or '..' component" },
                { "textfile_dir = /var/lib/./x/..", "'.' or '..' component" },
                { "runtime_dir = run/fragd", "is not an absolute path" },
                { "runtime_dir = /run/fr\x01gd", "contains a control character" },
                { "state_dir = /var/lib/fr\x7fgd", "contains a control character" },
                { "textfile_dir = /var/lib/\xff\xfe", "is not valid UTF-8" },
                { "textfile_dir = /var/lib/\xc0\xaf", "is not valid UTF-8" },
        };
        TestRoot *t = tr_new();

        (void) state;
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                char conf[512], want[128], key[32];
                TestLoad *l;

                snprintf(conf, sizeof(conf), "[daemon]\n%s\n", bad[i].line);
                snprintf(key, sizeof(key), "%.*s", (int) strcspn(bad[i].line, " "), bad[i].line);
                snprintf(want, sizeof(want), "fragd.conf:2: [daemon] %s = ", key);
                tr_write(t, "etc/fragd/fragd.conf", conf);
                l = tl_load_root(t, NULL, NULL, 0);
                if (l->r != -EINVAL || !tl_error(l, want, bad[i].why)) {
                        print_error("case %zu '%s':\n", i, bad[i].line);
                        tl_dump_errors(l);
                        fail();
                }
                free(l);
        }
        /* what stays fine: trailing slash, empty where empty means off */
        tr_write(t, "etc/fragd/fragd.conf",
                 "[daemon]\nruntime_dir = /run/fragd/\nstate_dir =\ntextfile_dir =\n");
        {
                TestLoad *l = tl_load_root(t, NULL, NULL, 0);

                tl_dump_errors(l);
                assert_int_equal(l->r, 0);
                free(l);
        }
        tr_free(t);
}

/* The shared check itself (knob_runtime_dir_relative and
 * learned_store_path use it too). */
static void test_text_dir_relative(void **state)
{
        char rel[TEXT_DIR_LEN_MAX + 1], longp[300];
        const char *why = NULL;

        (void) state;
        assert_int_equal(text_dir_relative("/run/fragd", rel, sizeof(rel), &why), 0);
        assert_string_equal(rel, "run/fragd");
        assert_int_equal(text_dir_relative("//run/fragd//", rel, sizeof(rel), &why), 0);
        assert_string_equal(rel, "run/fragd");
        assert_int_equal(text_dir_relative("/run/..fragd/a..", rel, sizeof(rel), &why), 0);
        assert_string_equal(rel, "run/..fragd/a..");
        assert_int_equal(text_dir_relative("/", rel, sizeof(rel), &why), -EINVAL);
        assert_non_null(strstr(why, "root directory"));
        assert_int_equal(text_dir_relative("/a/./b", rel, sizeof(rel), &why), -EINVAL);
        assert_int_equal(text_dir_relative("/a/..", rel, sizeof(rel), &why), -EINVAL);
        assert_int_equal(text_dir_relative("", rel, sizeof(rel), &why), -EINVAL);
        assert_int_equal(text_dir_relative(NULL, rel, sizeof(rel), &why), -EINVAL);
        memset(longp, 'a', sizeof(longp));
        longp[0] = '/';
        longp[sizeof(longp) - 1] = '\0';
        assert_int_equal(text_dir_relative(longp, rel, sizeof(rel), &why), -ENAMETOOLONG);
        assert_int_equal(text_dir_relative("/run/fragd", rel, 4, &why), -ENAMETOOLONG);
        assert_int_equal(text_dir_relative("/run/fragd", NULL, 0, NULL), 0);

        assert_true(utf8_valid("plain ascii"));
        assert_true(utf8_valid("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"));
        assert_false(utf8_valid("\x80"));
        assert_false(utf8_valid("\xc3"));             /* cut short */
        assert_false(utf8_valid("\xe2\x82"));         /* cut short */
        assert_false(utf8_valid("\xc0\x80"));         /* overlong NUL */
        assert_false(utf8_valid("\xe0\x80\xaf"));     /* overlong '/' */
        assert_false(utf8_valid("\xed\xa0\x80"));     /* surrogate */
        assert_false(utf8_valid("\xf4\x90\x80\x80")); /* above U+10FFFF */
        assert_false(utf8_valid("\xff"));
        assert_false(text_printable("a\tb", &why));
        assert_string_equal(why, "contains a control character");
        assert_false(text_printable("a\xffz", &why));
        assert_string_equal(why, "is not valid UTF-8");
        why = NULL;
        assert_false(text_printable("a\xc2\x9b" "31m", &why)); /* U+009B, the C1 CSI */
        assert_string_equal(why, "contains a control character");
        assert_true(text_printable("caf\xc3\xa9 \xc2\xa0nbsp", NULL)); /* U+00A0 is printable */
}

/* text_scrub: what a terminal is given from a file fragd did not write */
static void test_text_scrub(void **state)
{
        char out[64], *in;

        (void) state;
        assert_int_equal(text_scrub(out, sizeof(out), "a\x1b[2J\x07" "b\x7f", 64, NULL), 8);
        assert_string_equal(out, "a?[2J?b?");
        /* C1 as one UTF-8 sequence is one '?'; a raw 0x9b and a stray byte too */
        assert_int_equal(text_scrub(out, sizeof(out), "x\xc2\x9b" "1m\x9b" "2\xff", 64, NULL), 7);
        assert_string_equal(out, "x?1m?2?");
        /* keep: tab and newline pass, other C0 do not */
        text_scrub(out, sizeof(out), "a\tb\nc\rd", 64, "\t\n");
        assert_string_equal(out, "a\tb\nc?d");
        text_scrub(out, sizeof(out), "a\tb", 64, NULL);
        assert_string_equal(out, "a?b");
        /* printable UTF-8 whole */
        text_scrub(out, sizeof(out), "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", 64, NULL);
        assert_string_equal(out, "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80");
        /* cut by n: the split sequence is dropped, not turned into '?' */
        assert_int_equal(text_scrub(out, sizeof(out), "ab\xe2\x82\xac", 4, NULL), 2);
        assert_string_equal(out, "ab");
        /* ... but a lead byte followed by what cannot continue it is a '?' */
        assert_int_equal(text_scrub(out, sizeof(out), "ab\xe2" "c", 4, NULL), 4);
        assert_string_equal(out, "ab?c");
        /* cut by size: never half a sequence, always terminated */
        assert_int_equal(text_scrub(out, 4, "ab\xc3\xa9", 64, NULL), 2);
        assert_string_equal(out, "ab");
        assert_int_equal(text_scrub(out, 3, "ab\x1b", 64, NULL), 2);
        assert_string_equal(out, "ab");
        assert_int_equal(text_scrub(out, 1, "ab", 64, NULL), 0);
        assert_string_equal(out, "");
        assert_int_equal(text_scrub(out, 0, "ab", 64, NULL), 0);
        /* stops at a NUL before n */
        assert_int_equal(text_scrub(out, sizeof(out), "ab\0\x1b", 4, NULL), 2);
        /* a buffer without a NUL: nothing past n is read (ASan in check-sanitize) */
        in = malloc(3);
        assert_non_null(in);
        memcpy(in, "a\xc3\xa9", 3);
        assert_int_equal(text_scrub(out, sizeof(out), in, 3, NULL), 3);
        assert_string_equal(out, "a\xc3\xa9");
        assert_int_equal(text_scrub(out, sizeof(out), in, 2, NULL), 1);
        free(in);
        /* in place */
        in = strdup("\xc2\x9b\xc2\x9b" "ok\x1b\xe2\x82\xac");
        assert_non_null(in);
        assert_int_equal(text_scrub(in, strlen(in) + 1, in, strlen(in), NULL), 8);
        assert_string_equal(in, "??ok?\xe2\x82\xac");
        free(in);
}

/* Issue 11 item 15: a cgroup name that is not UTF-8 (or holds a control
 * character) is refused at load with file:line: it would make the JSON
 * report invalid and node_exporter drop every fragd metric. */
static void test_cgroup_names_are_utf8(void **state)
{
        static const char *const bad[] = {
                "system.slice/caf\xe9.service",    /* Latin-1 */
                "system.slice/\xc3.service",       /* cut short */
                "system.slice/a\xed\xa0\x80.scope", /* surrogate */
                "system.slice/a\x7f.service",      /* DEL */
                "system.slice/a\x1b[31m.service",  /* an escape sequence */
        };
        TestRoot *t = tr_new();
        static const char *const set[] = { "cgroup.bad\xff.slice.watch=yes" };
        TestLoad *l;

        (void) state;
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                char conf[256];

                snprintf(conf, sizeof(conf), "[daemon]\ninterval = 5s\n[cgroup \"%s\"]\nthp = never\n", bad[i]);
                tr_write(t, "etc/fragd/fragd.conf", conf);
                l = tl_load_root(t, NULL, NULL, 0);
                if (l->r != -EINVAL || !tl_error(l, "fragd.conf:3: cgroup path ", NULL)) {
                        print_error("case %zu:\n", i);
                        tl_dump_errors(l);
                        fail();
                }
                free(l);
        }
        /* a drop-in or fleet file whose name holds an escape sequence (or
         * is not UTF-8): refused, named with '?' in its place */
        tr_write(t, "etc/fragd/fragd.conf", "[daemon]\ninterval = 5s\n");
        tr_write(t, "etc/fragd/fragd.conf.d/a\x1b[31m.conf", "[daemon]\ninterval = 4s\n");
        tr_write(t, "etc/fragd/fleet.d/b\xc2\x9b" "2J\xff.conf", "[match]\nclass = x\n");
        l = tl_load_root(t, NULL, NULL, 0);
        if (l->r != -EINVAL ||
            !tl_error(l, "/etc/fragd/fragd.conf.d: file name 'a?[31m.conf' holds a control character", "rename it") ||
            !tl_error(l, "/etc/fragd/fleet.d: file name 'b?2J?.conf' holds a control character", NULL)) {
                tl_dump_errors(l);
                fail();
        }
        free(l);
        tr_unlink(t, "etc/fragd/fragd.conf.d/a\x1b[31m.conf");
        tr_unlink(t, "etc/fragd/fleet.d/b\xc2\x9b" "2J\xff.conf");
        /* UTF-8 is fine */
        tr_write(t, "etc/fragd/fragd.conf", "[cgroup \"system.slice/caf\xc3\xa9.service\"]\n");
        l = tl_load_root(t, NULL, NULL, 0);
        tl_dump_errors(l);
        assert_int_equal(l->r, 0);
        assert_string_equal(l->cfg.cgroups[0].path, "system.slice/caf\xc3\xa9.service");
        free(l);
        /* and from the command line */
        tr_unlink(t, "etc/fragd/fragd.conf");
        l = tl_load_root(t, NULL, set, ELEMENTSOF(set));
        assert_int_equal(l->r, -EINVAL);
        assert_non_null(tl_error(l, "command line: --set", "is not valid UTF-8"));
        free(l);
        tr_free(t);
}

/* The config fuzzer's seed tests/corpus/config/fragd.conf is the shipped
 * fragd.conf: a stale copy would leave the newest keys unfuzzed (and went
 * unnoticed once: active_interval, active_hold, state_dir, the learned
 * reserve's keys). Fix with: cp fragd.conf tests/corpus/config/fragd.conf */
static void test_corpus_fragd_conf_is_the_shipped_one(void **state)
{
        char *shipped = repo_file("fragd.conf"), *seed = repo_file("tests/corpus/config/fragd.conf");

        (void) state;
        assert_non_null(shipped);
        assert_non_null(seed);
        if (strcmp(shipped, seed) != 0)
                fail_msg("tests/corpus/config/fragd.conf differs from fragd.conf: "
                         "cp fragd.conf tests/corpus/config/fragd.conf");
        free(shipped);
        free(seed);
}

/* fragd.conf documents the defaults: with every "#key = value" line
 * uncommented it must load to exactly the built-in defaults. */
static void test_shipped_fragd_conf_is_the_default(void **state)
{
        TestRoot *t = tr_new();
        char *text = repo_file("fragd.conf"), *out, *o;
        const char *p;
        TestLoad *l;
        FragdConfig d;

        (void) state;
        assert_non_null(text);
        out = calloc(1, strlen(text) + 1);
        o = out;
        for (p = text; *p;) {
                const char *nl = strchr(p, '\n');
                size_t len = nl ? (size_t) (nl - p + 1) : strlen(p);

                /* "#key = value" (no blank after '#') is a commented
                 * default, "#[cgroup ...]" a commented example section */
                if (p[0] == '#' && p[1] && p[1] != ' ' && p[1] != '#' && p[1] != '\n' &&
                    (memchr(p, '=', len) || p[1] == '['))
                        p++, len--;
                memcpy(o, p, len);
                o += len;
                p += len;
        }
        tr_write(t, "etc/fragd/fragd.conf", out);
        l = tl_load_root(t, NULL, NULL, 0);
        tl_dump_errors(l);
        assert_int_equal(l->r, 0);
        config_defaults(&d);
        assert_memory_equal(&l->cfg.daemon, &d.daemon, sizeof(d.daemon));
        assert_memory_equal(&l->cfg.policy, &d.policy, sizeof(d.policy));
        assert_memory_equal(&l->cfg.fleet, &d.fleet, sizeof(d.fleet));

        /* and every key was set by the file (so every key is documented) */
        for (int sec = 0; sec < _SECTION_MAX; sec++) {
                size_t n;
                const ConfigKey *keys = config_keys(sec, &n);

                if (sec == SECTION_MATCH)
                        continue;
                for (size_t k = 0; k < n; k++)
                        for (int sub = 0; sub < (sec == SECTION_KNOB ? _LEVER_MAX : 1); sub++) {
                                ConfigSource s = l->src.slot[config_key_slot(&keys[k], sub)];
                                if (s.origin != CONFIG_ORIGIN_FILE)
                                        fail_msg("fragd.conf does not document [%s] %s (%s)",
                                                 config_section_name(sec), keys[k].name,
                                                 sec == SECTION_KNOB ? lever_name(sub) : "");
                        }
        }
        /* cgroup keys are documented in an example section, at defaults */
        assert_int_equal(l->cfg.n_cgroups, 1);
        assert_int_equal(l->cfg.cgroups[0].stall_budget_usec, 100 * USEC_PER_MSEC);
        assert_true(l->cfg.cgroups[0].watch);
        free(l);
        free(out);
        free(text);
        tr_free(t);
}

/* Every key appears in the man page. */
static void test_man_page_documents_every_key(void **state)
{
        char *man = repo_file("docs/fragd.conf.5");

        (void) state;
        assert_non_null(man);
        for (int sec = 0; sec < _SECTION_MAX; sec++) {
                size_t n;
                const ConfigKey *keys = config_keys(sec, &n);

                for (size_t k = 0; k < n; k++) {
                        char needle[96];
                        /* keys are typeset as .TP\n\fBname\fR */
                        snprintf(needle, sizeof(needle), "\\fB%s\\fR", keys[k].name);
                        if (!strstr(man, needle))
                                fail_msg("docs/fragd.conf.5 does not document %s", keys[k].name);
                }
        }
        free(man);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_no_config_is_database_defaults),
                cmocka_unit_test(test_layers_and_sources),
                cmocka_unit_test(test_preset_rebase_rule),
                cmocka_unit_test(test_errors_all_at_once),
                cmocka_unit_test(test_syntax_corners),
                cmocka_unit_test(test_cross_key_errors_name_both_sources),
                cmocka_unit_test(test_set_overrides),
                cmocka_unit_test(test_key_twice_in_one_file),
                cmocka_unit_test(test_min_free_kbytes_units),
                cmocka_unit_test(test_config_file_option),
                cmocka_unit_test(test_cgroups),
                cmocka_unit_test(test_reload_is_atomic),
                cmocka_unit_test(test_config_files_never_block),
                cmocka_unit_test(test_config_symlinks_stay_in_root),
                cmocka_unit_test(test_reload_fifo_keeps_config),
                cmocka_unit_test(test_dirs_validated_at_load),
                cmocka_unit_test(test_text_dir_relative),
                cmocka_unit_test(test_text_scrub),
                cmocka_unit_test(test_cgroup_names_are_utf8),
                cmocka_unit_test(test_print_roundtrip),
                cmocka_unit_test(test_check_main),
                cmocka_unit_test(test_shipped_fragd_conf_is_the_default),
                cmocka_unit_test(test_corpus_fragd_conf_is_the_shipped_one),
                cmocka_unit_test(test_man_page_documents_every_key),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
