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
 *   yielded<TAB>knob<TAB>original<TAB>other party's value<TAB>since_usec
 *   disabled<TAB>knob<TAB>ERRNO<TAB>message
 *   cgroup<TAB>path<TAB>present|absent<TAB>thp mechanism<TAB>thp effect<TAB>stall
 *   decision<TAB>text
 *
 * "current" of an owned knob is the value fragd last wrote and read back.
 * cgroup lines: one per watched cgroup, in configuration order; path "/" is
 * the root cgroup; mechanism and effect are thp_mechanism_name() and
 * thp_effect_name() ("collapse", "in-effect"); stall is the text of
 * workload_stall_text() (the last minute of direct compaction/reclaim).
 * Decision lines are the caller's text, newest last; tabs and control
 * characters in them (and in cgroup fields) become spaces. A reader skips
 * line tags it does not know. The first two lines, the head that names the
 * owner, are written and read by knobs/ (knob_status_head_write(),
 * knob_status_owner()): the runtime-dir check there reads them too. */

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "knobs/knob.h"

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
 * -EBADMSG when the status file cannot be read. run_status() maps -ENOENT
 * and -ESRCH to exit status 4, -EUCLEAN to 5. */
int status_print(const Root *root, const char *runtime_dir, FILE *out);
