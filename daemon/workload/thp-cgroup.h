/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* Per-cgroup THP (daemon/workload/thp-cgroup.c). Mainline 6.18 has no per-cgroup THP
 * switch (KERNEL.md §8), so fragd builds the intent from what is real and
 * reports, per cgroup, which mechanism is in effect:
 *
 *   "collapse"           thp=always + collapse=yes: process_madvise(MADV_COLLAPSE)
 *                        on the members' large anonymous/shmem ranges in calm
 *                        periods, within a CPU budget per minute and a byte cap
 *                        per tick, on a worker thread.
 *   "systemd-memorythp"  thp=never|madvise on a systemd unit whose systemd has
 *                        MemoryTHP= (drop-in; applies at the next start).
 *   "launcher"           thp=never|madvise otherwise: a drop-in that wraps
 *                        ExecStart= with fragd-thp-exec (prctl before exec;
 *                        applies at the next start).
 *   "none"               thp=inherit, or thp=always without collapse: the
 *                        global sysfs mode governs.
 *
 * Running processes keep their mode until restarted; the status says so by
 * counting members whose /proc/PID/status THP_enabled matches the intent.
 * A future kernel per-cgroup or BPF policy is one more ThpMechanismOps. */

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "fragd/budget.h"
/* config.h on main still opens a comment inside a comment (fixed on the config
 * branch); keep this build warning-free until that lands */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wcomment"
#include "config/config.h"
#pragma GCC diagnostic pop
#include "core/root.h"
#include "core/unit-name.h"

/* ---- smaps candidates (pure) ---------------------------------------------- */

typedef enum SmapsKind {
        SMAPS_ANON,  /* private anonymous: heap, unnamed, [anon:NAME] */
        SMAPS_SHMEM, /* shared anonymous / SysV / memfd / /dev/shm */
} SmapsKind;

typedef struct SmapsRange {
        uint64_t start, end;         /* the huge-page-aligned part of the VMA */
        uint64_t vma_start, vma_end;
        SmapsKind kind;
        uint64_t rss, huge;          /* bytes; huge = AnonHugePages + ShmemPmdMapped */
        uint64_t gain;               /* rss - huge: resident, not yet huge */
        bool advised;                /* VmFlags "hg" (MADV_HUGEPAGE) */
} SmapsRange;

typedef struct SmapsSummary {
        unsigned n_vmas;
        unsigned n_candidates;       /* before the cap */
        unsigned skipped_nohugepage; /* VmFlags "nh" */
        unsigned skipped_huge;       /* already fully huge */
        unsigned skipped_sparse;     /* resident share below the filter */
        unsigned skipped_small;      /* no aligned huge page inside */
        uint64_t anon_rss, anon_huge, shmem_rss, shmem_huge; /* bytes, eligible kinds */
} SmapsSummary;

typedef struct SmapsFilter {
        uint64_t hpage_size;            /* bytes, 2 MiB on x86-64 (hpage_pmd_size) */
        uint32_t min_resident_permille; /* skip sparse ranges: MADV_COLLAPSE fills
                                           every missing pte, so a sparse range bloats */
} SmapsFilter;

#define SMAPS_FILTER_DEFAULT ((SmapsFilter) { .hpage_size = 2u << 20, .min_resident_permille = 500 })

/* Pure. Candidates sorted by gain (largest first), at most cap (the largest
 * kept). -EBADMSG for a malformed header or field line. */
int smaps_parse_candidates(const char *buf, size_t len, const SmapsFilter *f, SmapsRange *ranges,
                           unsigned cap, unsigned *ret_n, SmapsSummary *ret_sum);

/* Pure. "THP_enabled:\t0" in /proc/PID/status: 1 enabled, 0 disabled by
 * prctl (completely), -ENODATA when the line is absent (before 6.? kernels). */
int proc_status_thp_enabled(const char *buf, size_t len);

/* ---- collapse engine --------------------------------------------------------- */

#define COLLAPSE_MAX_FAILURES 16
#define COLLAPSE_MAX_PIDS 4096

typedef enum CollapseErrClass {
        COLLAPSE_ERR_EAGAIN,  /* transient: page locked, lru isolation */
        COLLAPSE_ERR_EBUSY,   /* memcg charge failed */
        COLLAPSE_ERR_ENOMEM,  /* no huge page could be allocated (fragmented) */
        COLLAPSE_ERR_EINVAL,  /* not eligible: VM_NOHUGEPAGE, prctl-disabled, ... */
        COLLAPSE_ERR_PERM,    /* EPERM/EACCES: no CAP_SYS_NICE or ptrace access */
        COLLAPSE_ERR_GONE,    /* ESRCH: the process exited */
        COLLAPSE_ERR_OTHER,
        _COLLAPSE_ERR_MAX,
} CollapseErrClass;

