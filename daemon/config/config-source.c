/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Where a value came from ("preset database", "/etc/fragd/fragd.conf:12",
 * "command line"), and the loader's errors, each recorded with the place it
 * names. Used by every stage of loading (config-parse.c, config-validate.c,
 * config.c) and by printing (config-print.c); calls none of them. */

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "config/config-load-internal.h"

char *config_source_format(const ConfigSources *s, ConfigSource src, char *buf, size_t size)
{
        switch (src.origin) {
        case CONFIG_ORIGIN_DEFAULT:
                snprintf(buf, size, "default");
                break;
        case CONFIG_ORIGIN_PRESET:
                snprintf(buf, size, "preset %s", preset_name(s->preset) ?: "?");
                break;
        case CONFIG_ORIGIN_FLEET:
                snprintf(buf, size, "fleet %s:%u", config_file_name(s, src.file), src.line);
                break;
        case CONFIG_ORIGIN_FILE:
                snprintf(buf, size, "%s:%u", config_file_name(s, src.file), src.line);
                break;
        case CONFIG_ORIGIN_CMDLINE:
                snprintf(buf, size, "command line");
                break;
        default:
                snprintf(buf, size, "?");
        }
        return buf;
}

const char *config_slot_source(const ConfigSources *s, const ConfigKey *k, int sub, char *buf, size_t size)
{
        return config_source_format(s, s->slot[config_key_slot(k, sub)], buf, size);
}

/* "path:line: ", "command line: --set 'x': " */
static void location(const Loader *l, ConfigSource src, const char *set_arg, char *buf, size_t size)
{
        if (src.origin == CONFIG_ORIGIN_CMDLINE)
                snprintf(buf, size, "command line: --set '%s': ", set_arg ? set_arg : "");
        else if (src.line > 0)
                snprintf(buf, size, "%s:%u: ", config_file_name(l->src, src.file), src.line);
        else if (src.origin == CONFIG_ORIGIN_FILE || src.origin == CONFIG_ORIGIN_FLEET)
                snprintf(buf, size, "%s: ", config_file_name(l->src, src.file));
        else
                buf[0] = '\0';
}

/* "path:line: message" into the next error (or warning) of l->errs; one
 * past the list's size is only counted */
_printf_(5, 0) static void vrecord(Loader *l, bool warning, ConfigSource src, const char *set_arg,
                                    const char *fmt, va_list ap)
{
        ConfigErrors *e = l->errs;
        unsigned *n = warning ? &e->n_warnings : &e->n;
        char *msg;
        size_t len;

        if (!warning)
                l->n_errors++;
        if (*n >= (warning ? CONFIG_MAX_WARNINGS : CONFIG_MAX_ERRORS)) {
                (*(warning ? &e->n_warnings_dropped : &e->n_dropped))++;
                return;
        }
        msg = warning ? e->warning[(*n)++] : e->msg[(*n)++];
        location(l, src, set_arg, msg, CONFIG_ERROR_MAX);
        len = strlen(msg);
        vsnprintf(msg + len, CONFIG_ERROR_MAX - len, fmt, ap);
}

void config_error_at(Loader *l, ConfigSource src, const char *set_arg, const char *fmt, ...)
{
        va_list ap;

        va_start(ap, fmt);
        vrecord(l, false, src, set_arg, fmt, ap);
        va_end(ap);
}

void config_warning_at(Loader *l, ConfigSource src, const char *set_arg, const char *fmt, ...)
{
        va_list ap;

        va_start(ap, fmt);
        vrecord(l, true, src, set_arg, fmt, ap);
        va_end(ap);
}
