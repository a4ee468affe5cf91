/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Value parsers and formatters for fragd.conf: one per kind of value, shared
 * by every key. Numbers are parsed as exact decimals (no floating point, no
 * locale), so "0.05" is exactly 500 permyriad and "1.5s" exactly 1500000
 * usec; a value finer than its unit's resolution is refused, not rounded. */

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "config/config-internal.h"
#include "core/format.h"
#include "core/parse-util.h"

typedef unsigned __int128 u128;

#define MAX_FRAC_DIGITS 18 /* 10^18 fits in uint64_t */

/* A decimal number as written: int_part.frac, frac has frac_digits digits. */
typedef struct Decimal {
        uint64_t int_part;
        uint64_t frac;
        unsigned frac_digits;
} Decimal;

static uint64_t pow10_u64(unsigned n)
{
        uint64_t r = 1;

        while (n--)
                r *= 10;
        return r;
}

static const char *skip_blanks(const char *p)
{
        while (*p == ' ' || *p == '\t')
                p++;
        return p;
}

/* Digits, optionally '.' and more digits. At least one digit before '.'.
 * The whole part is read by core's integer parser. */
static int decimal_parse(const char **p, Decimal *ret)
{
        const char *s = *p;
        Decimal d = { 0 };
        size_t n = 0;
        int r;

        while (isdigit((unsigned char) s[n]))
                n++;
        if (n == 0)
                return -EBADMSG;
        r = span_to_u64((Span) { s, n }, &d.int_part);
        if (r < 0)
                return r;
        s += n;
        if (*s == '.') {
                s++;
                if (!isdigit((unsigned char) *s))
                        return -EBADMSG;
                for (; isdigit((unsigned char) *s); s++) {
                        if (d.frac_digits >= MAX_FRAC_DIGITS) {
                                /* trailing zeros past the limit change nothing */
                                if (*s != '0')
                                        return -EDOM;
                                continue;
                        }
                        d.frac = d.frac * 10 + (unsigned) (*s - '0');
                        d.frac_digits++;
                }
        }
        *p = s;
        *ret = d;
        return 0;
}

/* d * mult / div, exactly: -EDOM when not a whole number, -ERANGE when it
 * does not fit in uint64_t. */
static int decimal_scale(const Decimal *d, uint64_t mult, uint64_t div, uint64_t *ret)
{
        u128 den = (u128) pow10_u64(d->frac_digits) * div;
        u128 num = (u128) d->int_part * pow10_u64(d->frac_digits) + d->frac;

        if (mult != 0 && num > ((u128) -1) / mult)
                return -ERANGE;
        num *= mult;
        if (num % den != 0)
                return -EDOM;
        num /= den;
        if (num > UINT64_MAX)
                return -ERANGE;
        *ret = (uint64_t) num;
        return 0;
}

int config_parse_bool(const char *s, bool *ret)
{
        static const char *const yes[] = { "yes", "true", "on", "1" };
        static const char *const no[] = { "no", "false", "off", "0" };

        if (!s)
                return -EBADMSG;
        for (size_t i = 0; i < ELEMENTSOF(yes); i++) {
                if (strcasecmp(s, yes[i]) == 0) {
                        *ret = true;
                        return 0;
                }
                if (strcasecmp(s, no[i]) == 0) {
                        *ret = false;
                        return 0;
                }
        }
        return -EBADMSG;
}

static const struct {
        const char *name;
        usec_t usec;
} duration_units[] = {
        { "us", 1 },
        { "usec", 1 },
        { "ms", USEC_PER_MSEC },
        { "msec", USEC_PER_MSEC },
        { "s", USEC_PER_SEC },
        { "sec", USEC_PER_SEC },
        { "m", USEC_PER_MINUTE },
        { "min", USEC_PER_MINUTE },
        { "h", 60 * USEC_PER_MINUTE },
        { "hour", 60 * USEC_PER_MINUTE },
        { "d", 24 * 60 * USEC_PER_MINUTE },
        { "day", 24 * 60 * USEC_PER_MINUTE },
};

