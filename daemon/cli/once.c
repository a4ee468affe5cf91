/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fragd --once: observe this host, assess, decide, print; writes nothing.
 * observe -> assess -> decide is the daemon tick's pipeline
 * (service/pipeline.c); what --once does differently is in its hooks.
 * The policy starts from what the daemon would start from: the learned
 * reserve of an earlier run (<state_dir>/learned, read as the daemon's first
 * tick reads it, never written) seeds the state before the decide, and the
 * report says what it gave or why it was ignored.
 * With watched cgroups ([cgroup "..."]) the workload module reads them too
 * (one tick, or one at each reading with --interval) and the report has a
 * cgroup section (text) or a "cgroups" array (json). */

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cli/main-internal.h"
#include "cli/report.h"
#include "config/config.h"
#include "core/cleanup.h"
#include "core/log.h"
#include "core/root.h"
#include "fragd/metrics.h"
#include "fragd/obs.h"
#include "fragd/policy.h"
#include "knobs/knob.h"
#include "knobs/lever.h"
#include "output/exporter.h"
#include "output/snapshot.h"
#include "output/workload-view.h"
#include "service/boot-history.h"
#include "service/learned-store.h"
#include "service/pipeline.h"
#include "sources/observe.h"
#include "workload/workload.h"

DEFINE_TRIVIAL_CLEANUP_FUNC(Workload *, workload_free);

static void sleep_usec(usec_t u)
{
        struct timespec ts = { (time_t) (u / USEC_PER_SEC), (long) (u % USEC_PER_SEC) * 1000 };

        while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
                ;
}

static void decision_to_report(const Decision *d, ReportDecision *rd, unsigned *n)
{
        _Static_assert(sizeof(rd->explanation) >= DECISION_TEXT_MAX, "a sentence is never cut");
        *n = 0;
        for (unsigned i = 0; i < d->n_items && *n < POLICY_MAX_ITEMS; i++) {
                const DecisionItem *it = &d->items[i];
                ReportDecision *r = &rd[(*n)++];

                memset(r, 0, sizeof(*r));
                r->node = it->kind == DECISION_COMPACT_NODE ? it->node : -1;
                r->reason = policy_reason_name(it->reason);
                (void) decision_explain(it, r->explanation, sizeof(r->explanation));
                if (it->kind == DECISION_COMPACT_NODE) {
                        r->knob = "compact";
                        continue;
                }
                /* a kcompactd kick: the lever's knob, from == to */
                r->knob = lever_name(it->lever);
                lever_value_format(it->lever, it->from, r->from, sizeof(r->from));
                lever_value_format(it->lever, it->to, r->to, sizeof(r->to));
        }
}

/* What the policy wanted to move and did not, and why (reason: the hold's
 * name; from: the lever's value) */
static void held_to_report(const Decision *d, ReportDecision *rh, unsigned *n)
{
        *n = 0;
        for (unsigned i = 0; i < d->n_held && *n < POLICY_MAX_HELD; i++) {
                const PolicyHeldItem *h = &d->held[i];
                ReportDecision *r = &rh[(*n)++];

                memset(r, 0, sizeof(*r));
                r->node = -1;
                r->knob = lever_name(h->lever);
                r->reason = policy_hold_name(h->hold);
                lever_value_format(h->lever, h->current, r->from, sizeof(r->from));
                (void) decision_explain_held(h, r->explanation, sizeof(r->explanation));
        }
}

static Workload *workload_open(const Root *root, FragdConfig *cfg)
{
        WorkloadOptions opt = WORKLOAD_OPTIONS_DEFAULT;
        Workload *w = NULL;
        int r;

        if (!workload_configured(cfg))
                return NULL;
        /* no event loop: no PSI triggers; and nothing is written (no collapse).
         * The triggers are the only use of these values in --once. */
        cfg->daemon.psi_trigger_threshold_usec = 0;
        for (unsigned i = 0; i < cfg->n_cgroups; i++)
                cfg->cgroups[i].psi_trigger_threshold_usec = 0;
        opt.dry_run = true;
        r = workload_new(root, cfg, &opt, &w);
        if (r < 0) {
                log_warning_errno(r, "Cannot read the watched cgroups (%m); reporting without them");
                return NULL;
        }
        return w;
}

static unsigned workload_views(const Workload *w, CgroupWorkloadView *views)
{
        unsigned n = 0;

        for (unsigned i = 0; i < workload_n_cgroups(w) && n < FRAGD_MAX_CGROUPS; i++)
                if (workload_view(w, i, &views[n]) >= 0)
                        n++;
        return n;
}

