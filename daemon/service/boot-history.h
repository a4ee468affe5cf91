/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* What the kernel counted since boot, for the first reserve of a fresh
 * fragd (issue 14 item 5; docs/policy.md "The first burst"): the THP fault
 * counters of the observation's /proc/vmstat and the uptime from
 * <root>/proc/uptime. policy_learned_from_boot() sizes the reserve. */

#include <stdbool.h>
#include <stddef.h>

#include "core/root.h"
#include "fragd/obs.h"
#include "fragd/policy.h"

/* "12345.67 4567.89\n" (seconds since boot, idle seconds): the first field
 * in microseconds. 0, or -EINVAL for anything else (a field that is not a
 * decimal number with at most two decimals, or 0). */
int boot_uptime_parse(const char *text, usec_t *ret);

/* The counters since boot from cur (its vmstat) and the uptime from
 * <root>/proc/uptime. 0 and *ret filled, or a negative errno with why set
 * to a sentence naming what is missing: -ENOENT no vmstat reading or no
 * thp_fault_alloc / thp_fault_fallback in it (a kernel without THP),
 * -ENODATA proc/uptime unreadable or malformed. */
int boot_history_read(const Root *root, const Observation *cur, BootHistory *ret, char *why, size_t size);

/* The first reserve, as fragd --once and the daemon's start say it: the
 * counters, the uptime and the seed (r NULL: under one huge page). */
const char *boot_history_explain(const BootHistory *b, const LearnedRestore *r, char *buf, size_t size);

/* The first reserve as the daemon's first tick and fragd --once take it,
 * when no learned file applied: read (boot_history_read()), sized
 * (policy_learned_from_boot()). */
typedef struct BootFirst {
        bool asked;               /* false: learning or demand_from_boot off */
        int read;                 /* boot_history_read(): 0 or a negative errno (why says it) */
        BootHistory b;
        LearnedRestoreResult res; /* of policy_learned_from_boot(), when read is 0 */
        LearnedRestore lr;        /* res LEARNED_RESTORE_OK: the seed */
        char why[256];
} BootFirst;

/* Fills *ret; true when ret->lr is a seed for policy_learned_seed(). */
bool boot_first_reserve(const Root *root, const Observation *cur, const PolicyConfig *cfg, uint64_t hpage_bytes,
                        usec_t now, BootFirst *ret);
