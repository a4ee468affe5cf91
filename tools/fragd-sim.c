/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fragd-sim: replay a recorded series of /proc and /sys snapshots through
 * the real pipeline -- observation_read -> assess -> policy_decide ->
 * (simulated apply) -> policy_state_update -- and print the decision
 * timeline. Reads the trace only; writes nothing.
 *
 *      fragd-sim [-p PRESET] [-v] [-i SECONDS] [--page-size N] TRACE_DIR
 *
 * TRACE_DIR holds one fixture-like root per snapshot, replayed in name order
 * (0001/, 0002/, ...; other files such as a README are skipped):
 *
 *      TRACE_DIR/NNNN/proc/{buddyinfo,zoneinfo,vmstat,...}
 *      TRACE_DIR/NNNN/sys/{kernel/mm/transparent_hugepage,devices/system/node}/...
 *      TRACE_DIR/NNNN/timestamp    CLOCK_MONOTONIC seconds, "12" or "12.5"
 *
 * Without a timestamp, snapshots are -i SECONDS apart (default 10). Rates
 * (stalls, fallbacks, scanning) come from consecutive snapshots' counters.
 *
 * Simulated apply: a lever fragd has set reads back as set, whatever the
 * recording says (it was recorded without fragd); other levers read as
 * recorded. The first snapshot's values are the baselines. Watched
 * workloads are not replayed (no taskstats in a snapshot).
 *
 * Output: a header, then for each snapshot with a decision (each snapshot
 * with -v) a state line "+SECONDS NNNN nodeN o>=4 have/target MiB ..." and
 * one line per decision "  <sentence> [reason]"; a summary line last.
 * Exit status: 0, 1 when the trace cannot be read, 2 for usage errors. */

#include <dirent.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/cleanup.h"
#include "core/root.h"
#include "fragd/metrics.h"
#include "fragd/obs.h"
#include "fragd/policy-config.h"
#include "fragd/policy.h"
#include "knobs/lever.h"
#include "sources/observe.h"

#define MAX_SNAPSHOTS 100000

typedef struct Sim {
        PolicyConfig cfg;
        PolicyState state;
        Observation obs[2];
        Assessment a;
        Decision d;
        LeverInput in[_LEVER_MAX];
        bool have_baseline;
        bool set_by_fragd[_LEVER_MAX];
        int64_t applied[_LEVER_MAX];
} Sim;

static int name_cmp(const void *x, const void *y)
{
        return strcmp(*(char *const *) x, *(char *const *) y);
}

static int list_snapshots(const char *dir, char ***ret, size_t *ret_n)
{
        DIR *d = opendir(dir);
        struct dirent *de;
        char **v = NULL;
        size_t n = 0, cap = 0;

        if (!d)
                return negative_errno();
        while ((de = readdir(d))) {
                struct stat st;

                if (de->d_name[0] == '.')
                        continue;
                if (de->d_type != DT_DIR &&
                    (de->d_type != DT_UNKNOWN || fstatat(dirfd(d), de->d_name, &st, 0) < 0 || !S_ISDIR(st.st_mode)))
                        continue; /* README.md and the like */
                if (n == cap) {
                        char **nv;

                        cap = cap ? cap * 2 : 64;
                        nv = realloc(v, cap * sizeof(*v));
                        if (!nv)
                                goto oom;
                        v = nv;
                }
                if (!(v[n] = strdup(de->d_name)))
                        goto oom;
                if (++n > MAX_SNAPSHOTS)
                        break;
        }
        closedir(d);
        qsort(v, n, sizeof(*v), name_cmp);
        *ret = v;
        *ret_n = n;
        return 0;
oom:
        closedir(d);
        for (size_t i = 0; i < n; i++)
                free(v[i]);
        free(v);
        return -ENOMEM;
}

/* "12.345" seconds -> usec; -ENOENT when absent */
static int read_timestamp(const Root *root, usec_t *ret)
{
        char buf[64], *end;
        unsigned long long sec, frac = 0, scale = USEC_PER_SEC;
        int r;

        r = read_file_at(root->root_fd, "timestamp", buf, sizeof(buf));
        if (r < 0)
                return r;
        sec = strtoull(buf, &end, 10);
        if (end == buf)
                return -EBADMSG;
        if (*end == '.') {
                for (end++; *end >= '0' && *end <= '9'; end++)
                        if (scale > 1) {
                                scale /= 10;
                                frac += (unsigned long long) (*end - '0') * scale;
                        }
        }
        *ret = sec * USEC_PER_SEC + frac;
        return 0;
}

