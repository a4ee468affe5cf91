/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The learned reserve's state file <root>/<state_dir>/learned: parse and
 * format (pure, fuzzed), whether a file applies to this host, its atomic
 * write, and what it gives at the first decide (learned_store_load(), for
 * the daemon and for fragd --once alike). The format is documented in
 * daemon/service/learned-store.h; when it is read and written is
 * manager-learned.c's business. */

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/cleanup.h"
#include "core/format.h"
#include "core/parse-util.h"
#include "core/text.h"
#include "service/learned-store.h"

/* ---- parse / format (pure) ------------------------------------------------- */

enum {
        KEY_PAGE_SIZE,
        KEY_HPAGE_ORDER,
        KEY_MACHINE_ID,
        KEY_PEAK_BYTES,
        KEY_PEAK_REALTIME_USEC,
        _KEY_MAX,
};

static const struct {
        const char *name;
        bool required;
} keys[_KEY_MAX] = {
        [KEY_PAGE_SIZE] = { "page_size", true },
        [KEY_HPAGE_ORDER] = { "hpage_order", true },
        [KEY_MACHINE_ID] = { "machine_id", false },
        [KEY_PEAK_BYTES] = { "peak_bytes", true },
        [KEY_PEAK_REALTIME_USEC] = { "peak_realtime_usec", true },
};

_printf_(4, 5) static int fail(LearnedFileError *err, int r, unsigned line, const char *fmt, ...)
{
        va_list ap;

        if (err) {
                err->line = line;
                va_start(ap, fmt);
                vsnprintf(err->what, sizeof(err->what), fmt, ap);
                va_end(ap);
        }
        return r;
}

static Span span_strip(Span s)
{
        span_skip_blanks(&s);
        return span_rstrip(s, false);
}

static bool key_char(char c)
{
        return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
}

static bool machine_id_valid(Span s)
{
        if (s.len != MACHINE_ID_LEN)
                return false;
        for (size_t i = 0; i < s.len; i++)
                if (!((s.p[i] >= '0' && s.p[i] <= '9') || (s.p[i] >= 'a' && s.p[i] <= 'f')))
                        return false;
        return true;
}

/* A value of key k into f; 0, or a fail() code. */
static int parse_value(unsigned k, Span v, unsigned line, LearnedFile *f, LearnedFileError *err)
{
        uint64_t u = 0;
        int r;

        if (k == KEY_MACHINE_ID) {
                if (!machine_id_valid(v))
                        return fail(err, -EBADMSG, line, "machine_id is not 32 lowercase hex digits");
                memcpy(f->machine_id, v.p, MACHINE_ID_LEN);
                f->machine_id[MACHINE_ID_LEN] = '\0';
                return 0;
        }
        r = span_to_u64(v, &u);
        if (r == -ERANGE)
                return fail(err, -ERANGE, line, "%s is too large", keys[k].name);
        if (r < 0)
                return fail(err, -EBADMSG, line, "%s is not a decimal number", keys[k].name);
        switch (k) {
        case KEY_PAGE_SIZE:
                if (u < 1024 || u > (1u << 20) || (u & (u - 1)) != 0)
                        return fail(err, -EBADMSG, line, "page_size %" PRIu64 " is not a page size "
                                    "(a power of two, 1 KiB..1 MiB)", u);
                f->page_size = (unsigned) u;
                break;
        case KEY_HPAGE_ORDER:
                if (u < 1 || u > 20)
                        return fail(err, -EBADMSG, line, "hpage_order %" PRIu64 " is out of range (1..20)", u);
                f->hpage_order = (unsigned) u;
                break;
        case KEY_PEAK_BYTES:
                if (u == 0)
                        return fail(err, -EBADMSG, line, "peak_bytes is 0");
                if (u > UINT64_MAX / 4)
                        return fail(err, -ERANGE, line, "peak_bytes is too large");
                f->peak_bytes = u;
                break;
        case KEY_PEAK_REALTIME_USEC:
                if (u == 0)
                        return fail(err, -EBADMSG, line, "peak_realtime_usec is 0");
                f->peak_realtime_usec = u;
                break;
        }
        return 0;
}

