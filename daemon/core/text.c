/* SPDX-License-Identifier: GPL-2.0-or-later */
/* UTF-8 and directory-name checks shared by the configuration loader, the
 * knob journal, the JSON writer and the exporter. See daemon/core/text.h. */

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/text.h"

size_t utf8_sequence_len(const char *s, const char *end)
{
        const unsigned char *p = (const unsigned char *) s;
        size_t avail = end ? (size_t) (end - s) : SIZE_MAX;
        size_t n;
        uint32_t cp, min;

        if (avail == 0)
                return 0;
        if (p[0] < 0x80)
                return 1;
        if (p[0] >= 0xC2 && p[0] <= 0xDF)
                n = 2, cp = p[0] & 0x1F, min = 0x80;
        else if (p[0] >= 0xE0 && p[0] <= 0xEF)
                n = 3, cp = p[0] & 0x0F, min = 0x800;
        else if (p[0] >= 0xF0 && p[0] <= 0xF4)
                n = 4, cp = p[0] & 0x07, min = 0x10000;
        else
                return 0; /* continuation byte, C0/C1 overlong lead, F5..FF */
        if (n > avail)
                return 0;
        for (size_t i = 1; i < n; i++) {
                /* also stops at the NUL of a NUL-terminated string */
                if ((p[i] & 0xC0) != 0x80)
                        return 0;
                cp = (cp << 6) | (p[i] & 0x3F);
        }
        if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
                return 0;
        return n;
}

bool utf8_valid(const char *s)
{
        while (*s) {
                size_t n = utf8_sequence_len(s, NULL);

                if (n == 0)
                        return false;
                s += n;
        }
        return true;
}

/* U+0080..U+009F, encoded C2 80..C2 9F: the C1 controls */
static bool is_c1(const unsigned char *p, size_t n)
{
        return n == 2 && p[0] == 0xC2 && p[1] <= 0x9F;
}

bool text_printable(const char *s, const char **ret_why)
{
        const char *why = NULL;

        for (const char *p = s; *p;) {
                size_t n = utf8_sequence_len(p, NULL);

                if (n == 0) {
                        why = "is not valid UTF-8";
                        break;
                }
                if ((unsigned char) *p < 0x20 || *p == 0x7F || is_c1((const unsigned char *) p, n)) {
                        why = "contains a control character";
                        break;
                }
                p += n;
        }
        if (why && ret_why)
                *ret_why = why;
        return !why;
}

/* p starts a sequence that end cuts short: a lead byte, then only
 * continuation bytes up to end (nothing past end is read) */
static bool cut_sequence(const char *p, const char *end)
{
        unsigned char c = (unsigned char) *p;
        size_t want = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : 2;

        if (c < 0xC2 || c > 0xF4 || (size_t) (end - p) >= want)
                return false;
        for (const char *q = p + 1; q < end; q++)
                if (((unsigned char) *q & 0xC0) != 0x80)
                        return false;
        return true;
}

size_t text_scrub(char *dst, size_t size, const char *s, size_t n, const char *keep)
{
        const char *end;
        bool cut;
        size_t o = 0;

        if (size == 0)
                return 0;
        end = memchr(s, '\0', n);
        cut = !end;
        if (!end)
                end = s + n;
        for (const char *p = s; p < end;) {
                size_t len = utf8_sequence_len(p, end);
                unsigned char c = (unsigned char) *p;

                if (len == 0 && cut && cut_sequence(p, end))
                        break;
                if (len == 0 || (c < 0x20 && !(keep && c && strchr(keep, c))) || c == 0x7F ||
                    is_c1((const unsigned char *) p, len)) {
                        if (o + 1 >= size)
                                break;
                        dst[o++] = '?';
                        p += len ? len : 1;
                        continue;
                }
                if (o + len >= size)
                        break;
                memmove(dst + o, p, len); /* o <= p - s: in place is safe */
                o += len;
                p += len;
        }
        dst[o] = '\0';
        return o;
}

