/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Loading fragd.conf: every layer, every error at once, all or nothing.
 *
 * inih does the INI syntax. Its distro build has INI_MAX_LINE 200, no line
 * numbers in the handler, truncates section names at 50 characters and
 * joins indented lines to the previous value. So files are read whole and
 * fed to ini_parse_stream() through our own reader, which counts lines,
 * tracks the full section header itself, strips indentation (no
 * continuation lines), and reports what inih would only count as "first bad
 * line": overlong lines, lines without '=', broken section headers. The
 * handler never fails inih; it records errors and carries on, so one run
 * lists every problem.
 *
 * Loading runs in two passes. Pass one parses every layer into lists of
 * assignments, validating each value against a scratch configuration. Pass
 * two starts from the defaults and the effective preset and applies the
 * lists lowest layer first, recording each value's source. Nothing reaches
 * the caller unless both passes found no error. */

#include <dirent.h>
#include <fcntl.h>
#include <ini.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <syslog.h>

#include "config-internal.h"

#define CONF_DIR FRAGD_SYSCONFDIR "/fragd"
#define CONF_FILE CONF_DIR "/fragd.conf"
#define CONF_DROPIN_DIR CONF_DIR "/fragd.conf.d"
#define FLEET_DIR_DEFAULT CONF_DIR "/fleet.d"
#define MAX_DIR_ENTRIES 256

typedef struct Assignment {
        const ConfigKey *key; /* NULL: a [cgroup] declaration without keys yet */
        int lever;            /* knob keys */
        char *cgroup;         /* cgroup keys and declarations */
        char *value;
        ConfigSource src;
} Assignment;

typedef struct AssignList {
        Assignment *v;
        size_t n, cap;
} AssignList;

typedef struct FleetFile {
        uint16_t file;
        FleetMatchKind kind;
        char pattern[CONFIG_INSTANCE_TYPE_MAX];
        unsigned line; /* of the match key */
        AssignList list;
} FleetFile;

typedef struct Loader {
        const ConfigLoadArgs *args;
        ConfigSources *src;
        ConfigErrors *errs;
        unsigned n_errors;
        bool oom;
        FragdConfig scratch; /* values are validated by applying them here */

        /* the file (or --set) being read */
        AssignList *out;
        ConfigOrigin origin;
        uint16_t file;
        FleetFile *fleet; /* parsing a fleet file */
        const char *set_arg;
        /* reader state */
        const char *pos, *end;
        unsigned line;
        int max_line;
        /* the current section */
        bool in_section, section_ok;
        SectionKind kind;
        int lever;
        char cgroup[FRAGD_PATH_MAX];
        char header[FRAGD_PATH_MAX + 32]; /* for messages: [knob "x"] */
} Loader;

/* ---- errors ---- */

static void errors_add(ConfigErrors *e, const char *msg)
{
        if (e->n >= CONFIG_MAX_ERRORS) {
                e->n_dropped++;
                return;
        }
        snprintf(e->msg[e->n++], CONFIG_ERROR_MAX, "%s", msg);
}

static const char *file_name(const ConfigSources *s, uint16_t f)
{
        return f < s->n_files ? s->files[f] : "?";
}

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
                snprintf(buf, size, "fleet %s:%u", file_name(s, src.file), src.line);
                break;
        case CONFIG_ORIGIN_FILE:
                snprintf(buf, size, "%s:%u", file_name(s, src.file), src.line);
                break;
        case CONFIG_ORIGIN_CMDLINE:
                snprintf(buf, size, "command line");
                break;
        default:
                snprintf(buf, size, "?");
        }
        return buf;
}

/* "path:line: ", "command line: --set 'x': " */
static void location(const Loader *l, ConfigSource src, const char *set_arg, char *buf, size_t size)
{
        if (src.origin == CONFIG_ORIGIN_CMDLINE)
                snprintf(buf, size, "command line: --set '%s': ", set_arg ? set_arg : "");
        else if (src.line > 0)
                snprintf(buf, size, "%s:%u: ", file_name(l->src, src.file), src.line);
        else if (src.origin == CONFIG_ORIGIN_FILE || src.origin == CONFIG_ORIGIN_FLEET)
                snprintf(buf, size, "%s: ", file_name(l->src, src.file));
        else
                buf[0] = '\0';
}

