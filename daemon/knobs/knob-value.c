/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Knob values: normalising what a knob file reads (whitespace, the
 * bracketed "always [madvise] never" form), comparing and validating
 * values. Pure: no registry, no I/O. Split from knob.c. */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "knobs/knob-internal.h"
#include "knobs/knob.h"
#include "sources/sources.h"

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
        return parse_i64(s, ret) >= 0;
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

/* ---- what a knob can hold (a journal read back from disk is checked) ---- */

static const char *const thp_enabled_words[] = { "always", "madvise", "never", NULL };
static const char *const thp_defrag_words[] = { "always", "defer", "defer+madvise", "madvise", "never", NULL };
static const char *const thp_shmem_words[] = { "always", "within_size", "advise", "never", "deny", "force", NULL };
static const char *const mthp_enabled_words[] = { "always", "inherit", "madvise", "never", NULL };
static const char *const mthp_shmem_words[] = { "always", "inherit", "within_size", "advise", "never", NULL };

static const char *const *choice_words(const char *name)
{
        size_t n = strlen(name);

        if (strcmp(name, "thp.enabled") == 0)
                return thp_enabled_words;
        if (strcmp(name, "thp.defrag") == 0)
                return thp_defrag_words;
        if (strcmp(name, "thp.shmem_enabled") == 0)
                return thp_shmem_words;
        if (strncmp(name, "thp.hugepages-", 14) == 0 && n > 14) {
                if (n > 14 && strcmp(name + n - (sizeof(".shmem_enabled") - 1), ".shmem_enabled") == 0)
                        return mthp_shmem_words;
                return mthp_enabled_words;
        }
        return NULL;
}

int knob_value_check(const Knob *k, const char *v, char *ret_why, size_t size)
{
        int64_t lo, hi;

        if (!knob_value_valid_for(k->kind, v)) {
                snprintf(ret_why, size, "not a value a knob holds (empty, too long, control characters or "
                                        "stray blanks)");
                return -EBADMSG;
        }
        if (k->kind == KNOB_KIND_CHOICE) {
                const char *const *w = choice_words(k->name);
                size_t len = 0;

                if (!w)
                        return 0;
                for (size_t i = 0; w[i]; i++)
                        if (strcmp(w[i], v) == 0)
                                return 0;
                len = (size_t) snprintf(ret_why, size, "not one of the modes of %s (", k->name);
                for (size_t i = 0; w[i] && len < size; i++)
                        len += (size_t) snprintf(ret_why + len, size - len, "%s%s", i ? " " : "", w[i]);
                if (len < size)
                        snprintf(ret_why + len, size - len, ")");
                return -EINVAL;
        }
        if (k->kind != KNOB_KIND_INT)
                return 0;
        if (sysctl_kernel_range(k->name, &lo, &hi) >= 0) {
                int64_t x;

                if (!knob_parse_i64(v, &x)) {
                        snprintf(ret_why, size, "not an integer");
                        return -EBADMSG;
                }
                if (x < lo || x > hi) {
                        snprintf(ret_why, size, "outside the kernel's range %" PRId64 "..%" PRId64, lo, hi);
                        return -ERANGE;
                }
                return 0;
        }
        /* one or more integers separated by single blanks (lowmem_reserve_ratio) */
        for (const char *p = v; *p;) {
                char word[KNOB_VALUE_MAX];
                size_t n = strcspn(p, " ");
                int64_t x;

                memcpy(word, p, n);
                word[n] = '\0';
                if (!knob_parse_i64(word, &x)) {
                        snprintf(ret_why, size, "not an integer");
                        return -EBADMSG;
                }
                p += n;
                if (*p == ' ')
                        p++;
        }
        return 0;
}

int knob_read_normalized(const KnobOps *ops, const Knob *k, char *ret, size_t size)
{
        char raw[KNOB_VALUE_MAX * 2];
        int r;

        r = ops->read(k, raw, sizeof(raw));
        if (r < 0)
                return r == -EFBIG ? -EBADMSG : r;
        return knob_value_normalize(k->kind, raw, ret, size);
}
