/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* Actuators: the one write path for every kernel knob fragd steers
 * (daemon/knobs/knob.c, knob-name.c, knob-value.c, knob-restore.c, knob-ops.c,
 * knob-journal.c, knob-fake.c). The policy's levers on top of it:
 * daemon/knobs/lever.h.
 *
 * Knob names (also the exporter's knob="..." label and the journal key):
 *   vm.<sysctl>                    <proc>/sys/vm/<sysctl>          integer
 *   vm.compact_memory              <proc>/sys/vm/compact_memory    one-shot, writes "1"
 *   kernel.task_delayacct          <proc>/sys/kernel/task_delayacct integer
 *   thp.enabled, thp.defrag, thp.shmem_enabled
 *                                  <sys>/kernel/mm/transparent_hugepage/<file>  choice
 *   thp.hugepages-<N>kB.enabled    .../hugepages-<N>kB/enabled     choice
 *   thp.khugepaged.<file>          .../khugepaged/<file>           integer
 *   node<N>.compact                <sys>/devices/system/node/node<N>/compact  one-shot
 *
 * A "choice" file reads "always [madvise] never" on a kernel; the value is the
 * bracketed word. In a fixture tree the file is plain text, so a read accepts
 * both the bracketed kernel form and a plain single word ("madvise").
 *
 * Every write (knob_set) goes:
 *   1. read the live value; if fragd owns the knob and the live value is not
 *      the one fragd last wrote, someone else changed it (external change):
 *      RESPECT yields the knob, REASSERT carries on;
 *   2. the first time: save the original in memory and in
 *      <root>/<runtime_dir>/saved (tmp + rename) before writing;
 *   3. write; 4. read back: a different value means the kernel clamped,
 *      rejected or recomputed it: -ERANGE (fragd then owns what the kernel
 *      kept). One-shot knobs have no original and no read-back.
 *
 * Errors are sorted into classes:
 *   transient (EAGAIN, EBUSY, EINTR, and unknown errnos): returned, the knob
 *       stays enabled, the caller retries on the next tick;
 *   permanent (EACCES, EPERM, EROFS, ENOENT, EINVAL, ENODEV, EOPNOTSUPP):
 *       the knob is disabled until restart with one log line (exported as
 *       fragd_knob_disabled{knob=...} 1); fragd keeps running.
 * Failure logs are rate-limited per knob (KNOB_LOG_INTERVAL_USEC).
 *
 * The journal <root>/<runtime_dir>/saved (text, written atomically):
 *
 *   fragd-saved 1
 *   pid <pid> <starttime>
 *   # name<TAB>original<TAB>last_written<TAB>first_touch_usec
 *   vm.compaction_proactiveness<TAB>20<TAB>40<TAB>1732900000123456
 *
 * One knob per line, in order of first touch. first_touch_usec is
 * CLOCK_REALTIME in microseconds. <starttime> is field 22 of /proc/<pid>/stat,
 * so a reused PID is not mistaken for a live fragd. last_written is recorded
 * before the write is made (write-ahead), so a crash right after a write still
 * restores. Values are printable ASCII without tabs. Lines starting with '#'
 * and blank lines are ignored. Every line ends in LF: a CR before it (CRLF)
 * or a last line without LF (a file cut short) is malformed. The file is at
 * most JOURNAL_SIZE_MAX bytes (KNOB_MAX lines fit in a third of it).
 *
 * A journal read back is checked, not trusted: a line is malformed when its
 * fields are not exactly these four, the name is not a knob fragd knows, a
 * name repeats, or a value is not one the knob can hold (an integer in the
 * kernel's range for the knobs fragd steers, one of the THP mode words):
 * such a value is never written back. A journal fragd could not fully parse
 * (malformed lines, no "fragd-saved 1" header, more than KNOB_MAX knobs, more
 * than JOURNAL_SIZE_MAX bytes, a symlink or not a regular file) is never
 * deleted or overwritten: it is moved aside to <runtime_dir>/saved.corrupt-
 * <UTC time> (renameat2 RENAME_NOREPLACE, else link + unlink: never replaces
 * a file, never follows a symlink), the knobs that did parse are restored,
 * and every knob that did not is logged with its original value (when it can
 * be read) and what to write where. The restore then fails (-EBADMSG; fragd
 * --restore exits 1), and the daemon does not start while a saved.corrupt*
 * file is in runtime_dir: it could otherwise take over a knob whose original
 * only that file holds. The operator puts those knobs back and removes it.
 *
 * Restore (knob_restore_all, crash recovery, fragd --restore) goes through the
 * knobs in reverse order of first touch, vm.min_free_kbytes always last
 * (a THP "enabled" write makes the kernel recompute it). For each knob:
 *   live == original          -> nothing to do;
 *   live == last_written      -> write the original back and read it back;
 *   live is something else    -> someone changed it after fragd: RESPECT leaves
 *                                the other party's value alone (fragd never
 *                                overwrites a value it did not write);
 *                                REASSERT writes the original anyway.
 * A knob that could not be written back stays in the journal (and is retried
 * at the next start); the journal is removed once nothing is left in it.
 * A yielded knob (RESPECT) is dropped from the journal at once: it is no
 * longer fragd's to restore. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "config/config.h"
#include "core/cleanup.h"
#include "core/parse-util.h"
#include "core/root.h"
#include "fragd/macro.h"
#include "fragd/policy-config.h"

#define KNOB_NAME_MAX 64
#define KNOB_PATH_MAX 128
#define KNOB_VALUE_MAX 128
#define KNOB_MAX 64
#define KNOB_LOG_INTERVAL_USEC (5 * USEC_PER_MINUTE)
#define KNOB_DEFAULT_RUNTIME_DIR "/run/fragd"

typedef enum KnobKind {
        KNOB_KIND_INT,     /* one integer (or a plain value), read back */
        KNOB_KIND_CHOICE,  /* "always [madvise] never": the bracketed word */
        KNOB_KIND_ONESHOT, /* write-only trigger: no original, no read-back */
        _KNOB_KIND_MAX,
} KnobKind;

/* Describes one knob file. Built from a name by knob_init(); what the ops
 * see. Borrows the Root's descriptors. */
typedef struct Knob {
        char name[KNOB_NAME_MAX];
        char path[KNOB_PATH_MAX]; /* relative to dirfd */
        KnobKind kind;
        int dirfd;                /* root->proc_fd or root->sys_fd */
        bool recomputes_min_free; /* a write makes the kernel recompute vm.min_free_kbytes */
        void *ops_data;           /* the ops' own state (dry-run overlay, fake) */
} Knob;

/* read: the raw file content, NUL-terminated, length or -errno.
 * write: the value (no newline) or -errno. Both may run on the compaction
 * worker thread, so ops must be thread-safe. */
typedef struct KnobOps {
        const char *name;  /* "real", "dryrun", "fake" */
        bool dry_run;      /* no journal I/O, no crash recovery */
        int (*read)(const Knob *k, char *ret_buf, size_t n);
        int (*write)(const Knob *k, const char *value);
} KnobOps;

extern const KnobOps knob_ops_real;
extern const KnobOps knob_ops_dryrun; /* reads real, writes only logged and recorded */
extern const KnobOps knob_ops_fake;   /* tests: real I/O plus injected faults */

/* ---- names and values (pure) ------------------------------------------- */

/* -EINVAL for a name fragd does not know. k->dirfd is -1 when root is NULL. */
int knob_init(Knob *k, const Root *root, const char *name, void *ops_data);
/* "vm.compaction_proactiveness" for a policy lever. */
const char *knob_lever_name(Lever l);
/* Logs an error for each lever's knob file that is a symlink out of the root
 * (absolute, or ".." above proc/ or sys/): fragd leaves those knobs alone.
 * Returns how many. */
unsigned knob_warn_escaping_links(const Root *root);
/* Canonical form of a value read from a knob: whitespace trimmed and
 * collapsed; for CHOICE the bracketed word, or the single plain word.
 * -EBADMSG when it makes no sense, -ENAMETOOLONG when it does not fit. */
int knob_value_normalize(KnobKind kind, const char *raw, char *ret, size_t size);
/* Values as compared by the write path (numerically for INT when both parse). */
bool knob_value_equal(KnobKind kind, const char *a, const char *b);
/* A value may be written and journaled: 1..KNOB_VALUE_MAX-1 printable ASCII
 * characters, no tab. */
bool knob_value_valid(const char *v);
/* ops->read, then knob_value_normalize() (-EFBIG from the read: -EBADMSG). */
int knob_read_normalized(const KnobOps *ops, const Knob *k, char *ret, size_t size);
/* transient / permanent classification of a -errno */
bool knob_error_is_permanent(int r);
bool knob_error_is_transient(int r);

/* ---- the registry ------------------------------------------------------- */

typedef struct KnobRegistry KnobRegistry;

/* Creates the registry for root (borrowed, must outlive it). runtime_dir is
 * taken relative to root ("/run/fragd" -> <root>/run/fragd; NULL means
 * KNOB_DEFAULT_RUNTIME_DIR). ops NULL means knob_ops_real; ops_data is handed
 * to the ops (NULL for real; for dryrun NULL makes the registry own an
 * overlay). Unless ops->dry_run, a journal left by a dead fragd is restored
 * first (crash recovery); entries that fail to restore are kept: adopted as
 * owned knobs and restored again on exit. Returns -EBUSY when the journal
 * belongs to a live fragd, -EBADMSG when it could not be fully parsed (moved
 * aside, see above) or a saved.corrupt* file from an earlier one is still in
 * runtime_dir: no knob is taken over then. */
int knob_registry_new(const Root *root, const char *runtime_dir, const KnobOps *ops, void *ops_data,
                      OwnershipMode mode, KnobRegistry **ret);
/* Frees without restoring anything (the journal stays: crash semantics). */
KnobRegistry *knob_registry_free(KnobRegistry *reg);
DEFINE_TRIVIAL_CLEANUP_FUNC(KnobRegistry *, knob_registry_free);

void knob_registry_set_ownership(KnobRegistry *reg, OwnershipMode mode); /* SIGHUP */
OwnershipMode knob_registry_ownership(const KnobRegistry *reg);
const KnobOps *knob_registry_ops(const KnobRegistry *reg);
void *knob_registry_ops_data(const KnobRegistry *reg);
const Root *knob_registry_root(const KnobRegistry *reg);
const char *knob_registry_runtime_dir(const KnobRegistry *reg); /* relative: "run/fragd" */
/* The same as configured, absolute ("/run/fragd"), in buf: for the functions
 * that take runtime_dir as configured. Returns buf. */
const char *knob_registry_runtime_dir_abs(const KnobRegistry *reg, char *buf, size_t size);
/* Moves the registry to another runtime directory (runtime_dir changed on
 * SIGHUP), so that a crash recovery reading the new configuration finds the
 * journal: creates the directory below the root (0755), refuses when it
 * already holds a knob journal (saved, saved.corrupt*) or the status of
 * another running fragd, writes the current journal there (atomically,
 * durably), and only then removes the old journal and status file and
 * switches. Returns 1 when a journal moved (*ret_n knobs, ret_n may be
 * NULL), 0 when there was none to move (or the directory is the same one);
 * on failure -errno with the reason in ret_why, and nothing changed: the
 * old directory and journal stay in use. A dry run moves no journal. */
int knob_registry_move(KnobRegistry *reg, const char *runtime_dir, unsigned *ret_n, char *ret_why, size_t why_size);

/* Sets a knob. Returns
 *   1          written and read back equal
 *   0          already at that value, nothing written
 *   -ERANGE    written, but the kernel holds something else (clamped/recomputed)
 *   -ESTALE    the knob was changed under fragd and is yielded (RESPECT)
 *   -ECANCELED the knob is disabled (an earlier permanent error)
 *   -EINVAL    unknown knob name or unwritable value (not counted against the knob)
 *   -EOPNOTSUPP a one-shot knob: compaction blocks, so it goes through
 *              compact_worker_submit() (daemon/knobs/compact-worker.h)
 *   other      -errno of the read/write (classified: see top of file). */
int knob_set(KnobRegistry *reg, const char *name, const char *value, usec_t now_usec);
int knob_set_int(KnobRegistry *reg, const char *name, int64_t value, usec_t now_usec);
/* Writes a knob's live value back to it, for knobs whose write has a side
 * effect even when the value is unchanged (vm.compaction_proactiveness wakes
 * kcompactd). The same rules as knob_set(): an external change is respected
 * or reasserted first; the first write takes ownership with original = the
 * live value (restore then writes the same value); the value is read back.
 * The journal is written only when ownership or last_written changes.
 * Returns 1 when written and read back equal, else as knob_set() (never 0). */
int knob_rewrite(KnobRegistry *reg, const char *name, usec_t now_usec);
/* knob_rewrite() of an integer knob only when its live value is within
 * [lo, hi]: else nothing is written and -EDOM is returned (a kick never
 * writes a value outside the lever's bounds, even the one already there). */
int knob_rewrite_within(KnobRegistry *reg, const char *name, int64_t lo, int64_t hi, usec_t now_usec);
/* Reads a knob's live value (normalized) through the ops; no ownership. */
int knob_get(KnobRegistry *reg, const char *name, char *ret, size_t size);
int knob_get_int(KnobRegistry *reg, const char *name, int64_t *ret);

/* Once per tick: compares every owned knob with fragd's last written value.
 * A change is logged (old/new) and, per mode, yields the knob or writes
 * fragd's value again. Returns the number of changed knobs, or -errno when
 * the journal could not be updated. */
int knob_check_external(KnobRegistry *reg, usec_t now_usec);

/* Feeds the result of a write made elsewhere (compaction worker) into the
 * knob's error accounting: permanent errors disable it. Returns r. */
int knob_note_result(KnobRegistry *reg, const char *name, int r, usec_t now_usec);

/* Marks a knob disabled until restart (err: why, -errno) without a write
 * and without a log line: for a knob the caller found missing and said so
 * itself. Exported as fragd_knob_disabled like any disabled knob. */
int knob_disable(KnobRegistry *reg, const char *name, int err);

/* Puts every owned knob back (order and rules at the top of this file), then
 * removes the journal, or rewrites it with what could not be restored.
 * Returns 0, or the -errno of the first failure; ret_n_failed optional. */
int knob_restore_all(KnobRegistry *reg, unsigned *ret_n_failed);
/* After knob_restore_all(): one sentence for the stop message, malloc'ed in
 * ret: which knobs are back (name=original), which were left and to whom
 * ("to another writer (current value X, fragd's original Y)", "the knob
 * file is gone") and which failed (kept in the journal). Returns 0 when
 * every knob fragd changed is back ("Every knob fragd changed is back ..."),
 * 1 when some were left or failed, -ENOMEM. */
int knob_restore_summary(const KnobRegistry *reg, char **ret);

/* A read-only view of one knob, for the exporter and status. Pointers are
 * valid until the registry changes. */
typedef struct KnobInfo {
        const char *name;
        KnobKind kind;
        bool owned;               /* fragd changed it and will restore it */
        bool yielded;             /* changed under fragd, left alone until restart */
        bool disabled;            /* a permanent error: not touched until restart */
        int disabled_error;       /* -errno */
        int restore_error;        /* owned: -errno of the last restore (pause) that failed, else 0 */
        const char *original;     /* "" unless owned or yielded */
        const char *last_written; /* "" if never written */
        const char *external;     /* the other party's value when yielded */
        uint64_t first_touch_usec; /* CLOCK_REALTIME, 0 if never */
        uint64_t n_writes, n_clamped, n_errors, n_external;
} KnobInfo;

size_t knob_count(const KnobRegistry *reg);
int knob_info(const KnobRegistry *reg, size_t i, KnobInfo *ret);
int knob_find_info(const KnobRegistry *reg, const char *name, KnobInfo *ret); /* -ENOENT */
bool knob_is_disabled(const KnobRegistry *reg, const char *name);

/* ---- journal (daemon/knobs/knob-journal.c) ----------------------------------- */

typedef struct JournalEntry {
        char name[KNOB_NAME_MAX];
        char original[KNOB_VALUE_MAX];
        char last_written[KNOB_VALUE_MAX];
        uint64_t first_touch_usec;
} JournalEntry;

#define JOURNAL_SIZE_MAX (64U * 1024U)
#define JOURNAL_WHY_MAX 288

/* A line of the journal that was not taken, with what could be read of it. */
typedef struct JournalBad {
        unsigned line;                 /* 1-based */
        char name[KNOB_NAME_MAX];      /* a knob name fragd knows, or "" */
        char original[KNOB_VALUE_MAX]; /* the second field when printable, or "" */
        bool value_refused;            /* the line is whole, a value is not one the knob can hold */
        char why[JOURNAL_WHY_MAX];
} JournalBad;

typedef struct Journal {
        pid_t pid;           /* 0 when the file names none */
        uint64_t starttime;  /* 0 when unknown */
        unsigned n;
        unsigned n_invalid;  /* malformed, unknown, refused or duplicate lines skipped */
        JournalEntry e[KNOB_MAX];
        unsigned n_bad;      /* the first KNOB_MAX of the n_invalid lines */
        JournalBad bad[KNOB_MAX];
} Journal;

/* Pure: parses the journal text. -EBADMSG without the "fragd-saved 1\n"
 * header, -E2BIG with more than KNOB_MAX entries. Malformed lines (see the
 * top of this file) are counted in n_invalid and described in bad[]. */
int knob_journal_parse(const char *buf, size_t len, Journal *ret);
/* Pure: what can be read of a journal that knob_journal_parse() refused:
 * every line that names a knob goes to bad[] (nothing to e[]), so the
 * operator learns which knobs it held. */
void knob_journal_salvage(const char *buf, size_t len, const char *why, Journal *ret);
/* Pure: formats j into a malloc'ed string. */
int knob_journal_format(const Journal *j, char **ret_buf, size_t *ret_len);
/* Reads <root>/<rt>/saved: -ENOENT when there is none, -EFBIG when larger
 * than JOURNAL_SIZE_MAX, -ELOOP for a symlink, -EBADFD when not a regular
 * file (never blocks on a FIFO). rt relative. */
int knob_journal_read(int root_fd, const char *rt, Journal *ret);
/* Writes it atomically with this process as owner; with j->n == 0 removes it. */
int knob_journal_write(int root_fd, const char *rt, const Journal *j);

/* ---- restore and crash recovery (daemon/knobs/knob-restore.c) ---------------- */

/* Restore order for n knobs given in first-touch order: reverse, with
 * vm.min_free_kbytes last. ret_order receives indexes into names. */
void knob_restore_order(const char *const *names, size_t n, size_t *ret_order);

typedef struct KnobRestoreStats {
        unsigned n_entries;   /* knobs in the journal */
        unsigned n_restored;  /* original written back */
        unsigned n_unchanged; /* already at the original */
        unsigned n_left;      /* changed by someone else: left alone (RESPECT) */
        unsigned n_gone;      /* the knob no longer exists: dropped */
        unsigned n_failed;    /* could not be restored: kept in the journal */
        unsigned n_invalid;   /* malformed journal lines */
        bool corrupt;         /* not fully parsed: moved aside (or, dry run, would be) */
        char aside[FRAGD_PATH_MAX + 48]; /* where it went (relative to the root), or "" */
} KnobRestoreStats;

/* `fragd --restore`, and what knob_registry_new() does at start: restores the
 * journal of a dead fragd. 0 with no journal (stats all zero); -EBUSY when a
 * live fragd owns it; -EBADMSG when it could not be fully parsed: what parsed
 * is restored, the file is moved aside (stats tell where) and every knob not
 * restored is logged with its original. ops NULL means real. ret optional
 * (also filled on -EBADMSG). */
int knob_restore_from_journal(const Root *root, const char *runtime_dir, const KnobOps *ops,
                              OwnershipMode mode, KnobRestoreStats *ret);

/* ---- where the journal lives (daemon/knobs/knob-journal.c) ------------------- */

/* "/run/fragd" -> "run/fragd" (relative to the root, where the journal
 * and the status file live); NULL or "" -> the default. */
int knob_runtime_dir_relative(const char *runtime_dir, char *ret, size_t size);

/* A journal moved aside earlier (<rt>/saved.corrupt*) that the operator has
 * not handled yet: 1 and its name (relative to the root) in ret, 0 when none. */
int knob_journal_find_aside(int root_fd, const char *rt, char *ret, size_t size);

/* The head of fragd's status file, <rt>/status (the rest of it, its writer
 * and `fragd status`: output/status.c): "fragd-status 1" and "pid <pid>
 * <starttime>", the fragd that owns the runtime directory, named as the
 * journal names its writer. Written and read here, below both users: the
 * status file and the check that a runtime directory is free
 * (knob_registry_move()). */
/* Writes the head for this process. */
void knob_status_head_write(FILE *f);
/* The text of a status file (len bytes): 0 and the pid and starttime of its
 * "pid" line (0 and 0 when it has none that reads), or -EBADMSG when it is
 * not a status file (no "fragd-status 1" line first, or a NUL in it). */
int knob_status_owner(const char *buf, size_t len, uint64_t *ret_pid, uint64_t *ret_starttime);
/* A head line "KEY A [B]" ("pid", "updated"): true when line is that line
 * and A reads; B, when asked for and present, too. */
bool knob_status_header_numbers(Span line, const char *key, uint64_t *ret_a, uint64_t *ret_b);

/* Field 22 of /proc/<pid>/stat of the host (0 when unreadable). */
uint64_t pid_starttime(pid_t pid);
/* The process is alive and is the one that started at starttime; a
 * starttime of 0 (a record without one) never matches. */
bool pid_is_alive(pid_t pid, uint64_t starttime);
/* pid runs this very program, or its name (/proc/<pid>/comm) starts with
 * "fragd"; true when that cannot be read: a live process fragd cannot see
 * into is never taken for a dead owner. */
bool pid_is_fragd(pid_t pid);

/* ---- dry-run overlay (daemon/knobs/knob-ops.c) -------------------------------- */

/* What a dry run would have written: reads of a knob "written" in the dry run
 * return the recorded value, so the write path behaves as on a real system. */
typedef struct KnobDryrun KnobDryrun;
KnobDryrun *knob_dryrun_new(void);
KnobDryrun *knob_dryrun_free(KnobDryrun *d);
DEFINE_TRIVIAL_CLEANUP_FUNC(KnobDryrun *, knob_dryrun_free);
size_t knob_dryrun_count(const KnobDryrun *d);
/* i-th distinct knob in first-write order, its last value and write count */
int knob_dryrun_get(const KnobDryrun *d, size_t i, const char **ret_name, const char **ret_value,
                    unsigned *ret_n_writes);

/* ---- fake ops for tests (daemon/knobs/knob-fake.c) ----------------------------- */

/* Real file I/O below a test root plus injected faults. name "*" matches
 * every knob. count 0 means every time. */
typedef struct KnobFake KnobFake;
KnobFake *knob_fake_new(const Root *root); /* root borrowed: side effects write below it */
KnobFake *knob_fake_free(KnobFake *f);
DEFINE_TRIVIAL_CLEANUP_FUNC(KnobFake *, knob_fake_free);
int knob_fake_fail_read(KnobFake *f, const char *name, int err, unsigned count);
int knob_fake_fail_write(KnobFake *f, const char *name, int err, unsigned count);
/* Writes of an integer outside [lo, hi] store the clamped value. */
int knob_fake_clamp(KnobFake *f, const char *name, int64_t lo, int64_t hi);
/* A successful write to trigger also writes value to victim (as a THP write
 * makes the kernel recompute min_free_kbytes). */
int knob_fake_side_effect(KnobFake *f, const char *trigger, const char *victim, const char *value);
/* Writes to name sleep this long first (compaction). */
int knob_fake_write_delay(KnobFake *f, const char *name, usec_t delay_usec);
unsigned knob_fake_n_writes(KnobFake *f, const char *name);
