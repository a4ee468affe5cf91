/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Pass one of loading fragd.conf: a file's text, or the --set arguments,
 * into a list of assignments, each value validated on the way.
 *
 * inih does the INI syntax. Its distro build has INI_MAX_LINE 200, no line
 * numbers in the handler, truncates section names at 50 characters and
 * joins indented lines to the previous value. So files are read whole and
 * fed to ini_parse_stream() through our own reader, which counts lines,
 * tracks the full section header itself, strips indentation (no
 * continuation lines), and reports what inih would only count as "first bad
 * line": overlong lines, lines without '=', broken section headers. The
 * handler never fails inih; it records errors and carries on, so one run
 * lists every problem. Split from config.c. */

#include <ini.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config-load-internal.h"

/* ---- assignment lists ---- */

void config_list_free(AssignList *list)
{
        for (size_t i = 0; i < list->n; i++) {
                free(list->v[i].cgroup);
                free(list->v[i].value);
        }
        free(list->v);
        *list = (AssignList) { 0 };
}

static void list_add(Loader *l, const ConfigKey *k, const char *value)
{
        AssignList *list = l->out;
        Assignment *a;

        if (list->n == list->cap) {
                size_t cap = list->cap ? list->cap * 2 : 32;
                Assignment *v = realloc(list->v, cap * sizeof(*v));

                if (!v) {
                        l->oom = true;
                        return;
                }
                list->v = v;
                list->cap = cap;
        }
        a = &list->v[list->n];
        *a = (Assignment) { .key = k, .lever = l->lever, .src = config_here(l) };
        a->value = strdup(value ? value : "");
        if (l->kind == SECTION_CGROUP)
                a->cgroup = strdup(l->cgroup);
        if (!a->value || (l->kind == SECTION_CGROUP && !a->cgroup)) {
                free(a->value);
                free(a->cgroup);
                l->oom = true;
                return;
        }
        list->n++;
}

/* A key set a second time in the file being read: the later value is used,
 * as it always was, but no longer silently: a warning names both lines
 * (which of the two was meant cannot be known, and an appended override is
 * a habit to keep working). Layers override one another without a word:
 * this looks at one file only, and not at --set, where a later argument
 * wins as on any command line. Beyond FRAGD_MAX_CGROUPS cgroups in one
 * file the extra ones are not checked (pass two reports them). */
static void set_twice(Loader *l, const ConfigKey *k)
{
        uint32_t *seen;
        int sub = 0;

        if (l->set_arg)
                return;
        if (l->kind == SECTION_KNOB)
                sub = l->lever;
        else if (l->kind == SECTION_CGROUP) {
                while (sub < (int) l->n_seen_cgroups && strcmp(l->seen_cgroup[sub], l->cgroup) != 0)
                        sub++;
                if (sub == (int) l->n_seen_cgroups) {
                        if (l->n_seen_cgroups >= FRAGD_MAX_CGROUPS)
                                return;
                        snprintf(l->seen_cgroup[l->n_seen_cgroups++], sizeof(l->seen_cgroup[0]), "%s", l->cgroup);
                }
        }
        seen = &l->seen_line[config_key_slot(k, sub)];
        if (*seen)
                warning_here(l, "%s %s is set again, first at line %u of this file: the value here is used "
                                "(set a key once in a file%s)",
                             l->header, k->name, (unsigned) *seen,
                             l->fleet ? "" : "; a drop-in in fragd.conf.d/ overrides the main file");
        else
                *seen = l->line;
}

/* ---- sections and keys (shared by files and --set) ---- */

