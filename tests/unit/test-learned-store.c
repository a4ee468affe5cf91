/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The learned reserve's state file (daemon/service/learned-store.c): the parser
 * table (malformed input is refused with its line and reason), format ->
 * parse round trip, whether a file applies to this host, the path below
 * the root, the atomic write / read / remove in a temporary root, and what
 * a file gives at the first decide (learned_store_load(), shared by the
 * daemon and fragd --once) with its sentences. */

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <dirent.h>
#include <unistd.h>
#include <cmocka.h>

#include "config/config.h"
#include "service/learned-store.h"

#define GOOD "version=1\npage_size=4096\nhpage_order=9\npeak_bytes=536870912\npeak_realtime_usec=1767623290000000\n"
#define MID "0123456789abcdef0123456789abcdef"

static void test_parse_table(void **state)
{
        static const struct {
                const char *in;
                int rc;
                unsigned line;    /* of the error */
                const char *what; /* substring of the reason */
        } t[] = {
                { GOOD, 0, 0, NULL },
                /* comments, blank lines, CRLF, blanks around '=', no final newline */
                { "# c\n\nversion = 1\r\n  page_size=4096\t\r\nhpage_order=9\n# x=y\npeak_bytes=1\npeak_realtime_usec=1",
                  0, 0, NULL },
                { GOOD "machine_id=" MID "\n", 0, 0, NULL },
                { "", -ENODATA, 0, "no version" },
                { "# only a comment\n", -ENODATA, 0, "no version" },
                { "version=1\n", -ENODATA, 0, "no page_size" },
                { "version=1\npage_size=4096\nhpage_order=9\npeak_bytes=1\n", -ENODATA, 0, "no peak_realtime_usec" },
                { "version=2\npage_size=4096\n", -EPROTONOSUPPORT, 1, "version 2, this fragd reads version 1" },
                { "version=x\n", -EBADMSG, 1, "version is not a decimal number" },
                { "page_size=4096\nversion=1\n", -EBADMSG, 1, "the first key is not version" },
                { GOOD "version=1\n", -EBADMSG, 6, "version given twice" },
                { GOOD "peak_bytes=1\n", -EBADMSG, 6, "peak_bytes given twice" },
                { GOOD "color=blue\n", -EBADMSG, 6, "unknown key 'color'" },
                { GOOD "just words\n", -EBADMSG, 6, "not key=value" },
                { GOOD "=5\n", -EBADMSG, 6, "malformed key" },
                { GOOD "Peak Bytes=5\n", -EBADMSG, 6, "malformed key" },
                { "version=1\npage_size=lots\n", -EBADMSG, 2, "page_size is not a decimal number" },
                { "version=1\npage_size=-4096\n", -EBADMSG, 2, "page_size is not a decimal number" },
                { "version=1\npage_size=4096 8192\n", -EBADMSG, 2, "page_size is not a decimal number" },
                { "version=1\npage_size=\n", -EBADMSG, 2, "page_size is not a decimal number" },
                { "version=1\npage_size=4095\n", -EBADMSG, 2, "not a page size" },
                { "version=1\npage_size=512\n", -EBADMSG, 2, "not a page size" },
                { "version=1\npage_size=4194304\n", -EBADMSG, 2, "not a page size" },
                { "version=1\nhpage_order=0\n", -EBADMSG, 2, "hpage_order 0 is out of range" },
                { "version=1\nhpage_order=21\n", -EBADMSG, 2, "hpage_order 21 is out of range" },
                { "version=1\npeak_bytes=0\n", -EBADMSG, 2, "peak_bytes is 0" },
                { "version=1\npeak_bytes=99999999999999999999\n", -ERANGE, 2, "peak_bytes is too large" },
                { "version=1\npeak_bytes=9223372036854775807\n", -ERANGE, 2, "peak_bytes is too large" },
                { "version=1\npeak_realtime_usec=0\n", -EBADMSG, 2, "peak_realtime_usec is 0" },
                { "version=1\nmachine_id=0123\n", -EBADMSG, 2, "machine_id is not 32" },
                { "version=1\nmachine_id=0123456789ABCDEF0123456789ABCDEF\n", -EBADMSG, 2, "machine_id is not 32" },
                { "version=1\npage_size=40\x01" "96\n", -EBADMSG, 2, "control character" },
                { "version=1\npage_\rsize=4096\n", -EBADMSG, 2, "control character" },
        };

        for (size_t i = 0; i < ELEMENTSOF(t); i++) {
                LearnedFileError err = { .line = 99, .what = "" };
                LearnedFile f;
                int r = learned_file_parse(t[i].in, strlen(t[i].in), &f, &err);

                if (r != t[i].rc)
                        fail_msg("case %zu: rc %d, want %d (%u: %s)", i, r, t[i].rc, err.line, err.what);
                if (r == 0)
                        continue;
                if (err.line != t[i].line)
                        fail_msg("case %zu: line %u, want %u (%s)", i, err.line, t[i].line, err.what);
                if (!strstr(err.what, t[i].what))
                        fail_msg("case %zu: '%s' does not say '%s'", i, err.what, t[i].what);
        }
}

