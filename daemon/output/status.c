/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The state file for `fragd status`; format in daemon/output/status.h. */

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/cleanup.h"
#include "core/log.h"
#include "core/parse-util.h"
#include "core/text.h"
#include "knobs/knob.h"
#include "output/status.h"


/* At most max bytes of s as one field: tabs and newlines (the file's
 * layout) become spaces, any other control character or byte that is not
 * UTF-8 a '?' (text_scrub). */
static void put_clean(FILE *f, const char *s, size_t max)
{
        char buf[STATUS_FIELD_MAX + 1];

        text_scrub(buf, sizeof(buf), s, max < STATUS_FIELD_MAX ? max : STATUS_FIELD_MAX, "\t\n");
        for (char *c = buf; *c; c++)
                if (*c == '\t' || *c == '\n')
                        *c = ' ';
        fputs(buf, f);
}

static const char *errno_name(int err)
{
        const char *n = strerrorname_np(abs(err));

        return n ?: "EUNKNOWN";
}

static void put_field(FILE *f, const char *s)
{
        fputc('\t', f);
        put_clean(f, s && *s ? s : "-", 256);
}

int status_write(const KnobRegistry *reg, const char *const *decisions, size_t n_decisions,
                 const StatusCgroup *cgroups, size_t n_cgroups)
{
        return status_write_info(reg, NULL, 0, decisions, n_decisions, cgroups, n_cgroups);
}

int status_write_info(const KnobRegistry *reg, const char *const *info, size_t n_info,
                      const char *const *decisions, size_t n_decisions, const StatusCgroup *cgroups,
                      size_t n_cgroups)
{
        StatusData d = {
                .info = info,
                .n_info = n_info,
                .decisions = decisions,
                .n_decisions = n_decisions,
                .cgroups = cgroups,
                .n_cgroups = n_cgroups,
        };

        return status_write_data(reg, &d);
}

static void put_u64(FILE *f, uint64_t v)
{
        fprintf(f, "\t%" PRIu64, v);
}

static void write_state(FILE *f, const StatusData *d)
{
        size_t first;

        fprintf(f, "state %s\n", d->paused ? "paused" : "running");
        fputs("instance", f);
        put_field(f, d->instance);
        put_field(f, d->instance_source);
        put_field(f, d->cloud);
        put_field(f, d->fleet_file);
        put_field(f, d->preset);
        fputs("\ncadence", f);
        put_u64(f, d->interval_usec);
        put_u64(f, d->base_interval_usec);
        put_u64(f, d->active_interval_usec);
        put_u64(f, d->watching);
        put_u64(f, d->on_pressure);
        put_u64(f, d->next_tick_realtime_usec);
        fputc('\n', f);
        for (size_t i = 0; i < d->n_reserves && i < STATUS_RESERVES_MAX; i++) {
                const StatusReserve *r = &d->reserves[i];

                fprintf(f, "reserve\t%d\t%u\t%" PRIu64 "\t%" PRIu64 "\t%d\n", r->node, r->order, r->have_bytes,
                        r->target_bytes, r->learned);
        }
        if (d->have_learned)
                fprintf(f, "learned\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\n", d->learned_need_bytes,
                        d->learned_peak_bytes, d->learned_age_usec);
        for (size_t i = 0; i < d->n_held; i++) {
                fputs("held", f);
                put_field(f, d->held[i].knob);
                put_field(f, d->held[i].hold);
                fputc('\t', f); /* the whole sentence (DECISION_TEXT_MAX) */
                put_clean(f, d->held[i].explanation && *d->held[i].explanation ? d->held[i].explanation : "-",
                          STATUS_FIELD_MAX);
                fputc('\n', f);
        }
        first = d->n_changes > STATUS_CHANGES_MAX ? d->n_changes - STATUS_CHANGES_MAX : 0;
        for (size_t i = first; i < d->n_changes; i++) {
                const StatusChange *c = &d->changes[i];

                fputs("change", f);
                put_u64(f, c->realtime_usec);
                put_field(f, c->knob);
                put_field(f, c->from);
                put_field(f, c->to);
                put_field(f, c->reason);
                put_field(f, c->outcome);
                fputc('\n', f);
        }
}