static void error_at(Loader *l, ConfigSource src, const char *set_arg, const char *fmt, ...) _printf_(4, 5);
static void error_at(Loader *l, ConfigSource src, const char *set_arg, const char *fmt, ...)
{
        char loc[FRAGD_PATH_MAX + 64], msg[CONFIG_ERROR_MAX], all[CONFIG_ERROR_MAX];
        va_list ap;

        location(l, src, set_arg, loc, sizeof(loc));
        va_start(ap, fmt);
        vsnprintf(msg, sizeof(msg), fmt, ap);
        va_end(ap);
        snprintf(all, sizeof(all), "%s%s", loc, msg);
        errors_add(l->errs, all);
        l->n_errors++;
}

static ConfigSource here(const Loader *l)
{
        return (ConfigSource) { .origin = l->origin, .file = l->file, .line = l->line };
}

#define error_here(l, ...) error_at((l), here(l), (l)->set_arg, __VA_ARGS__)

/* ---- assignment lists ---- */

static void list_free(AssignList *list)
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
        *a = (Assignment) { .key = k, .lever = l->lever, .src = here(l) };
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
                error_here(l, "%s %s = %s: %s", l->header, name, value, err);
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

static void parse_buffer(Loader *l, const char *buf, size_t len)
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

        r = ini_parse_stream(ini_reader_cb, l, ini_handler_cb, l);
        if (r == -2)
                l->oom = true;
        else if (r != 0 && l->n_errors == errors_before) {
                /* inih saw something our reader let through */
                l->line = r > 0 ? (unsigned) r : 0;
                error_here(l, "syntax error");
        }
}

/* ---- files ---- */

static int file_register(Loader *l, const char *display)
{
        ConfigSources *s = l->src;

        if (s->n_files >= CONFIG_MAX_FILES) {
                ConfigSource none = { .origin = CONFIG_ORIGIN_DEFAULT };
                error_at(l, none, NULL, "%s: too many configuration files (at most %d)", display,
                         CONFIG_MAX_FILES);
                return -E2BIG;
        }
        snprintf(s->files[s->n_files], sizeof(s->files[0]), "%s", display);
        return (int) s->n_files++;
}

/* Reads one file into list. A missing file is fine unless must_exist. */
static int load_file(Loader *l, int dirfd, const char *rel, const char *display, ConfigOrigin origin,
                     AssignList *list, FleetFile *fleet, bool must_exist)
{
        _cleanup_free_ char *buf = NULL;
        size_t len = 0;
        int r, f;

        r = read_file_alloc_at(dirfd, rel, &buf, &len);
        if (r == -ENOENT && !must_exist)
                return 0;
        f = file_register(l, display);
        if (f < 0)
                return f;
        if (r < 0) {
                ConfigSource s = { .origin = origin, .file = (uint16_t) f };
                error_at(l, s, NULL, "cannot read: %s", strerror(-r));
                return r;
        }
        l->out = list;
        l->origin = origin;
        l->file = (uint16_t) f;
        l->fleet = fleet;
        l->set_arg = NULL;
        if (fleet)
                fleet->file = (uint16_t) f;
        parse_buffer(l, buf, len);
        l->fleet = NULL;
        return 0;
}

static int cmp_str(const void *a, const void *b)
{
        return strcmp(*(char *const *) a, *(char *const *) b);
}

