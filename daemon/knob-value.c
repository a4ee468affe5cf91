/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Knob values: normalising what a knob file reads (whitespace, the
 * bracketed "always [madvise] never" form), comparing and validating
 * values. Pure: no registry, no I/O. Split from knob.c. */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fragd/knob.h"
#include "knob-internal.h"

static bool is_space(char c)
{
        return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

int knob_value_normalize(KnobKind kind, const char *raw, char *ret, size_t size)
{
        char buf[KNOB_VALUE_MAX];
        size_t n = 0;
        bool space = false;

        /* trim and collapse whitespace; reject other control characters */
        for (const char *p = raw; *p; p++) {
                if (is_space(*p)) {
                        space = n > 0;
                        continue;
                }
                if ((unsigned char) *p < 0x20 || (unsigned char) *p > 0x7e)
                        return -EBADMSG;
                if (n + 2 >= sizeof(buf))
                        return -ENAMETOOLONG;
                if (space)
                        buf[n++] = ' ';
                space = false;
                buf[n++] = *p;
        }
        buf[n] = '\0';
        if (n == 0)
                return -EBADMSG;

        if (kind == KNOB_KIND_CHOICE) {
                const char *open = strchr(buf, '['), *close;
                const char *word = buf;
                size_t len;

                if (open) {
                        /* the kernel form: exactly one [word] */
                        close = strchr(open, ']');
                        if (!close || strchr(open + 1, '[') || strchr(close + 1, ']') ||
                            memchr(buf, ']', (size_t) (open - buf)))
                                return -EBADMSG;
                        word = open + 1;
                        len = (size_t) (close - word);
                } else {
                        /* a plain single word, as a test (or dry run) wrote it */
                        if (strchr(buf, ' ') || strchr(buf, ']'))
                                return -EBADMSG;
                        len = n;
                }
                if (len == 0 || memchr(word, ' ', len))
                        return -EBADMSG;
                if (len + 1 > size)
                        return -ENAMETOOLONG;
                memcpy(ret, word, len);
                ret[len] = '\0';
                return 0;
        }
        if (n + 1 > size)
                return -ENAMETOOLONG;
        memcpy(ret, buf, n + 1);
        return 0;
}

bool knob_parse_i64(const char *s, int64_t *ret)
{
        char *end;
        long long v;

        if (!*s || is_space(*s))
                return false;
        errno = 0;
        v = strtoll(s, &end, 10);
        if (errno != 0 || *end != '\0')
                return false;
        *ret = v;
        return true;
}

bool knob_value_equal(KnobKind kind, const char *a, const char *b)
{
        int64_t x, y;

        if (kind == KNOB_KIND_INT && knob_parse_i64(a, &x) && knob_parse_i64(b, &y))
                return x == y;
        return strcmp(a, b) == 0;
}

bool knob_value_valid(const char *v)
{
        size_t n;

        if (!v)
                return false;
        n = strlen(v);
        if (n == 0 || n >= KNOB_VALUE_MAX)
                return false;
        for (size_t i = 0; i < n; i++)
                if ((unsigned char) v[i] < 0x20 || (unsigned char) v[i] > 0x7e)
                        return false;
        return true;
}

bool knob_value_valid_for(KnobKind kind, const char *v)
{
        if (!knob_value_valid(v))
                return false;
        if (kind == KNOB_KIND_CHOICE)
                return !strpbrk(v, " []");
        return !is_space(v[0]) && !is_space(v[strlen(v) - 1]);
}