static void read_levers(Sim *s, const Observation *o)
{
        for (unsigned l = 0; l < _LEVER_MAX; l++) {
                LeverInput *in = &s->in[l];
                int64_t v = 0;
                bool avail = lever_from_observation(o, (Lever) l, &v);

                if (!s->have_baseline) {
                        in->available = avail;
                        in->baseline = v;
                }
                in->available = in->available && avail;
                in->current = s->set_by_fragd[l] ? s->applied[l] : v;
        }
        s->have_baseline = true;
}

static void print_state(const Decision *d, const char *name, usec_t t0, bool verbose)
{
        const PolicyEval *e = &d->eval;

        printf("%+9.1fs %s", (double) (d->now_usec - t0) / (double) USEC_PER_SEC, name);
        for (unsigned i = 0; i < e->n_nodes; i++) {
                const PolicyNodeEval *n = &e->nodes[i];

                printf("  node%d o>=%u %" PRIu64 "/%" PRIu64 " MiB o>=%u %" PRIu64 "/%" PRIu64 " MiB score %u",
                       n->node, e->order[0], n->have_bytes[0] >> 20, n->target_bytes[0] >> 20, e->order[1],
                       n->have_bytes[1] >> 20, n->target_bytes[1] >> 20, n->score);
                if (verbose && n->trend_bytes_per_sec[1] != 0)
                        printf(" (%+.1f MiB/s)", (double) n->trend_bytes_per_sec[1] / (double) (1 << 20));
        }
        printf("  psi %u.%02u%%/%u.%02u%%  %s\n", e->psi_some_permyriad / 100, e->psi_some_permyriad % 100,
               e->psi_full_permyriad / 100, e->psi_full_permyriad % 100,
               e->targets_met      ? "met"
               : e->targets_missed ? "MISSED"
                                   : "in band");
}

static int replay(Sim *s, const char *dir, char **names, size_t n, usec_t interval, unsigned page_size,
                  bool verbose)
{
        usec_t t0 = 0, prev_t = 0;
        unsigned n_decisions = 0, n_oneshot = 0, n_kicks = 0, n_replayed = 0;

        for (size_t i = 0; i < n; i++) {
                Observation *cur = &s->obs[i % 2], *prev = i > 0 ? &s->obs[(i + 1) % 2] : NULL;
                char path[4096];
                Root *root = NULL;
                usec_t t;
                int r;

                snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
                r = root_open(path, page_size, &root);
                if (r < 0) {
                        fprintf(stderr, "fragd-sim: cannot open '%s': %s\n", path, strerror(-r));
                        return r;
                }
                if (read_timestamp(root, &t) < 0)
                        t = (usec_t) i * interval + USEC_PER_SEC;
                if (n_replayed > 0 && t <= prev_t)
                        t = prev_t + 1;
                memset(cur, 0, sizeof(*cur));
                r = observation_read(root, OBS_ALL, t, cur);
                root_free(root);
                for (unsigned k = 0; k < cur->n_problems; k++)
                        fprintf(stderr, "fragd-sim: '%s': %s\n", path, cur->problems[k]);
                if (r < 0) {
                        fprintf(stderr, "fragd-sim: '%s': no buddyinfo (%s), skipped\n", path, strerror(-r));
                        continue;
                }
                r = assess(cur, prev && prev->have ? prev : NULL, &s->a);
                if (r < 0) {
                        fprintf(stderr, "fragd-sim: '%s': cannot assess (%s), skipped\n", path, strerror(-r));
                        continue;
                }
                if (n_replayed++ == 0)
                        t0 = t;
                prev_t = t;
                read_levers(s, cur);

                r = policy_decide(&s->cfg, &s->state, &s->a, s->in, t, &s->d);
                if (r < 0) {
                        fprintf(stderr, "fragd-sim: '%s': decide failed (%s)\n", path, strerror(-r));
                        continue;
                }
                if (verbose || s->d.n_items > 0)
                        print_state(&s->d, names[i], t0, verbose);
                for (unsigned j = 0; j < s->d.n_items; j++) {
                        DecisionItem *it = &s->d.items[j];
                        char buf[1024];

                        decision_explain(it, buf, sizeof(buf));
                        printf("           %s [%s]%s\n", buf, policy_reason_name(it->reason),
                               s->d.apply ? "" : " (observe: not applied)");
                        n_decisions++;
                        if (it->kind == DECISION_COMPACT_NODE)
                                n_oneshot++;
                        if (it->kind == DECISION_KICK_KCOMPACTD)
                                n_kicks++;
                        if (!s->d.apply)
                                continue;
                        decision_mark_applied(&s->d, j, it->to);
                        if (it->kind == DECISION_LEVER) {
                                s->set_by_fragd[it->lever] = true;
                                s->applied[it->lever] = it->to;
                        }
                }
                if (verbose)
                        for (unsigned j = 0; j < s->d.n_held; j++) {
                                char buf[1024];

                                decision_explain_held(&s->d.held[j], buf, sizeof(buf));
                                printf("           (held) %s [%s]\n", buf, policy_hold_name(s->d.held[j].hold));
                        }
                policy_state_update(&s->state, &s->a, &s->d, t);
        }

        printf("fragd-sim: %u of %zu snapshots replayed, %u decisions (%u one-shot compactions, %u kcompactd kicks); "
               "final:",
               n_replayed, n, n_decisions, n_oneshot, n_kicks);
        for (unsigned l = 0; l < _LEVER_MAX; l++) {
                if (!s->in[l].available)
                        continue;
                if (l == LEVER_THP_DEFRAG && thp_defrag_name((ThpDefragMode) s->in[l].current))
                        printf(" %s=%s", lever_name((Lever) l), thp_defrag_name((ThpDefragMode) s->in[l].current));
                else
                        printf(" %s=%" PRId64, lever_name((Lever) l), s->in[l].current);
        }
        printf("\n");
        return n_replayed > 0 ? 0 : -ENODATA;
}