int status_write_data(const KnobRegistry *reg, const StatusData *d)
{
        const Root *root = knob_registry_root(reg);
        _cleanup_free_ char *buf = NULL;
        char path[FRAGD_PATH_MAX + 16];
        size_t len = 0, first;
        FILE *f;
        int r;

        r = snprintf(path, sizeof(path), "%s/status", knob_registry_runtime_dir(reg));
        if (r < 0 || (size_t) r >= sizeof(path))
                return -ENAMETOOLONG;
        f = open_memstream(&buf, &len);
        if (!f)
                return -ENOMEM;
        knob_status_head_write(f);
        fprintf(f, "updated %" PRIu64 "\nownership %s\nops %s\n", now_realtime_usec(),
                knob_registry_ownership(reg) == OWNERSHIP_REASSERT ? "reassert" : "respect",
                knob_registry_ops(reg)->name);
        for (size_t i = 0; i < d->n_info; i++) {
                fputs("info\t", f);
                put_clean(f, d->info[i], STATUS_FIELD_MAX);
                fputc('\n', f);
        }
        for (size_t i = 0; i < knob_count(reg); i++) {
                KnobInfo ki;

                if (knob_info(reg, i, &ki) < 0)
                        continue;
                if (ki.owned)
                        fprintf(f, "owned\t%s\t%s\t%s\t%" PRIu64 "\n", ki.name, ki.original, ki.last_written,
                                ki.first_touch_usec);
                if (ki.owned && ki.restore_error)
                        fprintf(f, "unrestored\t%s\t%s\t%s\t%s\t%s\n", ki.name, ki.original, ki.last_written,
                                errno_name(ki.restore_error), strerror(abs(ki.restore_error)));
                else if (ki.yielded)
                        fprintf(f, "yielded\t%s\t%s\t%s\t%" PRIu64 "\n", ki.name, ki.original, ki.external,
                                ki.first_touch_usec);
                if (ki.disabled)
                        fprintf(f, "disabled\t%s\t%s\t%s\n", ki.name, errno_name(ki.disabled_error),
                                strerror(abs(ki.disabled_error)));
        }
        for (size_t i = 0; i < d->n_cgroups && i < STATUS_CGROUPS_MAX; i++) {
                const StatusCgroup *c = &d->cgroups[i];

                fputs("cgroup", f);
                put_field(f, c->path && c->path[0] ? c->path : "/");
                put_field(f, c->present ? "present" : "absent");
                put_field(f, c->mechanism);
                put_field(f, c->effect);
                put_field(f, c->stall);
                fputc('\n', f);
        }
        first = d->n_decisions > STATUS_DECISIONS_MAX ? d->n_decisions - STATUS_DECISIONS_MAX : 0;
        for (size_t i = first; i < d->n_decisions; i++) {
                if (!d->decisions[i])
                        continue;
                fputs("decision\t", f);
                put_clean(f, d->decisions[i], STATUS_FIELD_MAX);
                fputc('\n', f);
        }
        if (d->have_state)
                write_state(f, d);
        if (fclose(f) != 0)
                return -ENOMEM;
        r = write_file_atomic_at(root->root_fd, path, buf, len, 0644);
        if (r < 0)
                return log_debug_errno(r, "Failed to write '%s/%s': %m", root->path, path);
        return 0;
}

int knob_status_write(const KnobRegistry *reg, const char *const *decisions, size_t n_decisions)
{
        return status_write(reg, decisions, n_decisions, NULL, 0);
}

int knob_status_remove(const KnobRegistry *reg)
{
        char path[FRAGD_PATH_MAX + 16];
        int r;

        r = snprintf(path, sizeof(path), "%s/status", knob_registry_runtime_dir(reg));
        if (r < 0 || (size_t) r >= sizeof(path))
                return -ENAMETOOLONG;
        r = unlink_file_at(knob_registry_root(reg)->root_fd, path);
        return r == -ENOENT ? 0 : r;
}

/* ---- the pause flag ---------------------------------------------------------- */

#define PAUSE_MAGIC "fragd-paused 1"

static int pause_path(const char *runtime_dir, char *buf, size_t size)
{
        char rt[FRAGD_PATH_MAX];
        int r = knob_runtime_dir_relative(runtime_dir, rt, sizeof(rt));

        if (r < 0)
                return r;
        r = snprintf(buf, size, "%s/paused", rt);
        return r < 0 || (size_t) r >= size ? -ENAMETOOLONG : 0;
}

