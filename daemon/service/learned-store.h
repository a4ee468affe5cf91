/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* The learned THP reserve across restarts (daemon/service/learned-store.c):
 * <root>/<state_dir>/learned, default /var/lib/fragd/learned. Text, one
 * key=value per line, '#' comments, written atomically (temp file, fsync,
 * rename, fsync of the directory), 0644:
 *
 *   # fragd learned reserve (fragd.conf(5) state_dir): 512 MiB burst seen 2026-01-05 14:28:10 UTC
 *   version=1
 *   page_size=4096
 *   hpage_order=9
 *   machine_id=4f0c6b1e2d3a49c8b7e6f5a4d3c2b1a0
 *   peak_bytes=536870912
 *   peak_realtime_usec=1767623290000000
 *
 * version comes first; another version is refused as a whole. page_size,
 * hpage_order, peak_bytes and peak_realtime_usec are required; machine_id
 * (/etc/machine-id) is left out when unknown. peak_realtime_usec is
 * CLOCK_REALTIME: the monotonic clock starts again at boot. A file whose
 * page size, huge page order or machine id differ from this host's was
 * written for another kernel or machine and does not apply. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/root.h"
#include "fragd/macro.h"
#include "fragd/policy.h"

#define LEARNED_FILE_NAME "learned"
#define LEARNED_FILE_VERSION 1
#define LEARNED_FILE_MAX 4096 /* bytes; a larger file is refused */
#define MACHINE_ID_LEN 32

typedef struct LearnedFile {
        unsigned page_size;              /* bytes per base page */
        unsigned hpage_order;            /* PMD THP order */
        char machine_id[MACHINE_ID_LEN + 1]; /* 32 lowercase hex digits; "" = unknown */
        uint64_t peak_bytes;             /* the burst as seen (undecayed), > 0 */
        usec_t peak_realtime_usec;       /* when it was seen, CLOCK_REALTIME, > 0 */
} LearnedFile;

/* Where parsing stopped and why. */
typedef struct LearnedFileError {
        unsigned line; /* 1-based; 0 = the file as a whole (a key missing) */
        char what[112];
        bool newer;    /* -EPROTONOSUPPORT: the version is newer than this fragd's */
} LearnedFileError;

/* Pure. 0 and *ret, or -EBADMSG (malformed line, unknown or repeated key,
 * value out of its range), -ENODATA (a required key missing),
 * -EPROTONOSUPPORT (another version), -ERANGE (a number too large); then
 * *ret_err (may be NULL) says which line and what. */
int learned_file_parse(const char *buf, size_t len, LearnedFile *ret, LearnedFileError *ret_err);

/* Pure. The file's text, NUL-terminated; returns its length, or -ENOBUFS. */
int learned_file_format(const LearnedFile *f, char *buf, size_t size);

/* Whether a parsed file applies to this host: same page size, huge page
 * order and (when both are known) machine id. False with the reason in why. */
bool learned_file_applies(const LearnedFile *f, unsigned page_size, unsigned hpage_order, const char *machine_id,
                          char *why, size_t size);

/* The file's path relative to the root: "var/lib/fragd/learned" for
 * "/var/lib/fragd". -EINVAL when state_dir is empty (nothing is kept), or
 * not a directory text_dir_relative() accepts ("/", relative, ".."). */
int learned_store_path(const char *state_dir, char *ret, size_t size);

/* Reads and parses <root>/<state_dir>/learned: -ENOENT when there is none,
 * -EFBIG when larger than LEARNED_FILE_MAX, a parse error (with *ret_err),
 * or another -errno. */
int learned_store_read(const Root *root, const char *state_dir, LearnedFile *ret, LearnedFileError *ret_err);
/* Writes it atomically and durably; creates state_dir (0755) when missing. */
int learned_store_write(const Root *root, const char *state_dir, const LearnedFile *f);
/* Removes it; 0 when there was none. */
int learned_store_remove(const Root *root, const char *state_dir);

/* Moves the file from state_dir `from` to state_dir `to` (state_dir changed
 * on SIGHUP): refuses when `to` already holds one, writes the new file
 * (atomically, durably; creates the directory 0755), and only then removes
 * the old one. `from` may be empty (nothing kept so far): only the check.
 * 1 when a file moved, 0 when there was none (or it is the same file); on
 * failure -errno with the reason in ret_why, and the old file stays. */
