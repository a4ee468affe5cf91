/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The key table: every fragd.conf key, its parser, its destination and its
 * range, in one place. Loading (config.c) and printing (config_print) walk
 * this table; there is no per-key code. */

#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <syslog.h>

#include "config/config-internal.h"
#include "core/format.h"
#include "core/text.h"
#include "sources/sources.h"

#define SEC(x) ((int64_t) (x) * (int64_t) USEC_PER_SEC)
#define MS(x) ((int64_t) (x) * (int64_t) USEC_PER_MSEC)
#define MINUTES(x) ((int64_t) (x) * (int64_t) USEC_PER_MINUTE)
#define HOURS(x) (MINUTES(x) * 60)
#define GIB(x) ((int64_t) (x) << 30)
#define TIB(x) ((int64_t) (x) << 40)

#define D(field) offsetof(FragdConfig, daemon.field), sizeof(((FragdConfig *) 0)->daemon.field)
#define P(field) offsetof(FragdConfig, policy.field), sizeof(((FragdConfig *) 0)->policy.field)
#define F(field) offsetof(FragdConfig, fleet.field), sizeof(((FragdConfig *) 0)->fleet.field)
#define L(field) offsetof(LeverConfig, field), sizeof(((LeverConfig *) 0)->field)
#define C(field) offsetof(CgroupConfig, field), sizeof(((CgroupConfig *) 0)->field)

/* section, name, type, destination, min, max, zero_ok, help */
static const ConfigKey daemon_keys[] = {
        { SECTION_DAEMON, "interval", VT_DURATION, D(interval_usec), MS(100), MINUTES(10), false,
          "time between observations" },
        { SECTION_DAEMON, "active_interval", VT_DURATION, D(active_interval_usec), MS(100), MINUTES(10), true,
          "time between observations after THP faults or stalls; 0 = always interval" },
        { SECTION_DAEMON, "active_hold", VT_DURATION, D(active_hold_usec), SEC(10), HOURS(1), false,
          "how long active_interval lasts after the last THP fault or stall" },
        { SECTION_DAEMON, "dry_run", VT_BOOL, D(dry_run), 0, 0, false,
          "decide and report, never write a knob" },
        { SECTION_DAEMON, "textfile_dir", VT_PATH, D(textfile_dir), 0, 0, true,
          "node_exporter textfile directory; empty disables the exporter" },
        { SECTION_DAEMON, "log_level", VT_LOG_LEVEL, D(log_level), 0, 0, false,
          "err, warning, notice, info or debug" },
        { SECTION_DAEMON, "ownership", VT_OWNERSHIP, D(ownership), 0, 0, false,
          "respect or reassert a knob someone else changed" },
        { SECTION_DAEMON, "pagetypeinfo_interval", VT_DURATION, D(pagetypeinfo_interval_usec), MINUTES(1),
          HOURS(24), true, "how often to read /proc/pagetypeinfo (takes zone locks); 0 = never" },
        { SECTION_DAEMON, "psi_trigger_threshold", VT_DURATION, D(psi_trigger_threshold_usec), MS(1), SEC(10),
          false, "system memory PSI trigger: stall time per window" },
        { SECTION_DAEMON, "psi_trigger_window", VT_DURATION, D(psi_trigger_window_usec), MS(500), SEC(10),
          false, "system memory PSI trigger window (kernel: 500ms..10s)" },
        { SECTION_DAEMON, "runtime_dir", VT_PATH, D(runtime_dir), 0, 0, false,
          "saved knob values for restore" },
        { SECTION_DAEMON, "state_dir", VT_PATH, D(state_dir), 0, 0, true,
          "state kept across restarts (the learned reserve); empty = none" },
        { SECTION_DAEMON, "enable_delayacct", VT_BOOL, D(enable_delayacct), 0, 0, false,
          "set kernel.task_delayacct=1 to attribute compaction stalls" },
        { SECTION_DAEMON, "pagecache_signal", VT_BOOL, D(pagecache_signal), 0, 0, false,
          "count page-cache folios by order in a trace instance of fragd's own (on where the kernel can)" },
};