int status_pause_write(const Root *root, const char *runtime_dir, bool paused)
{
        char path[FRAGD_PATH_MAX + 16], text[64];
        int r;

        r = pause_path(runtime_dir, path, sizeof(path));
        if (r < 0)
                return r;
        if (!paused) {
                r = unlink_file_at(root->root_fd, path);
                return r == -ENOENT ? 0 : r;
        }
        r = snprintf(text, sizeof(text), PAUSE_MAGIC "\nsince %" PRIu64 "\n", now_realtime_usec());
        return write_file_atomic_at(root->root_fd, path, text, (size_t) r, 0644);
}

int status_pause_read(const Root *root, const char *runtime_dir)
{
        _cleanup_free_ char *buf = NULL;
        char path[FRAGD_PATH_MAX + 16];
        size_t len;
        int r;

        r = pause_path(runtime_dir, path, sizeof(path));
        if (r < 0)
                return r;
        r = read_file_alloc_at_full(root->root_fd, path, ROOT_OWN_FILE, &buf, &len);
        if (r == -ENOENT)
                return 0;
        if (r < 0)
                return r;
        /* any content counts: a flag half written by a crash still pauses */
        return 1;
}

/* ---- printing ------------------------------------------------------------ */

int status_left_collect(const Root *root, const char *rt, StatusLeftChanged *ret)
{
        StatusLeftChanged *lc = ret;

        *lc = (StatusLeftChanged) {};
        lc->r = knob_journal_read(root->root_fd, rt, &lc->j);
        if (lc->r >= 0 && lc->j.pid > 0 && pid_is_alive(lc->j.pid, lc->j.starttime)) {
                lc->j.n = 0; /* its owner lives: not left behind */
                lc->j.n_invalid = 0;
                lc->owner_alive = true;
                return 0;
        }
        if (lc->r < 0)
                lc->j.n = lc->j.n_invalid = 0;
        for (unsigned i = 0; i < lc->j.n; i++) {
                Knob k;

                if (knob_init(&k, root, lc->j.e[i].name, NULL) < 0 ||
                    knob_read_normalized(&knob_ops_real, &k, lc->now[i], sizeof(lc->now[i])) < 0)
                        lc->now[i][0] = '\0';
                lc->now_ptr[i] = lc->now[i][0] ? lc->now[i] : NULL;
        }
        lc->unreadable = lc->j.n_invalid > 0 || (lc->r < 0 && lc->r != -ENOENT);
        if (knob_journal_find_aside(root->root_fd, rt, lc->aside, sizeof(lc->aside)) <= 0)
                lc->aside[0] = '\0';
        return lc->j.n > 0 || lc->unreadable || lc->aside[0] ? -EUCLEAN : 0;
}

/* fragd is not running: are knobs it changed still changed? Prints them from
 * the knob journal (original, what fragd wrote, the value now) and what to
 * do. -EUCLEAN when there is something to restore or a journal fragd could
 * not read, else 0. */
static int print_left_changed(const Root *root, const char *rt, FILE *out)
{
        _cleanup_free_ StatusLeftChanged *lc = malloc(sizeof(*lc));
        const char *prefix = root->is_host ? "" : root->path;
        int ret;

        if (!lc)
                return -ENOMEM;
        ret = status_left_collect(root, rt, lc);
        if (lc->j.n > 0) {
                fprintf(out, "\nKnobs fragd changed and did not restore (journal '%s/%s/saved', pid %d):\n", prefix,
                        rt, (int) lc->j.pid);
                fprintf(out, "  %-36s %-14s %-14s %s\n", "KNOB", "ORIGINAL", "FRAGD WROTE", "NOW");
                for (unsigned i = 0; i < lc->j.n; i++)
                        fprintf(out, "  %-36s %-14s %-14s %s\n", lc->j.e[i].name, lc->j.e[i].original,
                                lc->j.e[i].last_written, lc->now_ptr[i] ?: "(unreadable)");
        }
        if (lc->unreadable)
                fprintf(out, "\nThe knob journal '%s/%s/saved' cannot be fully read (%s): knobs may be left "
                        "changed.\n",
                        prefix, rt, lc->r < 0 ? strerror(-lc->r) : "malformed lines");
        if (lc->aside[0])
                fprintf(out, "\n'%s/%s' holds a journal fragd could not read: the knobs it names may still "
                        "have fragd's values. Put them back by hand, then remove the file (fragd does not start "
                        "while it exists).\n",
                        prefix, lc->aside);
        if (ret < 0 && lc->r != -ENOENT)
                fprintf(out, "Run 'fragd --restore%s%s' to put back what the journal holds.\n",
                        root->is_host ? "" : " --root ", prefix);
        return ret;
}