static void test_parse_values_and_nul(void **state)
{
        static const char with_nul[] = "version=1\npage_size=4096\0\nhpage_order=9\n";
        static const char k64[] = "version=1\npage_size=65536\nhpage_order=13\npeak_bytes=1\npeak_realtime_usec=1\n";
        LearnedFileError err = { 0 };
        LearnedFile f;

        assert_int_equal(learned_file_parse(GOOD "machine_id=" MID "\n", strlen(GOOD) + 44, &f, &err), 0);
        assert_int_equal(f.page_size, 4096);
        assert_int_equal(f.hpage_order, 9);
        assert_int_equal(f.peak_bytes, 512ULL << 20);
        assert_int_equal(f.peak_realtime_usec, 1767623290000000ULL);
        assert_string_equal(f.machine_id, MID);
        /* 64K pages, order 13 */
        assert_int_equal(learned_file_parse(k64, strlen(k64), &f, NULL), 0);
        assert_int_equal(f.page_size, 65536);
        assert_int_equal(f.hpage_order, 13);
        /* an embedded NUL is binary data, not the end of the file */
        assert_int_equal(learned_file_parse(with_nul, sizeof(with_nul) - 1, &f, &err), -EBADMSG);
        assert_int_equal(err.line, 2);
        /* NULL buffer of length 0 */
        assert_int_equal(learned_file_parse(NULL, 0, &f, NULL), -ENODATA);
}

/* Field by field: LearnedFile has padding after machine_id, which an
 * initializer need not zero (assert_memory_equal failed on it now and then
 * under ASan). */
static void assert_learned_equal(const LearnedFile *a, const LearnedFile *b)
{
        assert_int_equal(a->page_size, b->page_size);
        assert_int_equal(a->hpage_order, b->hpage_order);
        assert_string_equal(a->machine_id, b->machine_id);
        assert_int_equal(a->peak_bytes, b->peak_bytes);
        assert_int_equal(a->peak_realtime_usec, b->peak_realtime_usec);
}

static void test_format_round_trip(void **state)
{
        LearnedFile a = { .page_size = 4096, .hpage_order = 9, .peak_bytes = 512ULL << 20,
                          .peak_realtime_usec = 1767623290123456ULL }, b;
        char buf[LEARNED_FILE_MAX];
        int n;

        n = learned_file_format(&a, buf, sizeof(buf));
        assert_true(n > 0);
        assert_int_equal((size_t) n, strlen(buf));
        assert_non_null(strstr(buf, "# fragd learned reserve (fragd.conf(5) state_dir): 512 MiB burst seen "
                                    "2026-01-05 14:28:10 UTC\nversion=1\n"));
        assert_non_null(strstr(buf, "\npeak_bytes=536870912\npeak_realtime_usec=1767623290123456\n"));
        assert_null(strstr(buf, "machine_id"));
        assert_int_equal(learned_file_parse(buf, (size_t) n, &b, NULL), 0);
        assert_learned_equal(&a, &b);

        strcpy(a.machine_id, MID);
        n = learned_file_format(&a, buf, sizeof(buf));
        assert_non_null(strstr(buf, "\nmachine_id=" MID "\n"));
        assert_int_equal(learned_file_parse(buf, (size_t) n, &b, NULL), 0);
        assert_learned_equal(&a, &b);

        assert_int_equal(learned_file_format(&a, buf, 40), -ENOBUFS);
}