static const ConfigKey policy_keys[] = {
        { SECTION_POLICY, "preset", VT_PRESET, P(preset), 0, 0, false,
          "database, throughput, thp-max or observe" },
        { SECTION_POLICY, "order_large", VT_UINT, P(order_large), 1, 15, false,
          "large-folio target order" },
        { SECTION_POLICY, "order_thp", VT_UINT, P(order_thp), 1, 15, true,
          "THP target order; 0 = the kernel's PMD order" },
        { SECTION_POLICY, "reserve_large", VT_SIZE, P(reserve_large), 0, 5000, false,
          "per node, free memory in blocks >= order_large" },
        { SECTION_POLICY, "reserve_thp", VT_SIZE, P(reserve_thp), 0, 5000, false,
          "per node, free memory in blocks >= order_thp" },
        { SECTION_POLICY, "reserve_always", VT_BOOL, P(reserve_always), 0, 0, false,
          "keep reserve_large/reserve_thp without unmet demand (no: only while a fallback or stall is held)" },
        { SECTION_POLICY, "max_compact_stall_rate", VT_RATE, P(max_compact_stall_rate), 0, 1000, false,
          "direct compaction stalls per second" },
        { SECTION_POLICY, "max_thp_fallback", VT_RATIO, P(max_thp_fallback_permyriad), 0, 10000, false,
          "THP fault fallback ratio" },
        { SECTION_POLICY, "psi_some_ceiling", VT_RATIO, P(psi_some_ceiling_permyriad), 1, 10000, false,
          "memory PSI some avg10 ceiling" },
        { SECTION_POLICY, "psi_full_ceiling", VT_RATIO, P(psi_full_ceiling_permyriad), 1, 10000, false,
          "memory PSI full avg10 ceiling" },
        { SECTION_POLICY, "trend_window", VT_DURATION, P(trend_window_usec), SEC(10), HOURS(1), false,
          "least-squares window for depletion trends" },
        { SECTION_POLICY, "trend_horizon", VT_DURATION, P(trend_horizon_usec), 0, HOURS(1), false,
          "act when a target is predicted to be missed this soon" },
        { SECTION_POLICY, "decay_after", VT_DURATION, P(decay_after_usec), 0, HOURS(24), false,
          "targets met this long: levers decay to baseline" },
        { SECTION_POLICY, "backoff_decisions", VT_UINT, P(backoff_decisions), 1, 1000, false,
          "raises without gain before backing off" },
        { SECTION_POLICY, "backoff_max_scan_per_block", VT_NUMBER, P(backoff_max_scan_per_block), 1,
          1000000000, false, "pages scanned per order_thp block gained before backing off" },
        { SECTION_POLICY, "safety_headroom", VT_SIZE, P(safety_headroom), 0, 5000, false,
          "low watermark + this must stay below free + reclaimable" },
        { SECTION_POLICY, "rollback_window", VT_DURATION, P(rollback_window_usec), 0, HOURS(1), false,
          "watch this long after a move; 0 = no rollback" },
        { SECTION_POLICY, "rollback_psi_full_rise", VT_RATIO, P(rollback_psi_full_rise_permyriad), 0, 10000,
          false, "PSI full rise within the window that undoes a move" },
        { SECTION_POLICY, "oneshot_compact", VT_BOOL, P(oneshot_compact), 0, 0, false,
          "per-node one-shot compaction when calm" },
        { SECTION_POLICY, "oneshot_below", VT_RATIO, P(oneshot_below_permyriad), 0, 10000, false,
          "one-shot when a reserve is below this share of its target" },
        { SECTION_POLICY, "oneshot_min_interval", VT_DURATION, P(oneshot_min_interval_usec), MINUTES(1),
          HOURS(24), false, "at most one one-shot compaction per node this often" },
        { SECTION_POLICY, "calm_psi_some", VT_RATIO, P(calm_psi_some_permyriad), 0, 10000, false,
          "\"calm\" means memory PSI some avg10 below this" },
        /* the learned THP reserve (policy/demand.c) */
        { SECTION_POLICY, "demand_learning", VT_BOOL, P(demand_learning), 0, 0, false,
          "raise the order_thp reserve to the THP fault bursts seen recently" },
        { SECTION_POLICY, "demand_hold", VT_DURATION, P(demand_hold_usec), 0, HOURS(24 * 7), false,
          "keep a learned burst this long" },
        { SECTION_POLICY, "demand_decay", VT_DURATION, P(demand_decay_usec), 0, HOURS(24 * 7), false,
          "then halve it this often; 0 = forget at once" },
        { SECTION_POLICY, "demand_factor", VT_NUMBER, P(demand_factor), 0, 10, false,
          "learned reserve = burst x this" },
        { SECTION_POLICY, "demand_cap", VT_SIZE, P(demand_cap), 0, 5000, false,
          "per node, the learned reserve at most this" },
        { SECTION_POLICY, "demand_from_boot", VT_BOOL, P(demand_from_boot), 0, 0, false,
          "before any burst, size the first reserve from the THP faults counted since boot" },
        { SECTION_POLICY, "kick_interval", VT_DURATION, P(kick_interval_usec), 0, HOURS(1), false,
          "rewrite compaction_proactiveness this often to wake a deferring kcompactd; 0 = never" },
        /* the policy engine's own tuning (policy/hysteresis.c): 0 = its default */
        { SECTION_POLICY, "hysteresis", VT_RATIO, P(hysteresis_permyriad), 0, 5000, false,
          "targets count as met only this far inside them; 0 = engine default (10%)" },
        { SECTION_POLICY, "max_reversals", VT_UINT, P(max_reversals), 1, 1000, true,
          "direction changes per lever within reversal_window; 0 = engine default (4)" },
        { SECTION_POLICY, "reversal_window", VT_DURATION, P(reversal_window_usec), 0, HOURS(24), false,
          "window for max_reversals; 0 = engine default (1h)" },
        { SECTION_POLICY, "backoff_hold", VT_DURATION, P(backoff_hold_usec), 0, HOURS(24), false,
          "no raise this long after a back-off or rollback; 0 = decay_after" },
};