/* workload_report() and workload_report_json() (one object per line) as
 * malloc'ed strings, the latter made into one JSON array. */
static int workload_reports(const Workload *w, char **ret_text, char **ret_json)
{
        _cleanup_free_ char *text = NULL, *lines = NULL, *json = NULL;
        size_t text_len = 0, lines_len = 0, j = 0;
        bool first = true;
        FILE *f;

        f = open_memstream(&text, &text_len);
        if (!f)
                return -ENOMEM;
        (void) workload_report(w, f);
        if (fclose(f) != 0)
                return -ENOMEM;
        f = open_memstream(&lines, &lines_len);
        if (!f)
                return -ENOMEM;
        (void) workload_report_json(w, f);
        if (fclose(f) != 0)
                return -ENOMEM;
        json = malloc(lines_len + 3);
        if (!json)
                return -ENOMEM;
        json[j++] = '[';
        for (const char *p = lines; *p;) {
                size_t l = strcspn(p, "\n");

                if (l > 0) {
                        if (!first)
                                json[j++] = ',';
                        memcpy(json + j, p, l);
                        j += l;
                        first = false;
                }
                p += l + (p[l] == '\n');
        }
        json[j++] = ']';
        json[j] = '\0';
        *ret_text = TAKE_PTR(text);
        *ret_json = TAKE_PTR(json);
        return 0;
}

/* On stderr: what observation_check() rejected or found incomplete, and
 * every source the decisions miss with what that disables; not when the
 * text report, which has them (DEGRADED, "Readings fragd does not trust"),
 * goes out: each warning once. Returns the missing sources. */
static unsigned warn_degraded(const Observation *o, unsigned mask, bool in_report)
{
        unsigned missing = observation_missing(o, mask);
        char why[160];

        if (in_report)
                return missing;
        for (unsigned i = 0; i < o->n_problems; i++)
                log_warning("%s", o->problems[i]);
        /* the page cache's absence is in the report (DEGRADED, and
         * fragd_source_up for --format prom): on stderr it would repeat on
         * every --once of a host without tracefs */
        for (unsigned s = 0; s < _OBS_SOURCE_MAX; s++)
                if ((missing & OBS_MASK(s)) && s != OBS_BUDDYINFO && s != OBS_PAGECACHE)
                        log_warning("Decisions degraded: %s: %s",
                                    obs_source_missing_why(o, (ObsSource) s, why, sizeof(why)),
                                    obs_source_impact((ObsSource) s));
        return missing;
}

/* What the pipeline's hooks need of run_once(). */
typedef struct Once {
        const Root *root;
        FragdConfig *cfg;
        Workload *wl;
        CgroupWorkloadView *views;
        unsigned n_views;
        unsigned missing;
        bool text; /* the text report: it says what is missing, stderr does not */
        LearnedLoad learned;
        BootFirst boot; /* the first reserve from the counters since boot, when no file applied */
        char machine_id[MACHINE_ID_LEN + 1];
        char learned_file[FRAGD_PATH_MAX * 2];
} Once;

/* fragd --once makes no trace instance: without a running daemon's, on a
 * kernel that could have one, the page cache is not measured but nothing
 * is broken (the report says so in its page-cache section) */
static unsigned once_mask(const Observation *cur, unsigned mask)
{
        if (!(cur->have & OBS_MASK(OBS_PAGECACHE)) && cur->err[OBS_PAGECACHE] == -ENOENT)
                mask &= ~OBS_MASK(OBS_PAGECACHE);
        return mask;
}

static int once_observed(void *userdata, const Observation *cur, unsigned mask, int r)
{
        Once *o = userdata;

        /* no report follows when the observation failed (no buddyinfo) */
        o->missing = warn_degraded(cur, once_mask(cur, mask), o->text && r >= 0);
        return r;
}

/* As the daemon: the workloads' last minute goes to the policy, the learned
 * reserve of an earlier run seeds its state (the daemon's first tick); the
 * levers are the kernel's own values. */