const char *collapse_err_class_name(CollapseErrClass c); /* "enomem" */
CollapseErrClass collapse_err_class(int err);            /* -errno or errno */

typedef struct CollapseFailure {
        int32_t pid;
        uint64_t start, len;
        int err; /* -errno of the range (last failing huge page) */
} CollapseFailure;

typedef struct CollapseRequest {
        unsigned cgroup_index;         /* echoed in the result */
        size_t n_pids;
        int32_t pids[COLLAPSE_MAX_PIDS];
        uint64_t max_bytes;            /* per-tick cap on bytes attempted */
        usec_t cpu_budget_usec;        /* CPU time allowed for this run (caller:
                                          budget_remaining() of its per-minute window) */
        SmapsFilter filter;
        /* Where the previous run stopped (from its result): start with this
         * pid when it is in pids[], at this address; 0 = from the start. A
         * run capped by max_bytes or the CPU budget would otherwise begin
         * again at the first range each time, and the kernel reports ranges
         * that are already huge as collapsed, so it would never get further. */
        int32_t resume_pid;
        uint64_t resume_addr;
} CollapseRequest;

typedef struct CollapseResult {
        unsigned cgroup_index;
        int err;                       /* whole-run error (-EPERM: cannot collapse at all) */
        uint64_t attempted_bytes, collapsed_bytes; /* collapsed: huge pages the kernel reported done */
        uint64_t huge_before, huge_after; /* smaps huge bytes of the touched processes */
        unsigned pids_scanned, ranges_ok, ranges_failed;
        uint64_t hpages_failed;
        uint64_t err_counts[_COLLAPSE_ERR_MAX];
        usec_t cpu_usec;               /* thread CPU time spent (charged to fragd) */
        bool stopped_budget, stopped_cap, stopped_cancel;
        /* the first huge page not attempted when the run stopped early (pass
         * them as resume_pid/resume_addr next time); 0 when it went through
         * every pid, so the next run starts over */
        int32_t next_pid;
        uint64_t next_addr;
        unsigned n_failures;
        CollapseFailure failures[COLLAPSE_MAX_FAILURES];
} CollapseResult;

/* What the engine needs from the system: real syscalls, or fakes in tests. */
typedef struct CollapseOps {
        int (*pidfd_open)(void *userdata, int32_t pid);                   /* fd or -errno */
        int (*collapse)(void *userdata, int pidfd, uint64_t start, uint64_t len); /* 0 or -errno */
        int (*read_smaps)(void *userdata, int32_t pid, char **ret_buf, size_t *ret_len);
        usec_t (*cpu_now)(void *userdata);                                 /* thread CPU time */
        void (*close_fd)(void *userdata, int fd);
        void *userdata;
} CollapseOps;

/* The real ones: pidfd_open(2), process_madvise(2) with MADV_COLLAPSE (25),
 * <root>/proc/PID/smaps, CLOCK_THREAD_CPUTIME_ID. userdata: const Root *. */
extern const CollapseOps collapse_ops_real;

/* Synchronous core: for each pid (in order) read smaps, collapse the
 * candidates huge page by huge page (so every failure has its errno and the
 * budget is checked between pages), stop at the byte cap or when the CPU
 * budget is spent or *cancel becomes true, re-read smaps of touched
 * processes for huge_after. Blocks: never call on the event loop thread. */
int collapse_run(const CollapseOps *ops, const CollapseRequest *req, const volatile bool *cancel,
                 CollapseResult *ret);

/* A worker thread running one request at a time.
 * sd-event wiring: sd_event_add_io(e, NULL, collapse_worker_fd(w), EPOLLIN, cb, w);
 * cb: while (collapse_worker_result(w, &res) > 0) { account res (collapsed
 * bytes, failures, cpu_usec into the cgroup's BudgetWindow) }.
 * Submit from the tick when the cgroup is calm: collapse_worker_submit()
 * returns -EBUSY while a run is in progress (bounded per tick, so the next
 * tick retries). */
typedef struct CollapseWorker CollapseWorker;

int collapse_worker_new(const CollapseOps *ops, CollapseWorker **ret);
CollapseWorker *collapse_worker_free(CollapseWorker *w); /* cancels and joins */
int collapse_worker_fd(const CollapseWorker *w);          /* eventfd: EPOLLIN when a result is ready */
int collapse_worker_submit(CollapseWorker *w, const CollapseRequest *req);
int collapse_worker_result(CollapseWorker *w, CollapseResult *ret); /* 1 taken, 0 none */
bool collapse_worker_busy(CollapseWorker *w);

