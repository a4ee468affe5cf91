/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* Helpers for the configuration tests: throwaway root trees in mkdtemp()
 * directories, loading with errors captured, message lookups. */

#define _XOPEN_SOURCE_EXTENDED 1
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config/config-internal.h"
#include "config/config.h"
#include "core/root.h"

typedef struct TestRoot {
        char dir[64];
        Root *root;
} TestRoot;

static inline void tr_mkdirs(const char *path)
{
        char buf[1024];

        snprintf(buf, sizeof(buf), "%s", path);
        for (char *p = buf + 1; *p; p++)
                if (*p == '/') {
                        *p = '\0';
                        (void) mkdir(buf, 0755);
                        *p = '/';
                }
}

/* Writes <root>/<rel> (parents created). */
static inline void tr_write(TestRoot *t, const char *rel, const char *content)
{
        char path[1024];
        FILE *f;

        snprintf(path, sizeof(path), "%s/%s", t->dir, rel);
        tr_mkdirs(path);
        f = fopen(path, "we");
        if (!f)
                abort();
        fputs(content, f);
        fclose(f);
}

static inline void tr_unlink(TestRoot *t, const char *rel)
{
        char path[1024];

        snprintf(path, sizeof(path), "%s/%s", t->dir, rel);
        (void) unlink(path);
}

static inline TestRoot *tr_new(void)
{
        TestRoot *t = calloc(1, sizeof(*t));

        if (!t)
                abort();
        snprintf(t->dir, sizeof(t->dir), "/tmp/fragd-config-test-XXXXXX");
        if (!mkdtemp(t->dir))
                abort();
        /* 4 KiB pages, whatever this machine uses */
        if (root_open(t->dir, 4096, &t->root) < 0)
                abort();
        return t;
}

static inline int tr_rm(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
        (void) st;
        (void) flag;
        (void) ftw;
        return remove(path);
}

static inline void tr_free(TestRoot *t)
{
        if (!t)
                return;
        root_free(t->root);
        (void) nftw(t->dir, tr_rm, 16, FTW_DEPTH | FTW_PHYS);
        free(t);
}

/* One load: result, configuration, sources, errors. */
typedef struct TestLoad {
        int r;
        FragdConfig cfg;
        ConfigSources src;
        ConfigErrors errs;
} TestLoad;

static inline TestLoad *tl_load(const ConfigLoadArgs *a)
{
        TestLoad *l = calloc(1, sizeof(*l));

        if (!l)
                abort();
        l->r = config_load(a, &l->cfg, &l->src, &l->errs);
        return l;
}

static inline TestLoad *tl_load_root(TestRoot *t, const InstanceProbe *probe, const char *const *set,
                                     size_t n_set)
{
        ConfigLoadArgs a = { .root = t->root, .probe = probe, .set = set, .n_set = n_set };

        return tl_load(&a);
}

/* The error message containing every one of the given substrings. */
static inline const char *tl_error(const TestLoad *l, const char *a, const char *b)
{
        for (unsigned i = 0; i < l->errs.n; i++)
                if (strstr(l->errs.msg[i], a) && (!b || strstr(l->errs.msg[i], b)))
                        return l->errs.msg[i];
        return NULL;
}

static inline void tl_dump_errors(const TestLoad *l)
{
        config_errors_print(stderr, &l->errs);
}

/* Source of a key as text: "preset database", "/etc/fragd/fragd.conf:3". */
static inline const char *tl_source(const TestLoad *l, const char *section, const char *key, int sub, char *buf,
                                    size_t size)
{
        int sec = config_section_from_name(section);
        const ConfigKey *k = sec >= 0 ? config_key_find((SectionKind) sec, key) : NULL;

        if (!k)
                abort();
        return config_source_format(&l->src, l->src.slot[config_key_slot(k, sub)], buf, size);
}

static inline const char *srcdir(void)
{
        const char *s = getenv("FRAGD_SRCDIR");

        return s && *s ? s : ".";
}