static void once_levers(void *userdata, const Observation *cur, Assessment *as, PolicyState *ps,
                        LeverInput in[_LEVER_MAX])
{
        Once *o = userdata;

        if (o->wl && o->views) {
                (void) workload_tick(o->wl, cur->now_usec, false, NULL);
                o->n_views = workload_views(o->wl, o->views);
                as->n_workloads = workload_stalls_fill(o->views, o->n_views, as->workloads,
                                                       ASSESSMENT_MAX_WORKLOADS);
        }
        (void) machine_id_read(o->root, o->machine_id);
        learned_store_name(o->root, o->cfg->daemon.state_dir, o->learned_file, sizeof(o->learned_file));
        if (learned_store_load(o->root, o->cfg->daemon.state_dir, &o->cfg->policy, as->page_size,
                               as->hpage_order, o->machine_id, observation_mem_bytes(cur), cur->now_usec,
                               now_realtime_usec(), &o->learned) == LEARNED_LOAD_OK)
                policy_learned_seed(ps, &o->learned.restore);
        else if (boot_first_reserve(o->root, cur, &o->cfg->policy,
                                    as->hpage_order < 32 ? (uint64_t) as->page_size << as->hpage_order : 0,
                                    cur->now_usec, &o->boot))
                policy_learned_seed(ps, &o->boot.lr);
        if (o->learned.capped_from_bytes)
                log_warning("The learned reserve file '%s' says a %" PRIu64 "-byte burst, more than this host's "
                            "%" PRIu64 " bytes of memory: taken as the host's memory",
                            o->learned_file, o->learned.capped_from_bytes, observation_mem_bytes(cur));
        levers_from_observation(&o->cfg->policy, cur, in);
}

