/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* The state file behind `fragd status` (daemon/output/status.c):
 * <root>/<runtime_dir>/status, written atomically (tmp + rename), 0644.
 *
 *   fragd-status 1
 *   pid <pid> <starttime>
 *   updated <CLOCK_REALTIME usec>
 *   ownership respect|reassert
 *   ops real|dryrun|fake
 *   owned<TAB>knob<TAB>original<TAB>current<TAB>since_usec
 *   unrestored<TAB>knob<TAB>original<TAB>current<TAB>ERRNO<TAB>message
 *   yielded<TAB>knob<TAB>original<TAB>other party's value<TAB>since_usec
 *   disabled<TAB>knob<TAB>ERRNO<TAB>message
 *   cgroup<TAB>path<TAB>present|absent<TAB>thp mechanism<TAB>thp effect<TAB>stall
 *   decision<TAB>text
 *   state running|paused
 *   instance<TAB>name<TAB>source<TAB>cloud<TAB>fleet file<TAB>preset
 *   cadence<TAB>interval<TAB>[daemon] interval<TAB>active_interval<TAB>watching 0|1<TAB>on pressure 0|1<TAB>next tick
 *   reserve<TAB>node<TAB>order<TAB>free bytes at or above order<TAB>target bytes<TAB>learned 0|1
 *   learned<TAB>need bytes<TAB>peak bytes<TAB>peak age usec
 *   change<TAB>time<TAB>knob<TAB>from<TAB>to<TAB>reason<TAB>applied|paused|dry-run
 *
 * "current" of an owned knob is the value fragd last wrote and read back.
 * An unrestored line follows the owned line of a knob whose last restore
 * (on `fragd pause`) failed, with that error; a write clears it.
 * cgroup lines: one per watched cgroup, in configuration order; path "/" is
 * the root cgroup; mechanism and effect are thp_mechanism_name() and
 * thp_effect_name() ("collapse", "in-effect"); stall is the text of
 * workload_stall_text() (the last minute of direct compaction/reclaim).
 * Decision lines are the caller's text, newest last; in every text field
 * a tab or newline becomes a space, and any other control character (C0,
 * DEL, C1) or byte that is not UTF-8 a '?' (text_scrub()); a name or
 * value field is cut at 256 bytes, a sentence (decision, held, info) at
 * STATUS_FIELD_MAX. Times (updated,
 * next tick, change) are CLOCK_REALTIME microseconds; durations
 * microseconds; "-" stands for an empty field. The lines from "state" on
 * carry what `fragd status --format json` prints (status-json.c); change
 * lines are the recent decisions as data, newest last. A reader skips
 * line tags it does not know. The first two lines, the head that names the
 * owner, are written and read by knobs/ (knob_status_head_write(),
 * knob_status_owner()): the runtime-dir check there reads them too. */

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "fragd/policy.h"
#include "knobs/knob.h"

/* The longest field the writer keeps (a decision with its timestamp, a held
 * sentence, an info line; longer ones are cut) and the longest line the
 * readers take whole */
#define STATUS_FIELD_MAX (DECISION_TEXT_MAX + 64)
#define STATUS_LINE_MAX (2 * STATUS_FIELD_MAX)

#define STATUS_DECISIONS_MAX 64
#define STATUS_CGROUPS_MAX 16 /* FRAGD_MAX_CGROUPS */

/* A watched cgroup as the status file shows it. */
typedef struct StatusCgroup {
        const char *path;      /* "" or "/" for the root cgroup */
        bool present;
        const char *mechanism; /* NULL: "-" */
        const char *effect;    /* NULL: "-" */
        const char *stall;     /* NULL: "-" */
} StatusCgroup;

#define STATUS_CHANGES_MAX 32
#define STATUS_RESERVES_MAX 128 /* FRAGD_MAX_NODES x 2 target orders */

/* Status file schema; `fragd status --format json` prints it as
 * "schema_version" (docs/fragd.8). A rename or removal of a key bumps it. */
#define STATUS_JSON_SCHEMA 1

/* A node's reserve at one target order, as the last decision saw it. */
typedef struct StatusReserve {
        int node;
        unsigned order;
        uint64_t have_bytes;   /* free memory in blocks of at least order */
        uint64_t target_bytes;
        bool learned;          /* the learned need set the target */
} StatusReserve;

/* One recent decision on a knob, as data. outcome: "applied", "paused"
 * (computed while paused, not applied), "dry-run". */
typedef struct StatusChange {
        uint64_t realtime_usec;
        const char *knob, *from, *to, *reason, *outcome;
} StatusChange;

/* A knob the policy wants to move and a hold stops (policy_hold_shown()):
 * hold's name and the sentence saying why. */
typedef struct StatusHeld {
        const char *knob, *hold, *explanation;
} StatusHeld;

/* Everything the daemon writes besides the registry's knobs. */
typedef struct StatusData {
        const char *const *info; /* free text under the header */
        size_t n_info;
        const char *const *decisions; /* text, newest last */
        size_t n_decisions;
        const StatusCgroup *cgroups;
        size_t n_cgroups;
        bool have_state;         /* false: no state/instance/cadence lines (tests, old writers) */
        bool paused;
        const char *instance, *instance_source, *cloud, *fleet_file, *preset; /* NULL: "-" */
        uint64_t interval_usec, base_interval_usec, active_interval_usec, next_tick_realtime_usec;
        bool watching, on_pressure;
        const StatusReserve *reserves;
        size_t n_reserves;
        bool have_learned;
        uint64_t learned_need_bytes, learned_peak_bytes, learned_age_usec;
        const StatusChange *changes; /* newest last; the last STATUS_CHANGES_MAX kept */
        size_t n_changes;
        const StatusHeld *held; /* the holds in force at the last tick */
        size_t n_held;
} StatusData;