int status_unlisted(const Root *root, const char *runtime_dir, StatusProbe probe, const char *what, char *ret,
                    size_t size)
{
        const char *prefix = root->is_host ? "" : root->path;
        _cleanup_close_ int dfd = -1;
        char rt[FRAGD_PATH_MAX];
        struct statvfs sv;
        bool full;
        int r;

        if (size > 0)
                ret[0] = '\0';
        r = knob_runtime_dir_relative(runtime_dir, rt, sizeof(rt));
        if (r < 0)
                return r;
        r = probe ? probe(root, runtime_dir) : 0;
        if (r == 0)
                return 0;
        if (r < 0) {
                snprintf(ret, size, "'%s/%s/control' is there, but whether a fragd listens on it "
                         "cannot be checked (%s)%s",
                         prefix, rt, strerror(-r), r == -EACCES || r == -EPERM ? ": run 'fragd status' as root" : "");
                return r;
        }
        dfd = root_openat(root->root_fd, rt, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0, 0);
        full = dfd >= 0 && fstatvfs(dfd, &sv) == 0 && (sv.f_bavail == 0 || (sv.f_files > 0 && sv.f_favail == 0));
        snprintf(ret, size, "fragd is running (it answers on its control socket '%s/%s/control'), "
                 "but its status file '%s/%s/status' %s: the daemon could not write it%s. Its log names the error "
                 "(\"Cannot write the status file\").",
                 prefix, rt, prefix, rt, what, full ? " (the file system holding it is full)" : "");
        return 1;
}

int status_daemon_alive(const Root *root, const char *rt, pid_t *ret_pid)
{
        _cleanup_free_ char *buf = NULL;
        char path[FRAGD_PATH_MAX + 16];
        uint64_t pid, starttime;
        size_t len;
        int r;

        r = snprintf(path, sizeof(path), "%s/status", rt);
        if (r < 0 || (size_t) r >= sizeof(path))
                return -ENAMETOOLONG;
        r = read_file_alloc_at_full(root->root_fd, path, ROOT_OWN_FILE, &buf, &len);
        if (r == -ENOENT)
                return 0;
        if (r < 0)
                return r;
        if (knob_status_owner(buf, len, &pid, &starttime) < 0 || pid == 0 || pid > INT32_MAX ||
            !pid_is_alive((pid_t) pid, starttime))
                return 0;
        *ret_pid = (pid_t) pid;
        return 1;
}

static void fmt_time(uint64_t usec, char *buf, size_t size)
{
        time_t t = (time_t) (usec / USEC_PER_SEC);
        struct tm tm;

        if (usec == 0 || !localtime_r(&t, &tm) || strftime(buf, size, "%Y-%m-%d %H:%M:%S", &tm) == 0)
                snprintf(buf, size, "-");
}

/* Splits a line at tabs into up to max fields (NUL-terminating in place). */
static size_t split_tabs(char *line, char **fields, size_t max)
{
        size_t n = 0;

        while (n < max) {
                char *tab = strchr(line, '\t');

                fields[n++] = line;
                if (!tab)
                        break;
                *tab = '\0';
                line = tab + 1;
        }
        return n;
}

/* Paused with knobs still owned: each with why its restore failed (the
 * unrestored lines), then any owned knob without one (an older writer). */
static void print_unrestored(const char *buf, FILE *out)
{
        for (int pass = 0; pass < 2; pass++)
                for (const char *p = buf; p && *p;) {
                        const char *nl = strchr(p, '\n'), *tag = pass == 0 ? "unrestored" : "owned";
                        size_t l = (size_t) ((nl ? nl : p + strlen(p)) - p), taglen = strlen(tag), n;
                        char copy[STATUS_LINE_MAX], *f[8], needle[KNOB_NAME_MAX + 16];

                        if (l > taglen && strncmp(p, tag, taglen) == 0 && p[taglen] == '\t') {
                                snprintf(copy, sizeof(copy), "%.*s", (int) (l - taglen - 1), p + taglen + 1);
                                n = split_tabs(copy, f, ELEMENTSOF(f));
                                snprintf(needle, sizeof(needle), "\nunrestored\t%s\t", f[0]);
                                if (pass == 0 && n >= 5)
                                        fprintf(out, "  %-36s still %s (original %s): %s (%s)\n", f[0], f[2], f[1],
                                                f[4], f[3]);
                                else if (pass == 1 && n >= 3 && !strstr(buf, needle))
                                        fprintf(out, "  %-36s still %s (original %s)\n", f[0], f[2], f[1]);
                        }
                        p = nl ? nl + 1 : NULL;
                }
}