static void usage(FILE *f)
{
        fprintf(f, "usage: fragd-sim [-p PRESET] [-a] [-v] [-i SECONDS] [--page-size N] TRACE_DIR\n"
                   "Replays TRACE_DIR/*/ (roots with proc/, sys/ and a timestamp file) through\n"
                   "observation, assessment and the policy; prints the decision timeline.\n"
                   "  -a, --reserve-always  keep the configured reserves without unmet demand\n"
                   "                        (fragd.conf reserve_always = yes)\n");
}

int main(int argc, char **argv)
{
        static const struct option opts[] = {
                { "preset", required_argument, NULL, 'p' },  { "verbose", no_argument, NULL, 'v' },
                { "interval", required_argument, NULL, 'i' }, { "page-size", required_argument, NULL, 'P' },
                { "help", no_argument, NULL, 'h' },           { "reserve-always", no_argument, NULL, 'a' },
                {},
        };
        Preset preset = PRESET_DATABASE;
        usec_t interval = 10 * USEC_PER_SEC;
        unsigned page_size = 0;
        bool verbose = false, reserve_always = false;
        char **names = NULL;
        size_t n = 0;
        Sim *s;
        int c, r;

        while ((c = getopt_long(argc, argv, "p:avi:h", opts, NULL)) >= 0)
                switch (c) {
                case 'p':
                        r = preset_from_name(optarg);
                        if (r < 0) {
                                fprintf(stderr, "fragd-sim: unknown preset '%s'\n", optarg);
                                return 2;
                        }
                        preset = (Preset) r;
                        break;
                case 'a':
                        reserve_always = true;
                        break;
                case 'v':
                        verbose = true;
                        break;
                case 'i': {
                        char *end;
                        double v = strtod(optarg, &end);

                        if (end == optarg || *end || !(v > 0.0 && v < 1e9)) {
                                fprintf(stderr, "fragd-sim: bad interval '%s' (seconds, > 0)\n", optarg);
                                return 2;
                        }
                        interval = (usec_t) (v * (double) USEC_PER_SEC);
                        break;
                }
                case 'P': {
                        char *end;
                        unsigned long v = strtoul(optarg, &end, 0);

                        if (end == optarg || *end || v == 0 || (v & (v - 1)) || v > (1ul << 20)) {
                                fprintf(stderr, "fragd-sim: bad page size '%s' (a power of two)\n", optarg);
                                return 2;
                        }
                        page_size = (unsigned) v;
                        break;
                }
                case 'h':
                        usage(stdout);
                        return 0;
                default:
                        usage(stderr);
                        return 2;
                }
        if (optind != argc - 1) {
                usage(stderr);
                return 2;
        }
        r = list_snapshots(argv[optind], &names, &n);
        if (r < 0) {
                fprintf(stderr, "fragd-sim: cannot list '%s': %s\n", argv[optind], strerror(-r));
                return 1;
        }
        if (n == 0) {
                fprintf(stderr, "fragd-sim: no snapshots in '%s'\n", argv[optind]);
                free(names);
                return 1;
        }
        s = calloc(1, sizeof(*s));
        if (!s)
                return 1;
        policy_config_preset(preset, &s->cfg);
        if (reserve_always)
                s->cfg.reserve_always = true;
        policy_state_init(&s->state);
        printf("fragd-sim: %zu snapshots from '%s', preset %s%s\n", n, argv[optind], preset_name(preset),
               reserve_always ? ", reserve_always = yes" : "");
        r = replay(s, argv[optind], names, n, interval, page_size, verbose);
        for (size_t i = 0; i < n; i++)
                free(names[i]);
        free(names);
        free(s);
        return r < 0 ? 1 : 0;
}