/* Can this process collapse other processes' memory? (CAP_SYS_NICE) */
bool collapse_capable(void);

/* ---- mechanisms --------------------------------------------------------------- */

typedef enum ThpMechanism {
        THP_MECH_NONE,
        THP_MECH_COLLAPSE,
        THP_MECH_LAUNCHER,
        THP_MECH_SYSTEMD_MEMORYTHP,
        _THP_MECH_MAX,
} ThpMechanism;

/* systemd gained MemoryTHP= (values inherit|disable|madvise) in the release
 * after 258 (PR systemd/systemd#39085, merged early 2026). Older systemd
 * rejects the unknown key with a warning and ignores it, so fragd only emits
 * it when the detected version is at least this. */
#define SYSTEMD_MEMORYTHP_MIN_VERSION 259

typedef struct ThpEnv {
        unsigned systemd_version;       /* 0 unknown/none */
        bool kernel_except_advised;     /* PR_THP_DISABLE_EXCEPT_ADVISED accepted (6.18+) */
        bool can_collapse;              /* CAP_SYS_NICE */
        char launcher_path[256];
} ThpEnv;

typedef enum ThpEffect {
        THP_EFFECT_NOT_APPLICABLE, /* no intent (inherit) */
        THP_EFFECT_IN_EFFECT,      /* every member observed in the intended mode */
        THP_EFFECT_PARTIAL,        /* some members are (others started before the change) */
        THP_EFFECT_NOT_IN_EFFECT,  /* none is: restart the unit / collapse not running */
        THP_EFFECT_UNKNOWN,        /* nothing to observe (no members, no THP_enabled line) */
} ThpEffect;

const char *thp_effect_name(ThpEffect e); /* "in-effect" */

/* What fragd observed for the cgroup this tick. */
typedef struct ThpObserved {
        bool present;
        unsigned n_procs;
        unsigned procs_thp_disabled;  /* THP_enabled: 0 */
        unsigned procs_thp_enabled;   /* THP_enabled: 1 (also except-advised mode) */
        unsigned procs_unknown;
        bool have_mem;
        uint64_t anon, anon_thp, shmem_thp, file_thp; /* memory.stat bytes */
        uint64_t collapsed_bytes_total; /* from the collapse engine */
        bool collapse_running;
} ThpObserved;

typedef struct ThpStatus {
        ThpMechanism mechanism;
        const char *mechanism_name;
        CgroupThp intent;
        ThpEffect effect;
        uint32_t anon_thp_permille;   /* anon_thp / anon, from memory.stat */
        char detail[256];             /* one sentence for the operator */
} ThpStatus;

typedef struct ThpMechanismOps {
        ThpMechanism id;
        const char *name;
        /* can this mechanism realize (thp, collapse) for the cgroup here? */
        bool (*applicable)(const ThpEnv *env, CgroupThp thp, bool collapse, const char *cgroup_path);
        /* judge from observations whether the intent is in effect */
        void (*assess)(const ThpEnv *env, CgroupThp thp, const ThpObserved *obs, ThpStatus *ret);
} ThpMechanismOps;

const ThpMechanismOps *thp_mechanism_ops(ThpMechanism m);
const char *thp_mechanism_name(ThpMechanism m);   /* "collapse", "launcher", ... */
const char *cgroup_thp_name(CgroupThp t);         /* "inherit", "always", "madvise", "never" */
/* First applicable of: systemd-memorythp, launcher, collapse; else none. Pure. */
const ThpMechanismOps *thp_mechanism_select(const ThpEnv *env, CgroupThp thp, bool collapse, const char *cgroup_path);
/* select + assess. Pure. */
void thp_cgroup_status(const ThpEnv *env, CgroupThp thp, bool collapse, const char *cgroup_path,
                       const ThpObserved *obs, ThpStatus *ret);

/* ---- drop-ins and the environment ---------------------------------------------- */

/* Pure. "systemd 252 (252.39-1~deb12u2)" -> 252. -EBADMSG otherwise. */
int systemd_version_parse(const char *buf, size_t len, unsigned *ret);
/* Runs `systemctl --version` (no shell). -ENOENT when systemctl is missing. */
int systemd_version_detect(unsigned *ret);
/* Tries prctl(PR_SET_THP_DISABLE, 1, PR_THP_DISABLE_EXCEPT_ADVISED) in a
 * short-lived child (the flag is per-mm; fragd's own is never touched). */