static const ConfigKey knob_keys[] = {
        { SECTION_KNOB, "enabled", VT_BOOL, L(enabled), 0, 0, false, "fragd may move this knob" },
        { SECTION_KNOB, "min", VT_LEVER_VALUE, L(min), 0, 0, false, "never written below this" },
        { SECTION_KNOB, "max", VT_LEVER_VALUE, L(max), 0, 0, false, "never written above this" },
        { SECTION_KNOB, "step_up", VT_LEVER_STEP, L(step_up), 0, 0, false, "largest raise per decision" },
        { SECTION_KNOB, "step_down", VT_LEVER_STEP, L(step_down), 0, 0, false, "largest decay per decision" },
        { SECTION_KNOB, "dwell", VT_DURATION, L(dwell_usec), 0, HOURS(1), false,
          "no move sooner than this after the last one" },
        { SECTION_KNOB, "reversal_cooldown", VT_DURATION, L(reversal_cooldown_usec), 0, HOURS(24), false,
          "no move against the last direction sooner than this" },
};

static const ConfigKey cgroup_keys[] = {
        { SECTION_CGROUP, "watch", VT_BOOL, C(watch), 0, 0, false, "observe pressure and THP use" },
        { SECTION_CGROUP, "thp", VT_CGROUP_THP, C(thp), 0, 0, false, "inherit, always, madvise or never" },
        { SECTION_CGROUP, "collapse", VT_BOOL, C(collapse), 0, 0, false,
          "MADV_COLLAPSE in calm periods (thp = always)" },
        { SECTION_CGROUP, "stall_budget", VT_DURATION, C(stall_budget_usec), 0, SEC(60), false,
          "direct compaction + reclaim stall per minute" },
        { SECTION_CGROUP, "collapse_cpu_budget", VT_DURATION, C(collapse_cpu_budget_usec), 0, SEC(60), false,
          "CPU time per minute for collapsing" },
        { SECTION_CGROUP, "collapse_max_per_tick", VT_BYTES, C(collapse_max_bytes_per_tick), 0, GIB(64),
          false, "memory collapsed per tick at most" },
        { SECTION_CGROUP, "psi_trigger_threshold", VT_DURATION, C(psi_trigger_threshold_usec), MS(1), SEC(10),
          false, "memory.pressure trigger: stall time per window" },
        { SECTION_CGROUP, "psi_trigger_window", VT_DURATION, C(psi_trigger_window_usec), MS(500), SEC(10),
          false, "memory.pressure trigger window" },
};

static const ConfigKey fleet_keys[] = {
        { SECTION_FLEET, "instance_type", VT_INSTANCE, F(instance_type), 0, 0, false,
          "auto (DMI, then sizing class) or a name" },
        { SECTION_FLEET, "fleet_dir", VT_PATH, F(fleet_dir), 0, 0, true,
          "the admin's fleet files, replacing the package's by name; empty disables fleet defaults" },
};

static const ConfigKey match_keys[] = {
        { SECTION_MATCH, "instance_type", VT_MATCH, 0, 0, 0, 0, false, "exact name or glob: r7g.*" },
        { SECTION_MATCH, "class", VT_MATCH, 0, 0, 0, 0, false, "sizing class or glob: mem-256g-*-arm64" },
        { SECTION_MATCH, "cloud", VT_MATCH, 0, 0, 0, 0, false, "aws, gce or azure (from DMI); with or without one of the above" },
};

typedef struct Section {
        const char *name;
        bool sub;
        const ConfigKey *keys;
        size_t n_keys;
        unsigned instances; /* slots per key: levers, cgroups */
} Section;

static const Section sections[_SECTION_MAX] = {
        [SECTION_DAEMON] = { "daemon", false, daemon_keys, ELEMENTSOF(daemon_keys), 1 },
        [SECTION_POLICY] = { "policy", false, policy_keys, ELEMENTSOF(policy_keys), 1 },
        [SECTION_KNOB] = { "knob", true, knob_keys, ELEMENTSOF(knob_keys), _LEVER_MAX },
        [SECTION_CGROUP] = { "cgroup", true, cgroup_keys, ELEMENTSOF(cgroup_keys), FRAGD_MAX_CGROUPS },
        [SECTION_FLEET] = { "fleet", false, fleet_keys, ELEMENTSOF(fleet_keys), 1 },
        [SECTION_MATCH] = { "match", false, match_keys, ELEMENTSOF(match_keys), 0 },
};

_Static_assert(ELEMENTSOF(daemon_keys) + ELEMENTSOF(policy_keys) + ELEMENTSOF(knob_keys) * _LEVER_MAX +
                               ELEMENTSOF(cgroup_keys) * FRAGD_MAX_CGROUPS + ELEMENTSOF(fleet_keys) <=
                       CONFIG_MAX_SLOTS,
               "CONFIG_MAX_SLOTS too small");

/* The kernel's range of a lever, in the knob's unit: the sysctl's limits
 * (sources/, the one table); THP defrag is an enum of its mode words. */
