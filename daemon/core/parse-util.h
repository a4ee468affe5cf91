/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* Tokenizing primitives for the pure parsers, and fragd's one integer
 * parser. A Cursor walks a buffer that need not be NUL-terminated; nothing
 * here allocates. */

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct Cursor {
        const char *p;
        const char *end;
} Cursor;

typedef struct Span {
        const char *p;
        size_t len;
} Span;

static inline Cursor cursor_make(const char *buf, size_t len)
{
        /* NULL + 0 is undefined behaviour in C: an empty input has no pointer */
        if (!buf || len == 0)
                return (Cursor) { buf, buf };
        return (Cursor) { buf, buf + len };
}

/* The parsers' one rule for their input: NULL with len 0 is the empty
 * text, NULL with len > 0 is -EINVAL; else *ret walks buf. */
static inline int cursor_open(Cursor *ret, const char *buf, size_t len)
{
        if (!buf && len > 0)
                return -EINVAL;
        *ret = cursor_make(buf, len);
        return 0;
}

static inline bool cursor_eof(const Cursor *c)
{
        return c->p >= c->end;
}

/* Next line without its '\n' (a last line without '\n' counts). False at end. */
bool cursor_next_line(Cursor *c, Span *ret_line);
/* Skips spaces and tabs. */
void span_skip_blanks(Span *s);
/* Next whitespace-separated token; false when none is left. */
bool span_next_token(Span *s, Span *ret_tok);
/* Token equals the NUL-terminated string. */
bool span_eq(Span s, const char *str);
bool span_startswith(Span s, const char *prefix);

/* The one integer parser of fragd: a decimal integer, the whole input and
 * nothing else. Digits, after one leading '-' for the signed ones ("-0" is
 * 0). No blanks anywhere (a caller that allows them around a number strips
 * them first: fragd.conf values, knob files), no '+', no base prefix, no
 * empty input. Returns 0, -EBADMSG when malformed (a NULL string too),
 * -ERANGE when the number does not fit (below INT64_MIN, above INT64_MAX or
 * UINT64_MAX). *ret is written only on success. Leading zeros are fine. */
int span_to_u64(Span s, uint64_t *ret);
int span_to_i64(Span s, int64_t *ret);
/* The same for a NUL-terminated string. */
int parse_u64(const char *s, uint64_t *ret);
int parse_i64(const char *s, int64_t *ret);
/* Copies into dst (NUL-terminated); -ENAMETOOLONG if it does not fit. */
int span_copy(Span s, char *dst, size_t size);
/* Strips trailing blanks (and a trailing ':' or ',' when strip_punct). */
Span span_rstrip(Span s, bool strip_punct);