/* appends n bytes to buf at *o when they fit with the NUL; else false */
static bool put(char *buf, size_t size, size_t *o, const char *p, size_t n)
{
        if (*o + n >= size)
                return false;
        memcpy(buf + *o, p, n);
        *o += n;
        buf[*o] = '\0';
        return true;
}

int text_escape(const char *s, size_t n, char *buf, size_t size)
{
        const char *end = s + n;
        size_t o = 0;

        if (size == 0)
                return -ENOBUFS;
        buf[0] = '\0';
        for (const char *p = s; p < end;) {
                size_t len = utf8_sequence_len(p, end);
                unsigned char c = (unsigned char) *p;
                char e[12];
                bool ok;

                if (c == '\\')
                        ok = put(buf, size, &o, "\\\\", 2);
                else if (c == '\n' || c == '\t' || c == '\r') {
                        e[0] = '\\';
                        e[1] = c == '\n' ? 'n' : c == '\t' ? 't' : 'r';
                        ok = put(buf, size, &o, e, 2);
                } else if (len == 0 || c < 0x20 || c == 0x7F) {
                        snprintf(e, sizeof(e), "\\x%02x", c);
                        ok = put(buf, size, &o, e, 4);
                        len = 1;
                } else if (is_c1((const unsigned char *) p, len)) {
                        snprintf(e, sizeof(e), "\\x%02x\\x%02x", c, (unsigned char) p[1]);
                        ok = put(buf, size, &o, e, 8);
                } else
                        ok = put(buf, size, &o, p, len);
                if (!ok)
                        return -ENOBUFS;
                p += len ? len : 1;
        }
        return (int) o;
}

int text_shell_quote(const char *s, char *buf, size_t size)
{
        size_t o = 0;

        if (size == 0)
                return -ENOBUFS;
        buf[0] = '\0';
        if (*s && strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789@%+=:,./_-") ==
                          strlen(s))
                return put(buf, size, &o, s, strlen(s)) ? (int) o : -ENOBUFS;
        if (!put(buf, size, &o, "'", 1))
                return -ENOBUFS;
        for (const char *p = s; *p; p++)
                if (!(*p == '\'' ? put(buf, size, &o, "'\\''", 4) : put(buf, size, &o, p, 1)))
                        return -ENOBUFS;
        return put(buf, size, &o, "'", 1) ? (int) o : -ENOBUFS;
}

int text_dir_relative(const char *path, char *ret, size_t size, const char **ret_why)
{
        const char *why = NULL, *p, *c;
        size_t n;
        int r = -EINVAL;

        if (!path || !path[0])
                why = "is empty";
        else if (strlen(path) > TEXT_DIR_LEN_MAX)
                why = "is longer than 255 bytes", r = -ENAMETOOLONG;
        else if (path[0] != '/')
                why = "is not an absolute path";
        else
                (void) text_printable(path, &why);
        if (why)
                goto fail;

        for (p = path; *p == '/'; p++)
                ;
        n = strlen(p);
        while (n > 0 && p[n - 1] == '/')
                n--;
        if (n == 0) {
                why = "is the root directory: fragd would keep its files among the system's top-level "
                      "directories";
                goto fail;
        }
        /* every component; "." would name the root again, ".." leave it */
        for (c = p; c < p + n;) {
                size_t len = strcspn(c, "/");

                if (len > (size_t) (p + n - c))
                        len = (size_t) (p + n - c);
                if ((len == 1 && c[0] == '.') || (len == 2 && c[0] == '.' && c[1] == '.')) {
                        why = "has a '.' or '..' component: write the plain absolute path";
                        goto fail;
                }
                c += len;
                while (c < p + n && *c == '/')
                        c++;
        }
        if (ret) {
                if (n + 1 > size) {
                        why = "is too long", r = -ENAMETOOLONG;
                        goto fail;
                }
                memcpy(ret, p, n);
                ret[n] = '\0';
        }
        return 0;
fail:
        if (ret_why)
                *ret_why = why;
        return r;
}