static void lever_limits(int lever, int64_t *ret_lo, int64_t *ret_hi)
{
        char name[64];

        if (lever == LEVER_THP_DEFRAG) {
                *ret_lo = 0;
                *ret_hi = _THP_DEFRAG_MAX - 1;
                return;
        }
        snprintf(name, sizeof(name), "vm.%s", lever_name((Lever) lever));
        if (sysctl_kernel_range(name, ret_lo, ret_hi) < 0) {
                *ret_lo = 0; /* not reached: every vm lever is listed (test-sysctl) */
                *ret_hi = INT32_MAX;
        }
}
/* min_free_kbytes max as a share of memory: at most 10% (the kernel's own
 * THP recommendation stops at 5% of lowmem). */
#define MIN_FREE_MAX_PERMYRIAD 1000

int config_section_from_name(const char *name)
{
        for (int i = 0; i < _SECTION_MAX; i++)
                if (strcmp(sections[i].name, name) == 0)
                        return i;
        return -ENOENT;
}

const char *config_section_name(SectionKind s)
{
        return (unsigned) s < _SECTION_MAX ? sections[s].name : NULL;
}

bool config_section_has_sub(SectionKind s)
{
        return (unsigned) s < _SECTION_MAX && sections[s].sub;
}

const ConfigKey *config_keys(SectionKind s, size_t *ret_n)
{
        *ret_n = sections[s].n_keys;
        return sections[s].keys;
}

const ConfigKey *config_key_find(SectionKind s, const char *name)
{
        for (size_t i = 0; i < sections[s].n_keys; i++)
                if (strcmp(sections[s].keys[i].name, name) == 0)
                        return &sections[s].keys[i];
        return NULL;
}

const char *config_suggest(const char *name, const char *const *candidates, size_t n)
{
        const char *best = NULL;
        unsigned best_d = 3;

        for (size_t i = 0; i < n; i++) {
                unsigned d = config_edit_distance(name, candidates[i], 2);

                if (d < best_d) {
                        best_d = d;
                        best = candidates[i];
                }
        }
        return best;
}

const char *config_key_suggest(SectionKind s, const char *name)
{
        const char *names[32];
        size_t n = MIN(sections[s].n_keys, ELEMENTSOF(names));

        for (size_t i = 0; i < n; i++)
                names[i] = sections[s].keys[i].name;
        return config_suggest(name, names, n);
}

const char *config_section_suggest(const char *name)
{
        const char *names[_SECTION_MAX];

        for (size_t i = 0; i < _SECTION_MAX; i++)
                names[i] = sections[i].name;
        return config_suggest(name, names, _SECTION_MAX);
}

const char *config_lever_suggest(const char *name)
{
        const char *names[_LEVER_MAX];

        for (int i = 0; i < _LEVER_MAX; i++)
                names[i] = lever_name(i);
        return config_suggest(name, names, _LEVER_MAX);
}

unsigned config_key_slot(const ConfigKey *k, int sub)
{
        unsigned base = 0;

        for (int s = 0; s < (int) k->section; s++)
                base += (unsigned) (sections[s].n_keys * sections[s].instances);
        return base + (unsigned) (sub < 0 ? 0 : sub) * (unsigned) sections[k->section].n_keys +
               (unsigned) (k - sections[k->section].keys);
}

/* ---- storage ---- */

static void *dest(const ConfigKey *k, FragdConfig *c, int sub)
{
        switch (k->section) {
        case SECTION_KNOB:
                return (char *) &c->policy.lever[sub] + k->offset;
        case SECTION_CGROUP:
                return (char *) &c->cgroups[sub] + k->offset;
        default:
                return (char *) c + k->offset;
        }
}

static const void *cdest(const ConfigKey *k, const FragdConfig *c, int sub)
{
        return dest(k, (FragdConfig *) c, sub);
}

static void store_uint(void *p, size_t size, uint64_t v)
{
        if (size == sizeof(uint32_t)) {
                uint32_t v32 = (uint32_t) v;
                memcpy(p, &v32, sizeof(v32));
        } else {
                memcpy(p, &v, sizeof(v));
        }
}

static uint64_t load_uint(const void *p, size_t size)
{
        if (size == sizeof(uint32_t)) {
                uint32_t v32;
                memcpy(&v32, p, sizeof(v32));
                return v32;
        }
        uint64_t v;
        memcpy(&v, p, sizeof(v));
        return v;
}

/* ---- enums ---- */

static const char *const log_level_names[] = {
        [LOG_ERR] = "err", [LOG_WARNING] = "warning", [LOG_NOTICE] = "notice",
        [LOG_INFO] = "info", [LOG_DEBUG] = "debug",
};
static const char *const ownership_names[] = {
        [OWNERSHIP_RESPECT] = "respect",
        [OWNERSHIP_REASSERT] = "reassert",
};
static const char *const cgroup_thp_names[] = {
        [CGROUP_THP_INHERIT] = "inherit", [CGROUP_THP_ALWAYS] = "always",
        [CGROUP_THP_MADVISE] = "madvise", [CGROUP_THP_NEVER] = "never",
};