bool thp_except_advised_supported(void);
/* Fills env: systemd version, kernel support, CAP_SYS_NICE, launcher path. */
void thp_env_detect(ThpEnv *env, const char *launcher_path);

/* The unit of a cgroup path: "system.slice/postgresql@15-main.service" ->
 * "postgresql@15-main.service"; -EINVAL when the last component is not a
 * valid unit name (unit_name_parse). */
int cgroup_unit_name(const char *cgroup_path, char *ret, size_t size);

/* Pure. One ExecStart= command line from systemd's (path, argv,
 * ignore_failure): "-" prefix when failures are ignored, argv[0] replaced by
 * path, arguments quoted for unit files ('%' -> "%%", '$' -> "$$", quotes and
 * backslashes escaped inside "...", a newline as \n and other control
 * characters as \xNN, so no byte of an argument ends the line). -ENOBUFS
 * when it does not fit. */
int exec_command_render(const char *path, const char *const *argv, size_t argc, bool ignore_failure,
                        char *buf, size_t size);

/* Renders the drop-in (e.g. /etc/systemd/system/<unit>.d/50-fragd-thp.conf)
 * for thp = never|madvise into buf. Pure.
 *   systemd_version >= SYSTEMD_MEMORYTHP_MIN_VERSION: [Service] MemoryTHP=disable|madvise
 *   else: ExecStart= reset, then every original command wrapped:
 *         ExecStart=<prefix><launcher> --mode never -- <argv...>
 *         (exec_start: the unit's ExecStart command lines as systemd shows
 *          them, one per entry, prefixes like '-' or '@' kept in front)
 * -EINVAL for thp inherit/always, -ENODATA when the launcher form is needed
 * but no ExecStart is known, -ENOBUFS when buf is too small. ret_mech gets
 * the mechanism the drop-in uses. */
int thp_dropin_render(const char *unit, CgroupThp thp, unsigned systemd_version, const char *launcher_path,
                      const char *const *exec_start, size_t n_exec_start, char *buf, size_t size,
                      ThpMechanism *ret_mech);
/* The launcher's program name, as drop-ins run it. */
#define THP_LAUNCHER_NAME "fragd-thp-exec"

/* Pure. Takes fragd-thp-exec off the head of a command (path, argv[argc]
 * as systemd shows it: argv[0] the launcher): what follows its "--" becomes
 * the command, again while it starts with the launcher. Returns how many
 * were taken off; a launcher with no command after "--" is left as it is.
 * Run over a unit whose drop-in already wraps ExecStart=, a new drop-in
 * then replaces the mode instead of wrapping the launcher again. */
size_t thp_launcher_unwrap(const char **path, const char *const **argv, size_t *argc);

/* Pure. Whether a service runs nothing a THP mode could matter for: every
 * ExecStart= program is true or false (/bin/true, /usr/bin/true), or there
 * is none and service_type (systemd's Type=) is "oneshot". Debian's
 * postgresql.service is such an umbrella: Type=oneshot, ExecStart=/bin/true;
 * the server runs in postgresql@15-main.service. */
bool unit_exec_is_placeholder(const char *service_type, const char *const *paths, size_t n);

/* Pure. Why a drop-in for the umbrella u is refused, and which units to
 * name instead: its instances ('fragd thp-dropin UNIT MODE' each, UNIT
 * shell-quoted) or, when none is known, the pattern <prefix>@*.<type>.
 * Returns the length, or -ENOBUFS (the text cut short). */
int thp_dropin_umbrella_explain(const UnitName *u, const char *mode, const char *service_type,
                                const char *const *paths, size_t n_paths, const char *const *instances,
                                size_t n_instances, char *buf, size_t size);

/* `fragd thp-dropin <unit> <mode>`: checks the name (unit_name_parse; a
 * .service), detects the systemd version, asks systemd over D-Bus for the
 * unit's load state, Type= and ExecStart= (the launcher taken off, see
 * thp_launcher_unwrap), refuses a unit that runs nothing, and prints the
 * drop-in to f. Returns 0 or -errno, with why (always NUL-terminated) saying
 * what was wrong when it can: -EINVAL for a mode other than never|madvise, a
 * name systemd would not take, a unit that is not a service, a template
 * where ExecStart= is needed; -ENOTCONN when ExecStart= is needed and there
 * is no system bus to ask; -ENODATA when systemd has no such unit or no
 * ExecStart= for it; -ENOEXEC for an umbrella (unit_exec_is_placeholder).
 * main() maps them to exit codes. */
int thp_dropin_print(const char *unit, const char *mode, const char *launcher_path, FILE *f, char *why,
                     size_t why_size);