int learned_file_parse(const char *buf, size_t len, LearnedFile *ret, LearnedFileError *ret_err)
{
        Cursor c = cursor_make(buf, len);
        LearnedFile f = { 0 };
        bool seen[_KEY_MAX] = { false }, have_version = false;
        unsigned line_no = 0;
        Span line;
        int r;

        while (cursor_next_line(&c, &line)) {
                Span s = span_strip(line), key, value;
                const char *eq;
                uint64_t version;
                unsigned k;

                line_no++;
                for (size_t i = 0; i < line.len; i++) {
                        unsigned char ch = (unsigned char) line.p[i];

                        if ((ch < 0x20 && ch != '\t' && !(ch == '\r' && i + 1 == line.len)) || ch == 0x7f)
                                return fail(ret_err, -EBADMSG, line_no, "control character (binary data?)");
                }
                if (s.len == 0 || s.p[0] == '#')
                        continue;
                eq = memchr(s.p, '=', s.len);
                if (!eq)
                        return fail(ret_err, -EBADMSG, line_no, "not key=value");
                key = span_strip((Span) { s.p, (size_t) (eq - s.p) });
                value = span_strip((Span) { eq + 1, s.len - (size_t) (eq - s.p) - 1 });
                for (size_t i = 0; i < key.len; i++)
                        if (!key_char(key.p[i]))
                                return fail(ret_err, -EBADMSG, line_no, "malformed key");
                if (key.len == 0 || key.len > 32)
                        return fail(ret_err, -EBADMSG, line_no, "malformed key");

                if (!have_version) {
                        if (!span_eq(key, "version"))
                                return fail(ret_err, -EBADMSG, line_no, "the first key is not version=");
                        r = span_to_u64(value, &version);
                        if (r < 0)
                                return fail(ret_err, -EBADMSG, line_no, "version is not a decimal number");
                        if (version != LEARNED_FILE_VERSION && ret_err)
                                ret_err->newer = version > LEARNED_FILE_VERSION;
                        if (version != LEARNED_FILE_VERSION)
                                return fail(ret_err, -EPROTONOSUPPORT, line_no,
                                            "version %" PRIu64 ", this fragd reads version %d", version,
                                            LEARNED_FILE_VERSION);
                        have_version = true;
                        continue;
                }
                if (span_eq(key, "version"))
                        return fail(ret_err, -EBADMSG, line_no, "version given twice");
                for (k = 0; k < _KEY_MAX; k++)
                        if (span_eq(key, keys[k].name))
                                break;
                if (k == _KEY_MAX)
                        return fail(ret_err, -EBADMSG, line_no, "unknown key '%.*s'", (int) key.len, key.p);
                if (seen[k])
                        return fail(ret_err, -EBADMSG, line_no, "%s given twice", keys[k].name);
                seen[k] = true;
                r = parse_value(k, value, line_no, &f, ret_err);
                if (r < 0)
                        return r;
        }
        if (!have_version)
                return fail(ret_err, -ENODATA, 0, "no version= line (empty file?)");
        for (unsigned k = 0; k < _KEY_MAX; k++)
                if (keys[k].required && !seen[k])
                        return fail(ret_err, -ENODATA, 0, "no %s= line", keys[k].name);
        *ret = f;
        return 0;
}

int learned_file_format(const LearnedFile *f, char *buf, size_t size)
{
        char bytes[32], when[64] = "an unknown time";
        time_t t = (time_t) (f->peak_realtime_usec / USEC_PER_SEC);
        struct tm tm;
        int n;

        if (gmtime_r(&t, &tm))
                (void) strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S UTC", &tm);
        n = snprintf(buf, size,
                     "# fragd learned reserve (fragd.conf(5) state_dir): %s burst seen %s\n"
                     "version=%d\n"
                     "page_size=%u\n"
                     "hpage_order=%u\n"
                     "%s%s%s"
                     "peak_bytes=%" PRIu64 "\n"
                     "peak_realtime_usec=%" PRIu64 "\n",
                     format_bytes(bytes, sizeof(bytes), f->peak_bytes), when, LEARNED_FILE_VERSION, f->page_size,
                     f->hpage_order, f->machine_id[0] ? "machine_id=" : "", f->machine_id,
                     f->machine_id[0] ? "\n" : "", f->peak_bytes, f->peak_realtime_usec);
        if (n < 0 || (size_t) n >= size)
                return -ENOBUFS;
        return n;
}

