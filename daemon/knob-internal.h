/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* Shared between knob.c and knob-journal.c; not part of the public API. */

#include "fragd/knob.h"

typedef enum RestoreOutcome {
        RESTORE_RESTORED,  /* original written back */
        RESTORE_UNCHANGED, /* already at the original */
        RESTORE_LEFT,      /* someone else's value: left alone */
        RESTORE_GONE,      /* the knob file no longer exists */
        RESTORE_FAILED,    /* could not be written back: keep it */
} RestoreOutcome;

/* Puts one knob back to original (rules in knob.h). force skips the
 * "changed by someone else" test (min_free_kbytes after a THP restore).
 * Logs what it did. Returns 0 or the -errno of a failure. */
int knob_restore_one(const KnobOps *ops, const Knob *k, const char *original, const char *last_written,
                     OwnershipMode mode, bool force, RestoreOutcome *ret);

/* Restores a dead fragd's journal (see knob_restore_from_journal). The
 * entries that failed are returned in ret_kept (and left in the journal). */
int knob_journal_recover(const Root *root, const char *rt, const KnobOps *ops, void *ops_data,
                         OwnershipMode mode, Journal *ret_kept, KnobRestoreStats *ret_stats);

/* "/run/fragd" -> "run/fragd"; NULL or "" -> the default. */
int knob_runtime_dir_relative(const char *runtime_dir, char *ret, size_t size);

uint64_t knob_now_realtime_usec(void);
