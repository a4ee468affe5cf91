/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* Test helpers: open a fixture tree as a Root. FRAGD_SRCDIR points at the
 * source tree (make check sets it), else the current directory. */

#include <dirent.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/root.h"
#include "fragd/macro.h"

static inline const char *fixture_srcdir(void)
{
        const char *d = getenv("FRAGD_SRCDIR");

        return d && *d ? d : ".";
}

/* Returns NULL (and prints why) when the tree cannot be opened. */
static inline Root *fixture_open(const char *name)
{
        char path[PATH_MAX];
        Root *r = NULL;
        int e;

        (void) snprintf(path, sizeof(path), "%s/tests/fixtures/%s", fixture_srcdir(), name);
        e = root_open(path, 4096, &r);
        if (e < 0) {
                fprintf(stderr, "cannot open fixture '%s': %d\n", path, e);
                return NULL;
        }
        return r;
}

/* Number of real trees under tests/fixtures/ that are not in names[]: a new
 * capture must get its expected values in every fixture test. synthetic-*
 * trees and trace-* directories (a series of roots built from the captures,
 * replayed by fragd-sim) are not captures. */
static inline unsigned fixture_unlisted(const char *const *names, size_t n)
{
        char path[PATH_MAX];
        unsigned missing = 0;
        struct dirent *de;
        DIR *d;

        (void) snprintf(path, sizeof(path), "%s/tests/fixtures", fixture_srcdir());
        d = opendir(path);
        if (!d)
                return 1;
        while ((de = readdir(d))) {
                bool found = false;

                if (de->d_name[0] == '.' || strncmp(de->d_name, "synthetic-", 10) == 0 ||
                    strncmp(de->d_name, "trace-", 6) == 0 ||
                    de->d_type != DT_DIR)
                        continue;
                for (size_t i = 0; i < n; i++)
                        found = found || strcmp(names[i], de->d_name) == 0;
                if (!found) {
                        fprintf(stderr, "fixture '%s' has no expected values here\n", de->d_name);
                        missing++;
                }
        }
        closedir(d);
        return missing;
}

/* Asserts that rows[] (an array of fixture rows, member field naming the
 * tree) lists every capture: fixture_unlisted() is 0. Needs cmocka.h. */
#define assert_fixtures_listed(rows, field)                                                                \
        do {                                                                                               \
                const char *names_[ELEMENTSOF(rows)];                                                      \
                                                                                                           \
                for (size_t i_ = 0; i_ < ELEMENTSOF(rows); i_++)                                           \
                        names_[i_] = (rows)[i_].field;                                                     \
                assert_int_equal(fixture_unlisted(names_, ELEMENTSOF(names_)), 0);                         \
        } while (0)