bool learned_file_applies(const LearnedFile *f, unsigned page_size, unsigned hpage_order, const char *machine_id,
                          char *why, size_t size)
{
        if (f->page_size != page_size)
                snprintf(why, size, "written with %u-byte pages, this kernel has %u", f->page_size, page_size);
        else if (f->hpage_order != hpage_order)
                snprintf(why, size, "written with huge pages of order %u, this kernel has order %u", f->hpage_order,
                         hpage_order);
        else if (f->machine_id[0] && machine_id && machine_id[0] && strcmp(f->machine_id, machine_id) != 0)
                snprintf(why, size, "written on another machine (machine-id %s, this one is %s)", f->machine_id,
                         machine_id);
        else
                return true;
        return false;
}

/* ---- file I/O -------------------------------------------------------------- */

int learned_store_path(const char *state_dir, char *ret, size_t size)
{
        char rel[TEXT_DIR_LEN_MAX + 1];
        int r;

        /* the same check as the configuration's (config-table.c VT_PATH):
         * absolute, not "/", no "." or ".." */
        r = text_dir_relative(state_dir, rel, sizeof(rel), NULL);
        if (r < 0)
                return r;
        r = snprintf(ret, size, "%s/%s", rel, LEARNED_FILE_NAME);
        return r < 0 || (size_t) r >= size ? -ENAMETOOLONG : 0;
}

int learned_store_read(const Root *root, const char *state_dir, LearnedFile *ret, LearnedFileError *ret_err)
{
        char path[512], buf[LEARNED_FILE_MAX + 1];
        int r;

        r = learned_store_path(state_dir, path, sizeof(path));
        if (r < 0)
                return r;
        r = read_file_at_full(root->root_fd, path, ROOT_OWN_FILE, buf, sizeof(buf));
        if (r < 0)
                return r;
        return learned_file_parse(buf, (size_t) r, ret, ret_err);
}

/* An unlink is durable only once the directory is on disk too
 * (write_file_atomic_at() does this itself after its rename). */
static int fsync_parent(int root_fd, const char *path)
{
        char dir[512];
        const char *slash = strrchr(path, '/');
        _cleanup_close_ int fd = -1;

        if (!slash)
                fd = root_openat(root_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0, 0);
        else {
                if ((size_t) (slash - path) >= sizeof(dir))
                        return -ENAMETOOLONG;
                memcpy(dir, path, (size_t) (slash - path));
                dir[slash - path] = '\0';
                fd = root_openat(root_fd, dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0, 0);
        }
        if (fd < 0)
                return fd;
        if (fsync(fd) < 0)
                return negative_errno();
        return 0;
}

int learned_store_write(const Root *root, const char *state_dir, const LearnedFile *f)
{
        char path[512], buf[LEARNED_FILE_MAX];
        int n, r;

        r = learned_store_path(state_dir, path, sizeof(path));
        if (r < 0)
                return r;
        n = learned_file_format(f, buf, sizeof(buf));
        if (n < 0)
                return n;
        /* the rename and the directory are on disk when this returns */
        return write_file_atomic_at(root->root_fd, path, buf, (size_t) n, 0644);
}

int learned_store_remove(const Root *root, const char *state_dir)
{
        char path[512];
        int r;

        r = learned_store_path(state_dir, path, sizeof(path));
        if (r < 0)
                return r;
        r = unlink_file_at(root->root_fd, path);
        if (r < 0)
                return r == -ENOENT ? 0 : r;
        return fsync_parent(root->root_fd, path);
}

