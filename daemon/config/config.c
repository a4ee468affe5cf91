/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Loading fragd.conf: every layer, every error at once, all or nothing.
 *
 * Loading runs in two passes. Pass one parses every layer into lists of
 * assignments, validating each value against a scratch configuration. Pass
 * two starts from the defaults and the effective preset and applies the
 * lists lowest layer first, recording each value's source. Nothing reaches
 * the caller unless both passes found no error.
 *
 * This file holds the layers (the main file, drop-ins, fleet files, the
 * command line), pass two and the defaults: it orchestrates, and nothing in
 * daemon/config/ calls back into it. Parsing is in config-parse.c, the rules
 * between keys in config-validate.c, error collection and "where a value
 * came from" in config-source.c. Printing a loaded configuration is
 * config-print.c; --check-config is a command-line mode (cli/check-config.c). */

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <syslog.h>

#include "config/config-load-internal.h"
#include "core/cleanup.h"
#include "core/text.h"

#define CONF_DIR FRAGD_SYSCONFDIR "/fragd"
#define CONF_FILE CONF_DIR "/fragd.conf"
#define CONF_DROPIN_DIR CONF_DIR "/fragd.conf.d"
#define FLEET_DIR_DEFAULT CONF_DIR "/fleet.d"
#define VENDOR_FLEET_DIR_DEFAULT FRAGD_DATADIR "/fragd/fleet"
#define MAX_DIR_ENTRIES 256
#define CONFIG_FILE_MAX (1024 * 1024)

/* ---- files ---- */

static int file_register(Loader *l, const char *display)
{
        ConfigSources *s = l->src;

        if (s->n_files >= CONFIG_MAX_FILES) {
                ConfigSource none = { .origin = CONFIG_ORIGIN_DEFAULT };
                config_error_at(l, none, NULL, "%s: too many configuration files (at most %d)", display,
                         CONFIG_MAX_FILES);
                return -E2BIG;
        }
        snprintf(s->files[s->n_files], sizeof(s->files[0]), "%s", display);
        return (int) s->n_files++;
}

static const char *file_type_name(mode_t m)
{
        return S_ISDIR(m)    ? "a directory"
               : S_ISFIFO(m) ? "a FIFO"
               : S_ISSOCK(m) ? "a socket"
               : S_ISCHR(m)  ? "a character device"
               : S_ISBLK(m)  ? "a block device"
               : S_ISLNK(m)  ? "a symbolic link"
                             : "not a regular file";
}

/* true when the last component of rel is a symbolic link, its directory
 * resolved inside root_fd */
static bool is_symlink_in_root(int root_fd, const char *rel)
{
        _cleanup_close_ int dfd = -1;
        const char *slash = strrchr(rel, '/');
        char dir[FRAGD_PATH_MAX * 2];
        struct stat st;

        if (!slash)
                return fstatat(root_fd, rel, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode);
        if ((size_t) (slash - rel) >= sizeof(dir) || slash == rel)
                return false;
        memcpy(dir, rel, (size_t) (slash - rel));
        dir[slash - rel] = '\0';
        dfd = root_openat(root_fd, dir, O_PATH | O_DIRECTORY | O_CLOEXEC, 0, 0);
        return dfd >= 0 && fstatat(dfd, slash + 1, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode);
}

/* Reads a configuration file whole, never blocking: opened O_NONBLOCK (a
 * FIFO would wait for a writer, holding up SIGHUP, --restore, status and
 * --check-config), then only a regular file of at most CONFIG_FILE_MAX
 * bytes is read. Returns -ENOENT only for a name that does not exist; every
 * other failure writes what went wrong into why, and returns -errno. A dangling
 * symbolic link is -ENOLINK, a loop -ELOOP. in_root: rel is resolved
 * inside dirfd as its root (root_openat(): an absolute symlink restarts at
 * dirfd, ".." stops there, fragd.conf, fragd.conf.d, fleet_dir below
 * --root); else as openat(2) does, for the user's own -c FILE. */