static int enum_lookup(const char *const *names, size_t n, const char *v)
{
        for (size_t i = 0; i < n; i++)
                if (names[i] && strcmp(names[i], v) == 0)
                        return (int) i;
        return -ENOENT;
}

static void enum_list(const char *const *names, size_t n, char *buf, size_t size)
{
        size_t len = 0;

        buf[0] = '\0';
        for (size_t i = 0; i < n; i++) {
                if (!names[i])
                        continue;
                int w = snprintf(buf + len, size - len, "%s%s", len ? ", " : "", names[i]);
                if (w < 0 || (size_t) w >= size - len)
                        break;
                len += (size_t) w;
        }
}

/* ---- range messages ---- */

static void format_bound(const ConfigKey *k, int64_t v, char *buf, size_t size)
{
        switch (k->type) {
        case VT_DURATION:
                format_duration_exact(buf, size, (usec_t) v);
                break;
        case VT_SIZE:
        case VT_RATIO:
                config_format_ratio(buf, size, (uint32_t) v);
                break;
        case VT_BYTES:
                format_bytes_exact(buf, size, (uint64_t) v);
                break;
        default:
                snprintf(buf, size, "%lld", (long long) v);
        }
}

static int range_error(const ConfigKey *k, int64_t lo, int64_t hi, char *err, size_t errsize)
{
        char a[32], b[32];

        format_bound(k, lo, a, sizeof(a));
        format_bound(k, hi, b, sizeof(b));
        snprintf(err, errsize, "out of range: allowed %s..%s%s", a, b, k->zero_ok && lo > 0 ? ", or 0" : "");
        return -ERANGE;
}

static const char *parse_error_text(int r)
{
        return r == -EDOM ? "more precise than the unit allows" : r == -ERANGE ? "too large" : NULL;
}

static int value_error(int r, const char *what, const char *value, const char *hint, char *err, size_t errsize)
{
        const char *t = parse_error_text(r);

        if (t)
                snprintf(err, errsize, "invalid %s '%s': %s", what, value, t);
        else
                snprintf(err, errsize, "invalid %s '%s'%s%s", what, value, hint ? ": " : "", hint ? hint : "");
        return r == -EDOM || r == -ERANGE ? r : -EBADMSG;
}

static bool path_valid(const char *v)
{
        const char *p = v;

        if (v[0] != '/')
                return false;
        /* no ".." component: every path is opened under the root */
        while ((p = strstr(p, "..")))
                if ((p == v || p[-1] == '/') && (p[2] == '/' || p[2] == '\0'))
                        return false;
                else
                        p += 2;
        return true;
}

bool config_instance_name_valid(const char *p)
{
        if (!*p || strlen(p) >= CONFIG_INSTANCE_TYPE_MAX)
                return false;
        for (; *p; p++)
                if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-", *p))
                        return false;
        return true;
}

#define NAME_CHARS "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-"

const char *config_match_pattern_check(const char *pattern, char *buf, size_t size)
{
        const char *p = pattern;

        if (!*p)
                return "empty";
        if (strlen(p) >= CONFIG_INSTANCE_TYPE_MAX) {
                snprintf(buf, size, "longer than %d characters", CONFIG_INSTANCE_TYPE_MAX - 1);
                return buf;
        }
        for (; *p; p++) {
                const char *set, *end;

                if (*p == '*' || *p == '?' || strchr(NAME_CHARS, *p))
                        continue;
                if (*p == ']' || *p == '!') {
                        /* literal there (fnmatch), and no name has one */
                        snprintf(buf, size, "'%c' at position %zu is outside [...], where it matches no name", *p,
                                 (size_t) (p - pattern) + 1);
                        return buf;
                }
                if (*p != '[') {
                        snprintf(buf, size, "letters, digits, '.', '-', '_' and glob characters * ? [ ] only");
                        return buf;
                }
                /* [set], [!set]; a ']' first is a member */
                set = p + 1 + (p[1] == '!');
                end = strchr(*set == ']' ? set + 1 : set, ']');
                if (!end) {
                        snprintf(buf, size, "the '[' at position %zu is never closed by ']': it would match "
                                 "only a literal '[', which no name has", (size_t) (p - pattern) + 1);
                        return buf;
                }
                for (const char *c = *set == ']' ? set + 1 : set; c < end; c++) {
                        if (!strchr(NAME_CHARS, *c)) {
                                snprintf(buf, size, "'%c' inside [...] at position %zu matches no name", *c,
                                         (size_t) (c - pattern) + 1);
                                return buf;
                        }
                        if (c[1] == '-' && c + 2 < end && c[2] < c[0]) {
                                snprintf(buf, size, "the range '%c-%c' in [...] is backwards: it matches nothing",
                                         c[0], c[2]);
                                return buf;
                        }
                }
                p = end;
        }
        return NULL;
}