int learned_store_move(const Root *root, const char *from, const char *to, char *ret_why, size_t why_size)
{
        char src[512], dst[512], src_name[1024], dst_name[1024], buf[LEARNED_FILE_MAX + 1];
        struct stat a, b;
        bool have_src;
        int n, r;

        learned_store_name(root, to, dst_name, sizeof(dst_name));
        r = learned_store_path(to, dst, sizeof(dst));
        if (r < 0) {
                snprintf(ret_why, why_size, "'%s' cannot hold the learned reserve file: %s", to, strerror(-r));
                return r;
        }
        have_src = from && from[0] && learned_store_path(from, src, sizeof(src)) >= 0;
        if (have_src && strcmp(src, dst) == 0)
                return 0;
        if (fstatat(root->root_fd, dst, &b, AT_SYMLINK_NOFOLLOW) == 0) {
                /* the same file by another name: nothing moves */
                if (have_src && fstatat(root->root_fd, src, &a, AT_SYMLINK_NOFOLLOW) == 0 && a.st_dev == b.st_dev &&
                    a.st_ino == b.st_ino)
                        return 0;
                snprintf(ret_why, why_size,
                         "'%s' already exists (the learned reserve of another fragd, or one left over): remove it "
                         "first",
                         dst_name);
                return -EEXIST;
        }
        if (errno != ENOENT) {
                r = negative_errno();
                snprintf(ret_why, why_size, "cannot check '%s': %s", dst_name, strerror(-r));
                return r;
        }
        if (!have_src)
                return 0;
        learned_store_name(root, from, src_name, sizeof(src_name));
        n = read_file_at(root->root_fd, src, buf, sizeof(buf));
        if (n == -ENOENT)
                return 0;
        if (n < 0) {
                snprintf(ret_why, why_size, "cannot read '%s': %s", src_name,
                         n == -EFBIG ? "larger than the format allows" : strerror(-n));
                return n;
        }
        /* durable when it returns: file, rename and directory */
        r = write_file_atomic_at(root->root_fd, dst, buf, (size_t) n, 0644);
        if (r < 0) {
                snprintf(ret_why, why_size, "cannot write '%s': %s", dst_name, strerror(-r));
                return r;
        }
        /* only now that the new file is on disk: the old one */
        r = unlink_file_at(root->root_fd, src);
        if (r < 0 && r != -ENOENT) {
                (void) unlink_file_at(root->root_fd, dst);
                snprintf(ret_why, why_size, "cannot remove '%s': %s", src_name, strerror(-r));
                return r;
        }
        (void) fsync_parent(root->root_fd, src);
        return 1;
}

void learned_store_name(const Root *root, const char *state_dir, char *buf, size_t size)
{
        char rel[512];
        size_t n = strlen(root->path);

        if (learned_store_path(state_dir, rel, sizeof(rel)) < 0)
                snprintf(rel, sizeof(rel), "?");
        while (n > 0 && root->path[n - 1] == '/')
                n--;
        snprintf(buf, size, "%.*s/%s", root->is_host ? 0 : (int) n, root->path, rel);
}

/* ---- what the file gives at the first decide ------------------------------- */

LearnedLoadResult learned_store_load(const Root *root, const char *state_dir, const PolicyConfig *cfg,
                                     unsigned page_size, unsigned hpage_order, const char *machine_id,
                                     uint64_t mem_bytes, usec_t now, usec_t now_realtime, LearnedLoad *ret)
{
        LearnedFileError err = { 0 };
        LearnedLoad l = { 0 };
        uint64_t hp;
        int r;

        if (!state_dir || !state_dir[0]) {
                l.result = LEARNED_LOAD_NOT_KEPT;
                goto done;
        }
        r = learned_store_read(root, state_dir, &l.file, &err);
        if (r == -ENOENT)
                l.result = LEARNED_LOAD_NONE;
        else if (r == -EPROTONOSUPPORT) {
                l.result = LEARNED_LOAD_OTHER_VERSION;
                l.newer = err.newer;
                snprintf(l.why, sizeof(l.why), "%s", err.what);
        } else if (r < 0 && err.what[0]) {
                l.result = LEARNED_LOAD_MALFORMED;
                l.line = err.line;
                snprintf(l.why, sizeof(l.why), "%s", err.what);
        } else if (r == -EFBIG) {
                l.result = LEARNED_LOAD_TOO_LARGE;
                snprintf(l.why, sizeof(l.why), "larger than %d bytes", LEARNED_FILE_MAX);
        } else if (r < 0) {
                l.result = LEARNED_LOAD_UNREADABLE;
                l.error = r;
                snprintf(l.why, sizeof(l.why), "%s", strerror(-r));
        }
        if (r < 0) {
                l.file = (LearnedFile) { 0 };
                goto done;
        }

        if (l.file.peak_realtime_usec > now_realtime) {
                l.future_usec = l.file.peak_realtime_usec - now_realtime;
                l.age_usec = 0;
        } else
                l.age_usec = now_realtime - l.file.peak_realtime_usec;
        if (!learned_file_applies(&l.file, page_size, hpage_order, machine_id, l.why, sizeof(l.why))) {
                l.result = LEARNED_LOAD_NOT_APPLICABLE;
                l.future_usec = 0;
                goto done;
        }

        if (mem_bytes > 0 && l.file.peak_bytes > mem_bytes) {
                l.capped_from_bytes = l.file.peak_bytes;
                l.file.peak_bytes = mem_bytes;
        }
        hp = hpage_order < 32 ? (uint64_t) page_size << hpage_order : 0;
        switch (policy_learned_restore(cfg, l.file.peak_bytes, l.age_usec, now, hp, &l.restore)) {
        case LEARNED_RESTORE_OK:
                l.result = LEARNED_LOAD_OK;
                break;
        case LEARNED_RESTORE_OFF:
                l.result = LEARNED_LOAD_LEARNING_OFF;
                snprintf(l.why, sizeof(l.why), "demand_learning is off");
                break;
        case LEARNED_RESTORE_EMPTY: /* the parser refuses peak_bytes=0 */
        case LEARNED_RESTORE_DECAYED:
                l.result = LEARNED_LOAD_DECAYED;
                snprintf(l.why, sizeof(l.why), "decayed to nothing");
                break;
        }
done:
        *ret = l;
        return l.result;
}

