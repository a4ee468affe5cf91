/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* Helpers for the actuator tests: every test works on a copy of a fixture
 * tree in a mkdtemp() directory, never on the host's /proc or /sys. */

#include <fcntl.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/root.h"
#include "knobs/knob.h"

#define FIXTURE "tests/fixtures/vm-6.1-x86_64-2node-fragmented"

typedef struct TestTree {
        char dir[64];
        Root *root;
} TestTree;

static inline void tt_write(const TestTree *t, const char *rel, const char *content)
{
        char path[512];
        FILE *f;

        snprintf(path, sizeof(path), "%s/%s", t->dir, rel);
        f = fopen(path, "we");
        if (!f) {
                fprintf(stderr, "cannot write %s: %m\n", path);
                abort();
        }
        fputs(content, f);
        fclose(f);
}

/* Whole file content, or "" when missing. Static buffer per slot. */
static inline const char *tt_read(const TestTree *t, const char *rel)
{
        static char bufs[4][512];
        static unsigned slot;
        char *buf = bufs[slot++ % 4];
        char path[512];
        FILE *f;
        size_t n;

        snprintf(path, sizeof(path), "%s/%s", t->dir, rel);
        f = fopen(path, "re");
        if (!f) {
                buf[0] = '\0';
                return buf;
        }
        n = fread(buf, 1, 511, f);
        buf[n] = '\0';
        fclose(f);
        return buf;
}

static inline void tt_mkdir(const TestTree *t, const char *rel)
{
        char path[512];

        snprintf(path, sizeof(path), "%s/%s", t->dir, rel);
        if (mkdir(path, 0755) < 0)
                abort();
}

static inline bool tt_exists(const TestTree *t, const char *rel)
{
        char path[512];

        snprintf(path, sizeof(path), "%s/%s", t->dir, rel);
        return access(path, F_OK) == 0;
}

static inline void tt_setup(TestTree *t)
{
        const char *src = getenv("FRAGD_SRCDIR");
        char cmd[1024];

        if (!src || !*src)
                src = ".";
        snprintf(t->dir, sizeof(t->dir), "/tmp/fragd-test-XXXXXX");
        if (!mkdtemp(t->dir))
                abort();
        snprintf(cmd, sizeof(cmd), "cp -r '%s/%s/.' '%s'", src, FIXTURE, t->dir);
        if (system(cmd) != 0) {
                fprintf(stderr, "cannot copy the fixture (FRAGD_SRCDIR=%s)\n", src);
                abort();
        }
        /* write-only knobs the capture could not read */
        tt_write(t, "sys/devices/system/node/node0/compact", "");
        tt_write(t, "sys/devices/system/node/node1/compact", "");
        tt_write(t, "proc/sys/vm/compact_memory", "");
        tt_mkdir(t, "proc/sys/kernel");
        tt_write(t, "proc/sys/kernel/task_delayacct", "0\n");
        if (root_open(t->dir, 4096, &t->root) < 0)
                abort();
}

static inline void tt_teardown(TestTree *t)
{
        char cmd[256];

        t->root = root_free(t->root);
        if (strncmp(t->dir, "/tmp/fragd-test-", 16) == 0) {
                snprintf(cmd, sizeof(cmd), "rm -rf '%s'", t->dir);
                (void) !system(cmd);
        }
}

/* cmocka setup and teardown of a test whose state is one TestTree. */
static inline int tt_open(void **state)
{
        TestTree *t = calloc(1, sizeof(*t));

        if (!t)
                abort();
        tt_setup(t);
        *state = t;
        return 0;
}

static inline int tt_close(void **state)
{
        TestTree *t = *state;

        tt_teardown(t);
        free(t);
        return 0;
}

/* Order-independent checksum of every path and file content below dir/sub:
 * the sum of one FNV-1a hash per entry. */
static uint64_t tt_hash;
static size_t tt_prefix;

static inline int tt_hash_cb(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
        uint64_t h = 14695981039346656037ULL;

        (void) ftw;
        for (const char *p = path + tt_prefix; *p; p++)
                h = (h ^ (unsigned char) *p) * 1099511628211ULL;
        h = (h ^ (uint64_t) st->st_mode) * 1099511628211ULL;
        if (type == FTW_F) {
                FILE *f = fopen(path, "re");
                int c;

                if (f) {
                        while ((c = fgetc(f)) != EOF)
                                h = (h ^ (unsigned char) c) * 1099511628211ULL;
                        fclose(f);
                }
        }
        tt_hash += h;
        return 0;
}

static inline uint64_t tt_checksum(const TestTree *t, const char *sub)
{
        char path[512];

        snprintf(path, sizeof(path), "%s/%s", t->dir, sub);
        tt_hash = 0;
        tt_prefix = strlen(t->dir);
        (void) nftw(path, tt_hash_cb, 16, FTW_PHYS);
        return tt_hash;
}