int status_write_data(const KnobRegistry *reg, const StatusData *d);

/* Writes the status file from the registry, the watched cgroups (up to
 * STATUS_CGROUPS_MAX) and the last decisions (up to STATUS_DECISIONS_MAX,
 * the last ones are kept). */
int status_write(const KnobRegistry *reg, const char *const *decisions, size_t n_decisions,
                 const StatusCgroup *cgroups, size_t n_cgroups);
/* The same, with free-text "info" lines (instance type, preset, fleet file)
 * that `fragd status` prints under its header. */
int status_write_info(const KnobRegistry *reg, const char *const *info, size_t n_info,
                      const char *const *decisions, size_t n_decisions, const StatusCgroup *cgroups,
                      size_t n_cgroups);
/* The same without cgroups. */
int knob_status_write(const KnobRegistry *reg, const char *const *decisions, size_t n_decisions);

/* Removes the status file on a clean stop (after knob_restore_all), so
 * `fragd status` says "not running" instead of "stale". 0 when missing. */
int knob_status_remove(const KnobRegistry *reg);

/* Prints the status file for a person. Returns 0 when fragd is running;
 * -ENOENT when there is no state (prints "fragd is not running"); -ESRCH
 * when the file was left by a process that is gone (stale: also "fragd is
 * not running"); -EUCLEAN when fragd is not running and the knob journal
 * still holds knobs it changed (listed with original, fragd's value and the
 * value now), cannot be fully read, or a journal moved aside
 * (saved.corrupt*) is waiting: it then says to run `fragd --restore`;
 * -EBADMSG when the status file cannot be read; -ENODATA when the status
 * file is missing, stale or incomplete but a fragd answers on its control
 * socket (status_unlisted()). Paused with knobs it could not hand back, it
 * lists them first, each with the error of its restore. run_status() maps
 * -ENOENT and -ESRCH to exit status 4, -EUCLEAN to 5, -ENODATA to 1. */
/* Whether a fragd listens on the control socket of runtime_dir, asked
 * when the status file shows none: 1 yes, 0 no, -errno when it cannot be
 * told (control_probe(); NULL: never asked). */
typedef int (*StatusProbe)(const Root *root, const char *runtime_dir);
int status_print(const Root *root, const char *runtime_dir, StatusProbe probe, FILE *out);

/* What a fragd that is not running left behind, from the knob journal
 * under runtime_dir rt (relative): its entries with the value each knob
 * has now (now_ptr[i] NULL: unreadable), whether the journal cannot be
 * fully read, a journal moved aside. A journal whose owner lives counts as
 * nothing left. -EUCLEAN when something is left, else 0. */
typedef struct StatusLeftChanged {
        Journal j;
        int r;                 /* knob_journal_read()'s return */
        bool owner_alive;
        bool unreadable;
        char now[KNOB_MAX][KNOB_VALUE_MAX];
        const char *now_ptr[KNOB_MAX];
        char aside[FRAGD_PATH_MAX + 48]; /* "" when none */
} StatusLeftChanged;
int status_left_collect(const Root *root, const char *rt, StatusLeftChanged *ret);

/* The status file under runtime_dir shows no running fragd: it is
 * missing, or what describes it ("was left by pid 12, which is gone").
 * Whether a fragd answers on the control socket anyway (probe):
 * 1 yes, with the sentence for a person in ret (running, the status file
 * is not its own, why it may be); 0 no (ret ""); -errno when that cannot be
 * checked, with a sentence naming the socket and the error. */
int status_unlisted(const Root *root, const char *runtime_dir, StatusProbe probe, const char *what, char *ret,
                    size_t size);

/* The pid of the fragd whose status file is under rt (relative), when that
 * process lives (same start time): 1 and *ret_pid; 0 when the file is
 * missing, not a status file, or its process gone; -errno when it cannot
 * be read. */
int status_daemon_alive(const Root *root, const char *rt, pid_t *ret_pid);

/* The same as JSON (daemon/output/status-json.c; keys in docs/fragd.8, the
 * key set pinned by tests/golden/status-json-keys.txt). Same returns. */
int status_print_json(const Root *root, const char *runtime_dir, StatusProbe probe, FILE *out);

/* The JSON of a status file's text, whose daemon is in state ("running",
 * "paused", "stopped", "crashed"): pure, for tests and the fuzzer. buf may
 * be NULL (no status file). left: the knobs a dead fragd left changed
 * (status_left_collect()) or NULL. problem: what is wrong with the status
 * file (status_unlisted()), or NULL. */
void status_json_render(const char *buf, size_t len, const char *state, bool pause_requested,
                        const StatusLeftChanged *left, const char *problem, FILE *out);

/* The pause flag file <root>/<runtime_dir>/paused (status.c): written by
 * the daemon on `fragd pause`, removed on `fragd resume`; a restart or a
 * reload keeps the pause while it exists (runtime_dir is on tmpfs: a
 * reboot clears it). status_pause_write() with paused false removes it.
 * status_pause_read(): 1 paused, 0 not, -errno when it cannot be read (a
 * symlink: -ELOOP, and the daemon stays paused to be safe). Removing
 * never follows a symlink: a link, FIFO or socket at the name is removed
 * itself; a directory is not (-EISDIR from both, as from a write). */
int status_pause_write(const Root *root, const char *runtime_dir, bool paused);
int status_pause_read(const Root *root, const char *runtime_dir);
