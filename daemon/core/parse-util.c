/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <errno.h>
#include <string.h>

#include "core/parse-util.h"
#include "core/root.h"

bool cursor_next_line(Cursor *c, Span *ret_line)
{
        const char *nl;

        if (c->p >= c->end)
                return false;
        nl = memchr(c->p, '\n', (size_t) (c->end - c->p));
        ret_line->p = c->p;
        ret_line->len = (size_t) ((nl ? nl : c->end) - c->p);
        c->p = nl ? nl + 1 : c->end;
        return true;
}

static bool is_blank(char ch)
{
        return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\v' || ch == '\f';
}

void span_skip_blanks(Span *s)
{
        while (s->len > 0 && is_blank(*s->p)) {
                s->p++;
                s->len--;
        }
}

bool span_next_token(Span *s, Span *ret_tok)
{
        size_t n = 0;

        span_skip_blanks(s);
        if (s->len == 0)
                return false;
        while (n < s->len && !is_blank(s->p[n]) && s->p[n] != '\0')
                n++;
        if (n == 0) { /* an embedded NUL: consume it as garbage */
                ret_tok->p = s->p;
                ret_tok->len = 1;
                s->p++;
                s->len--;
                return true;
        }
        ret_tok->p = s->p;
        ret_tok->len = n;
        s->p += n;
        s->len -= n;
        return true;
}

bool span_eq(Span s, const char *str)
{
        size_t n = strlen(str);
        return s.len == n && memcmp(s.p, str, n) == 0;
}

bool span_startswith(Span s, const char *prefix)
{
        size_t n = strlen(prefix);
        return s.len >= n && memcmp(s.p, prefix, n) == 0;
}

int span_to_u64(Span s, uint64_t *ret)
{
        uint64_t v = 0;

        if (s.len == 0)
                return -EBADMSG;
        for (size_t i = 0; i < s.len; i++) {
                unsigned d;

                if (s.p[i] < '0' || s.p[i] > '9')
                        return -EBADMSG;
                d = (unsigned) (s.p[i] - '0');
                if (v > (UINT64_MAX - d) / 10)
                        return -ERANGE;
                v = v * 10 + d;
        }
        *ret = v;
        return 0;
}

int span_to_i64(Span s, int64_t *ret)
{
        uint64_t u;
        bool neg = false;
        int r;

        if (s.len > 0 && s.p[0] == '-') {
                neg = true;
                s.p++;
                s.len--;
        }
        r = span_to_u64(s, &u);
        if (r < 0)
                return r;
        if (neg) {
                if (u > (uint64_t) INT64_MAX + 1)
                        return -ERANGE;
                *ret = u == (uint64_t) INT64_MAX + 1 ? INT64_MIN : -(int64_t) u;
        } else {
                if (u > INT64_MAX)
                        return -ERANGE;
                *ret = (int64_t) u;
        }
        return 0;
}

int parse_u64(const char *s, uint64_t *ret)
{
        if (!s)
                return -EBADMSG;
        return span_to_u64((Span) { s, strlen(s) }, ret);
}

int parse_i64(const char *s, int64_t *ret)
{
        if (!s)
                return -EBADMSG;
        return span_to_i64((Span) { s, strlen(s) }, ret);
}

int span_copy(Span s, char *dst, size_t size)
{
        if (size == 0 || s.len >= size)
                return -ENAMETOOLONG;
        memcpy(dst, s.p, s.len);
        dst[s.len] = '\0';
        return 0;
}

Span span_rstrip(Span s, bool strip_punct)
{
        while (s.len > 0 && (is_blank(s.p[s.len - 1]) || s.p[s.len - 1] == '\n' ||
                             (strip_punct && (s.p[s.len - 1] == ':' || s.p[s.len - 1] == ','))))
                s.len--;
        return s;
}
