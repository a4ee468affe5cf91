/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* One fragd per root (daemon/service/daemon-lock.c).
 *
 * <root>/run/fragd/lock is an empty file, created with
 * O_CREAT|O_EXCL|O_NOFOLLOW (0644) and never written; its holder has an
 * open file description lock on it (F_OFD_SETLK, F_WRLCK), released by the
 * kernel when the holder exits, however it exits. The daemon (dry run
 * included) holds it for its life, `fragd --restore` while it restores.
 * Its place is fixed: it does not follow [daemon] runtime_dir, so that a
 * configuration edited under a running daemon cannot hide the daemon, and
 * /run/fragd is the unit's RuntimeDirectory= (writable under
 * ProtectSystem=strict).
 *
 * Beside it, <root>/run/fragd/owner records who took the lock last and
 * where that process keeps its files; written atomically by each holder
 * after it took the lock, left in place when it exits (a pointer for the
 * next one, after a crash):
 *
 *   fragd-lock 1
 *   pid <pid> <starttime: /proc/<pid>/stat field 22>
 *   mode daemon|dry-run|restore
 *   started <CLOCK_REALTIME usec>
 *   runtime_dir <dir>   the holder's status file, control socket, pause flag
 *   state_dir <dir>     the learned reserve ("-": none kept)
 *   journal_dir <dir>   where the knob journal of the last fragd that
 *                       changed knobs is (a dry run or a restore passes on
 *                       the one it found)
 *
 * Directories are absolute paths inside the root, as in fragd.conf. A
 * reader that finds the lock held asks the record where the running
 * daemon's files are; one that finds it free asks it where a journal may
 * be left (journal_dir), whatever the configuration says now. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/cleanup.h"
#include "core/root.h"
#include "fragd/macro.h"

#define DAEMON_LOCK_DIR "run/fragd"
#define DAEMON_LOCK_NAME "lock"
#define DAEMON_LOCK_RECORD "owner"
#define DAEMON_LOCK_RECORD_MAX 4096

typedef struct LockRecord {
        bool valid;                        /* read and parsed */
        pid_t pid;
        uint64_t starttime;                /* 0: unknown */
        uint64_t started_usec;             /* CLOCK_REALTIME, 0: unknown */
        char mode[16];                     /* "daemon", "dry-run", "restore" */
        char runtime_dir[FRAGD_PATH_MAX];  /* absolute, inside the root */
        char state_dir[FRAGD_PATH_MAX];    /* "" : none kept */
        char journal_dir[FRAGD_PATH_MAX];
} LockRecord;

typedef struct DaemonLock DaemonLock;

/* Pure: the record's text. 0, or -EBADMSG (no header, a malformed or
 * missing pid, mode, runtime_dir or journal_dir line, a directory fragd could not use: runtime_dir and
 * journal_dir as knob_runtime_dir_relative() takes them). ret is written
 * only on success, with valid set. */
int daemon_lock_record_parse(const char *buf, size_t len, LockRecord *ret);
/* The record as text (the format above); -ENAMETOOLONG when it does not
 * fit size. */
int daemon_lock_record_format(const LockRecord *rec, char *buf, size_t size);

/* Takes the lock without waiting. 0: taken (*ret; ret_record: the record
 * the last holder left, valid false when there is none or it is
 * unreadable). -EBUSY: another process holds it (ret_record: its record,
 * valid false when it has not written one yet or it cannot be read).
 * -ELOOP: the lock's name is a symlink; -EBADFD: not a regular file;
 * else -errno (the directory cannot be made, a read-only /run). */
int daemon_lock_take(const Root *root, DaemonLock **ret, LockRecord *ret_record);
/* Writes the holder's record (pid and start time filled in). */
int daemon_lock_publish(DaemonLock *l, const char *mode, const char *runtime_dir, const char *state_dir,
                        const char *journal_dir);
/* Releases the lock; the record stays. */
DaemonLock *daemon_lock_free(DaemonLock *l);
DEFINE_TRIVIAL_CLEANUP_FUNC(DaemonLock *, daemon_lock_free);

/* Whether another process holds the lock, without taking it: 1 held
 * (ret: the holder's record), 0 free (ret: the last holder's record, if
 * any), or -errno when it cannot be told (-ELOOP, -EBADFD, -EACCES...).
 * No lock file (or no run/fragd) is 0. */
int daemon_lock_probe(const Root *root, LockRecord *ret);

/* "pid 1234 (fragd --dry-run --root /srv/t, in fragd.service, since
 * 2026-12-06 21:40:03)", for messages: how the holder was started, from
 * its /proc/<pid>/cmdline and cgroup, else the record's mode. A record
 * not read: "a process that has not written its record yet". */
void daemon_lock_describe(const LockRecord *rec, char *buf, size_t size);
/* "<root>/run/fragd/lock" for messages ("/run/fragd/lock" on the host). */
void daemon_lock_path(const Root *root, char *buf, size_t size);
/* The two together: "pid 1234 (...) holds '/run/fragd/lock'". */
void daemon_lock_holder(const Root *root, const LockRecord *rec, char *buf, size_t size);