const char *learned_load_result_name(LearnedLoadResult r)
{
        static const char *const names[_LEARNED_LOAD_MAX] = {
                [LEARNED_LOAD_OK] = "ok",
                [LEARNED_LOAD_NOT_KEPT] = "not_kept",
                [LEARNED_LOAD_NONE] = "none",
                [LEARNED_LOAD_OTHER_VERSION] = "other_version",
                [LEARNED_LOAD_MALFORMED] = "malformed",
                [LEARNED_LOAD_TOO_LARGE] = "too_large",
                [LEARNED_LOAD_UNREADABLE] = "unreadable",
                [LEARNED_LOAD_NOT_APPLICABLE] = "not_applicable",
                [LEARNED_LOAD_LEARNING_OFF] = "learning_off",
                [LEARNED_LOAD_DECAYED] = "decayed",
        };

        return (unsigned) r < _LEARNED_LOAD_MAX ? names[r] : "?";
}

const char *learned_load_explain(const LearnedLoad *l, char *buf, size_t size)
{
        char b[32], d[32];

        switch (l->result) {
        case LEARNED_LOAD_OTHER_VERSION:
                snprintf(buf, size, "is in %s format (%s)", l->newer ? "a newer" : "another", l->why);
                break;
        case LEARNED_LOAD_MALFORMED:
                if (l->line > 0)
                        snprintf(buf, size, "is malformed, line %u: %s", l->line, l->why);
                else
                        snprintf(buf, size, "is malformed: %s", l->why);
                break;
        case LEARNED_LOAD_TOO_LARGE:
                snprintf(buf, size, "is %s", l->why);
                break;
        case LEARNED_LOAD_UNREADABLE:
                snprintf(buf, size, "cannot be read: %s", l->why);
                break;
        case LEARNED_LOAD_NOT_APPLICABLE:
                snprintf(buf, size, "does not apply here: %s", l->why);
                break;
        case LEARNED_LOAD_LEARNING_OFF:
        case LEARNED_LOAD_DECAYED:
                snprintf(buf, size, "%s %s (%s burst seen %s ago)",
                         l->result == LEARNED_LOAD_DECAYED ? "has" : "is not used:", l->why,
                         format_bytes(b, sizeof(b), l->file.peak_bytes), format_duration(d, sizeof(d), l->age_usec));
                break;
        default:
                if (size > 0)
                        buf[0] = '\0';
                break;
        }
        return buf;
}

int machine_id_read(const Root *root, char ret[MACHINE_ID_LEN + 1])
{
        char buf[64];
        int r;

        ret[0] = '\0';
        r = read_file_at(root->root_fd, "etc/machine-id", buf, sizeof(buf));
        if (r < 0)
                return r == -EFBIG ? -EBADMSG : r;
        if (!machine_id_valid(span_rstrip((Span) { buf, (size_t) r }, false)))
                return -EBADMSG;
        memcpy(ret, buf, MACHINE_ID_LEN);
        ret[MACHINE_ID_LEN] = '\0';
        return 0;
}
