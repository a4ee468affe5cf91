/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* Shared between knob.c (the registry and its write path), knob-name.c,
 * knob-value.c, knob-restore.c and knob-journal.c; not part of the public
 * API. The calls go one way: knob.c -> knob-restore.c -> knob-journal.c,
 * all three -> knob-name.c, knob-value.c. */

#include "core/parse-util.h"
#include "knobs/knob.h"

#define MIN_FREE_KNOB "vm.min_free_kbytes"

typedef struct KnobEntry {
        Knob k;
        bool owned, yielded, disabled;
        int disabled_error;
        char original[KNOB_VALUE_MAX];
        char last_written[KNOB_VALUE_MAX];
        char external[KNOB_VALUE_MAX];
        uint64_t first_touch_usec;
        uint64_t seq; /* first-touch order */
        uint64_t n_writes, n_clamped, n_errors, n_external;
        /* what knob_restore_all() did (for knob_restore_summary()) */
        bool restore_done;
        int restore_outcome;                /* RestoreOutcome */
        char restore_live[KNOB_VALUE_MAX];  /* the value found (RESTORE_LEFT), or "" */
        int restore_error;                  /* -errno of the last failed restore; 0 after a write */
        /* failure log rate limit */
        usec_t log_last_usec;
        int log_last_error;
        unsigned log_suppressed;
} KnobEntry;

struct KnobRegistry {
        const Root *root;
        char rt[FRAGD_PATH_MAX];
        const KnobOps *ops;
        void *ops_data;
        KnobDryrun *own_dryrun;
        OwnershipMode mode;
        uint64_t next_seq;
        usec_t journal_log_usec;
        size_t n;
        KnobEntry e[KNOB_MAX];
};

/* A value fragd may write to a knob of this kind. */
bool knob_value_valid_for(KnobKind kind, const char *v);
/* A value read back from disk (the journal) that a knob of this name can
 * hold: an integer (in the kernel's range when fragd knows it), or one of
 * the THP mode words. 0, else -EBADMSG / -ERANGE / -EINVAL with ret_why
 * ("outside the kernel's range 0..100"). */
int knob_value_check(const Knob *k, const char *v, char *ret_why, size_t size);
/* A whole decimal integer, no blanks: core's parse_i64(). */
bool knob_parse_i64(const char *s, int64_t *ret);

/* The journal of what the registry owns, in order of first touch. */
void knob_journal_build(KnobRegistry *reg, Journal *j);
/* Writes the journal from what the registry owns (or removes it). Logs a
 * failure, rate-limited. */
int knob_journal_sync(KnobRegistry *reg);

typedef enum RestoreOutcome {
        RESTORE_RESTORED,  /* original written back */
        RESTORE_UNCHANGED, /* already at the original */
        RESTORE_LEFT,      /* someone else's value: left alone */
        RESTORE_GONE,      /* the knob file no longer exists */
        RESTORE_FAILED,    /* could not be written back: keep it */
} RestoreOutcome;

/* Puts one knob back to original (rules in knob.h). force skips the
 * "changed by someone else" test (min_free_kbytes after a THP restore).
 * Logs what it did (why: FRAGD_REASON of the restore event, "stop" or
 * "crash_recovery"). ret_live (optional) receives the value found when it
 * was left alone. Returns 0 or the -errno of a failure. */
int knob_restore_one(const KnobOps *ops, const Knob *k, const char *original, const char *last_written,
                     OwnershipMode mode, bool force, const char *why, RestoreOutcome *ret, char *ret_live,
                     size_t live_size);

/* Restores a dead fragd's journal (see knob_restore_from_journal;
 * knob-restore.c). The entries that failed are returned in ret_kept (and
 * left in the journal). */
int knob_journal_recover(const Root *root, const char *rt, const KnobOps *ops, void *ops_data,
                         OwnershipMode mode, Journal *ret_kept, KnobRestoreStats *ret_stats);

/* The journal file (knob-journal.c), for crash recovery: */
/* "<rt>/<name>", -ENAMETOOLONG when it does not fit. */
int knob_journal_path(const char *rt, const char *name, char *ret, size_t size);
/* At most JOURNAL_SIZE_MAX bytes of a regular file inside the root, not
 * through a symlink, never blocking (the errors of knob_journal_read). */
int knob_journal_read_bounded(int root_fd, const char *path, char **ret_buf, size_t *ret_len);
/* The first JOURNAL_SIZE_MAX bytes of an oversized journal, the same way: to
 * name the knobs it holds, never to restore from. */
int knob_journal_read_head(int root_fd, const char *path, char **ret_buf, size_t *ret_len);
/* Moves <rt>/saved to <rt>/saved.corrupt-<UTC time>[-N], replacing
 * nothing; where it went (relative to the root) in ret_to. */
int knob_journal_move_aside(int root_fd, const char *rt, char *ret_to, size_t size);
/* Why a journal could not be used, from the -errno of its read or parse. */
void knob_journal_read_why(int r, char *ret, size_t size);
/* true when <rt>/saved itself is a symlink; its target in ret_target. */
bool knob_journal_is_symlink(int root_fd, const char *rt, char *ret_target, size_t size);