int config_parse_duration(const char *s, usec_t *ret)
{
        const char *p;
        usec_t total = 0;
        unsigned n = 0;

        if (!s)
                return -EBADMSG;
        p = skip_blanks(s);
        if (strcmp(p, "0") == 0) {
                *ret = 0;
                return 0;
        }
        while (*p) {
                Decimal d;
                const char *u;
                size_t ulen;
                usec_t unit = 0, v;
                int r;

                r = decimal_parse(&p, &d);
                if (r < 0)
                        return r;
                p = skip_blanks(p);
                for (u = p; isalpha((unsigned char) *p); p++)
                        ;
                ulen = (size_t) (p - u);
                if (ulen == 0)
                        return -EBADMSG; /* a unit is required */
                for (size_t i = 0; i < ELEMENTSOF(duration_units); i++)
                        if (strlen(duration_units[i].name) == ulen &&
                            strncmp(duration_units[i].name, u, ulen) == 0)
                                unit = duration_units[i].usec;
                if (unit == 0)
                        return -EBADMSG;
                r = decimal_scale(&d, unit, 1, &v);
                if (r < 0)
                        return r;
                if (total > UINT64_MAX - v)
                        return -ERANGE;
                total += v;
                n++;
                p = skip_blanks(p);
        }
        if (n == 0)
                return -EBADMSG;
        *ret = total;
        return 0;
}

static const struct {
        const char *name;
        uint64_t bytes;
} size_units[] = {
        { "B", 1 },
        { "K", 1ULL << 10 }, { "KiB", 1ULL << 10 },
        { "M", 1ULL << 20 }, { "MiB", 1ULL << 20 },
        { "G", 1ULL << 30 }, { "GiB", 1ULL << 30 },
        { "T", 1ULL << 40 }, { "TiB", 1ULL << 40 },
        { "P", 1ULL << 50 }, { "PiB", 1ULL << 50 },
};

/* A decimal with blanks around it; *ret_suffix is what follows. */
static int decimal_parse_suffix(const char *s, Decimal *ret, const char **ret_suffix)
{
        const char *p;
        int r;

        if (!s)
                return -EBADMSG;
        p = skip_blanks(s);
        r = decimal_parse(&p, ret);
        if (r < 0)
                return r;
        *ret_suffix = skip_blanks(p);
        return 0;
}

/* d * mult as a share of at most 100% in permyriad. */
static int share_permyriad(const Decimal *d, uint64_t mult, uint32_t *ret)
{
        uint64_t v;
        int r = decimal_scale(d, mult, 1, &v);

        if (r < 0)
                return r;
        if (v > 10000)
                return -ERANGE;
        *ret = (uint32_t) v;
        return 0;
}

/* Bytes, or with allow_percent a share in permyriad. */
static int parse_size_internal(const char *s, bool allow_percent, SizeSpec *ret)
{
        const char *p;
        Decimal d;
        uint64_t v;
        uint32_t pm;
        int r;

        r = decimal_parse_suffix(s, &d, &p);
        if (r < 0)
                return r;
        if (*p == '%') {
                if (!allow_percent || *skip_blanks(p + 1))
                        return -EBADMSG;
                r = share_permyriad(&d, 100, &pm);
                if (r < 0)
                        return r;
                *ret = (SizeSpec) { .bytes = 0, .permyriad = pm };
                return 0;
        }
        if (*p == '\0') {
                r = decimal_scale(&d, 1, 1, &v);
                if (r < 0)
                        return r;
                *ret = (SizeSpec) { .bytes = v };
                return 0;
        }
        for (size_t i = 0; i < ELEMENTSOF(size_units); i++)
                if (strcmp(p, size_units[i].name) == 0) {
                        r = decimal_scale(&d, size_units[i].bytes, 1, &v);
                        if (r < 0)
                                return r;
                        *ret = (SizeSpec) { .bytes = v };
                        return 0;
                }
        return -EBADMSG; /* includes "kB", "MB": ambiguous, refused */
}

int config_parse_size(const char *s, SizeSpec *ret)
{
        return parse_size_internal(s, true, ret);
}

int config_parse_bytes(const char *s, uint64_t *ret)
{
        SizeSpec sz;
        int r = parse_size_internal(s, false, &sz);

        if (r < 0)
                return r;
        *ret = sz.bytes;
        return 0;
}

int config_parse_ratio(const char *s, uint32_t *ret_permyriad)
{
        const char *p;
        Decimal d;
        int r;

        r = decimal_parse_suffix(s, &d, &p);
        if (r < 0)
                return r;
        if (*p == '%') {
                if (*skip_blanks(p + 1))
                        return -EBADMSG;
                return share_permyriad(&d, 100, ret_permyriad);
        }
        if (*p == '\0')
                return share_permyriad(&d, 10000, ret_permyriad);
        return -EBADMSG;
}

/* A plain decimal with blanks around it, as a double (strtod after our own
 * syntax check, so no hex, exponents, "inf" or "nan"). *ret_end is what
 * follows the blanks after it. */