static void section_begin(Loader *l, const char *name, const char *sub)
{
        int s;

        l->in_section = true;
        l->section_ok = false;
        l->lever = -1;
        l->cgroup[0] = '\0';
        snprintf(l->header, sizeof(l->header), sub ? "[%s \"%s\"]" : "[%s]", name, sub);

        s = config_section_from_name(name);
        if (s < 0) {
                const char *hint = config_section_suggest(name);

                if (hint)
                        error_here(l, "unknown section [%s]; did you mean [%s]?", name, hint);
                else
                        error_here(l, "unknown section [%s]; sections are [daemon], [policy], "
                                      "[knob \"NAME\"], [cgroup \"PATH\"], [fleet]",
                                   name);
                return;
        }
        l->kind = (SectionKind) s;

        if (config_section_has_sub(l->kind) && !sub) {
                error_here(l, "[%s] needs a name: [%s \"%s\"]", name, name,
                           l->kind == SECTION_KNOB ? "compaction_proactiveness" : "system.slice/NAME.service");
                return;
        }
        if (!config_section_has_sub(l->kind) && sub) {
                error_here(l, "[%s] takes no name", name);
                return;
        }
        if (l->kind == SECTION_MATCH && !l->fleet) {
                error_here(l, "[match] is only valid in fleet files");
                return;
        }
        if (l->kind == SECTION_FLEET && l->fleet) {
                error_here(l, "[fleet] cannot be set from a fleet file");
                return;
        }
        if (l->kind == SECTION_KNOB) {
                int lever = lever_from_name(sub);

                if (lever < 0) {
                        const char *hint = config_lever_suggest(sub);
                        char names[160] = "";

                        for (int i = 0; i < _LEVER_MAX; i++) {
                                size_t len = strlen(names);
                                snprintf(names + len, sizeof(names) - len, "%s%s", i ? ", " : "", lever_name(i));
                        }
                        if (hint)
                                error_here(l, "unknown knob \"%s\"; did you mean \"%s\"?", sub, hint);
                        else
                                error_here(l, "unknown knob \"%s\"; knobs are %s", sub, names);
                        return;
                }
                l->lever = lever;
        }
        if (l->kind == SECTION_CGROUP) {
                char err[256];

                if (config_cgroup_path(sub, l->cgroup, sizeof(l->cgroup), err, sizeof(err)) < 0) {
                        error_here(l, "%s", err);
                        return;
                }
                snprintf(l->header, sizeof(l->header), "[cgroup \"%s\"]", l->cgroup);
                if (!l->set_arg)
                        list_add(l, NULL, ""); /* the section alone declares the cgroup */
        }
        l->section_ok = true;
}

static void key_value(Loader *l, const char *name, const char *value)
{
        const ConfigKey *k;
        char err[CONFIG_ERROR_MAX / 2];

        if (!l->in_section) {
                error_here(l, "'%s' is outside of any section", name);
                return;
        }
        if (!l->section_ok)
                return; /* the header was reported */

        k = config_key_find(l->kind, name);
        if (!k) {
                const char *hint = config_key_suggest(l->kind, name);

                if (hint)
                        error_here(l, "unknown key '%s' in %s; did you mean '%s'?", name, l->header, hint);
                else
                        error_here(l, "unknown key '%s' in %s", name, l->header);
                return;
        }

        if (config_key_apply(k, &l->scratch, l->kind == SECTION_KNOB ? l->lever : 0, value, err, sizeof(err)) <
            0) {
                /* "20%  # note": sysctl.conf and shell habit, but inih takes
                 * only ';' as a comment after a value */
                const char *hash = strchr(value, '#');
                bool comment = hash && hash > value && (hash[-1] == ' ' || hash[-1] == '\t');

                error_here(l, "%s %s = %s: %s%s", l->header, name, value, err,
                           comment ? " ('#' starts a comment only at the start of a line; after a value, use ';')"
                                   : "");
                return;
        }

        if (l->kind == SECTION_MATCH && strcmp(name, "cloud") == 0) {
                if (l->fleet->cloud[0]) {
                        error_here(l, "[match] already has cloud = %s (line %u)", l->fleet->cloud,
                                   l->fleet->cloud_line);
                        return;
                }
                if (!fleet_cloud_valid(value)) {
                        error_here(l, "[match] cloud = %s: not aws, gce or azure", value);
                        return;
                }
                snprintf(l->fleet->cloud, sizeof(l->fleet->cloud), "%s", value);
                l->fleet->cloud_line = l->line;
                return;
        }
        if (l->kind == SECTION_MATCH) {
                if (l->fleet->kind != FLEET_MATCH_NONE) {
                        error_here(l, "a fleet file matches one thing: [match] already has %s (line %u)",
                                   l->fleet->kind == FLEET_MATCH_CLASS ? "class" : "instance_type",
                                   l->fleet->line);
                        return;
                }
                l->fleet->kind = strcmp(name, "class") == 0 ? FLEET_MATCH_CLASS : FLEET_MATCH_INSTANCE_TYPE;
                snprintf(l->fleet->pattern, sizeof(l->fleet->pattern), "%s", value);
                l->fleet->line = l->line;
                return;
        }
        set_twice(l, k);
        list_add(l, k, value);
}