int status_print(const Root *root, const char *runtime_dir, StatusProbe probe, FILE *out)
{
        _cleanup_free_ char *buf = NULL;
        char rt[FRAGD_PATH_MAX], path[FRAGD_PATH_MAX + 16], when[32], line[3 * FRAGD_PATH_MAX + 512];
        uint64_t pid = 0, starttime = 0, updated = 0;
        char ownership[16] = "?", ops[16] = "?", state[16] = "running";
        size_t len;
        unsigned n_owned = 0, n_yielded = 0, n_disabled = 0, n_held = 0, n_cgroups = 0, n_decisions = 0;
        int r;

        r = knob_runtime_dir_relative(runtime_dir, rt, sizeof(rt));
        if (r < 0)
                return r;
        snprintf(path, sizeof(path), "%s/status", rt);
        r = read_file_alloc_at_full(root->root_fd, path, ROOT_OWN_FILE, &buf, &len);
        if (r == -ENOENT) {
                if (status_unlisted(root, runtime_dir, probe, "is missing", line, sizeof(line)) > 0) {
                        fprintf(out, "%s\n", line);
                        return -ENODATA;
                }
                fprintf(out, "fragd is not running (no state in '%s%s%s').\n", root->path,
                        root->is_host ? "" : "/", path);
                if (line[0])
                        fprintf(out, "%s.\n", line);
                r = print_left_changed(root, rt, out);
                return r < 0 ? r : -ENOENT;
        }
        if (r < 0) {
                fprintf(out, "fragd status: cannot read '%s/%s': %s\n", root->path, path, strerror(-r));
                return r;
        }
        /* the file is printed to a terminal: whatever wrote it (an older fragd,
         * a tree copied from another host under --root), no escape sequence
         * gets through */
        len = text_scrub(buf, len + 1, buf, len, "\t\n");
        if (knob_status_owner(buf, len, &pid, &starttime) < 0) {
                fprintf(out, "fragd status: '%s/%s' is not a fragd status file.\n", root->path, path);
                return -EBADMSG;
        }

        /* first pass: the header lines and the counts */
        for (char *p = buf; p && *p;) {
                char *nl = strchr(p, '\n');

                if (nl)
                        *nl = '\0';
                if (knob_status_header_numbers((Span) { p, strlen(p) }, "updated", &updated, NULL) ||
                    sscanf(p, "ownership %15s", ownership) == 1 || sscanf(p, "ops %15s", ops) == 1 ||
                    sscanf(p, "state %15s", state) == 1)
                        ;
                else if (strncmp(p, "owned\t", 6) == 0)
                        n_owned++;
                else if (strncmp(p, "yielded\t", 8) == 0)
                        n_yielded++;
                else if (strncmp(p, "disabled\t", 9) == 0)
                        n_disabled++;
                else if (strncmp(p, "held\t", 5) == 0)
                        n_held++;
                else if (strncmp(p, "cgroup\t", 7) == 0)
                        n_cgroups++;
                else if (strncmp(p, "decision\t", 9) == 0)
                        n_decisions++;
                if (nl)
                        *nl = '\n';
                p = nl ? nl + 1 : NULL;
        }
        fmt_time(updated, when, sizeof(when));
        if (pid == 0 || pid > INT32_MAX || !pid_is_alive((pid_t) pid, starttime)) {
                char what[128];

                if (starttime == 0)
                        snprintf(what, sizeof(what), "names pid %" PRIu64 " without a start time (it is incomplete)",
                                 pid);
                else
                        snprintf(what, sizeof(what), "was left by pid %" PRIu64 ", which is gone", pid);
                if (status_unlisted(root, runtime_dir, probe, what, line, sizeof(line)) > 0) {
                        fprintf(out, "%s\n", line);
                        return -ENODATA;
                }
                if (starttime == 0)
                        fprintf(out, "fragd is not running: the status file '%s/%s' %s, so it cannot tell which "
                                "process wrote it, and no fragd answers on its control socket.\n",
                                root->path, path, what);
                else
                        fprintf(out, "fragd is not running (stale state left by pid %" PRIu64 ", last updated %s: it "
                                "did not stop cleanly).\n",
                                pid, when);
                if (line[0])
                        fprintf(out, "%s.\n", line);
                r = print_left_changed(root, rt, out);
                return r < 0 ? r : -ESRCH;
        }
        fprintf(out, "fragd is running (pid %" PRIu64 "), state updated %s.\n", pid, when);
        if (strcmp(state, "paused") == 0 && n_owned == 0)
                fprintf(out, "Paused: every knob fragd changed was handed back; fragd observes and decides but "
                        "does not act until 'fragd resume'.\n");
        else if (strcmp(state, "paused") == 0) {
                fprintf(out, "Paused, but %u knob(s) fragd changed could not be handed back and are still changed:\n",
                        n_owned);
                print_unrestored(buf, out);
                fprintf(out, "They stay in the knob journal and are tried again on 'fragd resume', on stop and by "
                        "'fragd --restore'. fragd observes and decides but does not act until 'fragd resume'.\n");
        }
        fprintf(out, "Ownership: %s. Writes: %s.\n", ownership,
                strcmp(ops, "dryrun") == 0 ? "dry run (nothing is written)" : ops);
        for (char *p = buf; p && *p;) {
                char *nl = strchr(p, '\n');

                if (strncmp(p, "info\t", 5) == 0)
                        fprintf(out, "%.*s\n", (int) ((nl ? nl : p + strlen(p)) - p - 5), p + 5);
                p = nl ? nl + 1 : NULL;
        }

        /* second pass: the tables (only the lines kept whole) */
        {
                static const struct {
                        const char *tag;
                        const char *title;
                } sections[] = {
                        { "owned", "Owned knobs (restored on stop):" },
                        { "yielded", "Yielded knobs (changed by someone else; left alone until restart):" },
                        { "disabled", "Disabled knobs:" },
                        { "held", "Held (fragd wants to move these knobs; what stops it):" },
                        { "cgroup", "Watched cgroups (THP mechanism in effect, stalls):" },
                        { "decision", "Recent decisions (newest last):" },
                };
                unsigned counts[] = { n_owned, n_yielded, n_disabled, n_held, n_cgroups, n_decisions };

                for (size_t s = 0; s < ELEMENTSOF(sections); s++) {
                        char *p = buf;
                        size_t taglen = strlen(sections[s].tag);

                        if (counts[s] == 0) {
                                if (s == 0)
                                        fprintf(out, "\nOwned knobs: none (every knob has its original value).\n");
                                continue;
                        }
                        fprintf(out, "\n%s\n", sections[s].title);
                        if (s == 0)
                                fprintf(out, "  %-36s %-14s %-14s %s\n", "KNOB", "ORIGINAL", "CURRENT", "SINCE");
                        else if (s == 1)
                                fprintf(out, "  %-36s %-14s %-14s %s\n", "KNOB", "ORIGINAL", "NOW", "SINCE");
                        while (p && *p) {
                                char *nl = strchr(p, '\n'), *f[8];
                                char copy[STATUS_LINE_MAX];
                                size_t n;

                                if (nl)
                                        *nl = '\0';
                                if (strncmp(p, sections[s].tag, taglen) == 0 && p[taglen] == '\t') {
                                        snprintf(copy, sizeof(copy), "%s", p + taglen + 1);
                                        n = split_tabs(copy, f, ELEMENTSOF(f));
                                        if (s <= 1 && n >= 4) {
                                                char since[32];

                                                uint64_t first_touch = 0; /* unreadable: "-" */

                                                (void) parse_u64(f[3], &first_touch);
                                                fmt_time(first_touch, since, sizeof(since));
                                                fprintf(out, "  %-36s %-14s %-14s %s\n", f[0], f[1], f[2], since);
                                        } else if (s == 2 && n >= 3)
                                                fprintf(out, "  %-36s %s (%s)\n", f[0], f[2], f[1]);
                                        else if (s == 3 && n >= 3)
                                                fprintf(out, "  %s [%s]: %s\n", f[0], f[1], f[2]);
                                        else if (s == 4 && n >= 5) {
                                                if (strcmp(f[1], "present") == 0)
                                                        fprintf(out, "  %s: present, THP via %s (%s)\n    %s\n",
                                                                f[0], f[2], f[3], f[4]);
                                                else
                                                        fprintf(out, "  %s: %s\n", f[0], f[1]);
                                        } else if (s == 5)
                                                fprintf(out, "  %s\n", f[0]);
                                }
                                if (nl)
                                        *nl = '\n';
                                p = nl ? nl + 1 : NULL;
                        }
                }
        }
        return 0;
}