static void test_applies(void **state)
{
        LearnedFile f = { .page_size = 4096, .hpage_order = 9, .peak_bytes = 1, .peak_realtime_usec = 1 };
        char why[160];

        assert_true(learned_file_applies(&f, 4096, 9, "", why, sizeof(why)));
        assert_true(learned_file_applies(&f, 4096, 9, MID, why, sizeof(why))); /* the file has none */
        assert_false(learned_file_applies(&f, 65536, 13, "", why, sizeof(why)));
        assert_string_equal(why, "written with 4096-byte pages, this kernel has 65536");
        assert_false(learned_file_applies(&f, 4096, 10, "", why, sizeof(why)));
        assert_string_equal(why, "written with huge pages of order 9, this kernel has order 10");
        strcpy(f.machine_id, MID);
        assert_true(learned_file_applies(&f, 4096, 9, MID, why, sizeof(why)));
        assert_true(learned_file_applies(&f, 4096, 9, "", why, sizeof(why))); /* this host's is unknown */
        assert_false(learned_file_applies(&f, 4096, 9, "ffffffffffffffffffffffffffffffff", why, sizeof(why)));
        assert_non_null(strstr(why, "written on another machine (machine-id " MID));
}

static void test_path(void **state)
{
        char p[64];

        assert_int_equal(learned_store_path("/var/lib/fragd", p, sizeof(p)), 0);
        assert_string_equal(p, "var/lib/fragd/learned");
        assert_int_equal(learned_store_path("/var/lib/fragd/", p, sizeof(p)), 0);
        assert_string_equal(p, "var/lib/fragd/learned");
        /* the root itself, ".." and relative paths are refused, as fragd.conf refuses them */
        assert_int_equal(learned_store_path("/", p, sizeof(p)), -EINVAL);
        assert_int_equal(learned_store_path("/var/../etc", p, sizeof(p)), -EINVAL);
        assert_int_equal(learned_store_path("var/lib/fragd", p, sizeof(p)), -EINVAL);
        assert_int_equal(learned_store_path("", p, sizeof(p)), -EINVAL);
        assert_int_equal(learned_store_path(NULL, p, sizeof(p)), -EINVAL);
        assert_int_equal(learned_store_path("/a/very/long/state/directory/name", p, 16), -ENAMETOOLONG);
}

/* ---- file I/O in a temporary root ------------------------------------------- */

typedef struct Tmp {
        char dir[64];
        Root *root;
} Tmp;

static int setup(void **state)
{
        Tmp *t = calloc(1, sizeof(*t));

        assert_non_null(t);
        snprintf(t->dir, sizeof(t->dir), "/tmp/fragd-test-XXXXXX");
        assert_non_null(mkdtemp(t->dir));
        assert_int_equal(root_open(t->dir, 4096, &t->root), 0);
        *state = t;
        return 0;
}

static int teardown(void **state)
{
        Tmp *t = *state;
        char cmd[128];

        t->root = root_free(t->root);
        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", t->dir);
        (void) !system(cmd);
        free(t);
        return 0;
}

static void put(const Tmp *t, const char *rel, const char *text)
{
        char path[256];
        FILE *f;

        snprintf(path, sizeof(path), "%s/%s", t->dir, rel);
        f = fopen(path, "we");
        assert_non_null(f);
        fputs(text, f);
        fclose(f);
}

static unsigned entries(const Tmp *t, const char *rel)
{
        char path[256];
        unsigned n = 0;
        struct dirent *de;
        DIR *d;

        snprintf(path, sizeof(path), "%s/%s", t->dir, rel);
        d = opendir(path);
        if (!d)
                return 0;
        while ((de = readdir(d)))
                n += de->d_name[0] != '.';
        closedir(d);
        return n;
}

