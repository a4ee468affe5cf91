/* SPDX-License-Identifier: GPL-2.0-or-later */
/* `fragd status --format json`: the status file (format in
 * daemon/output/status.h) as a JSON object with stable keys, documented in
 * docs/fragd.8 and pinned by tests/golden/status.json and
 * tests/golden/status-json-keys.txt. Every key is always present; what is
 * unknown is null, lists are empty. */

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "core/cleanup.h"
#include "core/json.h"
#include "core/parse-util.h"
#include "knobs/knob.h"
#include "output/status.h"

#define FIELDS_MAX 8

/* The line's fields after "tag\t" when it is one, NUL-terminated in a copy;
 * "-" becomes "". Returns the number of fields, 0 when the tag differs. */
static size_t line_fields(const char *line, size_t len, const char *tag, char *copy, size_t size,
                          char *ret[FIELDS_MAX])
{
        size_t taglen = strlen(tag), n = 0;
        char *p;

        if (len <= taglen || strncmp(line, tag, taglen) != 0 || line[taglen] != '\t')
                return 0;
        len -= taglen + 1;
        if (len >= size)
                len = size - 1;
        memcpy(copy, line + taglen + 1, len);
        copy[len] = '\0';
        for (p = copy; n < FIELDS_MAX;) {
                char *tab = strchr(p, '\t');

                if (tab)
                        *tab = '\0';
                ret[n++] = strcmp(p, "-") == 0 ? p + 1 : p; /* "-": the NUL after it */
                if (!tab)
                        break;
                p = tab + 1;
        }
        return n;
}

typedef void (*LineFn)(JsonWriter *w, char **f, size_t n);

/* Calls fn for every line tagged tag (in file order). */
static void each_line(JsonWriter *w, const char *buf, size_t len, const char *tag, LineFn fn)
{
        char copy[STATUS_LINE_MAX], *f[FIELDS_MAX];
        const char *p = buf, *end = buf ? buf + len : NULL;

        while (p && p < end) {
                const char *nl = memchr(p, '\n', (size_t) (end - p));
                size_t l = (size_t) ((nl ? nl : end) - p), n;

                n = line_fields(p, l, tag, copy, sizeof(copy), f);
                if (n > 0)
                        fn(w, f, n);
                p = nl ? nl + 1 : NULL;
        }
}

/* A header line "key value" (value up to the end of the line): true when found. */
static bool header_value(const char *buf, size_t len, const char *key, char *ret, size_t size)
{
        const char *p = buf, *end = buf ? buf + len : NULL;
        size_t klen = strlen(key);

        while (p && p < end) {
                const char *nl = memchr(p, '\n', (size_t) (end - p));
                size_t l = (size_t) ((nl ? nl : end) - p);

                if (l > klen && strncmp(p, key, klen) == 0 && p[klen] == ' ') {
                        size_t vl = MIN(l - klen - 1, size - 1);

                        memcpy(ret, p + klen + 1, vl);
                        ret[vl] = '\0';
                        return true;
                }
                p = nl ? nl + 1 : NULL;
        }
        return false;
}

static void str_or_null(JsonWriter *w, const char *key, const char *v)
{
        json_key(w, key);
        json_str(w, v && *v ? v : NULL);
}

/* a number field: null when empty or not a number */
static void u64_field(JsonWriter *w, const char *key, const char *v)
{
        uint64_t x;

        json_key(w, key);
        if (v && parse_u64(v, &x) >= 0)
                json_u64(w, x);
        else
                json_null(w);
}

static void bool_field(JsonWriter *w, const char *key, const char *v)
{
        json_key(w, key);
        if (v && (strcmp(v, "0") == 0 || strcmp(v, "1") == 0))
                json_bool(w, v[0] == '1');
        else
                json_null(w);
}

static void on_knob(JsonWriter *w, char **f, size_t n, const char *writer)
{
        json_obj_begin(w);
        str_or_null(w, "name", f[0]);
        str_or_null(w, "original", n > 1 ? f[1] : NULL);
        str_or_null(w, "current", n > 2 ? f[2] : NULL);
        json_key(w, "writer");
        json_str(w, writer);
        u64_field(w, "since_usec", n > 3 ? f[3] : NULL);
        json_obj_end(w);
}

