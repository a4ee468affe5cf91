/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* The learned THP reserve across restarts (daemon/learned-store.c):
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

#include "fragd/macro.h"
#include "fragd/root.h"

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
 * "/var/lib/fragd". -EINVAL when state_dir is empty (nothing is kept). */
int learned_store_path(const char *state_dir, char *ret, size_t size);

/* Reads and parses <root>/<state_dir>/learned: -ENOENT when there is none,
 * -EFBIG when larger than LEARNED_FILE_MAX, a parse error (with *ret_err),
 * or another -errno. */
int learned_store_read(const Root *root, const char *state_dir, LearnedFile *ret, LearnedFileError *ret_err);
/* Writes it atomically and durably; creates state_dir (0755) when missing. */
int learned_store_write(const Root *root, const char *state_dir, const LearnedFile *f);
/* Removes it; 0 when there was none. */
int learned_store_remove(const Root *root, const char *state_dir);

/* <root>/etc/machine-id, when it holds one (32 hex digits): 0, or -ENOENT /
 * -EBADMSG and "" in ret. */
int machine_id_read(const Root *root, char ret[MACHINE_ID_LEN + 1]);