int config_cgroup_path(const char *path, char *ret, size_t size, char *err, size_t errsize)
{
        const char *p = path, *why = NULL;

        while (*p == '/')
                p++;
        if (!*p) {
                snprintf(err, errsize, "empty cgroup path (the root cgroup is not a workload)");
                return -EINVAL;
        }
        if (strlen(p) >= size) {
                snprintf(err, errsize, "cgroup path longer than %zu characters", size - 1);
                return -EINVAL;
        }
        /* the name goes into JSON reports and Prometheus labels: a byte
         * there that is not UTF-8 makes node_exporter drop every metric */
        if (!text_printable(p, &why)) {
                snprintf(err, errsize, "cgroup path %s: write the directory name below /sys/fs/cgroup in UTF-8",
                         why);
                return -EINVAL;
        }
        for (const char *q = p; *q; q++)
                if (*q == '"' || *q == '\\') {
                        snprintf(err, errsize, "cgroup path '%s' contains a quote or backslash", p);
                        return -EINVAL;
                }
        /* reuse the absolute-path check for "..": prefix a '/' */
        char tmp[FRAGD_PATH_MAX + 1];
        snprintf(tmp, sizeof(tmp), "/%s", p);
        if (!path_valid(tmp) || strstr(p, "//") || p[strlen(p) - 1] == '/') {
                snprintf(err, errsize, "cgroup path '%s' must be a plain relative path without '..' or empty parts",
                         p);
                return -EINVAL;
        }
        snprintf(ret, size, "%s", p);
        return 0;
}

/* ---- lever values: the unit depends on the lever ---- */

static int apply_lever(const ConfigKey *k, FragdConfig *c, int lever, const char *value, char *err,
                       size_t errsize)
{
        bool is_step = k->type == VT_LEVER_STEP;
        bool is_max = strcmp(k->name, "max") == 0;
        int64_t lo, hi, v;
        int r;

        lever_limits(lever, &lo, &hi);
        if (is_step)
                hi -= lo, lo = 0;

        if (lever == LEVER_THP_DEFRAG && !is_step) {
                char names[96];

                r = thp_defrag_from_name(value);
                if (r < 0) {
                        for (int m = 0; m < _THP_DEFRAG_MAX; m++) {
                                size_t len = m ? strlen(names) : 0;
                                snprintf(names + len, sizeof(names) - len, "%s%s", m ? ", " : "",
                                         thp_defrag_name(m));
                        }
                        return value_error(-EBADMSG, "THP defrag mode", value, names, err, errsize);
                }
                v = r;
        } else if (lever == LEVER_MIN_FREE_KBYTES) {
                SizeSpec s;

                r = config_parse_size(value, &s);
                if (r < 0)
                        return value_error(r, "size", value, "use KiB, MiB, GiB (or % of memory for max)", err,
                                           errsize);
                if (s.permyriad > 0) {
                        if (!is_max) {
                                snprintf(err, errsize, "a share of memory ('%s') is only allowed for max", value);
                                return -EBADMSG;
                        }
                        if (s.permyriad > MIN_FREE_MAX_PERMYRIAD) {
                                char a[16];
                                snprintf(err, errsize, "out of range: allowed 0..%s of memory, or an absolute size",
                                         config_format_ratio(a, sizeof(a), MIN_FREE_MAX_PERMYRIAD));
                                return -ERANGE;
                        }
                        c->policy.lever[lever].max = 0;
                        c->policy.min_free_max_permyriad = s.permyriad;
                        return 0;
                }
                if (s.bytes % 1024 != 0) {
                        snprintf(err, errsize, "'%s' is not a whole number of KiB", value);
                        return -EDOM;
                }
                if (s.bytes / 1024 > (uint64_t) hi) {
                        char a[32];
                        snprintf(err, errsize, "out of range: allowed 0..%s",
                                 format_bytes_exact(a, sizeof(a), (uint64_t) hi * 1024));
                        return -ERANGE;
                }
                v = (int64_t) (s.bytes / 1024);
                if (is_max)
                        c->policy.min_free_max_permyriad = 0;
        } else {
                r = config_parse_int(value, &v);
                if (r < 0)
                        return value_error(r, "integer", value, NULL, err, errsize);
                if (v < lo || v > hi) {
                        snprintf(err, errsize, "out of range for %s: allowed %lld..%lld", lever_name(lever),
                                 (long long) lo, (long long) hi);
                        return -ERANGE;
                }
        }
        memcpy(dest(k, c, lever), &v, sizeof(v));
        return 0;
}

static char *format_lever(const ConfigKey *k, const FragdConfig *c, int lever, char *buf, size_t size)
{
        int64_t v;

        memcpy(&v, cdest(k, c, lever), sizeof(v));
        if (lever == LEVER_THP_DEFRAG && k->type == VT_LEVER_VALUE && thp_defrag_name((ThpDefragMode) v))
                snprintf(buf, size, "%s", thp_defrag_name((ThpDefragMode) v));
        else if (lever == LEVER_MIN_FREE_KBYTES && strcmp(k->name, "max") == 0 && v == 0 &&
                 c->policy.min_free_max_permyriad > 0)
                config_format_ratio(buf, size, c->policy.min_free_max_permyriad);
        else if (lever == LEVER_MIN_FREE_KBYTES)
                format_bytes_exact(buf, size, (uint64_t) v * 1024);
        else
                snprintf(buf, size, "%lld", (long long) v);
        return buf;
}