static void on_owned(JsonWriter *w, char **f, size_t n) { on_knob(w, f, n, "fragd"); }
static void on_yielded(JsonWriter *w, char **f, size_t n) { on_knob(w, f, n, "other"); }

/* An object of string fields, keys[i] from f[i] (null when missing). */
static void string_fields(JsonWriter *w, char **f, size_t n, const char *const *keys, size_t n_keys)
{
        json_obj_begin(w);
        for (size_t i = 0; i < n_keys; i++)
                str_or_null(w, keys[i], i < n ? f[i] : NULL);
        json_obj_end(w);
}

static void on_disabled(JsonWriter *w, char **f, size_t n)
{
        static const char *const keys[] = { "name", "error", "message" };

        string_fields(w, f, n, keys, ELEMENTSOF(keys));
}

static void on_reserve(JsonWriter *w, char **f, size_t n)
{
        uint64_t have, target;
        int64_t node;

        json_obj_begin(w);
        json_key(w, "node");
        if (parse_i64(f[0], &node) >= 0)
                json_i64(w, node);
        else
                json_null(w);
        u64_field(w, "order", n > 1 ? f[1] : NULL);
        u64_field(w, "free_bytes", n > 2 ? f[2] : NULL);
        u64_field(w, "target_bytes", n > 3 ? f[3] : NULL);
        json_key(w, "met");
        if (n > 3 && parse_u64(f[2], &have) >= 0 && parse_u64(f[3], &target) >= 0)
                json_bool(w, have >= target);
        else
                json_null(w);
        bool_field(w, "learned", n > 4 ? f[4] : NULL);
        json_obj_end(w);
}

static void on_unrestored(JsonWriter *w, char **f, size_t n)
{
        static const char *const keys[] = { "name", "original", "current", "error", "message" };

        string_fields(w, f, n, keys, ELEMENTSOF(keys));
}

static void on_change(JsonWriter *w, char **f, size_t n)
{
        json_obj_begin(w);
        u64_field(w, "time_usec", f[0]);
        str_or_null(w, "knob", n > 1 ? f[1] : NULL);
        str_or_null(w, "from", n > 2 ? f[2] : NULL);
        str_or_null(w, "to", n > 3 ? f[3] : NULL);
        str_or_null(w, "reason", n > 4 ? f[4] : NULL);
        str_or_null(w, "outcome", n > 5 ? f[5] : NULL);
        json_obj_end(w);
}

static void on_held(JsonWriter *w, char **f, size_t n)
{
        static const char *const keys[] = { "knob", "hold", "explanation" };

        string_fields(w, f, n, keys, ELEMENTSOF(keys));
}

static void on_cgroup(JsonWriter *w, char **f, size_t n)
{
        json_obj_begin(w);
        str_or_null(w, "path", f[0]);
        json_key(w, "present");
        json_bool(w, n > 1 && strcmp(f[1], "present") == 0);
        str_or_null(w, "thp_mechanism", n > 2 ? f[2] : NULL);
        str_or_null(w, "thp_effect", n > 3 ? f[3] : NULL);
        str_or_null(w, "stall", n > 4 ? f[4] : NULL);
        json_obj_end(w);
}

/* the single line tagged tag, fields into f (copy holds them); 0 when none */
static size_t one_line(const char *buf, size_t len, const char *tag, char *copy, size_t size, char **f)
{
        const char *p = buf, *end = buf ? buf + len : NULL;
        size_t n = 0;

        while (p && p < end) {
                const char *nl = memchr(p, '\n', (size_t) (end - p));

                n = line_fields(p, (size_t) ((nl ? nl : end) - p), tag, copy, size, f);
                if (n > 0)
                        return n;
                p = nl ? nl + 1 : NULL;
        }
        return 0;
}

static void array(JsonWriter *w, const char *key, const char *buf, size_t len, const char *tag, LineFn fn)
{
        json_key(w, key);
        json_arr_begin(w);
        each_line(w, buf, len, tag, fn);
        json_arr_end(w);
}