static void test_write_read_remove(void **state)
{
        Tmp *t = *state;
        LearnedFile a = { .page_size = 4096, .hpage_order = 9, .machine_id = MID, .peak_bytes = 128ULL << 20,
                          .peak_realtime_usec = 1767623290000000ULL }, b;
        LearnedFileError err = { 0 };
        char path[256];
        struct stat st;

        assert_int_equal(learned_store_read(t->root, "/var/lib/fragd", &b, &err), -ENOENT);
        /* creates the directory; the temp file does not stay */
        assert_int_equal(learned_store_write(t->root, "/var/lib/fragd", &a), 0);
        snprintf(path, sizeof(path), "%s/var/lib/fragd/learned", t->dir);
        assert_int_equal(stat(path, &st), 0);
        assert_int_equal(st.st_mode & 07777, 0644);
        assert_int_equal(entries(t, "var/lib/fragd"), 1);
        assert_int_equal(learned_store_read(t->root, "/var/lib/fragd", &b, &err), 0);
        assert_learned_equal(&a, &b);
        /* replaced as a whole */
        a.peak_bytes = 256ULL << 20;
        assert_int_equal(learned_store_write(t->root, "/var/lib/fragd", &a), 0);
        assert_int_equal(learned_store_read(t->root, "/var/lib/fragd", &b, &err), 0);
        assert_int_equal(b.peak_bytes, 256ULL << 20);
        assert_int_equal(entries(t, "var/lib/fragd"), 1);

        assert_int_equal(learned_store_remove(t->root, "/var/lib/fragd"), 0);
        assert_int_equal(learned_store_read(t->root, "/var/lib/fragd", &b, &err), -ENOENT);
        assert_int_equal(learned_store_remove(t->root, "/var/lib/fragd"), 0); /* none: fine */
        assert_int_equal(learned_store_remove(t->root, "/nowhere"), 0);
        assert_int_equal(learned_store_write(t->root, "", &a), -EINVAL);
}

static void test_read_corrupt_and_large(void **state)
{
        Tmp *t = *state;
        LearnedFile a = { .page_size = 4096, .hpage_order = 9, .peak_bytes = 1, .peak_realtime_usec = 1 }, b;
        LearnedFileError err = { 0 };
        char *big;

        assert_int_equal(learned_store_write(t->root, "/state", &a), 0);
        put(t, "state/learned", "version=1\npage_size=4096\npeak_bytes=lots\n");
        assert_int_equal(learned_store_read(t->root, "/state", &b, &err), -EBADMSG);
        assert_int_equal(err.line, 3);
        assert_string_equal(err.what, "peak_bytes is not a decimal number");

        big = malloc(LEARNED_FILE_MAX + 100);
        assert_non_null(big);
        memset(big, '#', LEARNED_FILE_MAX + 99);
        big[LEARNED_FILE_MAX + 99] = '\0';
        put(t, "state/learned", big);
        free(big);
        assert_int_equal(learned_store_read(t->root, "/state", &b, &err), -EFBIG);
}

static void test_move(void **state)
{
        Tmp *t = *state;
        LearnedFile a = { .page_size = 4096, .hpage_order = 9, .machine_id = MID, .peak_bytes = 128ULL << 20,
                          .peak_realtime_usec = 1767623290000000ULL }, b;
        LearnedFileError err = { 0 };
        char why[512] = "", path[256];

        /* nothing kept yet: nothing moves */
        assert_int_equal(learned_store_move(t->root, "/var/lib/fragd", "/var/lib/other", why, sizeof(why)), 0);
        assert_int_equal(learned_store_move(t->root, "", "/var/lib/other", why, sizeof(why)), 0);

        /* moved whole: the new file has the same content, the old one is gone */
        assert_int_equal(learned_store_write(t->root, "/var/lib/fragd", &a), 0);
        assert_int_equal(learned_store_move(t->root, "/var/lib/fragd", "/var/lib/other", why, sizeof(why)), 1);
        assert_int_equal(learned_store_read(t->root, "/var/lib/fragd", &b, &err), -ENOENT);
        assert_int_equal(learned_store_read(t->root, "/var/lib/other", &b, &err), 0);
        assert_learned_equal(&a, &b);
        assert_int_equal(entries(t, "var/lib/other"), 1);
        /* the same directory spelt differently */
        assert_int_equal(learned_store_move(t->root, "/var/lib/other", "/var/lib/other/", why, sizeof(why)), 0);
        assert_int_equal(learned_store_read(t->root, "/var/lib/other", &b, &err), 0);

        /* the target holds one already: refused, both stay as they were */
        assert_int_equal(learned_store_write(t->root, "/var/lib/fragd", &a), 0);
        assert_int_equal(learned_store_move(t->root, "/var/lib/fragd", "/var/lib/other", why, sizeof(why)), -EEXIST);
        assert_non_null(strstr(why, "/var/lib/other/learned' already exists"));
        assert_int_equal(learned_store_read(t->root, "/var/lib/fragd", &b, &err), 0);
        assert_int_equal(learned_store_read(t->root, "/var/lib/other", &b, &err), 0);
        /* a dangling symlink there counts too */
        assert_int_equal(learned_store_remove(t->root, "/var/lib/other"), 0);
        snprintf(path, sizeof(path), "%s/var/lib/other/learned", t->dir);
        assert_int_equal(symlink("/nonexistent", path), 0);
        assert_int_equal(learned_store_move(t->root, "/var/lib/fragd", "/var/lib/other", why, sizeof(why)), -EEXIST);
        assert_int_equal(unlink(path), 0);

        /* a directory that cannot be created: refused, the old file stays */
        put(t, "blocker", "x");
        assert_true(learned_store_move(t->root, "/var/lib/fragd", "/blocker/dir", why, sizeof(why)) < 0);
        assert_non_null(strstr(why, "cannot "));
        assert_int_equal(learned_store_read(t->root, "/var/lib/fragd", &b, &err), 0);
        /* a file too large to be one: not moved */
        {
                char *big = malloc(LEARNED_FILE_MAX + 100);

                assert_non_null(big);
                memset(big, '#', LEARNED_FILE_MAX + 99);
                big[LEARNED_FILE_MAX + 99] = '\0';
                put(t, "var/lib/fragd/learned", big);
                free(big);
        }
        assert_int_equal(learned_store_move(t->root, "/var/lib/fragd", "/var/lib/third", why, sizeof(why)), -EFBIG);
        assert_non_null(strstr(why, "larger than"));
        snprintf(path, sizeof(path), "%s/var/lib/third/learned", t->dir);
        assert_true(access(path, F_OK) < 0);
}

