/* SPDX-License-Identifier: GPL-2.0-or-later */
/* daemon/core/root.c: nothing fragd writes or reads leaves its root, and no file
 * it creates is opened through a symlink (issue 11, items 1 and 2).
 *
 * Each test builds a tree (what --root names) and an "outside" directory
 * holding a victim file, plants symlinks in the tree, runs fragd's own write
 * and read paths and checks the victim's bytes and mode. The tests run once
 * with openat2() and once with the fallback walk (and, for the writes, with
 * and without O_TMPFILE).
 *
 * The tests above "needs the new API" use only functions that existed before
 * issue 11: compiled with -DTEST_ROOT_OLD_API against the old daemon/core/root.c
 * all of them but test_symlink_at_target (a guard: the old rename already
 * replaced a symlink at the target) fail; that is how they were checked. */

#include <errno.h>
#include <fcntl.h>
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

#include "core/root.h"
#include "knobs/knob.h"
#include "service/learned-store.h"

#define VICTIM "precious: not fragd's\n"

typedef struct Env {
        char base[64];
        char tree[128];
        char outside[128];
        char victim[192];
        int tree_fd;
} Env;

static void mkdirs(const char *path)
{
        char buf[512];

        snprintf(buf, sizeof(buf), "%s", path);
        for (char *p = buf + 1; *p; p++)
                if (*p == '/') {
                        *p = '\0';
                        (void) mkdir(buf, 0755);
                        *p = '/';
                }
        (void) mkdir(buf, 0755);
}

static void put(const char *path, const char *content, mode_t mode)
{
        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);

        assert_true(fd >= 0);
        assert_int_equal(write(fd, content, strlen(content)), (ssize_t) strlen(content));
        assert_int_equal(fchmod(fd, mode), 0);
        close(fd);
}

static char *slurp(const char *path)
{
        static char buf[4096];
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        ssize_t n;

        if (fd < 0)
                return NULL;
        n = read(fd, buf, sizeof(buf) - 1);
        close(fd);
        if (n < 0)
                return NULL;
        buf[n] = '\0';
        return buf;
}

static mode_t mode_of(const char *path)
{
        struct stat st;

        assert_int_equal(lstat(path, &st), 0);
        return st.st_mode & 07777;
}

static void env_new(Env *e)
{
        snprintf(e->base, sizeof(e->base), "/tmp/fragd-test-root-XXXXXX");
        assert_non_null(mkdtemp(e->base));
        snprintf(e->tree, sizeof(e->tree), "%s/tree", e->base);
        snprintf(e->outside, sizeof(e->outside), "%s/outside", e->base);
        snprintf(e->victim, sizeof(e->victim), "%s/victim", e->outside);
        mkdirs(e->tree);
        mkdirs(e->outside);
        put(e->victim, VICTIM, 0600);
        e->tree_fd = open(e->tree, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        assert_true(e->tree_fd >= 0);
}

/* The victim is untouched: same bytes, same mode; and nothing new in outside/. */
static void assert_victim_intact(const Env *e)
{
        DIR *d;
        struct dirent *de;
        unsigned n = 0;
        const char *got = slurp(e->victim);

        assert_non_null(got);
        assert_string_equal(got, VICTIM);
        assert_int_equal(mode_of(e->victim), 0600);
        d = opendir(e->outside);
        assert_non_null(d);
        while ((de = readdir(d)))
                if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0)
                        n++;
        closedir(d);
        assert_int_equal(n, 1);
}

static void env_free(Env *e)
{
        char cmd[256];

        close(e->tree_fd);
        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", e->base);
        assert_int_equal(system(cmd), 0);
}

static void sub(char *buf, size_t size, const char *a, const char *b)
{
        int n = snprintf(buf, size, "%s/%s", a, b);

        assert_true(n > 0 && (size_t) n < size);
}

/* Counts entries of dir other than . and .. (temp files left behind). */
static unsigned n_entries(const char *dir)
{
        DIR *d = opendir(dir);
        struct dirent *de;
        unsigned n = 0;

        assert_non_null(d);
        while ((de = readdir(d)))
                if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0)
                        n++;
        closedir(d);
        return n;
}