int run_once(const FragdArgs *a)
{
        _cleanup_(root_freep) Root *root = NULL;
        _cleanup_free_ Observation *cur = NULL, *prev = NULL;
        _cleanup_free_ Assessment *as = NULL;
        _cleanup_free_ FragdConfig *cfg = NULL;
        _cleanup_free_ ConfigSources *src = NULL;
        _cleanup_free_ ConfigErrors *errs = NULL;
        _cleanup_free_ PolicyState *ps = NULL;
        _cleanup_free_ Decision *d = NULL;
        _cleanup_free_ ReportDecision *rd = NULL;
        _cleanup_free_ SnapshotBuilder *sb = NULL;
        _cleanup_(workload_freep) Workload *wl = NULL;
        _cleanup_free_ CgroupWorkloadView *views = NULL;
        _cleanup_free_ char *cg_text = NULL, *cg_json = NULL;
        _cleanup_free_ Once *once = NULL;
        InstanceProbe probe = {};
        ReportInstance inst = {};
        ConfigLoadArgs ca;
        ReportInput ri = {};
        Pipeline pipe;
        PipelineHooks hooks;
        PipelineStage stage;
        unsigned n_rd = 0, n_rh = 0, mask;
        int r;

        r = root_open(a->root, a->page_size, &root);
        if (r < 0) {
                log_error_errno(r, "Cannot open root directory '%s': %m", a->root);
                return EXIT_FAILURE;
        }
        cur = calloc(1, sizeof(*cur));
        as = calloc(1, sizeof(*as));
        cfg = calloc(1, sizeof(*cfg));
        src = calloc(1, sizeof(*src));
        errs = calloc(1, sizeof(*errs));
        ps = calloc(1, sizeof(*ps));
        d = calloc(1, sizeof(*d));
        rd = calloc(POLICY_MAX_ITEMS + POLICY_MAX_HELD, sizeof(*rd));
        once = calloc(1, sizeof(*once));
        if (!cur || !as || !cfg || !src || !errs || !ps || !d || !rd || !once) {
                log_error("Out of memory");
                return EXIT_FAILURE;
        }

        (void) instance_probe(root, NULL, &probe);
        ca = (ConfigLoadArgs) {
                .root = root, .config_file = a->config_file, .set = a->sets, .n_set = a->n_sets, .probe = &probe,
        };
        r = config_load(&ca, cfg, src, errs);
        config_warnings_log(errs);
        if (r < 0) {
                log_error("Invalid configuration (see 'fragd --check-config'):");
                for (unsigned i = 0; i < errs->n; i++)
                        log_error("  %s", errs->msg[i]);
                return EXIT_USAGE;
        }
        wl = workload_open(root, cfg);
        (void) knob_warn_escaping_links(root);

        if (a->interval_usec) {
                prev = calloc(1, sizeof(*prev));
                if (!prev)
                        return EXIT_FAILURE;
                r = observation_read(root, OBS_PER_TICK | (cfg->daemon.pagecache_signal ? OBS_MASK(OBS_PAGECACHE) : 0),
                                     now_monotonic_usec(), prev);
                if (r < 0) {
                        (void) warn_degraded(prev, OBS_PER_TICK, false);
                        goto no_buddyinfo;
                }
                if (wl)
                        (void) workload_tick(wl, prev->now_usec, false, NULL);
                sleep_usec(a->interval_usec);
        }
        if (wl) {
                views = calloc(FRAGD_MAX_CGROUPS, sizeof(*views));
                if (!views)
                        return EXIT_FAILURE;
        }
        policy_state_init(ps);
        *once = (Once) { .root = root, .cfg = cfg, .wl = wl, .views = views, .text = strcmp(a->format, "text") == 0 };
        pipe = (Pipeline) { .root = root, .policy = &cfg->policy, .prev = prev, .cur = cur, .a = as, .state = ps,
                            .d = d };
        hooks = (PipelineHooks) { .observed = once_observed, .levers = once_levers, .userdata = once };
        /* the daemon's trace instance, when one runs (fragd --once makes none) */
        mask = OBS_ALL | (cfg->daemon.pagecache_signal ? OBS_MASK(OBS_PAGECACHE) : 0);
        r = pipeline_run(&pipe, mask, now_monotonic_usec(), &hooks, &stage);
        if (r < 0 && stage == PIPELINE_OBSERVE)
                goto no_buddyinfo;
        if (r < 0)
                return EXIT_FAILURE;

        if (strcmp(a->format, "prom") == 0) {
                sb = malloc(sizeof(*sb));
                if (!sb)
                        return EXIT_FAILURE;
                snapshot_build(sb, cfg, cur, prev, as, d, NULL);
                for (unsigned i = 0; i < once->n_views && i < SNAPSHOT_MAX_CGROUPS; i++)
                        cgroup_view_fill(&views[i], &sb->cgroups[sb->s.n_cgroups++]);
                sb->s.health.dry_run = true;
                r = metrics_render(&sb->s, stdout);
                if (r == -EIO || (r >= 0 && fflush(stdout) != 0)) {
                        /* the stream failed (metrics_render() says -EIO then) */
                        log_error("Cannot write the metrics to standard output");
                        return EXIT_FAILURE;
                }
                if (r < 0) {
                        log_error_errno(r, "Cannot render the metrics: %m");
                        return EXIT_FAILURE;
                }
                return once->missing & OBS_DEGRADED_REQUIRED ? EXIT_PRECONDITION : 0;
        }

        decision_to_report(d, rd, &n_rd);
        held_to_report(d, rd + POLICY_MAX_ITEMS, &n_rh);
        if (src->instance.source) {
                inst.name = src->instance.name;
                inst.source = src->instance.source;
                inst.cloud = src->instance.cloud;
                inst.fleet_file = src->instance.fleet_file[0] ? src->instance.fleet_file : NULL;
                ri.instance = &inst;
        }
        ri.root_path = root->path;
        ri.version = FRAGD_VERSION;
        ri.cur = cur;
        ri.prev = prev;
        ri.a = as;
        ri.policy = &cfg->policy;
        ri.decisions = rd;
        ri.n_decisions = n_rd;
        ri.held = rd + POLICY_MAX_ITEMS;
        ri.n_held = n_rh;
        ri.decisions_known = true;
        ri.dry_run = true;
        ri.preset = preset_name(cfg->policy.preset);
        ri.eval = &d->eval;
        ri.learned = &once->learned;
        ri.learned_file = once->learned_file;
        ri.boot = &once->boot;
        ri.obs_mask = once_mask(cur, mask);
        ri.verbose = a->verbose;
        if (wl) {
                r = workload_reports(wl, &cg_text, &cg_json);
                if (r < 0) {
                        log_error_errno(r, "Cannot render the cgroup report: %m");
                        return EXIT_FAILURE;
                }
                ri.cgroups_text = cg_text;
                ri.cgroups_json = cg_json;
        }
        if (strcmp(a->format, "json") == 0)
                r = report_json(stdout, &ri);
        else
                r = report_text(stdout, &ri);
        if (r < 0 || fflush(stdout) != 0) {
                log_error("Cannot write the report to standard output");
                return EXIT_FAILURE;
        }
        /* the report is out, but no target was measured: say so in the
         * exit status too (fragd.8 EXIT STATUS) */
        if (once->missing & OBS_DEGRADED_REQUIRED) {
                log_error("Exiting with status %d: without %s no reserve target can be measured",
                          EXIT_PRECONDITION, obs_source_name(OBS_ZONEINFO));
                return EXIT_PRECONDITION;
        }
        return 0;

no_buddyinfo:
        log_error_errno(r, "Cannot read '%s/proc/buddyinfo': %m. fragd needs it to see free memory by order.",
                        strcmp(root->path, "/") == 0 ? "" : root->path);
        return EXIT_PRECONDITION;
}