/* *.conf in dir (absolute, opened under the root), sorted by name. */
static int list_dir(Loader *l, const char *dir, char ***ret, size_t *ret_n)
{
        _cleanup_close_ int fd = -1;
        char **names = NULL;
        size_t n = 0;
        DIR *d;
        struct dirent *de;

        *ret = NULL;
        *ret_n = 0;
        fd = openat(l->args->root->root_fd, dir[0] == '/' ? dir + 1 : dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
                return errno == ENOENT ? 0 : negative_errno();
        d = fdopendir(fd);
        if (!d)
                return negative_errno();
        fd = -1; /* owned by d */
        names = calloc(MAX_DIR_ENTRIES, sizeof(*names));
        if (!names) {
                closedir(d);
                return -ENOMEM;
        }
        while ((de = readdir(d))) {
                size_t len = strlen(de->d_name);
                struct stat st;

                if (de->d_name[0] == '.' || len < 6 || strcmp(de->d_name + len - 5, ".conf") != 0)
                        continue;
                if (fstatat(dirfd(d), de->d_name, &st, 0) < 0 || !S_ISREG(st.st_mode))
                        continue;
                if (n == MAX_DIR_ENTRIES)
                        break;
                names[n] = strdup(de->d_name);
                if (!names[n]) {
                        l->oom = true;
                        break;
                }
                n++;
        }
        closedir(d);
        qsort(names, n, sizeof(*names), cmp_str);
        *ret = names;
        *ret_n = n;
        return 0;
}

static void names_free(char **names, size_t n)
{
        for (size_t i = 0; i < n; i++)
                free(names[i]);
        free(names);
}

/* Every *.conf of a directory, in order, into list (or one FleetFile each). */
static void load_dir(Loader *l, const char *dir, ConfigOrigin origin, AssignList *list, FleetFile **ret_fleet,
                     size_t *ret_n_fleet)
{
        char **names;
        size_t n;
        int r;

        r = list_dir(l, dir, &names, &n);
        if (r < 0) {
                ConfigSource none = { .origin = CONFIG_ORIGIN_DEFAULT };
                error_at(l, none, NULL, "%s: cannot read directory: %s", dir, strerror(-r));
                return;
        }
        if (ret_fleet) {
                *ret_fleet = n ? calloc(n, sizeof(FleetFile)) : NULL;
                *ret_n_fleet = 0;
                if (n && !*ret_fleet) {
                        l->oom = true;
                        names_free(names, n);
                        return;
                }
        }
        for (size_t i = 0; i < n; i++) {
                char rel[FRAGD_PATH_MAX * 2], display[FRAGD_PATH_MAX * 2];
                const char *d = dir[0] == '/' ? dir + 1 : dir;

                snprintf(rel, sizeof(rel), "%s/%s", d, names[i]);
                snprintf(display, sizeof(display), "%s/%s", dir, names[i]);
                if (ret_fleet) {
                        FleetFile *ff = &(*ret_fleet)[(*ret_n_fleet)++];
                        unsigned before = l->n_errors;

                        if (load_file(l, l->args->root->root_fd, rel, display, origin, &ff->list, ff, true) < 0)
                                continue;
                        if (ff->kind == FLEET_MATCH_NONE && l->n_errors == before) {
                                ConfigSource s = { .origin = origin, .file = ff->file };
                                error_at(l, s, NULL,
                                         "fleet file without [match] instance_type = ... or class = ...");
                        }
                } else
                        (void) load_file(l, l->args->root->root_fd, rel, display, origin, list, NULL, true);
        }
        names_free(names, n);
}

/* ---- --set section.key=value ---- */

static void load_set(Loader *l, AssignList *list)
{
        for (size_t i = 0; i < l->args->n_set; i++) {
                const char *arg = l->args->set[i];
                char buf[FRAGD_PATH_MAX + 128];
                char *eq, *dot1, *dot2, *section, *key, *sub = NULL;

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
                /* SECTION.KEY, or SECTION.NAME.KEY where NAME may hold dots
                 * (cgroup paths): the key is after the last dot */
                dot1 = strchr(buf, '.');
                dot2 = strrchr(buf, '.');
                if (!dot1) {
                        error_here(l, "expected SECTION.KEY=VALUE");
                        continue;
                }
                section = buf;
                *dot1 = '\0';
                key = dot2 + 1;
                if (dot2 != dot1) {
                        *dot2 = '\0';
                        sub = dot1 + 1;
                }
                section_begin(l, section, sub);
                if (l->section_ok && l->kind == SECTION_CGROUP)
                        list_add(l, NULL, "");
                key_value(l, key, eq + 1);
        }
        l->set_arg = NULL;
}

/* ---- pass two ---- */

/* Defaults are written field by field into zeroed memory (no compound
 * literals, whose padding is unspecified): configurations compare with
 * memcmp(), which reload and the tests rely on. */
static void cgroup_defaults(CgroupConfig *c, const char *path)
{
        memset(c, 0, sizeof(*c));
        snprintf(c->path, sizeof(c->path), "%s", path);
        c->watch = true;
        c->thp = CGROUP_THP_INHERIT;
        c->collapse = false;
        c->stall_budget_usec = 100 * USEC_PER_MSEC;
        c->collapse_cpu_budget_usec = 1 * USEC_PER_SEC;
        c->collapse_max_bytes_per_tick = 64ULL << 20;
        c->psi_trigger_threshold_usec = 100 * USEC_PER_MSEC;
        c->psi_trigger_window_usec = 1 * USEC_PER_SEC;
}

void config_defaults(FragdConfig *ret)
{
        DaemonConfig *d = &ret->daemon;

        memset(ret, 0, sizeof(*ret));
        d->interval_usec = 5 * USEC_PER_SEC;
        d->active_interval_usec = 1 * USEC_PER_SEC;
        d->active_hold_usec = 2 * USEC_PER_MINUTE;
        d->dry_run = false;
        snprintf(d->textfile_dir, sizeof(d->textfile_dir), "/var/lib/prometheus/node-exporter");
        d->log_level = LOG_INFO;
        d->ownership = OWNERSHIP_RESPECT;
        d->pagetypeinfo_interval_usec = 10 * USEC_PER_MINUTE;
        d->psi_trigger_threshold_usec = 100 * USEC_PER_MSEC;
        d->psi_trigger_window_usec = 1 * USEC_PER_SEC;
        snprintf(d->runtime_dir, sizeof(d->runtime_dir), "/run/fragd");
        d->enable_delayacct = false;
        policy_config_preset(PRESET_DATABASE, &ret->policy);
        snprintf(ret->fleet.instance_type, sizeof(ret->fleet.instance_type), "auto");
        snprintf(ret->fleet.fleet_dir, sizeof(ret->fleet.fleet_dir), "%s", FLEET_DIR_DEFAULT);
        ret->n_cgroups = 0;
}

static void sources_reset(ConfigSources *s, unsigned first, unsigned n, ConfigOrigin o)
{
        for (unsigned i = first; i < first + n && i < CONFIG_MAX_SLOTS; i++)
                s->slot[i] = (ConfigSource) { .origin = o };
}

static void sources_defaults(ConfigSources *s)
{
        for (int sec = 0; sec < _SECTION_MAX; sec++) {
                size_t n;
                const ConfigKey *keys = config_keys(sec, &n);
                ConfigOrigin o = sec == SECTION_POLICY || sec == SECTION_KNOB ? CONFIG_ORIGIN_PRESET
                                                                               : CONFIG_ORIGIN_DEFAULT;
                int subs = sec == SECTION_KNOB ? _LEVER_MAX : sec == SECTION_CGROUP ? FRAGD_MAX_CGROUPS : 1;

                if (sec == SECTION_MATCH)
                        continue;
                for (int sub = 0; sub < subs; sub++)
                        for (size_t k = 0; k < n; k++)
                                sources_reset(s, config_key_slot(&keys[k], sub), 1, o);
        }
        /* the preset key itself: default until a layer sets it */
        s->slot[config_key_slot(config_key_find(SECTION_POLICY, "preset"), 0)].origin = CONFIG_ORIGIN_DEFAULT;
}

static int cgroup_slot(Loader *l, FragdConfig *c, ConfigSources *s, const Assignment *a)
{
        for (unsigned i = 0; i < c->n_cgroups; i++)
                if (strcmp(c->cgroups[i].path, a->cgroup) == 0)
                        return (int) i;
        if (c->n_cgroups >= FRAGD_MAX_CGROUPS) {
                /* report once per path: only at its declaration */
                if (!a->key)
                        error_at(l, a->src, NULL, "too many [cgroup] sections: at most %d", FRAGD_MAX_CGROUPS);
                return -E2BIG;
        }
        cgroup_defaults(&c->cgroups[c->n_cgroups], a->cgroup);
        s->cgroup[c->n_cgroups] = a->src;
        return (int) c->n_cgroups++;
}

static void apply_list(Loader *l, FragdConfig *c, ConfigSources *s, const AssignList *list, bool only_fleet)
{
        for (size_t i = 0; i < list->n; i++) {
                const Assignment *a = &list->v[i];
                char err[CONFIG_ERROR_MAX / 2];
                int sub = 0;

                if (only_fleet && (!a->key || a->key->section != SECTION_FLEET))
                        continue;
                if (a->cgroup) {
                        sub = cgroup_slot(l, c, s, a);
                        if (sub < 0)
                                continue;
                } else if (a->key && a->key->section == SECTION_KNOB)
                        sub = a->lever;
                if (!a->key)
                        continue;
                if (config_key_apply(a->key, c, sub, a->value, err, sizeof(err)) < 0) {
                        error_at(l, a->src, NULL, "%s: %s", a->key->name, err); /* validated before: unlikely */
                        continue;
                }
                if (s)
                        s->slot[config_key_slot(a->key, sub)] = a->src;
        }
}

static const char *slot_source(const ConfigSources *s, const ConfigKey *k, int sub, char *buf, size_t size)
{
        return config_source_format(s, s->slot[config_key_slot(k, sub)], buf, size);
}

/* Rules between keys; each message names where both values came from. */
static void validate(Loader *l, const FragdConfig *c, const ConfigSources *s)
{
        ConfigSource none = { .origin = CONFIG_ORIGIN_DEFAULT };
        char a[64], b[64], sa[FRAGD_PATH_MAX + 16], sb[FRAGD_PATH_MAX + 16];

        for (int lv = 0; lv < _LEVER_MAX; lv++) {
                const LeverConfig *lc = &c->policy.lever[lv];
                const ConfigKey *kmin = config_key_find(SECTION_KNOB, "min");
                const ConfigKey *kmax = config_key_find(SECTION_KNOB, "max");

                if (lv == LEVER_MIN_FREE_KBYTES && (c->policy.min_free_max_permyriad > 0 || lc->max == 0))
                        continue; /* max is a share of memory or "the kernel's value": checked at run time */
                if (lc->min > lc->max)
                        error_at(l, none, NULL, "[knob \"%s\"] min = %s (%s) is above max = %s (%s)",
                                 lever_name(lv), config_key_format(kmin, c, lv, a, sizeof(a)),
                                 slot_source(s, kmin, lv, sa, sizeof(sa)),
                                 config_key_format(kmax, c, lv, b, sizeof(b)),
                                 slot_source(s, kmax, lv, sb, sizeof(sb)));
        }
        if (c->policy.order_thp != 0 && c->policy.order_thp < c->policy.order_large) {
                const ConfigKey *kt = config_key_find(SECTION_POLICY, "order_thp");
                const ConfigKey *kl = config_key_find(SECTION_POLICY, "order_large");

                error_at(l, none, NULL, "[policy] order_thp = %u (%s) is below order_large = %u (%s)",
                         c->policy.order_thp, slot_source(s, kt, 0, sa, sizeof(sa)), c->policy.order_large,
                         slot_source(s, kl, 0, sb, sizeof(sb)));
        }
        if (c->daemon.psi_trigger_threshold_usec >= c->daemon.psi_trigger_window_usec) {
                const ConfigKey *kt = config_key_find(SECTION_DAEMON, "psi_trigger_threshold");
                const ConfigKey *kw = config_key_find(SECTION_DAEMON, "psi_trigger_window");

                error_at(l, none, NULL, "[daemon] psi_trigger_threshold = %s (%s) must be below "
                                        "psi_trigger_window = %s (%s)",
                         config_key_format(kt, c, 0, a, sizeof(a)), slot_source(s, kt, 0, sa, sizeof(sa)),
                         config_key_format(kw, c, 0, b, sizeof(b)), slot_source(s, kw, 0, sb, sizeof(sb)));
        }
        for (unsigned i = 0; i < c->n_cgroups; i++) {
                const CgroupConfig *cg = &c->cgroups[i];
                const ConfigKey *kt = config_key_find(SECTION_CGROUP, "psi_trigger_threshold");
                const ConfigKey *kw = config_key_find(SECTION_CGROUP, "psi_trigger_window");

                if (cg->psi_trigger_threshold_usec >= cg->psi_trigger_window_usec)
                        error_at(l, none, NULL, "[cgroup \"%s\"] psi_trigger_threshold = %s (%s) must be below "
                                                "psi_trigger_window = %s (%s)",
                                 cg->path, config_key_format(kt, c, (int) i, a, sizeof(a)),
                                 slot_source(s, kt, (int) i, sa, sizeof(sa)),
                                 config_key_format(kw, c, (int) i, b, sizeof(b)),
                                 slot_source(s, kw, (int) i, sb, sizeof(sb)));
        }
}

/* The effective preset: the last `preset =` in layer order. */
static bool find_preset(AssignList *const *lists, size_t n, Preset *ret, ConfigSource *ret_src)
{
        bool found = false;

        for (size_t i = 0; i < n; i++) {
                if (!lists[i])
                        continue;
                for (size_t j = 0; j < lists[i]->n; j++) {
                        const Assignment *a = &lists[i]->v[j];
                        int p;

                        if (!a->key || a->key->type != VT_PRESET)
                                continue;
                        p = preset_from_name(a->value);
                        if (p < 0)
                                continue; /* reported in pass one */
                        *ret = (Preset) p;
                        *ret_src = a->src;
                        found = true;
                }
        }
        return found;
}

/* Picks the most specific fleet file for inst; ties are errors. */
static FleetFile *fleet_choose(Loader *l, FleetFile *ff, size_t n, const InstanceInfo *inst)
{
        FleetFile *best = NULL;
        unsigned best_score = 0;

        /* two files with the same [match] can never be told apart */
        for (size_t i = 0; i < n; i++)
                for (size_t j = i + 1; j < n; j++)
                        if (ff[i].kind != FLEET_MATCH_NONE && ff[i].kind == ff[j].kind &&
                            strcmp(ff[i].pattern, ff[j].pattern) == 0) {
                                ConfigSource s = { .origin = CONFIG_ORIGIN_FLEET, .file = ff[j].file,
                                                   .line = ff[j].line };
                                error_at(l, s, NULL, "same [match] %s = %s as %s:%u",
                                         ff[j].kind == FLEET_MATCH_CLASS ? "class" : "instance_type",
                                         ff[j].pattern, file_name(l->src, ff[i].file), ff[i].line);
                        }

        for (size_t i = 0; i < n; i++) {
                unsigned score = fleet_match_score(ff[i].kind, ff[i].pattern, inst);

                if (score > best_score) {
                        best_score = score;
                        best = &ff[i];
                }
        }
        if (!best)
                return NULL;
        for (size_t i = 0; i < n; i++)
                if (&ff[i] != best && fleet_match_score(ff[i].kind, ff[i].pattern, inst) == best_score) {
                        ConfigSource s = { .origin = CONFIG_ORIGIN_FLEET, .file = ff[i].file, .line = ff[i].line };
                        error_at(l, s, NULL,
                                 "ambiguous fleet match for '%s': %s = %s here and %s = %s in %s:%u are equally "
                                 "specific",
                                 ff[i].kind == FLEET_MATCH_CLASS ? inst->class_name : inst->name,
                                 ff[i].kind == FLEET_MATCH_CLASS ? "class" : "instance_type", ff[i].pattern,
                                 best->kind == FLEET_MATCH_CLASS ? "class" : "instance_type", best->pattern,
                                 file_name(l->src, best->file), best->line);
                }
        return best;
}

int config_load(const ConfigLoadArgs *args, FragdConfig *ret, ConfigSources *ret_sources, ConfigErrors *errs)
{
        _cleanup_free_ Loader *l = NULL;
        _cleanup_free_ ConfigSources *src = NULL;
        _cleanup_free_ ConfigErrors *own_errs = NULL;
        _cleanup_free_ FragdConfig *cfg = NULL, *pre = NULL;
        AssignList files = { 0 }, cmdline = { 0 };
        FleetFile *fleet = NULL, *chosen = NULL;
        size_t n_fleet = 0;
        Preset preset = PRESET_DATABASE;
        ConfigSource preset_src = { .origin = CONFIG_ORIGIN_DEFAULT };
        int r = 0;

        if (!args || (!args->root && !args->config_text))
                return -EINVAL;

        l = calloc(1, sizeof(*l));
        src = calloc(1, sizeof(*src));
        cfg = malloc(sizeof(*cfg));
        pre = malloc(sizeof(*pre));
        if (!errs)
                errs = own_errs = calloc(1, sizeof(*own_errs));
        if (!l || !src || !cfg || !pre || !errs)
                return -ENOMEM;
        errs->n = errs->n_dropped = 0;
        l->args = args;
        l->src = src;
        l->errs = errs;
        config_defaults(&l->scratch);

        /* pass one: main file, drop-ins, command line */
        if (args->config_text) {
                int f = file_register(l, args->config_file ? args->config_file : "<text>");

                if (f >= 0) {
                        l->out = &files;
                        l->origin = CONFIG_ORIGIN_FILE;
                        l->file = (uint16_t) f;
                        parse_buffer(l, args->config_text, args->config_text_len);
                }
        } else if (!args->root)
                ; /* nothing to read */
        else if (args->config_file) {
                /* -c FILE is the user's path: relative to the working directory */
                _cleanup_close_ int cwd = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

                (void) load_file(l, cwd >= 0 ? cwd : AT_FDCWD, args->config_file, args->config_file, CONFIG_ORIGIN_FILE, &files,
                                 NULL, true);
        } else
                (void) load_file(l, args->root->root_fd, &CONF_FILE[1], CONF_FILE, CONFIG_ORIGIN_FILE, &files,
                                 NULL, false);
        if (args->root)
                load_dir(l, CONF_DROPIN_DIR, CONFIG_ORIGIN_FILE, &files, NULL, NULL);
        load_set(l, &cmdline);

        /* [fleet] decides which fleet file applies: resolve it first */
        config_defaults(pre);
        apply_list(l, pre, NULL, &files, true);
        apply_list(l, pre, NULL, &cmdline, true);
        instance_identify(args->probe, pre->fleet.instance_type, &src->instance);
        if (pre->fleet.fleet_dir[0] && args->root) {
                load_dir(l, pre->fleet.fleet_dir, CONFIG_ORIGIN_FLEET, NULL, &fleet, &n_fleet);
                chosen = fleet_choose(l, fleet, n_fleet, &src->instance);
                if (chosen) {
                        snprintf(src->instance.fleet_file, sizeof(src->instance.fleet_file), "%s",
                                 file_name(src, chosen->file));
                        snprintf(src->instance.fleet_match, sizeof(src->instance.fleet_match), "%s = %s",
                                 chosen->kind == FLEET_MATCH_CLASS ? "class" : "instance_type",
                                 chosen->pattern);
                }
        }

        /* pass two: defaults, the effective preset, then every layer */
        AssignList *layers[] = { chosen ? &chosen->list : NULL, &files, &cmdline };
        (void) find_preset(layers, ELEMENTSOF(layers), &preset, &preset_src);
        config_defaults(cfg);
        policy_config_preset(preset, &cfg->policy);
        src->preset = preset;
        sources_defaults(src);
        for (size_t i = 0; i < ELEMENTSOF(layers); i++)
                if (layers[i])
                        apply_list(l, cfg, src, layers[i], false);
        validate(l, cfg, src);

        if (l->oom)
                r = -ENOMEM;
        else if (l->n_errors > 0)
                r = -EINVAL;

        list_free(&files);
        list_free(&cmdline);
        for (size_t i = 0; i < n_fleet; i++)
                list_free(&fleet[i].list);
        free(fleet);

        if (r < 0)
                return r;
        if (ret)
                memcpy(ret, cfg, sizeof(*ret));
        if (ret_sources)
                memcpy(ret_sources, src, sizeof(*ret_sources));
        return 0;
}

int config_reload(const ConfigLoadArgs *args, FragdConfig *cfg, ConfigSources *sources, ConfigErrors *errs)
{
        _cleanup_free_ FragdConfig *n = malloc(sizeof(*n));
        _cleanup_free_ ConfigSources *s = malloc(sizeof(*s));
        int r;

        if (!n || !s)
                return -ENOMEM;
        r = config_load(args, n, s, errs);
        if (r < 0)
                return r;
        memcpy(cfg, n, sizeof(*cfg));
        if (sources)
                memcpy(sources, s, sizeof(*sources));
        return 0;
}

/* ---- output ---- */

void config_errors_print(FILE *f, const ConfigErrors *errs)
{
        if (!errs)
                return;
        for (unsigned i = 0; i < errs->n; i++)
                fprintf(f, "%s\n", errs->msg[i]);
        if (errs->n_dropped)
                fprintf(f, "... and %u more errors\n", errs->n_dropped);
}

void config_instance_print(FILE *f, const InstanceInfo *i)
{
        fprintf(f, "instance type: %s (%s)\n", i->name[0] ? i->name : "unknown", i->source ? i->source : "none");
        fprintf(f, "sizing class: %s\n", i->class_name[0] ? i->class_name : "unknown");
        if (i->fleet_file[0])
                fprintf(f, "fleet file: %s ([match] %s)\n", i->fleet_file, i->fleet_match);
        else
                fprintf(f, "fleet file: none\n");
}

static void print_key(FILE *f, const ConfigKey *k, const FragdConfig *c, const ConfigSources *s, int sub)
{
        char v[FRAGD_PATH_MAX], line[FRAGD_PATH_MAX + 64], where[FRAGD_PATH_MAX + 32];

        config_key_format(k, c, sub, v, sizeof(v));
        snprintf(line, sizeof(line), "%s = %s", k->name, v);
        fprintf(f, "%-40s ; %s\n", line, slot_source(s, k, sub, where, sizeof(where)));
}

static void print_section(FILE *f, SectionKind sec, const FragdConfig *c, const ConfigSources *s, int sub)
{
        size_t n;
        const ConfigKey *keys = config_keys(sec, &n);

        for (size_t i = 0; i < n; i++)
                print_key(f, &keys[i], c, s, sub);
}

void config_print(FILE *f, const FragdConfig *c, const ConfigSources *s)
{
        const InstanceInfo *i = &s->instance;
        char where[FRAGD_PATH_MAX + 32];

        fprintf(f, "; fragd effective configuration\n");
        fprintf(f, "; instance type: %s (%s), sizing class: %s\n", i->name[0] ? i->name : "unknown",
                i->source ? i->source : "not detected", i->class_name[0] ? i->class_name : "unknown");
        if (i->fleet_file[0])
                fprintf(f, "; fleet file: %s ([match] %s)\n", i->fleet_file, i->fleet_match);
        else
                fprintf(f, "; fleet file: none\n");
        /* one per line: printed lines stay under the INI line limit */
        if (s->n_files == 0)
                fprintf(f, "; files read: none\n");
        for (unsigned j = 0; j < s->n_files; j++)
                fprintf(f, "; file read: %s\n", s->files[j]);

        fprintf(f, "\n[daemon]\n");
        print_section(f, SECTION_DAEMON, c, s, 0);
        fprintf(f, "\n[policy]\n");
        print_section(f, SECTION_POLICY, c, s, 0);
        for (int lv = 0; lv < _LEVER_MAX; lv++) {
                fprintf(f, "\n[knob \"%s\"]\n", lever_name(lv));
                print_section(f, SECTION_KNOB, c, s, lv);
        }
        for (unsigned g = 0; g < c->n_cgroups; g++) {
                fprintf(f, "\n[cgroup \"%s\"]%*s ; %s\n", c->cgroups[g].path,
                        (int) MAX(0, 30 - (int) strlen(c->cgroups[g].path)), "",
                        config_source_format(s, s->cgroup[g], where, sizeof(where)));
                print_section(f, SECTION_CGROUP, c, s, (int) g);
        }
        fprintf(f, "\n[fleet]\n");
        print_section(f, SECTION_FLEET, c, s, 0);
}

int config_check_main(const ConfigLoadArgs *args, FILE *out, FILE *err)
{
        _cleanup_free_ FragdConfig *c = malloc(sizeof(*c));
        _cleanup_free_ ConfigSources *s = malloc(sizeof(*s));
        _cleanup_free_ ConfigErrors *e = calloc(1, sizeof(*e));
        int r;

        if (!c || !s || !e)
                return -ENOMEM;
        r = config_load(args, c, s, e);
        if (r == -EINVAL) {
                fprintf(err, "fragd: configuration has %u error%s:\n", e->n + e->n_dropped,
                        e->n + e->n_dropped == 1 ? "" : "s");
                config_errors_print(err, e);
                return r;
        }
        if (r < 0) {
                fprintf(err, "fragd: cannot load the configuration: %s\n", strerror(-r));
                return r;
        }
        config_print(out, c, s);
        return 0;
}