int learned_store_move(const Root *root, const char *from, const char *to, char *ret_why, size_t why_size);

/* The file as messages name it: "/var/lib/fragd/learned", below --root
 * when there is one ("/srv/tree/var/lib/fragd/learned"); "?" when state_dir
 * is empty. */
void learned_store_name(const Root *root, const char *state_dir, char *buf, size_t size);

/* ---- what the file gives at the first decide ----------------------------- */

typedef enum LearnedLoadResult {
        LEARNED_LOAD_OK,             /* ->restore is the state to seed (policy_learned_seed()) */
        LEARNED_LOAD_NOT_KEPT,       /* state_dir is empty: nothing is kept, nothing read */
        LEARNED_LOAD_NONE,           /* no file */
        /* the file is ignored: */
        LEARNED_LOAD_OTHER_VERSION,  /* another format version; ->newer: a later fragd's */
        LEARNED_LOAD_MALFORMED,      /* ->line (0: the file as a whole), ->why */
        LEARNED_LOAD_TOO_LARGE,      /* larger than LEARNED_FILE_MAX */
        LEARNED_LOAD_UNREADABLE,     /* ->error */
        LEARNED_LOAD_NOT_APPLICABLE, /* another page size, huge page order or machine */
        /* the file was read and applies; from here on ->file and ->age_usec are set: */
        LEARNED_LOAD_LEARNING_OFF,   /* demand_learning is off */
        LEARNED_LOAD_DECAYED,        /* decayed to nothing by its age: dropped */
        _LEARNED_LOAD_MAX,
} LearnedLoadResult;

typedef struct LearnedLoad {
        LearnedLoadResult result;
        unsigned line;          /* MALFORMED: 1-based; 0 = the file as a whole */
        int error;              /* UNREADABLE: -errno */
        char why[192];          /* why it is ignored, without the file's name; "" when used or absent */
        bool newer;             /* OTHER_VERSION: newer than this fragd reads (keep the file as it is) */
        LearnedFile file;       /* parsed: NOT_APPLICABLE and from LEARNING_OFF on */
        usec_t age_usec;        /* the burst's age by the wall clock, from NOT_APPLICABLE on */
        usec_t future_usec;     /* > 0: the burst was this far in the future (clock set back?), age 0 */
        LearnedRestore restore; /* OK */
        /* > 0: the file's peak_bytes, larger than this host's memory, and
         * the peak taken instead is mem_bytes (no burst faults more memory
         * than the host has: a file written from a counter that jumped) */
        uint64_t capped_from_bytes;
} LearnedLoad;

/* Reads <root>/<state_dir>/learned (never writes) and says what it gives
 * before the first decide at now (monotonic) and now_realtime: the file
 * parsed, checked against this host (page_size, hpage_order, machine_id,
 * which may be "" or NULL), its peak cut to mem_bytes (the host's memory;
 * 0 = unknown, no cap), aged by the wall clock and re-instated by
 * policy_learned_restore(), or why not. Logs nothing: the daemon
 * (manager-learned.c) and fragd --once (once.c, report.c) say it each in
 * their way. Always fills *ret; returns ret->result. */
LearnedLoadResult learned_store_load(const Root *root, const char *state_dir, const PolicyConfig *cfg,
                                     unsigned page_size, unsigned hpage_order, const char *machine_id,
                                     uint64_t mem_bytes, usec_t now, usec_t now_realtime, LearnedLoad *ret);

/* Stable name of a result, for JSON: "ok", "not_kept", "none", "other_version",
 * "malformed", "too_large", "unreadable", "not_applicable", "learning_off",
 * "decayed". */
const char *learned_load_result_name(LearnedLoadResult r);

/* For a file that is ignored, what follows its name in a sentence: "is
 * malformed, line 4: peak_bytes is not a decimal number", "does not apply
 * here: written with 65536-byte pages, this kernel has 4096", "has decayed
 * to nothing (512 MiB burst seen 6 h ago)"; "" for OK, NOT_KEPT and NONE. */
const char *learned_load_explain(const LearnedLoad *l, char *buf, size_t size);

/* <root>/etc/machine-id, when it holds one (32 hex digits): 0, or -ENOENT /
 * -EBADMSG and "" in ret. */
int machine_id_read(const Root *root, char ret[MACHINE_ID_LEN + 1]);