/* ---- the modes every test runs in ------------------------------------------ */

#ifndef TEST_ROOT_OLD_API
#define N_MODES 3
static void set_mode(unsigned m)
{
        root_test_no_openat2 = m == 1 || m == 2;
        root_test_no_tmpfile = m == 2;
}
#else
#define N_MODES 1
static void set_mode(unsigned m)
{
        (void) m;
}
#endif

/* ---- 1. writes: a symlink at the old temp name -------------------------------- */

static void test_symlink_at_old_tmp_name(void **state)
{
        (void) state;
        for (unsigned m = 0; m < N_MODES; m++) {
                Env e;
                char dir[256], link[320], target[256];

                set_mode(m);
                env_new(&e);
                sub(dir, sizeof(dir), e.tree, "run/fragd");
                mkdirs(dir);
                /* what the old code opened: <name>.tmp.<pid>, O_CREAT|O_TRUNC, then fchmod 0644 */
                snprintf(link, sizeof(link), "%s/saved.tmp.%d", dir, (int) getpid());
                assert_int_equal(symlink(e.victim, link), 0);
                assert_int_equal(write_file_atomic_at(e.tree_fd, "run/fragd/saved", "new\n", 4, 0644), 0);
                assert_victim_intact(&e);
                sub(target, sizeof(target), dir, "saved");
                assert_string_equal(slurp(target), "new\n");
                assert_int_equal(mode_of(target), 0644);
                env_free(&e);
        }
}

/* A symlink at the target itself is replaced by the rename, never written
 * through; a file there that fragd did not create is not chmodded either
 * (it is replaced by a new inode). */
static void test_symlink_at_target(void **state)
{
        (void) state;
        for (unsigned m = 0; m < N_MODES; m++) {
                Env e;
                char target[256];
                struct stat st;

                set_mode(m);
                env_new(&e);
                sub(target, sizeof(target), e.tree, "fragd.prom");
                assert_int_equal(symlink(e.victim, target), 0);
                assert_int_equal(write_file_atomic_at(e.tree_fd, "fragd.prom", "x 1\n", 4, 0644), 0);
                assert_victim_intact(&e);
                assert_int_equal(lstat(target, &st), 0);
                assert_true(S_ISREG(st.st_mode));
                assert_string_equal(slurp(target), "x 1\n");
                /* the umask does not decide the mode */
                {
                        mode_t old = umask(077);
                        assert_int_equal(write_file_atomic_at(e.tree_fd, "fragd.prom", "x 2\n", 4, 0644), 0);
                        umask(old);
                }
                assert_int_equal(mode_of(target), 0644);
                assert_int_equal(n_entries(e.tree), 1); /* no temp file left */
                env_free(&e);
        }
}

/* ---- 2. writes and reads: parent directories out of the tree ----------------- */

static void test_parent_symlink_out_of_tree(void **state)
{
        static const char *const kinds[] = { "absolute", "relative" };

        (void) state;
        for (unsigned m = 0; m < N_MODES; m++)
                for (unsigned k = 0; k < 2; k++) {
                        Env e;
                        char link[256], out_file[256];
                        char buf[64];

                        set_mode(m);
                        env_new(&e);
                        /* tree/run -> outside (absolute), or ../outside (escapes by "..") */
                        sub(link, sizeof(link), e.tree, "run");
                        assert_int_equal(symlink(k == 0 ? e.outside : "../outside", link), 0);
                        print_message("mode %u, %s symlink\n", m, kinds[k]);
                        assert_true(write_file_atomic_at(e.tree_fd, "run/victim", "new\n", 4, 0644) < 0);
                        assert_true(write_file_atomic_at(e.tree_fd, "run/fragd/saved", "new\n", 4, 0644) <
                                    0);
                        assert_victim_intact(&e);
                        /* reads do not follow it out either */
                        assert_true(read_file_at(e.tree_fd, "run/victim", buf, sizeof(buf)) < 0);
                        sub(out_file, sizeof(out_file), e.outside, "victim");
                        assert_string_equal(slurp(out_file), VICTIM);
                        env_free(&e);
                }
}

