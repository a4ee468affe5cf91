/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* Scaffolding shared by the tests of the two-layer sources (STYLE.md: a pure
 * name_parse(buf, len, ret) and a name_read(root, ret) that reads under a
 * Root): fixture files and roots that fail the test when they cannot be
 * opened, one cmocka test per table row, the parse/read pair of fixture
 * tests, and the checks that a failing parse leaves *ret alone. Header only,
 * like fixture-root.h: the Makefile builds each tests/unit/test-*.c on its
 * own, with no helper objects. */

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/root.h"
#include "fixture-root.h"
#include "fragd/macro.h"

/* tests/fixtures/<fixture>/<rel> read whole into a malloc'ed buffer (not
 * NUL-terminated, *ret_len bytes). read_file_alloc_at() wants a real
 * directory fd (AT_FDCWD is refused). */
static inline char *fixture_file(const char *fixture, const char *rel, size_t *ret_len)
{
        char path[PATH_MAX];
        char *buf = NULL;
        int fd, r;

        (void) snprintf(path, sizeof(path), "%s/tests/fixtures/%s", fixture_srcdir(), fixture);
        fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
                fail_msg("cannot open '%s': %m", path);
        r = read_file_alloc_at(fd, rel, &buf, ret_len);
        (void) close(fd);
        if (r < 0)
                fail_msg("cannot read '%s/%s': %s", path, rel, strerror(-r));
        return buf;
}

/* fixture_open() that fails the test instead of returning NULL. */
static inline Root *fixture_root(const char *name)
{
        Root *r = fixture_open(name);

        assert_non_null(r);
        return r;
}

/* A Root over a fresh mkdtemp() directory that holds nothing, or only an
 * empty proc/: what a reader sees on a kernel without its file. */
typedef struct EmptyRoot {
        char dir[64];
        bool with_proc;
        Root *root;
} EmptyRoot;

static inline void empty_root_open(EmptyRoot *e, bool with_proc)
{
        char proc[sizeof(e->dir) + 8];

        *e = (EmptyRoot){ .dir = "/tmp/fragd-test-root-XXXXXX", .with_proc = with_proc };
        assert_non_null(mkdtemp(e->dir));
        (void) snprintf(proc, sizeof(proc), "%s/proc", e->dir);
        if (with_proc)
                assert_int_equal(mkdir(proc, 0755), 0);
        assert_int_equal(root_open(e->dir, 4096, &e->root), 0);
}

static inline void empty_root_close(EmptyRoot *e)
{
        char proc[sizeof(e->dir) + 8];

        e->root = root_free(e->root);
        (void) snprintf(proc, sizeof(proc), "%s/proc", e->dir);
        if (e->with_proc)
                assert_int_equal(rmdir(proc), 0);
        assert_int_equal(rmdir(e->dir), 0);
}

/* A table row's return code, naming the row when it is not the expected one. */
static inline void assert_row_rc(const char *row, int r, int expected)
{
        if (r != expected)
                fail_msg("case '%s': rc %d, expected %d", row, r, expected);
}

/* Runs one cmocka test per row of rows[] (an array, not a pointer) as group
 * `group`: func with *state = &rows[i], named by the row's member
 * name_field. Evaluates to the number of failed tests. */
#define run_row_tests(group, rows, name_field, func)                                                       \
        ({                                                                                                 \
                struct CMUnitTest tests_[ELEMENTSOF(rows)];                                                \
                                                                                                           \
                for (size_t i_ = 0; i_ < ELEMENTSOF(rows); i_++)                                           \
                        tests_[i_] = (struct CMUnitTest){ .name = (rows)[i_].name_field,                   \
                                                          .test_func = (func),                             \
                                                          .initial_state = (void *) &(rows)[i_] };         \
                cmocka_run_group_tests_name(group, tests_, NULL, NULL);                                    \
        })

/* Defines test_fixture_parse and test_fixture_read for the source `name`:
 * name_parse() on tests/fixtures/<dir>/proc/<name>, and name_read() under
 * that tree's Root. Each runs on a row of a fixtures table (Fixture, whose
 * member dir names the tree; see run_row_tests()) and hands the result to
 * check(const Type *, const Fixture *). Type is calloc'ed: some are too
 * large for the stack. */
#define DEFINE_FIXTURE_PARSE_READ_TESTS(name, Type, Fixture, check)                                        \
        static void test_fixture_parse(void **state)                                                       \
        {                                                                                                  \
                const Fixture *f = *state;                                                                 \
                size_t len;                                                                                \
                char *buf = fixture_file(f->dir, "proc/" #name, &len);                                     \
                Type *p = calloc(1, sizeof(*p));                                                           \
                                                                                                           \
                assert_non_null(p);                                                                        \
                assert_int_equal(name##_parse(buf, len, p), 0);                                            \
                check(p, f);                                                                               \
                free(p);                                                                                   \
                free(buf);                                                                                 \
        }                                                                                                  \
                                                                                                           \
        static void test_fixture_read(void **state)                                                        \
        {                                                                                                  \
                const Fixture *f = *state;                                                                 \
                Root *root = fixture_root(f->dir);                                                         \
                Type *p = calloc(1, sizeof(*p));                                                           \
                                                                                                           \
                assert_non_null(p);                                                                        \
                assert_int_equal(name##_read(root, p), 0);                                                 \
                check(p, f);                                                                               \
                root_free(root);                                                                           \
                free(p);                                                                                   \
        }

/* Every row of cases[] (members input, NUL-terminated, and rc) that expects
 * a failure gets exactly that rc from parse(), and leaves *ret byte for byte
 * as it was: a heap Type filled with the byte `fill`. */
#define assert_failures_leave_ret(parse, Type, cases, fill)                                                \
        do {                                                                                               \
                Type *ret_ = malloc(sizeof(Type)), *copy_ = malloc(sizeof(Type));                          \
                                                                                                           \
                assert_non_null(ret_);                                                                     \
                assert_non_null(copy_);                                                                    \
                memset(ret_, (fill), sizeof(Type));                                                        \
                memcpy(copy_, ret_, sizeof(Type));                                                         \
                for (size_t i_ = 0; i_ < ELEMENTSOF(cases); i_++) {                                        \
                        if ((cases)[i_].rc == 0)                                                           \
                                continue;                                                                  \
                        assert_int_equal(parse((cases)[i_].input, strlen((cases)[i_].input), ret_),        \
                                         (cases)[i_].rc);                                                  \
                        assert_memory_equal(ret_, copy_, sizeof(Type));                                    \
                }                                                                                          \
                free(copy_);                                                                               \
                free(ret_);                                                                                \
        } while (0)