static void test_machine_id(void **state)
{
        Tmp *t = *state;
        char id[MACHINE_ID_LEN + 1] = "x";

        assert_int_equal(machine_id_read(t->root, id), -ENOENT);
        assert_string_equal(id, "");
        {
                char path[128];

                snprintf(path, sizeof(path), "%s/etc", t->dir);
                assert_int_equal(mkdir(path, 0755), 0);
        }
        put(t, "etc/machine-id", MID "\n");
        assert_int_equal(machine_id_read(t->root, id), 0);
        assert_string_equal(id, MID);
        put(t, "etc/machine-id", "uninitialized\n");
        assert_int_equal(machine_id_read(t->root, id), -EBADMSG);
        assert_string_equal(id, "");
}

/* A file whose burst is more than the host's memory (written from a counter
 * that jumped: issue 11 item 12) is taken as the host's memory, and says
 * so; without a known memory size (0) nothing is cut. */
static void test_load_capped_by_host_memory(void **state)
{
        Tmp *t = *state;
        const usec_t now = 1000 * USEC_PER_SEC, rt = 1767623290000000ULL;
        const uint64_t gib = 1ULL << 30;
        static FragdConfig cfg;
        char text[512], name[512];
        LearnedLoad l;

        config_defaults(&cfg);
        snprintf(name, sizeof(name), "%s/state", t->dir);
        assert_int_equal(mkdir(name, 0755), 0);
        snprintf(text, sizeof(text), "version=1\npage_size=4096\nhpage_order=9\npeak_bytes=%llu\n"
                 "peak_realtime_usec=%llu\n", (unsigned long long) (UINT64_MAX / 4),
                 (unsigned long long) (rt - 60 * USEC_PER_SEC));
        put(t, "state/learned", text);
        assert_int_equal(learned_store_load(t->root, "/state", &cfg.policy, 4096, 9, NULL, 4 * gib, now, rt, &l),
                         LEARNED_LOAD_OK);
        assert_true(l.capped_from_bytes == UINT64_MAX / 4);
        assert_true(l.file.peak_bytes == 4 * gib);
        assert_true(l.restore.peak_bytes == 4 * gib);
        assert_true(l.restore.need_bytes <= 4 * gib);
        /* within the memory: as written */
        snprintf(text, sizeof(text), "version=1\npage_size=4096\nhpage_order=9\npeak_bytes=%llu\n"
                 "peak_realtime_usec=%llu\n", (unsigned long long) gib,
                 (unsigned long long) (rt - 60 * USEC_PER_SEC));
        put(t, "state/learned", text);
        assert_int_equal(learned_store_load(t->root, "/state", &cfg.policy, 4096, 9, NULL, 4 * gib, now, rt, &l),
                         LEARNED_LOAD_OK);
        assert_int_equal(l.capped_from_bytes, 0);
        assert_true(l.restore.peak_bytes == gib);
}

