/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* Checks on text that comes from the operator and goes out again: into file
 * names under the root, JSON reports and Prometheus label values
 * (daemon/core/text.c). Pure: no I/O, no logging. */

#include <stdbool.h>
#include <stddef.h>

/* Length of the well-formed UTF-8 sequence at s (1..4), or 0 when s[0..]
 * does not start one: a stray continuation byte, an overlong form, a
 * surrogate, a code point above U+10FFFF, a sequence cut short (by the NUL
 * or by end). end NULL means NUL-terminated. */
size_t utf8_sequence_len(const char *s, const char *end);

/* Valid UTF-8 throughout (NUL-terminated). */
bool utf8_valid(const char *s);

/* Valid UTF-8 without control characters: C0, DEL, or C1 (U+0080..U+009F,
 * which a terminal may take as CSI and the like). On failure *ret_why (may
 * be NULL) is a short static phrase: "is not valid UTF-8", "contains a
 * control character". */
bool text_printable(const char *s, const char **ret_why);

/* Copies s into dst for a terminal: at most n bytes of s, stopping early at
 * a NUL, into dst of size bytes (NUL-terminated; nothing when size is 0).
 * Each control character (C0 other than those in keep, DEL, C1) and each
 * byte that does not belong to valid UTF-8 becomes one '?'; printable UTF-8
 * is copied whole, and a sequence cut by n or by size is dropped, never
 * split. dst may be s (the text only shrinks). keep may be NULL. Returns the
 * length written. */
size_t text_scrub(char *dst, size_t size, const char *s, size_t n, const char *keep);

/* Pure. n bytes of s (NULs included) for a message or a terminal, C-style:
 * '\\' as "\\\\", newline, tab and carriage return as \n \t \r, other
 * control characters (C0, DEL, C1) and bytes that are not UTF-8 as \xNN;
 * printable UTF-8 as it is. Returns the length written into buf
 * (NUL-terminated), or -ENOBUFS when it does not fit. */
int text_escape(const char *s, size_t n, char *buf, size_t size);

/* Pure. s as one POSIX shell word: as it is when it holds only
 * [A-Za-z0-9@%+=:,./_-] (and is not empty), else in single quotes with each
 * ' as '\''. Returns the length written into buf (NUL-terminated), or
 * -ENOBUFS. */
int text_shell_quote(const char *s, char *buf, size_t size);

/* The longest directory path fragd keeps files in, in bytes. */
#define TEXT_DIR_LEN_MAX 255

/* A directory fragd keeps its own files in (runtime_dir, state_dir,
 * textfile_dir) and reads config from (fleet_dir): absolute, not the root
 * itself, no "." or ".." component, printable UTF-8 (text_printable), at most
 * TEXT_DIR_LEN_MAX bytes. Every such path is opened below the root (--root),
 * so on success the path relative to it (leading and trailing '/' dropped)
 * is written to ret when ret is not NULL. Returns -EINVAL (-ENAMETOOLONG when
 * too long, or when it does not fit in size) and sets *ret_why (may be NULL)
 * to a phrase that completes "runtime_dir '/x' ...". The configuration
 * loader and the knob journal (knob_runtime_dir_relative) both use it, so
 * what --check-config accepts is exactly what the daemon can use. */
int text_dir_relative(const char *path, char *ret, size_t size, const char **ret_why);