/* ---- the one apply function ---- */

int config_key_apply(const ConfigKey *k, FragdConfig *c, int sub, const char *value, char *err, size_t errsize)
{
        const char *why = NULL;
        void *p;
        int r;

        if (k->type == VT_LEVER_VALUE || k->type == VT_LEVER_STEP)
                return apply_lever(k, c, sub, value, err, errsize);
        if (k->type == VT_MATCH) {
                char b[160];

                why = config_match_pattern_check(value, b, sizeof(b));
                return why ? value_error(-EBADMSG, "pattern", value, why, err, errsize) : 0;
        }

        p = dest(k, c, sub);
        switch (k->type) {
        case VT_BOOL: {
                bool b;
                r = config_parse_bool(value, &b);
                if (r < 0)
                        return value_error(r, "boolean", value, "use yes/no, true/false, on/off or 1/0", err,
                                           errsize);
                memcpy(p, &b, sizeof(b));
                return 0;
        }
        case VT_DURATION: {
                usec_t u;
                r = config_parse_duration(value, &u);
                if (r < 0)
                        return value_error(r, "duration", value, "use a number with a unit: 500ms, 5s, 2min, 1h",
                                           err, errsize);
                if ((u < (usec_t) k->min && !(k->zero_ok && u == 0)) || u > (usec_t) k->max)
                        return range_error(k, k->min, k->max, err, errsize);
                store_uint(p, k->size, u);
                return 0;
        }
        case VT_SIZE: {
                SizeSpec s;
                r = config_parse_size(value, &s);
                if (r < 0)
                        return value_error(r, "size", value, "use B, KiB, MiB, GiB, TiB or % of node memory",
                                           err, errsize);
                if (s.bytes == 0 && (s.permyriad < k->min || s.permyriad > k->max))
                        return range_error(k, k->min, k->max, err, errsize);
                if (s.bytes > (uint64_t) TIB(1024)) {
                        snprintf(err, errsize, "out of range: allowed up to 1PiB or %u%%", (unsigned) k->max / 100);
                        return -ERANGE;
                }
                /* field by field into zeroed memory: padding stays zero, so
                 * configurations compare with memcmp() */
                SizeSpec clean;
                memset(&clean, 0, sizeof(clean));
                clean.bytes = s.bytes;
                clean.permyriad = s.permyriad;
                memcpy(p, &clean, sizeof(clean));
                return 0;
        }
        case VT_BYTES: {
                uint64_t b;
                r = config_parse_bytes(value, &b);
                if (r < 0)
                        return value_error(r, "size", value, "use B, KiB, MiB, GiB or TiB", err, errsize);
                if (b < (uint64_t) k->min || b > (uint64_t) k->max)
                        return range_error(k, k->min, k->max, err, errsize);
                memcpy(p, &b, sizeof(b));
                return 0;
        }
        case VT_RATIO: {
                uint32_t pm;
                r = config_parse_ratio(value, &pm);
                if (r == -ERANGE)
                        return range_error(k, k->min, k->max, err, errsize);
                if (r < 0)
                        return value_error(r, "ratio", value, "use 0.05 or 5%", err, errsize);
                if (pm < k->min || pm > k->max)
                        return range_error(k, k->min, k->max, err, errsize);
                memcpy(p, &pm, sizeof(pm));
                return 0;
        }
        case VT_RATE:
        case VT_NUMBER: {
                double d;
                r = k->type == VT_RATE ? config_parse_rate(value, &d) : config_parse_number(value, &d);
                if (r < 0)
                        return value_error(r, k->type == VT_RATE ? "rate" : "number", value,
                                           k->type == VT_RATE ? "use 0.5/s, 30/min or 2/h" : NULL, err, errsize);
                if (d < (double) k->min || d > (double) k->max) {
                        snprintf(err, errsize, "out of range: allowed %lld..%lld%s", (long long) k->min,
                                 (long long) k->max, k->type == VT_RATE ? " per second" : "");
                        return -ERANGE;
                }
                memcpy(p, &d, sizeof(d));
                return 0;
        }
        case VT_UINT: {
                uint64_t u;
                r = config_parse_uint(value, &u);
                if (r < 0)
                        return value_error(r, "unsigned integer", value, NULL, err, errsize);
                if ((u < (uint64_t) k->min && !(k->zero_ok && u == 0)) || u > (uint64_t) k->max)
                        return range_error(k, k->min, k->max, err, errsize);
                unsigned v = (unsigned) u;
                memcpy(p, &v, sizeof(v));
                return 0;
        }
        case VT_PATH:
                if (value[0] == '\0' && k->zero_ok) {
                        memset(p, 0, k->size);
                        return 0;
                }
                if (strlen(value) >= k->size) {
                        snprintf(err, errsize, "path longer than %zu characters", k->size - 1);
                        return -ERANGE;
                }
                /* the check the daemon makes when it opens the directory
                 * (knob_runtime_dir_relative, learned_store_path) */
                if (text_dir_relative(value, NULL, 0, &why) < 0) {
                        snprintf(err, errsize, "invalid directory '%s': %s; give an absolute path below '/'%s",
                                 value, why, k->zero_ok ? " (or leave it empty)" : "");
                        return -EBADMSG;
                }
                memset(p, 0, k->size);
                memcpy(p, value, strlen(value));
                return 0;
        case VT_INSTANCE:
                if (!config_instance_name_valid(value))
                        return value_error(-EBADMSG, "instance type", value,
                                           "auto, or letters, digits, '.', '-' and '_'", err, errsize);
                memset(p, 0, k->size);
                memcpy(p, value, strlen(value));
                return 0;
        case VT_PRESET:
        case VT_LOG_LEVEL:
        case VT_OWNERSHIP:
        case VT_CGROUP_THP: {
                const char *const *names;
                const char *pn[_PRESET_MAX];
                const char *what;
                char list[96];
                size_t n;
                int e;

                if (k->type == VT_PRESET) {
                        for (int i = 0; i < _PRESET_MAX; i++)
                                pn[i] = preset_name(i);
                        names = pn, n = _PRESET_MAX, what = "preset";
                } else if (k->type == VT_LOG_LEVEL)
                        names = log_level_names, n = ELEMENTSOF(log_level_names), what = "log level";
                else if (k->type == VT_OWNERSHIP)
                        names = ownership_names, n = ELEMENTSOF(ownership_names), what = "ownership mode";
                else
                        names = cgroup_thp_names, n = ELEMENTSOF(cgroup_thp_names), what = "THP mode";
                e = enum_lookup(names, n, value);
                if (e < 0) {
                        enum_list(names, n, list, sizeof(list));
                        char hint[128];
                        snprintf(hint, sizeof(hint), "one of %s", list);
                        return value_error(-EBADMSG, what, value, hint, err, errsize);
                }
                memcpy(p, &e, sizeof(e)); /* enums and int are the same size here */
                return 0;
        }
        default:
                snprintf(err, errsize, "internal error: key without a parser");
                return -EINVAL;
        }
}