static int config_file_read(int dirfd, const char *rel, bool in_root, char **ret_buf, size_t *ret_len, char *why,
                            size_t whysize)
{
        _cleanup_close_ int fd = -1;
        _cleanup_free_ char *buf = NULL;
        struct stat st;
        size_t len = 0;
        int r;

        if (in_root)
                fd = root_openat(dirfd, rel, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY, 0, 0);
        else
                fd = openat(dirfd, rel, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
        if (fd < 0) {
                r = negative_errno();

                if (r == -ENOENT && in_root && is_symlink_in_root(dirfd, rel)) {
                        snprintf(why, whysize,
                                 "dangling symbolic link: its target does not exist (fragd resolves symbolic links "
                                 "inside the root directory, --root)");
                        return -ENOLINK;
                }
                if (r == -ENOENT && !in_root && fstatat(dirfd, rel, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
                    S_ISLNK(st.st_mode)) {
                        snprintf(why, whysize, "dangling symbolic link: its target does not exist");
                        return -ENOLINK;
                }
                if (r == -ELOOP)
                        snprintf(why, whysize, "symbolic link loop (or too many levels of symbolic links)");
                else
                        snprintf(why, whysize, "cannot read: %s", strerror(-r));
                return r;
        }
        if (fstat(fd, &st) < 0) {
                r = negative_errno();

                snprintf(why, whysize, "cannot stat: %s", strerror(-r));
                return r;
        }
        if (!S_ISREG(st.st_mode)) {
                snprintf(why, whysize, "is %s, not a regular file: fragd reads configuration only from regular files",
                         file_type_name(st.st_mode));
                return S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL;
        }
        if (st.st_size > CONFIG_FILE_MAX) {
                snprintf(why, whysize, "larger than %d KiB (%lld bytes): not a configuration file",
                         CONFIG_FILE_MAX / 1024, (long long) st.st_size);
                return -EFBIG;
        }
        r = read_fd_alloc(fd, CONFIG_FILE_MAX, &buf, &len);
        if (r == -EFBIG) {
                /* grew while read */
                snprintf(why, whysize, "larger than %d KiB: not a configuration file", CONFIG_FILE_MAX / 1024);
                return r;
        }
        if (r == -ENOMEM)
                return r;
        if (r < 0) {
                snprintf(why, whysize, "cannot read: %s", strerror(-r));
                return r;
        }
        *ret_buf = TAKE_PTR(buf);
        *ret_len = len;
        return 0;
}

/* Reads one file into list. A missing file is fine unless must_exist; a
 * dangling symbolic link is not missing. */
static int load_file(Loader *l, int dirfd, bool in_root, const char *rel, const char *display,
                     ConfigOrigin origin, AssignList *list, FleetFile *fleet, bool must_exist)
{
        _cleanup_free_ char *buf = NULL;
        char why[CONFIG_ERROR_MAX / 2];
        size_t len = 0;
        int r, f;

        r = config_file_read(dirfd, rel, in_root, &buf, &len, why, sizeof(why));
        if (r == -ENOENT && !must_exist)
                return 0;
        if (r == -ENOMEM) {
                l->oom = true;
                return r;
        }
        f = file_register(l, display);
        if (f < 0)
                return f;
        if (r < 0) {
                ConfigSource s = { .origin = origin, .file = (uint16_t) f };
                config_error_at(l, s, NULL, "%s", why);
                return r;
        }
        l->out = list;
        l->origin = origin;
        l->file = (uint16_t) f;
        l->fleet = fleet;
        l->set_arg = NULL;
        if (fleet)
                fleet->file = (uint16_t) f;
        config_parse_buffer(l, buf, len);
        l->fleet = NULL;
        return 0;
}

static int cmp_str(const void *a, const void *b)
{
        return strcmp(*(char *const *) a, *(char *const *) b);
}

/* *.conf in dir (absolute, resolved inside the root), sorted by name. */
static int list_dir(Loader *l, const char *dir, char ***ret, size_t *ret_n)
{
        _cleanup_close_ int fd = -1;
        char **names = NULL;
        size_t n = 0;
        bool too_many = false;
        DIR *d;
        struct dirent *de;

        *ret = NULL;
        *ret_n = 0;
        fd = root_openat(l->args->root->root_fd, dir[0] == '/' ? dir + 1 : dir,
                         O_RDONLY | O_DIRECTORY | O_NONBLOCK | O_CLOEXEC, 0, 0);
        if (fd < 0)
                return fd == -ENOENT ? 0 : fd;
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

                if (de->d_name[0] == '.' || len < 6 || strcmp(de->d_name + len - 5, ".conf") != 0)
                        continue;
                /* every message names the file: one whose name would reach
                 * a terminal as an escape sequence is refused, named with
                 * '?' for each control character */
                if (!text_printable(de->d_name, NULL)) {
                        ConfigSource none = { .origin = CONFIG_ORIGIN_DEFAULT };
                        char shown[NAME_MAX + 1];

                        text_scrub(shown, sizeof(shown), de->d_name, len, NULL);
                        config_error_at(l, none, NULL,
                                        "%s: file name '%s' holds a control character or is not UTF-8; rename it",
                                        dir, shown);
                        continue;
                }
                /* every *.conf is loaded: one that is not a regular file, a
                 * dangling or looping link, or unreadable is reported there,
                 * never skipped in silence */
                if (n == MAX_DIR_ENTRIES) {
                        too_many = true;
                        break;
                }
                names[n] = strdup(de->d_name);
                if (!names[n]) {
                        l->oom = true;
                        break;
                }
                n++;
        }
        closedir(d);
        if (too_many) {
                ConfigSource none = { .origin = CONFIG_ORIGIN_DEFAULT };
                config_error_at(l, none, NULL, "%s: more than %d *.conf files; merge some", dir, MAX_DIR_ENTRIES);
        }
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

/* Every *.conf of a directory, in order, into list. */
static void load_dir(Loader *l, const char *dir, ConfigOrigin origin, AssignList *list)
{
        char **names;
        size_t n;
        int r;

        r = list_dir(l, dir, &names, &n);
        if (r < 0) {
                ConfigSource none = { .origin = CONFIG_ORIGIN_DEFAULT };
                config_error_at(l, none, NULL, "%s: cannot read directory: %s", dir, strerror(-r));
                return;
        }
        for (size_t i = 0; i < n; i++) {
                char rel[FRAGD_PATH_MAX * 2], display[FRAGD_PATH_MAX * 2];

                snprintf(rel, sizeof(rel), "%s/%s", dir[0] == '/' ? dir + 1 : dir, names[i]);
                snprintf(display, sizeof(display), "%s/%s", dir, names[i]);
                (void) load_file(l, l->args->root->root_fd, true, rel, display, origin, list, NULL, true);
        }
        names_free(names, n);
}

/* An admin fleet file that masks the vendor file of its name, as systemd's
 * drop-ins do: a symbolic link to /dev/null, or an empty file. */
static bool fleet_masked(Loader *l, const char *dir, const char *name)
{
        _cleanup_close_ int fd = -1;
        struct stat st;
        char target[16];
        ssize_t n;

        fd = root_openat(l->args->root->root_fd, dir[0] == '/' ? dir + 1 : dir,
                         O_RDONLY | O_DIRECTORY | O_NONBLOCK | O_CLOEXEC, 0, 0);
        if (fd < 0 || fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
                return false;
        if (S_ISREG(st.st_mode))
                return st.st_size == 0;
        if (!S_ISLNK(st.st_mode))
                return false;
        n = readlinkat(fd, name, target, sizeof(target) - 1);
        if (n < 0)
                return false;
        target[n] = '\0';
        return strcmp(target, "/dev/null") == 0;
}

/* One fleet file into ff; a file without a [match] is an error. */
static void load_fleet_file(Loader *l, const char *dir, const char *name, FleetFile *ff)
{
        char rel[FRAGD_PATH_MAX * 2], display[FRAGD_PATH_MAX * 2];
        unsigned before = l->n_errors;

        snprintf(rel, sizeof(rel), "%s/%s", dir[0] == '/' ? dir + 1 : dir, name);
        snprintf(display, sizeof(display), "%s/%s", dir, name);
        if (load_file(l, l->args->root->root_fd, true, rel, display, CONFIG_ORIGIN_FLEET, &ff->list, ff, true) < 0)
                return;
        if (ff->kind == FLEET_MATCH_NONE && !ff->cloud[0] && l->n_errors == before) {
                ConfigSource s = { .origin = CONFIG_ORIGIN_FLEET, .file = ff->file };
                config_error_at(l, s, NULL, "fleet file without [match] instance_type = ..., class = ... or cloud = ...");
        }
}

/* The fleet files: *.conf of the vendor directory (the package's) and of
 * the admin directory (/etc/fragd/fleet.d), by name; a name in both is the
 * admin's file, or none when the admin's masks it (fleet_masked()). Either
 * directory may be "" (not read) or missing. */
static void load_fleet(Loader *l, const char *vendor, const char *admin, FleetFile **ret, size_t *ret_n)
{
        char **vn = NULL, **an = NULL;
        size_t n_v = 0, n_a = 0, i = 0, j = 0;
        const char *dirs[2] = { vendor, admin };
        char ***lists[2] = { &vn, &an };
        size_t *counts[2] = { &n_v, &n_a };

        *ret = NULL;
        *ret_n = 0;
        for (size_t k = 0; k < 2; k++) {
                int r;

                if (!dirs[k][0])
                        continue;
                r = list_dir(l, dirs[k], lists[k], counts[k]);
                if (r < 0) {
                        ConfigSource none = { .origin = CONFIG_ORIGIN_DEFAULT };
                        config_error_at(l, none, NULL, "%s: cannot read directory: %s", dirs[k], strerror(-r));
                }
        }
        if (n_v + n_a > 0) {
                *ret = calloc(n_v + n_a, sizeof(FleetFile));
                if (!*ret)
                        l->oom = true;
        }
        /* both lists are sorted: merge them */
        while (*ret && (i < n_v || j < n_a)) {
                int c = i == n_v ? 1 : j == n_a ? -1 : strcmp(vn[i], an[j]);

                if (c < 0)
                        load_fleet_file(l, vendor, vn[i++], &(*ret)[(*ret_n)++]);
                else {
                        if (c == 0)
                                i++; /* the admin's file replaces the vendor's */
                        if (!fleet_masked(l, admin, an[j]))
                                load_fleet_file(l, admin, an[j], &(*ret)[(*ret_n)++]);
                        j++;
                }
        }
        names_free(vn, n_v);
        names_free(an, n_a);
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
        snprintf(d->state_dir, sizeof(d->state_dir), "/var/lib/fragd");
        d->enable_delayacct = false;
        d->pagecache_signal = true;
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
                        config_error_at(l, a->src, NULL, "too many [cgroup] sections: at most %d", FRAGD_MAX_CGROUPS);
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
                        config_error_at(l, a->src, NULL, "%s: %s", a->key->name, err); /* validated before: unlikely */
                        continue;
                }
                if (s)
                        s->slot[config_key_slot(a->key, sub)] = a->src;
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

/* "cloud = gce, class = mem-*": the [match] of ff, as written. */
static void fleet_match_describe(const FleetFile *ff, char *buf, size_t size)
{
        snprintf(buf, size, "%s%s%s%s%s", ff->cloud[0] ? "cloud = " : "", ff->cloud,
                 ff->cloud[0] && ff->kind != FLEET_MATCH_NONE ? ", " : "",
                 ff->kind == FLEET_MATCH_NONE ? "" : ff->kind == FLEET_MATCH_CLASS ? "class = " : "instance_type = ",
                 ff->kind == FLEET_MATCH_NONE ? "" : ff->pattern);
}

static unsigned fleet_score(const FleetFile *ff, const InstanceInfo *inst)
{
        return fleet_match_score(ff->kind, ff->pattern, ff->cloud, inst);
}

/* Picks the most specific fleet file for inst; ties are errors. */
static FleetFile *fleet_choose(Loader *l, FleetFile *ff, size_t n, const InstanceInfo *inst)
{
        FleetFile *best = NULL;
        unsigned best_score = 0;
        char mi[192], mj[192];

        /* two files with the same [match] can never be told apart */
        for (size_t i = 0; i < n; i++)
                for (size_t j = i + 1; j < n; j++)
                        if ((ff[i].kind != FLEET_MATCH_NONE || ff[i].cloud[0]) && ff[i].kind == ff[j].kind &&
                            strcmp(ff[i].pattern, ff[j].pattern) == 0 && strcmp(ff[i].cloud, ff[j].cloud) == 0) {
                                ConfigSource s = { .origin = CONFIG_ORIGIN_FLEET, .file = ff[j].file,
                                                   .line = ff[j].line ? ff[j].line : ff[j].cloud_line };

                                fleet_match_describe(&ff[j], mj, sizeof(mj));
                                config_error_at(l, s, NULL, "same [match] %s as %s:%u", mj,
                                                config_file_name(l->src, ff[i].file),
                                                ff[i].line ? ff[i].line : ff[i].cloud_line);
                        }

        for (size_t i = 0; i < n; i++) {
                unsigned score = fleet_score(&ff[i], inst);

                if (score > best_score) {
                        best_score = score;
                        best = &ff[i];
                }
        }
        if (!best)
                return NULL;
        for (size_t i = 0; i < n; i++)
                if (&ff[i] != best && fleet_score(&ff[i], inst) == best_score) {
                        ConfigSource s = { .origin = CONFIG_ORIGIN_FLEET, .file = ff[i].file,
                                           .line = ff[i].line ? ff[i].line : ff[i].cloud_line };

                        fleet_match_describe(&ff[i], mi, sizeof(mi));
                        fleet_match_describe(best, mj, sizeof(mj));
                        config_error_at(l, s, NULL,
                                 "ambiguous fleet match for '%s': %s here and %s in %s:%u are equally specific",
                                 ff[i].kind == FLEET_MATCH_CLASS ? inst->class_name : inst->name, mi, mj,
                                 config_file_name(l->src, best->file), best->line ? best->line : best->cloud_line);
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
        errs->n = errs->n_dropped = errs->n_warnings = errs->n_warnings_dropped = 0;
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
                        config_parse_buffer(l, args->config_text, args->config_text_len);
                }
        } else if (!args->root)
                ; /* nothing to read */
        else if (args->config_file) {
                /* -c FILE is the user's path: relative to the working directory */
                _cleanup_close_ int cwd = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

                (void) load_file(l, cwd >= 0 ? cwd : AT_FDCWD, false, args->config_file, args->config_file, CONFIG_ORIGIN_FILE, &files,
                                 NULL, true);
        } else
                (void) load_file(l, args->root->root_fd, true, &CONF_FILE[1], CONF_FILE, CONFIG_ORIGIN_FILE, &files,
                                 NULL, false);
        if (args->root)
                load_dir(l, CONF_DROPIN_DIR, CONFIG_ORIGIN_FILE, &files);
        config_load_set(l, &cmdline);

        /* [fleet] decides which fleet file applies: resolve it first */
        config_defaults(pre);
        apply_list(l, pre, NULL, &files, true);
        apply_list(l, pre, NULL, &cmdline, true);
        instance_identify(args->probe, pre->fleet.instance_type, &src->instance);
        if (pre->fleet.fleet_dir[0] && args->root) {
                const char *vendor = args->vendor_fleet_dir ? args->vendor_fleet_dir : VENDOR_FLEET_DIR_DEFAULT;

                snprintf(src->fleet_dirs[0], sizeof(src->fleet_dirs[0]), "%s", vendor);
                snprintf(src->fleet_dirs[1], sizeof(src->fleet_dirs[1]), "%s", pre->fleet.fleet_dir);
                load_fleet(l, vendor, pre->fleet.fleet_dir, &fleet, &n_fleet);
                chosen = fleet_choose(l, fleet, n_fleet, &src->instance);
                if (chosen) {
                        snprintf(src->instance.fleet_file, sizeof(src->instance.fleet_file), "%s",
                                 config_file_name(src, chosen->file));
                        fleet_match_describe(chosen, src->instance.fleet_match, sizeof(src->instance.fleet_match));
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
        config_validate(l, cfg, src);

        if (l->oom)
                r = -ENOMEM;
        else if (l->n_errors > 0)
                r = -EINVAL;

        config_list_free(&files);
        config_list_free(&cmdline);
        for (size_t i = 0; i < n_fleet; i++)
                config_list_free(&fleet[i].list);
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
