/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Small helpers shared by the VM workload programs (fragmenter, consumer,
 * holder).
 * Header-only: each program is a single static binary built from one .c file.
 */
#pragma once

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define PAGE_SZ 4096UL
#define HUGE_SZ (2UL << 20)

/* Value of one /proc/vmstat counter, -1 if the kernel lacks it. */
static inline long long vmstat_get(const char *key)
{
        char name[96];
        long long val, ret = -1;
        FILE *f = fopen("/proc/vmstat", "re");

        if (!f)
                return -1;
        while (fscanf(f, "%95s %lld", name, &val) == 2)
                if (strcmp(name, key) == 0) {
                        ret = val;
                        break;
                }
        fclose(f);
        return ret;
}

/* "Key:   123 kB" line of a /proc file (meminfo, smaps_rollup), in kB; -1 if absent. */
static inline long long procfile_kb(const char *path, const char *key)
{
        char line[256];
        long long ret = -1;
        size_t n = strlen(key);
        FILE *f = fopen(path, "re");

        if (!f)
                return -1;
        while (fgets(line, sizeof(line), f))
                if (strncmp(line, key, n) == 0 && line[n] == ':') {
                        ret = strtoll(line + n + 1, NULL, 10);
                        break;
                }
        fclose(f);
        return ret;
}

/*
 * Free memory in blocks of order >= min_order, in pages, from /proc/buddyinfo
 * ("Node 0, zone   Normal  n0 n1 ... n10"), every node; with skip_dma, not
 * ZONE_DMA (its 16 MiB are kept from user allocations by lowmem_reserve, so
 * its free blocks serve no fault). -1 if the file cannot be read.
 */
static inline long long buddy_free_pages(unsigned min_order, int skip_dma)
{
        char line[512];
        long long pages = 0;
        FILE *f = fopen("/proc/buddyinfo", "re");

        if (!f)
                return -1;
        while (fgets(line, sizeof(line), f)) {
                char *p = strstr(line, "zone"), *end;
                unsigned k = 0;

                if (!p)
                        continue;
                p += 4;
                while (*p == ' ')
                        p++;
                if (skip_dma && strncmp(p, "DMA ", 4) == 0)
                        continue;
                while (*p && *p != ' ')
                        p++; /* the zone's name */
                for (;;) {
                        long long n = strtoll(p, &end, 10);

                        if (end == p || k > 40)
                                break;
                        if (k >= min_order)
                                pages += n << k;
                        k++;
                        p = end;
                }
        }
        fclose(f);
        return pages;
}

static inline double now_ms(void)
{
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static inline void sleep_ms(long ms)
{
        struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L };

        while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
                ;
}

/* splitmix64: tiny, seedable, good enough to pick pages; same seed, same choices. */
static inline uint64_t rng_next(uint64_t *s)
{
        uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        return z ^ (z >> 31);
}

static inline uint64_t rng_below(uint64_t *s, uint64_t n)
{
        return n ? rng_next(s) % n : 0;
}

/* Parse a non-negative integer option value or exit with a message. */
static inline long opt_long(const char *prog, const char *opt, const char *val)
{
        char *end;
        long v;

        errno = 0;
        v = strtol(val, &end, 10);
        if (errno || end == val || *end || v < 0) {
                fprintf(stderr, "%s: bad value for %s: '%s'\n", prog, opt, val);
                exit(2);
        }
        return v;
}