/* ---- 2. proc/ of the tree is the tree's, and knobs stay below it ------------- */

static void test_knob_symlink_out_of_tree(void **state)
{
        (void) state;
        for (unsigned m = 0; m < N_MODES; m++) {
                Env e;
                char vm[256], knob_path[320];
                Root *root = NULL;
                Knob k;
                char buf[64];

                set_mode(m);
                env_new(&e);
                sub(vm, sizeof(vm), e.tree, "proc/sys/vm");
                mkdirs(vm);
                snprintf(knob_path, sizeof(knob_path), "%s/min_free_kbytes", vm);
                assert_int_equal(symlink(e.victim, knob_path), 0);
                assert_int_equal(root_open(e.tree, 4096, &root), 0);
                assert_int_equal(knob_init(&k, root, "vm.min_free_kbytes", NULL), 0);
                assert_true(knob_ops_real.write(&k, "67584") < 0);
                assert_true(knob_ops_real.read(&k, buf, sizeof(buf)) < 0);
                assert_victim_intact(&e);
                root_free(root);
                env_free(&e);
        }
}

static void test_proc_symlink_out_of_tree(void **state)
{
        (void) state;
        for (unsigned m = 0; m < N_MODES; m++) {
                Env e;
                char link[256], host_file[256];
                Root *root = NULL;
                char buf[64];

                set_mode(m);
                env_new(&e);
                /* tree/proc -> outside/: its buddyinfo is the host's, not the tree's */
                sub(host_file, sizeof(host_file), e.outside, "buddyinfo");
                put(host_file, "host data\n", 0644);
                sub(link, sizeof(link), e.tree, "proc");
                assert_int_equal(symlink(e.outside, link), 0);
                assert_int_equal(root_open(e.tree, 4096, &root), 0);
                assert_true(read_file_at(root->proc_fd, "buddyinfo", buf, sizeof(buf)) < 0);
                root_free(root);
                (void) unlink(host_file);
                assert_victim_intact(&e);
                env_free(&e);
        }
}

/* ---- 1. reads of fragd's own files do not follow a symlink ---------------------- */

static void test_own_file_read_no_symlink(void **state)
{
        (void) state;
        for (unsigned m = 0; m < N_MODES; m++) {
                Env e;
                char dir[256], link[320], lf[256];
                Root *root = NULL;
                LearnedFile f;
                LearnedFileError err;

                set_mode(m);
                env_new(&e);
                sub(lf, sizeof(lf), e.outside, "learned");
                put(lf, "version=1\npage_size=4096\nhpage_order=9\npeak_bytes=536870912\n"
                        "peak_realtime_usec=1767623290000000\n", 0644);
                sub(dir, sizeof(dir), e.tree, "var/lib/fragd");
                mkdirs(dir);
                snprintf(link, sizeof(link), "%s/learned", dir);
                assert_int_equal(symlink(lf, link), 0);
                assert_int_equal(root_open(e.tree, 4096, &root), 0);
                assert_int_equal(learned_store_read(root, "/var/lib/fragd", &f, &err), -ELOOP);
                root_free(root);
                (void) unlink(lf);
                env_free(&e);
        }
}

#ifndef TEST_ROOT_OLD_API
/* ---- needs the new API ------------------------------------------------------------ */

static uint64_t seq_next;
static uint64_t seq_random(void)
{
        return seq_next++;
}

/* Symlinks planted at the random temp names fragd will draw (known here):
 * the write skips them, the victim is untouched. */
static void test_symlink_at_random_names(void **state)
{
        (void) state;
        for (unsigned m = 0; m < N_MODES; m++) {
                Env e;
                char link[320], target[256];

                set_mode(m);
                env_new(&e);
                root_test_random = seq_random;
                for (unsigned i = 0; i < 3; i++) {
                        snprintf(link, sizeof(link), "%s/.status.%016llx.tmp", e.tree, 100ULL + i);
                        assert_int_equal(symlink(e.victim, link), 0);
                }
                seq_next = 100;
                assert_int_equal(write_file_atomic_at(e.tree_fd, "status", "pid=1\n", 6, 0644), 0);
                assert_victim_intact(&e);
                sub(target, sizeof(target), e.tree, "status");
                assert_string_equal(slurp(target), "pid=1\n");
                assert_int_equal(mode_of(target), 0644);
                assert_int_equal(n_entries(e.tree), 4); /* the 3 planted links and status */
                root_test_random = NULL;
                env_free(&e);
        }
}