char *config_key_format(const ConfigKey *k, const FragdConfig *c, int sub, char *buf, size_t size)
{
        const void *p;

        if (k->type == VT_LEVER_VALUE || k->type == VT_LEVER_STEP)
                return format_lever(k, c, sub, buf, size);
        if (k->type == VT_MATCH) {
                buf[0] = '\0';
                return buf;
        }
        p = cdest(k, c, sub);
        switch (k->type) {
        case VT_BOOL: {
                bool b;
                memcpy(&b, p, sizeof(b));
                snprintf(buf, size, "%s", b ? "yes" : "no");
                break;
        }
        case VT_DURATION:
                format_duration_exact(buf, size, load_uint(p, k->size));
                break;
        case VT_SIZE: {
                SizeSpec s;
                memcpy(&s, p, sizeof(s));
                config_format_size(buf, size, s);
                break;
        }
        case VT_BYTES:
                format_bytes_exact(buf, size, load_uint(p, sizeof(uint64_t)));
                break;
        case VT_RATIO:
                config_format_ratio(buf, size, (uint32_t) load_uint(p, sizeof(uint32_t)));
                break;
        case VT_RATE:
        case VT_NUMBER: {
                double d;
                memcpy(&d, p, sizeof(d));
                if (k->type == VT_RATE)
                        config_format_rate(buf, size, d);
                else
                        config_format_number(buf, size, d);
                break;
        }
        case VT_UINT: {
                unsigned u;
                memcpy(&u, p, sizeof(u));
                snprintf(buf, size, "%u", u);
                break;
        }
        case VT_PATH:
        case VT_INSTANCE:
                snprintf(buf, size, "%s", (const char *) p);
                break;
        case VT_PRESET:
        case VT_LOG_LEVEL:
        case VT_OWNERSHIP:
        case VT_CGROUP_THP: {
                int e;
                const char *name = NULL;
                memcpy(&e, p, sizeof(e));
                if (k->type == VT_PRESET)
                        name = preset_name(e);
                else if (k->type == VT_LOG_LEVEL)
                        name = e >= 0 && (size_t) e < ELEMENTSOF(log_level_names) ? log_level_names[e] : NULL;
                else if (k->type == VT_OWNERSHIP)
                        name = e >= 0 && (size_t) e < ELEMENTSOF(ownership_names) ? ownership_names[e] : NULL;
                else
                        name = e >= 0 && (size_t) e < ELEMENTSOF(cgroup_thp_names) ? cgroup_thp_names[e] : NULL;
                snprintf(buf, size, "%s", name ? name : "?");
                break;
        }
        default:
                buf[0] = '\0';
        }
        return buf;
}

_Static_assert(sizeof(Preset) == sizeof(int) && sizeof(OwnershipMode) == sizeof(int) &&
                       sizeof(CgroupThp) == sizeof(int),
               "enum keys are stored as int");