/* learned_store_load(): every result, on files in a temporary root */
static void test_load(void **state)
{
        Tmp *t = *state;
        const usec_t now = 1000 * USEC_PER_SEC, rt = 1767623290000000ULL, min = 60 * USEC_PER_SEC;
        const unsigned long long mib = 1ULL << 20;
        static FragdConfig cfg;
        char text[512], name[512];
        LearnedLoad l;
        Root *host;
        char *big;

        config_defaults(&cfg); /* database: learning on, held 30 min, halved every 30 min */
        learned_store_name(t->root, "/var/lib/fragd", name, sizeof(name));
        snprintf(text, sizeof(text), "%s/var/lib/fragd/learned", t->dir);
        assert_string_equal(name, text);
        assert_int_equal(root_open("/", 4096, &host), 0);
        learned_store_name(host, "/var/lib/fragd/", name, sizeof(name));
        assert_string_equal(name, "/var/lib/fragd/learned");
        host = root_free(host);

#define LOAD(md) learned_store_load(t->root, "/state", &cfg.policy, 4096, 9, md, 0, now, rt, &l)
        assert_int_equal(learned_store_load(t->root, "", &cfg.policy, 4096, 9, NULL, 0, now, rt, &l),
                         LEARNED_LOAD_NOT_KEPT);
        assert_int_equal(LOAD(NULL), LEARNED_LOAD_NONE);
        assert_string_equal(learned_load_explain(&l, text, sizeof(text)), "");

        /* ignored, with the reason */
        snprintf(name, sizeof(name), "%s/state", t->dir);
        assert_int_equal(mkdir(name, 0755), 0);
        put(t, "state/learned", "version=1\npage_size=4096\nhpage_order=9\npeak_bytes=lots\npeak_realtime_usec=1\n");
        assert_int_equal(LOAD(NULL), LEARNED_LOAD_MALFORMED);
        assert_int_equal(l.line, 4);
        assert_string_equal(learned_load_explain(&l, text, sizeof(text)),
                            "is malformed, line 4: peak_bytes is not a decimal number");
        assert_string_equal(learned_load_result_name(l.result), "malformed");
        put(t, "state/learned", "version=1\n");
        assert_int_equal(LOAD(NULL), LEARNED_LOAD_MALFORMED);
        assert_int_equal(l.line, 0);
        assert_string_equal(learned_load_explain(&l, text, sizeof(text)), "is malformed: no page_size= line");
        put(t, "state/learned", "version=2\n");
        assert_int_equal(LOAD(NULL), LEARNED_LOAD_OTHER_VERSION);
        assert_true(l.newer);
        assert_string_equal(learned_load_explain(&l, text, sizeof(text)),
                            "is in a newer format (version 2, this fragd reads version 1)");
        put(t, "state/learned", "version=0\n");
        assert_int_equal(LOAD(NULL), LEARNED_LOAD_OTHER_VERSION);
        assert_false(l.newer);
        assert_string_equal(learned_load_explain(&l, text, sizeof(text)),
                            "is in another format (version 0, this fragd reads version 1)");
        big = malloc(LEARNED_FILE_MAX + 100);
        assert_non_null(big);
        memset(big, '#', LEARNED_FILE_MAX + 99);
        big[LEARNED_FILE_MAX + 99] = '\0';
        put(t, "state/learned", big);
        free(big);
        assert_int_equal(LOAD(NULL), LEARNED_LOAD_TOO_LARGE);
        assert_string_equal(learned_load_explain(&l, text, sizeof(text)), "is larger than 4096 bytes");

        snprintf(text, sizeof(text), "version=1\npage_size=65536\nhpage_order=9\nmachine_id=" MID
                 "\npeak_bytes=%llu\npeak_realtime_usec=%llu\n", 512 * mib, (unsigned long long) (rt - 4 * min));
        put(t, "state/learned", text);
        assert_int_equal(LOAD(NULL), LEARNED_LOAD_NOT_APPLICABLE);
        assert_string_equal(learned_load_explain(&l, text, sizeof(text)),
                            "does not apply here: written with 65536-byte pages, this kernel has 4096");
        assert_int_equal(l.file.peak_bytes, 512 * mib);
        assert_int_equal(l.age_usec, 4 * min);

        /* used: held, then decayed, then dropped; the same machine id, or none known */
        snprintf(text, sizeof(text), "version=1\npage_size=4096\nhpage_order=9\nmachine_id=" MID
                 "\npeak_bytes=%llu\npeak_realtime_usec=%llu\n", 512 * mib, (unsigned long long) (rt - 4 * min));
        put(t, "state/learned", text);
        assert_int_equal(LOAD("ffffffffffffffffffffffffffffffff"), LEARNED_LOAD_NOT_APPLICABLE);
        assert_int_equal(LOAD(MID), LEARNED_LOAD_OK);
        assert_int_equal(LOAD(""), LEARNED_LOAD_OK);
        assert_int_equal(l.age_usec, 4 * min);
        assert_int_equal(l.future_usec, 0);
        assert_int_equal(l.restore.peak_bytes, 512 * mib);
        assert_int_equal(l.restore.need_bytes, 512 * mib);
        assert_int_equal(l.restore.hold_left_usec, 26 * min);
        assert_int_equal(l.restore.peak_usec, now - 4 * min);
        assert_string_equal(learned_load_explain(&l, text, sizeof(text)), "");

        snprintf(text, sizeof(text), "version=1\npage_size=4096\nhpage_order=9\npeak_bytes=%llu\n"
                 "peak_realtime_usec=%llu\n", 512 * mib, (unsigned long long) (rt - 60 * min));
        put(t, "state/learned", text);
        assert_int_equal(LOAD(MID), LEARNED_LOAD_OK);
        assert_int_equal(l.restore.need_bytes, 256 * mib); /* held 30 min, one half-life */
        assert_int_equal(l.restore.hold_left_usec, 0);
        assert_int_equal(l.restore.peak_usec, 1); /* older than the monotonic clock */
        assert_int_equal(l.restore.peak_before_usec, 60 * min - now + 1);

        cfg.policy.demand_learning = false;
        assert_int_equal(LOAD(MID), LEARNED_LOAD_LEARNING_OFF);
        assert_string_equal(learned_load_explain(&l, text, sizeof(text)),
                            "is not used: demand_learning is off (512 MiB burst seen 60 min ago)");
        cfg.policy.demand_learning = true;

        snprintf(text, sizeof(text), "version=1\npage_size=4096\nhpage_order=9\npeak_bytes=%llu\n"
                 "peak_realtime_usec=%llu\n", 512 * mib, (unsigned long long) (rt - 6 * 60 * min));
        put(t, "state/learned", text);
        assert_int_equal(LOAD(MID), LEARNED_LOAD_DECAYED);
        assert_string_equal(learned_load_explain(&l, text, sizeof(text)),
                            "has decayed to nothing (512 MiB burst seen 6 h ago)");
        assert_string_equal(learned_load_result_name(l.result), "decayed");

        /* a time in the future counts as now */
        snprintf(text, sizeof(text), "version=1\npage_size=4096\nhpage_order=9\npeak_bytes=%llu\n"
                 "peak_realtime_usec=%llu\n", 64 * mib, (unsigned long long) (rt + 60 * min));
        put(t, "state/learned", text);
        assert_int_equal(LOAD(MID), LEARNED_LOAD_OK);
        assert_int_equal(l.future_usec, 60 * min);
        assert_int_equal(l.age_usec, 0);
        assert_int_equal(l.restore.hold_left_usec, 30 * min);
#undef LOAD
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_parse_table),
                cmocka_unit_test(test_parse_values_and_nul),
                cmocka_unit_test(test_format_round_trip),
                cmocka_unit_test(test_applies),
                cmocka_unit_test(test_path),
                cmocka_unit_test_setup_teardown(test_write_read_remove, setup, teardown),
                cmocka_unit_test_setup_teardown(test_read_corrupt_and_large, setup, teardown),
                cmocka_unit_test_setup_teardown(test_move, setup, teardown),
                cmocka_unit_test_setup_teardown(test_machine_id, setup, teardown),
                cmocka_unit_test_setup_teardown(test_load, setup, teardown),
                cmocka_unit_test_setup_teardown(test_load_capped_by_host_memory, setup, teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