static void test_parents_created(void **state)
{
        (void) state;
        for (unsigned m = 0; m < N_MODES; m++) {
                Env e;
                char path[256], link[256];

                set_mode(m);
                env_new(&e);
                assert_int_equal(write_file_atomic_at(e.tree_fd, "/var/lib/fragd/learned", "a\n", 2, 0644),
                                 0);
                sub(path, sizeof(path), e.tree, "var/lib/fragd/learned");
                assert_string_equal(slurp(path), "a\n");
                sub(path, sizeof(path), e.tree, "var/lib/fragd");
                assert_int_equal(mode_of(path), 0755);
                /* a symlink inside the tree, absolute: taken relative to the tree */
                sub(link, sizeof(link), e.tree, "run");
                assert_int_equal(symlink("/var/run", link), 0);
                sub(path, sizeof(path), e.tree, "var/run");
                mkdirs(path);
                assert_int_equal(write_file_atomic_at(e.tree_fd, "run/fragd/saved", "b\n", 2, 0644), 0);
                sub(path, sizeof(path), e.tree, "var/run/fragd/saved");
                assert_string_equal(slurp(path), "b\n");
                /* a dangling symlink as a parent: refused, not created through */
                sub(link, sizeof(link), e.tree, "state");
                assert_int_equal(symlink("/nowhere", link), 0);
                assert_true(write_file_atomic_at(e.tree_fd, "state/learned", "c\n", 2, 0644) < 0);
                assert_int_equal(access("/nowhere", F_OK), -1);
                assert_victim_intact(&e);
                env_free(&e);
        }
}