/* ---- the inih side ---- */

static int ini_handler_cb(void *user, const char *section, const char *name, const char *value)
{
        (void) section; /* ours is tracked in full by the reader */
        key_value(user, name, value);
        return 1;       /* never fail inih: errors are collected */
}

/* Section header text between '[' and ']': NAME or NAME "SUB". */
static void section_header(Loader *l, const char *p, size_t len)
{
        char text[FRAGD_PATH_MAX + 64], name[64], sub[FRAGD_PATH_MAX + 32];
        const char *close = memchr(p, ']', len);
        const char *q, *after;
        bool has_sub = false;

        l->in_section = true;
        l->section_ok = false;
        if (!close) {
                error_here(l, "section header without ']'");
                return;
        }
        for (after = close + 1; after < p + len && (*after == ' ' || *after == '\t'); after++)
                ;
        if (after < p + len && *after != ';' && *after != '#') {
                error_here(l, "unexpected text after ']'");
                return;
        }
        snprintf(text, sizeof(text), "%.*s", (int) (close - p - 1), p + 1);

        q = text;
        while (*q == ' ' || *q == '\t')
                q++;
        size_t n = strcspn(q, " \t\"");
        if (n == 0 || n >= sizeof(name)) {
                error_here(l, "empty or overlong section name");
                return;
        }
        snprintf(name, sizeof(name), "%.*s", (int) n, q);
        q += n;
        while (*q == ' ' || *q == '\t')
                q++;
        if (*q == '"') {
                const char *endq = strchr(q + 1, '"');
                const char *rest;

                if (!endq) {
                        error_here(l, "section name with an unterminated quote");
                        return;
                }
                for (rest = endq + 1; *rest == ' ' || *rest == '\t'; rest++)
                        ;
                if (*rest) {
                        error_here(l, "unexpected text after the quoted name in the section header");
                        return;
                }
                snprintf(sub, sizeof(sub), "%.*s", (int) (endq - q - 1), q + 1);
                has_sub = true;
        } else if (*q) {
                error_here(l, "section header: quote the name, as in [%s \"%s\"]", name, q);
                return;
        }
        section_begin(l, name, has_sub ? sub : NULL);
}

/* Like inih: '=' or ':' before an inline ';' comment (one after a blank). */
static bool has_separator(const char *p, size_t len)
{
        bool was_space = false;

        for (size_t i = 0; i < len; i++) {
                if (p[i] == '=' || p[i] == ':')
                        return true;
                if (was_space && p[i] == ';')
                        return false;
                was_space = p[i] == ' ' || p[i] == '\t';
        }
        return false;
}

static char *ini_reader_cb(char *str, int num, void *stream)
{
        Loader *l = stream;
        const char *start, *nl, *eol;
        size_t len;

        if (l->pos >= l->end)
                return NULL;
        start = l->pos;
        nl = memchr(start, '\n', (size_t) (l->end - start));
        eol = nl ? nl : l->end;
        l->pos = nl ? nl + 1 : l->end;
        l->line++;
        l->max_line = num;

        len = (size_t) (eol - start);
        if (len > 0 && start[len - 1] == '\r')
                len--;
        /* no indentation: inih would join an indented line to the previous value */
        while (len > 0 && (*start == ' ' || *start == '\t'))
                start++, len--;

        strcpy(str, "\n");
        if (num < 3)
                return str;
        if (memchr(start, '\0', len)) {
                error_here(l, "line contains a NUL byte");
                return str;
        }
        if (len + 2 > (size_t) num) {
                error_here(l, "line longer than %d characters", num - 2);
                return str;
        }
        if (len == 0 || *start == ';' || *start == '#') {
                return str;
        }
        if (*start == '[') {
                section_header(l, start, len);
                strcpy(str, "[s]\n"); /* inih's copy is unused; ours is complete */
                return str;
        }
        if (!has_separator(start, len)) {
                error_here(l, "expected 'key = value'");
                return str;
        }
        memcpy(str, start, len);
        str[len] = '\n';
        str[len + 1] = '\0';
        return str;
}

