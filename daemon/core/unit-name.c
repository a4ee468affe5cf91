/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit names, checked as systemd checks them. See daemon/core/unit-name.h. */

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "core/unit-name.h"
#include "fragd/macro.h"

#define UNIT_NAME_CHARS "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ:-_.\\"

static const char *const unit_types[] = {
        "service", "socket", "target", "device", "mount", "automount",
        "swap",    "timer",  "path",   "slice",  "scope",
};

static bool all_in(const char *s, size_t n, const char *set, char extra)
{
        for (size_t i = 0; i < n; i++)
                if (s[i] == '\0' || (s[i] != extra && !strchr(set, s[i])))
                        return false;
        return true;
}

static int fail(const char **ret_why, int r, const char *why)
{
        if (ret_why)
                *ret_why = why;
        return r;
}

int unit_name_parse(const char *buf, size_t len, UnitName *ret, const char **ret_why)
{
        const char *dot = NULL, *at, *type = NULL;
        size_t prefix_len;

        if (len == 0)
                return fail(ret_why, -EINVAL, "is empty");
        if (memchr(buf, '\0', len))
                return fail(ret_why, -EINVAL, "contains a NUL byte");
        if (len > UNIT_NAME_LEN_MAX)
                return fail(ret_why, -ENAMETOOLONG, "is longer than 255 bytes, the most systemd allows");
        for (size_t i = len; i > 0; i--)
                if (buf[i - 1] == '.') {
                        dot = buf + i - 1;
                        break;
                }
        if (!dot)
                return fail(ret_why, -EINVAL, "has no unit type suffix (.service, .scope, ...)");
        for (size_t i = 0; i < ELEMENTSOF(unit_types); i++)
                if ((size_t) (buf + len - dot - 1) == strlen(unit_types[i]) &&
                    memcmp(dot + 1, unit_types[i], strlen(unit_types[i])) == 0)
                        type = unit_types[i];
        if (!type)
                return fail(ret_why, -EINVAL,
                            "does not end in a unit type systemd knows (.service, .socket, .target, .device, "
                            ".mount, .automount, .swap, .timer, .path, .slice, .scope)");
        at = memchr(buf, '@', (size_t) (dot - buf));
        prefix_len = (size_t) ((at ? at : dot) - buf);
        if (prefix_len == 0)
                return fail(ret_why, -EINVAL, "has nothing before its suffix or '@'");
        if (!all_in(buf, prefix_len, UNIT_NAME_CHARS, 0))
                return fail(ret_why, -EINVAL,
                            "contains a character systemd does not allow in unit names (only letters, digits and "
                            "':', '-', '_', '.', '\\', one '@' before the instance)");
        if (buf[0] == '.')
                return fail(ret_why, -EINVAL, "starts with '.'");
        if (at && !all_in(at + 1, (size_t) (dot - at - 1), UNIT_NAME_CHARS, '@'))
                return fail(ret_why, -EINVAL,
                            "contains a character systemd does not allow in an instance name (only letters, "
                            "digits and ':', '-', '_', '.', '\\', '@')");
        if (ret) {
                *ret = (UnitName) { .type = type };
                memcpy(ret->name, buf, len);
                memcpy(ret->prefix, buf, prefix_len);
                if (at && at + 1 < dot) {
                        ret->kind = UNIT_NAME_INSTANCE;
                        memcpy(ret->instance, at + 1, (size_t) (dot - at - 1));
                } else
                        ret->kind = at ? UNIT_NAME_TEMPLATE : UNIT_NAME_PLAIN;
        }
        return 0;
}

int unit_name_instance_glob(const char *prefix, const char *type, char *buf, size_t size)
{
        int n = snprintf(buf, size, "%s@*.%s", prefix, type);

        return n < 0 || (size_t) n >= size ? -ENOBUFS : 0;
}