static void test_resolution(void **state)
{
        (void) state;
        for (unsigned m = 0; m < 2; m++) {
                Env e;
                char path[256];
                char buf[64];
                int fd;

                set_mode(m);
                env_new(&e);
                sub(path, sizeof(path), e.tree, "b");
                mkdirs(path);
                sub(path, sizeof(path), e.tree, "b/file");
                put(path, "in tree\n", 0644);
                sub(path, sizeof(path), e.tree, "a");
                mkdirs(path);
                sub(path, sizeof(path), e.tree, "a/abs");
                assert_int_equal(symlink("/b/file", path), 0);
                sub(path, sizeof(path), e.tree, "a/up");
                assert_int_equal(symlink("../../../../../b/file", path), 0);
                sub(path, sizeof(path), e.tree, "a/rel");
                assert_int_equal(symlink("../b/file", path), 0);
                sub(path, sizeof(path), e.tree, "a/loop");
                assert_int_equal(symlink("loop", path), 0);
                sub(path, sizeof(path), e.tree, "a/fifo");
                assert_int_equal(mkfifo(path, 0600), 0);

                /* in root: absolute and escaping links stay in the tree */
                assert_int_equal(read_file_at_full(e.tree_fd, "a/abs", 0, buf, sizeof(buf)), 8);
                assert_string_equal(buf, "in tree\n");
                assert_int_equal(read_file_at_full(e.tree_fd, "a/up", 0, buf, sizeof(buf)), 8);
                /* kernel files (read_file_at): beneath, so an escaping link is
                 * refused and named, and a FIFO never blocks */
                assert_int_equal(read_file_at(e.tree_fd, "a/abs", buf, sizeof(buf)), -EXDEV);
                assert_int_equal(read_file_at(e.tree_fd, "a/up", buf, sizeof(buf)), -EXDEV);
                assert_int_equal(read_file_at(e.tree_fd, "a/fifo", buf, sizeof(buf)), -EBADFD);
                fd = root_openat(e.tree_fd, "/../../b/file", O_RDONLY | O_CLOEXEC, 0, 0);
                assert_true(fd >= 0);
                assert_int_equal(read(fd, buf, sizeof(buf)), 8);
                close(fd);
                assert_int_equal(root_openat(e.tree_fd, "/b/file", O_RDONLY | O_CLOEXEC, 0, ROOT_BENEATH),
                                 -EXDEV);
                assert_int_equal(read_file_at(e.tree_fd, "a/./../a/rel", buf, sizeof(buf)), 8);
                /* beneath: refused */
                assert_int_equal(read_file_at_full(e.tree_fd, "a/abs", ROOT_BENEATH, buf, sizeof(buf)),
                                 -EXDEV);
                assert_int_equal(read_file_at_full(e.tree_fd, "a/up", ROOT_BENEATH, buf, sizeof(buf)),
                                 -EXDEV);
                assert_int_equal(read_file_at_full(e.tree_fd, "a/rel", ROOT_BENEATH, buf, sizeof(buf)), 8);
                assert_int_equal(write_file_at(e.tree_fd, "a/abs", "x"), -EXDEV);
                assert_int_equal(read_file_at(e.tree_fd, "a/loop", buf, sizeof(buf)), -ELOOP);
                /* own files: no symlink at the name, no FIFO (and no hang on one) */
                assert_int_equal(read_file_at_full(e.tree_fd, "a/rel", ROOT_OWN_FILE, buf, sizeof(buf)),
                                 -ELOOP);
                assert_int_equal(read_file_at_full(e.tree_fd, "a/fifo", ROOT_OWN_FILE, buf, sizeof(buf)),
                                 -EBADFD);
                assert_int_equal(read_file_at_full(e.tree_fd, "b/file", ROOT_OWN_FILE, buf, sizeof(buf)), 8);
                assert_int_equal(read_file_at(e.tree_fd, "missing/file", buf, sizeof(buf)), -ENOENT);
                fd = root_openat(e.tree_fd, "a/", O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0, 0);
                assert_true(fd >= 0);
                close(fd);
                /* a path ending in "." or "..": the directory reached; ".." at
                 * the top stays there, or is refused beneath */
                fd = root_openat(e.tree_fd, "a/b/..", O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0, 0);
                assert_int_equal(fd, -ENOENT);
                fd = root_openat(e.tree_fd, "b/..", O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0, 0);
                assert_true(fd >= 0);
                close(fd);
                fd = root_openat(e.tree_fd, "b/.", O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0, 0);
                assert_true(fd >= 0);
                close(fd);
                fd = root_openat(e.tree_fd, "..", O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0, 0);
                assert_true(fd >= 0);
                close(fd);
                assert_int_equal(root_openat(e.tree_fd, "b/../..", O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0,
                                             ROOT_BENEATH),
                                 -EXDEV);
                env_free(&e);
        }
}

static void test_unlink_stays_in_tree(void **state)
{
        (void) state;
        for (unsigned m = 0; m < 2; m++) {
                Env e;
                char link[256], path[256];

                set_mode(m);
                env_new(&e);
                sub(link, sizeof(link), e.tree, "run");
                assert_int_equal(symlink(e.outside, link), 0);
                assert_true(unlink_file_at(e.tree_fd, "run/victim") < 0);
                assert_victim_intact(&e);
                /* a symlink at the name is removed itself */
                sub(path, sizeof(path), e.tree, "saved");
                assert_int_equal(symlink(e.victim, path), 0);
                assert_int_equal(unlink_file_at(e.tree_fd, "saved"), 0);
                assert_int_equal(access(path, F_OK), -1);
                assert_victim_intact(&e);
                env_free(&e);
        }
}
#endif

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_symlink_at_old_tmp_name),
                cmocka_unit_test(test_symlink_at_target),
                cmocka_unit_test(test_parent_symlink_out_of_tree),
                cmocka_unit_test(test_knob_symlink_out_of_tree),
                cmocka_unit_test(test_proc_symlink_out_of_tree),
                cmocka_unit_test(test_own_file_read_no_symlink),
#ifndef TEST_ROOT_OLD_API
                cmocka_unit_test(test_symlink_at_random_names),
                cmocka_unit_test(test_parents_created),
                cmocka_unit_test(test_resolution),
                cmocka_unit_test(test_unlink_stays_in_tree),
#endif
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