static int parse_double(const char *s, const char **ret_end, double *ret)
{
        const char *p, *start;
        char buf[64];
        Decimal d;
        int r;

        if (!s)
                return -EBADMSG;
        p = start = skip_blanks(s);
        r = decimal_parse(&p, &d);
        if (r < 0 && r != -EDOM)
                return r;
        if (r == -EDOM) /* too many digits for exact: fine for a double */
                while (isdigit((unsigned char) *p))
                        p++;
        if ((size_t) (p - start) >= sizeof(buf))
                return -ERANGE;
        memcpy(buf, start, (size_t) (p - start));
        buf[p - start] = '\0';
        *ret = strtod(buf, NULL);
        *ret_end = skip_blanks(p);
        return 0;
}

int config_parse_rate(const char *s, double *ret_per_sec)
{
        static const struct {
                const char *name;
                double sec;
        } per[] = {
                { "", 1 }, { "/s", 1 }, { "/sec", 1 }, { "/min", 60 }, { "/m", 60 }, { "/h", 3600 },
        };
        const char *p;
        double v;
        int r;

        r = parse_double(s, &p, &v);
        if (r < 0)
                return r;
        for (size_t i = 0; i < ELEMENTSOF(per); i++)
                if (strcmp(p, per[i].name) == 0) {
                        *ret_per_sec = v / per[i].sec;
                        return 0;
                }
        return -EBADMSG;
}

int config_parse_number(const char *s, double *ret)
{
        const char *p;
        double v;
        int r;

        r = parse_double(s, &p, &v);
        if (r < 0)
                return r;
        if (*p)
                return -EBADMSG;
        *ret = v;
        return 0;
}

/* A number may have blanks around it, as every value here may; the number
 * itself is core's (parse-util.h). */
static Span strip_blanks(const char *s)
{
        Span v = { .p = skip_blanks(s) };

        v.len = strlen(v.p);
        while (v.len > 0 && (v.p[v.len - 1] == ' ' || v.p[v.len - 1] == '\t'))
                v.len--;
        return v;
}

int config_parse_uint(const char *s, uint64_t *ret)
{
        if (!s)
                return -EBADMSG;
        return span_to_u64(strip_blanks(s), ret);
}

int config_parse_int(const char *s, int64_t *ret)
{
        if (!s)
                return -EBADMSG;
        return span_to_i64(strip_blanks(s), ret);
}

char *config_format_ratio(char *buf, size_t size, uint32_t permyriad)
{
        unsigned whole = permyriad / 100, frac = permyriad % 100;

        if (frac == 0)
                snprintf(buf, size, "%u%%", whole);
        else if (frac % 10 == 0)
                snprintf(buf, size, "%u.%u%%", whole, frac / 10);
        else
                snprintf(buf, size, "%u.%02u%%", whole, frac);
        return buf;
}

char *config_format_size(char *buf, size_t size, SizeSpec s)
{
        if (s.bytes == 0 && s.permyriad != 0)
                return config_format_ratio(buf, size, s.permyriad);
        format_bytes_exact(buf, size, s.bytes);
        return buf;
}

/* Shortest form that reads back to the same double (core's), as a plain
 * decimal: fragd.conf numbers have no exponent. */
static char *format_double(char *buf, size_t size, double v)
{
        format_double_shortest(buf, size, v);
        /* %g may print an exponent ("1e+06"): print as a plain decimal then */
        if (strpbrk(buf, "eE")) {
                snprintf(buf, size, "%.6f", v);
                /* trim trailing zeros, keep at least one digit after '.' */
                char *e = buf + strlen(buf) - 1;
                while (e > buf && *e == '0' && e[-1] != '.')
                        *e-- = '\0';
        }
        return buf;
}

char *config_format_rate(char *buf, size_t size, double per_sec)
{
        char tmp[48];

        snprintf(buf, size, "%s/s", format_double(tmp, sizeof(tmp), per_sec));
        return buf;
}

char *config_format_number(char *buf, size_t size, double v)
{
        return format_double(buf, size, v);
}

unsigned config_edit_distance(const char *a, const char *b, unsigned cap)
{
        unsigned row[65];
        size_t la = strlen(a), lb = strlen(b);

        if (la > 64 || lb > 64)
                return cap + 1;
        if ((la > lb ? la - lb : lb - la) > cap)
                return cap + 1;
        for (size_t j = 0; j <= lb; j++)
                row[j] = (unsigned) j;
        for (size_t i = 1; i <= la; i++) {
                unsigned diag = row[0], best;

                row[0] = (unsigned) i;
                best = row[0];
                for (size_t j = 1; j <= lb; j++) {
                        unsigned up = row[j];
                        unsigned v = diag + (a[i - 1] != b[j - 1]);

                        v = MIN(v, up + 1);
                        v = MIN(v, row[j - 1] + 1);
                        row[j] = v;
                        diag = up;
                        best = MIN(best, v);
                }
                if (best > cap)
                        return cap + 1;
        }
        return MIN(row[lb], cap + 1);
}