void status_json_render(const char *buf, size_t len, const char *state, bool pause_requested,
                        const StatusLeftChanged *left, const char *problem, FILE *out)
{
        char v[128], copy[STATUS_LINE_MAX], *f[FIELDS_MAX];
        bool live = strcmp(state, "running") == 0 || strcmp(state, "paused") == 0;
        uint64_t pid = 0, starttime = 0;
        JsonWriter w;
        size_t n;

        if (buf && knob_status_owner(buf, len, &pid, &starttime) < 0)
                buf = NULL; /* not a status file: nothing from it */
        json_init(&w, out, true);
        json_obj_begin(&w);
        json_key(&w, "schema_version");
        json_u64(&w, STATUS_JSON_SCHEMA);
        json_key(&w, "state");
        json_str(&w, state);
        json_key(&w, "paused");
        json_bool(&w, strcmp(state, "paused") == 0 || (!live && pause_requested));
        json_key(&w, "restore_needed");
        json_bool(&w, left && (left->j.n > 0 || left->unreadable || left->aside[0]));
        str_or_null(&w, "status_problem", problem);

        json_key(&w, "daemon");
        json_obj_begin(&w);
        json_key(&w, "pid");
        if (pid > 0)
                json_u64(&w, pid);
        else
                json_null(&w);
        u64_field(&w, "updated_usec", header_value(buf, len, "updated", v, sizeof(v)) ? v : NULL);
        str_or_null(&w, "ownership", header_value(buf, len, "ownership", v, sizeof(v)) ? v : NULL);
        str_or_null(&w, "writes", header_value(buf, len, "ops", v, sizeof(v)) ? v : NULL);
        json_obj_end(&w);

        n = one_line(buf, len, "instance", copy, sizeof(copy), f);
        json_key(&w, "instance");
        json_obj_begin(&w);
        str_or_null(&w, "name", n > 0 ? f[0] : NULL);
        str_or_null(&w, "source", n > 1 ? f[1] : NULL);
        str_or_null(&w, "cloud", n > 2 ? f[2] : NULL);
        str_or_null(&w, "fleet_file", n > 3 ? f[3] : NULL);
        str_or_null(&w, "preset", n > 4 ? f[4] : NULL);
        json_obj_end(&w);

        n = live ? one_line(buf, len, "cadence", copy, sizeof(copy), f) : 0;
        json_key(&w, "cadence");
        json_obj_begin(&w);
        u64_field(&w, "interval_usec", n > 0 ? f[0] : NULL);
        u64_field(&w, "base_interval_usec", n > 1 ? f[1] : NULL);
        u64_field(&w, "active_interval_usec", n > 2 ? f[2] : NULL);
        bool_field(&w, "watching", n > 3 ? f[3] : NULL);
        bool_field(&w, "on_pressure", n > 4 ? f[4] : NULL);
        u64_field(&w, "next_tick_usec", n > 5 ? f[5] : NULL);
        json_obj_end(&w);

        /* a dead daemon's status file no longer says what is owned: the
         * journal does (knobs_left) */
        json_key(&w, "knobs");
        json_arr_begin(&w);
        if (live) {
                each_line(&w, buf, len, "owned", on_owned);
                each_line(&w, buf, len, "yielded", on_yielded);
        }
        json_arr_end(&w);
        array(&w, "disabled_knobs", live ? buf : NULL, len, "disabled", on_disabled);
        array(&w, "restore_failed", live ? buf : NULL, len, "unrestored", on_unrestored);

        json_key(&w, "knobs_left");
        json_arr_begin(&w);
        for (unsigned i = 0; left && i < left->j.n && i < KNOB_MAX; i++) {
                json_obj_begin(&w);
                str_or_null(&w, "name", left->j.e[i].name);
                str_or_null(&w, "original", left->j.e[i].original);
                str_or_null(&w, "fragd_wrote", left->j.e[i].last_written);
                str_or_null(&w, "current", left->now_ptr[i]);
                json_obj_end(&w);
        }
        json_arr_end(&w);
        json_key(&w, "journal_problem");
        if (left && left->aside[0]) {
                char why[FRAGD_PATH_MAX + 96];

                snprintf(why, sizeof(why), "a journal fragd could not read is kept as '%s'", left->aside);
                json_str(&w, why);
        } else if (left && left->unreadable)
                json_str(&w, left->r < 0 ? strerror(-left->r) : "the knob journal has malformed lines");
        else
                json_null(&w);

        array(&w, "reserve", live ? buf : NULL, len, "reserve", on_reserve);

        n = live ? one_line(buf, len, "learned", copy, sizeof(copy), f) : 0;
        json_key(&w, "learned");
        json_obj_begin(&w);
        u64_field(&w, "need_bytes", n > 0 ? f[0] : NULL);
        u64_field(&w, "peak_bytes", n > 1 ? f[1] : NULL);
        u64_field(&w, "peak_age_usec", n > 2 ? f[2] : NULL);
        json_obj_end(&w);

        array(&w, "held", live ? buf : NULL, len, "held", on_held);
        array(&w, "decisions", buf, len, "change", on_change);
        array(&w, "cgroups", live ? buf : NULL, len, "cgroup", on_cgroup);
        json_obj_end(&w);
        json_end(&w);
}