void config_parse_buffer(Loader *l, const char *buf, size_t len)
{
        unsigned errors_before = l->n_errors;
        int r;

        /* a UTF-8 byte order mark */
        if (len >= 3 && memcmp(buf, "\xEF\xBB\xBF", 3) == 0)
                buf += 3, len -= 3;
        l->pos = buf;
        l->end = buf + len;
        l->line = 0;
        l->in_section = l->section_ok = false;
        l->kind = SECTION_DAEMON;
        l->lever = -1;
        l->cgroup[0] = '\0';
        memset(l->seen_line, 0, sizeof(l->seen_line));
        l->n_seen_cgroups = 0;

        r = ini_parse_stream(ini_reader_cb, l, ini_handler_cb, l);
        if (r == -2)
                l->oom = true;
        else if (r != 0 && l->n_errors == errors_before) {
                /* inih saw something our reader let through */
                l->line = r > 0 ? (unsigned) r : 0;
                error_here(l, "syntax error");
        }
}

/* ---- --set section.key=value, section.name.key=value or
 * section "name".key=value ---- */

void config_load_set(Loader *l, AssignList *list)
{
        for (size_t i = 0; i < l->args->n_set; i++) {
                const char *arg = l->args->set[i];
                char buf[FRAGD_PATH_MAX + 128];
                char *eq, *quote, *dot1, *dot2, *section, *key, *sub = NULL;

                l->out = list;
                l->origin = CONFIG_ORIGIN_CMDLINE;
                l->file = 0;
                l->line = (unsigned) i + 1;
                l->set_arg = arg ? arg : "";
                l->fleet = NULL;

                if (!arg || strlen(arg) >= sizeof(buf)) {
                        error_here(l, "too long");
                        continue;
                }
                strcpy(buf, arg);
                eq = strchr(buf, '=');
                if (!eq) {
                        error_here(l, "expected SECTION.KEY=VALUE");
                        continue;
                }
                *eq = '\0';
                section = buf;
                quote = strchr(buf, '"');
                if (quote) {
                        /* SECTION "NAME".KEY, the section as a file writes it */
                        char *close = strchr(quote + 1, '"');
                        const char *why = !close               ? "no closing quote"
                                          : close[1] != '.'    ? "no dot after the name"
                                          : close[2] == '\0'   ? "no key"
                                                               : NULL;

                        if (why) {
                                error_here(l, "expected SECTION \"NAME\".KEY=VALUE (%s)", why);
                                continue;
                        }
                        *quote = *close = '\0';
                        for (char *e = quote; e > buf && e[-1] == ' '; e--)
                                e[-1] = '\0';
                        sub = quote + 1;
                        key = close + 2;
                } else {
                        /* SECTION.KEY, or SECTION.NAME.KEY where NAME may hold
                         * dots (cgroup paths): the key is after the last dot */
                        dot1 = strchr(buf, '.');
                        dot2 = strrchr(buf, '.');
                        if (!dot1) {
                                error_here(l, "expected SECTION.KEY=VALUE");
                                continue;
                        }
                        *dot1 = '\0';
                        key = dot2 + 1;
                        if (dot2 != dot1) {
                                *dot2 = '\0';
                                sub = dot1 + 1;
                        }
                }
                section_begin(l, section, sub);
                if (l->section_ok && l->kind == SECTION_CGROUP)
                        list_add(l, NULL, "");
                key_value(l, key, eq + 1);
        }
        l->set_arg = NULL;
}