int status_print_json(const Root *root, const char *runtime_dir, StatusProbe probe, FILE *out)
{
        _cleanup_free_ StatusLeftChanged *left = NULL;
        _cleanup_free_ char *buf = NULL;
        char rt[FRAGD_PATH_MAX], path[FRAGD_PATH_MAX + 16], state[16] = "running", what[128];
        char problem[3 * FRAGD_PATH_MAX + 512];
        uint64_t pid = 0, starttime = 0;
        bool pause_requested;
        size_t len = 0;
        int r, rl;

        r = knob_runtime_dir_relative(runtime_dir, rt, sizeof(rt));
        if (r < 0)
                return r;
        snprintf(path, sizeof(path), "%s/status", rt);
        r = read_file_alloc_at_full(root->root_fd, path, ROOT_OWN_FILE, &buf, &len);
        if (r < 0 && r != -ENOENT)
                return r;
        if (r >= 0 && knob_status_owner(buf, len, &pid, &starttime) < 0)
                return -EBADMSG;
        pause_requested = status_pause_read(root, runtime_dir) != 0;
        if (r >= 0 && pid > 0 && pid <= INT32_MAX && pid_is_alive((pid_t) pid, starttime)) {
                if (header_value(buf, len, "state", state, sizeof(state)) && strcmp(state, "paused") != 0)
                        snprintf(state, sizeof(state), "running");
                status_json_render(buf, len, state, pause_requested, NULL, NULL, out);
                return 0;
        }
        if (r < 0)
                snprintf(what, sizeof(what), "is missing");
        else if (starttime == 0)
                snprintf(what, sizeof(what), "names pid %" PRIu64 " without a start time (it is incomplete)", pid);
        else
                snprintf(what, sizeof(what), "was left by pid %" PRIu64 ", which is gone", pid);
        if (status_unlisted(root, runtime_dir, probe, what, problem, sizeof(problem)) > 0) {
                /* running, but nothing from a status file that is not its own */
                status_json_render(NULL, 0, pause_requested ? "paused" : "running", pause_requested, NULL, problem,
                                   out);
                return -ENODATA;
        }
        if (!problem[0] && r >= 0 && starttime == 0)
                snprintf(problem, sizeof(problem), "the status file %s", what);
        left = malloc(sizeof(*left));
        if (!left)
                return -ENOMEM;
        rl = status_left_collect(root, rt, left);
        /* stopped: no status file and nothing left; crashed: the status
         * file of a process that is gone (it did not stop cleanly), or
         * knobs left changed */
        status_json_render(buf, len, r >= 0 || rl < 0 ? "crashed" : "stopped", pause_requested, left, problem, out);
        if (rl < 0)
                return rl;
        return r >= 0 ? -ESRCH : -ENOENT;
}
