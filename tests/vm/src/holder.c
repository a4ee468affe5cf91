/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * holder - take what free memory is left, hold it scattered, until SIGTERM.
 *
 * The last step of a "database host that has been up a while" preparation:
 * after the page cache has filled memory, the free memory that remains is
 * taken page by page (4K, MADV_NOHUGEPAGE) until MemFree is down to
 * --floor-mb (the kernel reclaims page cache for the rest, and kswapd runs;
 * at most what was free at the start + 32 MiB, or --max-mb),
 * then pages whose physical frame number is odd are given back until
 * MemFree is up to --free-mb. A freed page's buddy (the even frame next to
 * it) stays held, so nothing given back merges above order 0: the host has
 * --free-mb free, all of it in single pages, and no free block of order >= 1
 * in what was taken. Frame numbers come from /proc/self/pagemap (root).
 *
 * --pin: the held pages are also spliced into pipes (vmsplice), so they hold
 * an extra page reference that compaction cannot migrate (as pages pinned
 * for I/O, page tables or slab on a real host): what compaction can still do
 * is limited to the rest of memory (page cache, movable anonymous memory).
 *
 * Output: "holder: ..." lines with key=value fields; --ready FILE is created
 * once memory is held.
 */
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <unistd.h>

#include "vmstat.h"

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
        (void)sig;
        stop = 1;
}

static long long memfree_mb(void)
{
        long long kb = procfile_kb("/proc/meminfo", "MemFree");

        return kb < 0 ? -1 : kb / 1024;
}

/* free memory in blocks of order >= o, in pages, from /proc/buddyinfo (DMA32 and above) */
static long long free_ge(unsigned o)
{
        char line[512];
        long long pages = 0;
        FILE *f = fopen("/proc/buddyinfo", "re");

        if (!f)
                return -1;
        while (fgets(line, sizeof(line), f)) {
                char *p = strstr(line, "zone");
                unsigned k = 0;

                if (!p)
                        continue;
                p += 4;
                while (*p == ' ')
                        p++;
                /* ZONE_DMA's 16 MiB are kept from user allocations by
                 * lowmem_reserve: its free blocks are no one's to eat */
                if (strncmp(p, "DMA ", 4) == 0)
                        continue;
                while (*p && *p != ' ')
                        p++; /* the zone's name */
                for (;;) {
                        char *end;
                        long long n = strtoll(p, &end, 10);

                        if (end == p)
                                break;
                        if (k >= o)
                                pages += n << k;
                        k++;
                        p = end;
                }
        }
        fclose(f);
        return pages;
}

static void usage(const char *prog)
{
        fprintf(stderr, "usage: %s --floor-mb N --free-mb N [--max-mb N] [--pin] [--ready FILE]\n"
                        "       %s --eat ORDER [--floor-mb N] [--max-mb N] [--pin] [--ready FILE]\n",
                prog, prog);
        exit(2);
}

int main(int argc, char **argv)
{
        static const struct option lo[] = { { "floor-mb", 1, NULL, 'f' }, { "free-mb", 1, NULL, 'F' },
                                            { "max-mb", 1, NULL, 'm' },   { "pin", 0, NULL, 'p' },
                                            { "ready", 1, NULL, 'r' },    { "help", 0, NULL, 'h' },
                                            { "eat", 1, NULL, 'e' },
                                            { NULL, 0, NULL, 0 } };
        long floor_mb = -1, free_mb = -1, max_mb = 8192, eat = -1;
        bool pin = false;
        const char *ready = NULL;
        int c;

        while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
                switch (c) {
                case 'f': floor_mb = strtol(optarg, NULL, 10); break;
                case 'F': free_mb = strtol(optarg, NULL, 10); break;
                case 'm': max_mb = strtol(optarg, NULL, 10); break;
                case 'p': pin = true; break;
                case 'r': ready = optarg; break;
                case 'e': eat = strtol(optarg, NULL, 10); break;
                default: usage(argv[0]);
                }
        }
        if (eat >= 0) {
                if (eat < 1 || eat > 10)
                        usage(argv[0]);
                if (floor_mb < 0)
                        floor_mb = 0;
                free_mb = -1;
        } else if (floor_mb < 0 || free_mb < floor_mb || max_mb <= 0)
                usage(argv[0]);
        signal(SIGTERM, on_signal);
        signal(SIGINT, on_signal);

        /* never more than was free at the start, and a little: what the
         * kernel reclaims for the holder is page cache the host had */
        long long f0 = memfree_mb();
        if (f0 > 0 && f0 + 32 < max_mb)
                max_mb = (long)f0 + 32;
        size_t npages = (size_t)max_mb << 8, step = 256, n = 0, i, given = 0, held;
        char *raw = mmap(NULL, (npages + 512) * PAGE_SZ, PROT_READ | PROT_WRITE,
                         MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (raw == MAP_FAILED) {
                perror("holder: mmap");
                return 1;
        }
        /* 2 MiB aligned: with --eat, a fault may take a whole PMD block */
        char *base = (char *)(((uintptr_t)raw + HUGE_SZ - 1) & ~(uintptr_t)(HUGE_SZ - 1));
        if (eat < 0)
                (void)madvise(base, npages * PAGE_SZ, MADV_NOHUGEPAGE);
        else
                step = 512;
        /* take memory 1 MiB at a time down to the floor; with --eat, 2 MiB
         * at a time while free blocks of order >= eat remain: faults with
         * THP and mTHP (the scenario enables the sizes) take the largest
         * free block there is without compaction, so the large blocks go
         * first, where order-0 faults would take the smallest */
        while (n + step <= npages && !stop) {
                long long f = memfree_mb();

                if (f >= 0 && f <= floor_mb)
                        break;
                if (eat >= 0 && free_ge((unsigned)eat) <= 0)
                        break;
                if (madvise(base + n * PAGE_SZ, step * PAGE_SZ, MADV_POPULATE_WRITE) != 0)
                        for (i = 0; i < step; i++)
                                base[(n + i) * PAGE_SZ] = 1;
                n += step;
        }
        int pm = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
        if (pm < 0) {
                perror("holder: /proc/self/pagemap");
                return 1;
        }
        uint64_t *ent = calloc(n ? n : 1, sizeof(*ent));
        if (!ent || pread(pm, ent, n * sizeof(*ent), (off_t)((uintptr_t)base / PAGE_SZ * sizeof(*ent))) !=
                            (ssize_t)(n * sizeof(*ent))) {
                perror("holder: pagemap read");
                return 1;
        }
        close(pm);
        /* --eat: keep the first page of every aligned block of 2^eat frames
         * that was taken, give back the rest (nothing given back can merge
         * to that order again while the kept page is held) */
        if (eat >= 0) {
                uint64_t last_block = UINT64_MAX;

                (void)madvise(base, n * PAGE_SZ, MADV_NOHUGEPAGE); /* splits, no khugepaged */
                for (i = 0; i < n && !stop; i++) {
                        uint64_t pfn = ent[i] & ((1ULL << 55) - 1);

                        if (!(ent[i] >> 63) || pfn == 0)
                                continue;
                        if (pfn >> eat != last_block) {
                                last_block = pfn >> eat;
                                continue;
                        }
                        ent[i] = 0;
                        given++;
                }
                for (i = 0; i < n && !stop; i++)
                        if (!(ent[i] >> 63))
                                (void)madvise(base + i * PAGE_SZ, PAGE_SZ, MADV_DONTNEED);
                /* a large folio partly unmapped is only queued for a split:
                 * its pages reach the free lists when the deferred-split
                 * shrinker runs, which drop_caches=2 (slab shrinkers, no
                 * page cache) does now; a pinned page would forbid the split */
                int dc = open("/proc/sys/vm/drop_caches", O_WRONLY | O_CLOEXEC);
                if (dc >= 0) {
                        if (write(dc, "2\n", 2) != 2)
                                perror("holder: drop_caches");
                        close(dc);
                }
        }
        /* give back odd frames until MemFree reaches free_mb */
        for (i = 0; i < n && !stop && free_mb >= 0; i++) {
                uint64_t pfn = ent[i] & ((1ULL << 55) - 1);

                if (!(ent[i] >> 63) || pfn == 0 || !(pfn & 1))
                        continue;
                if ((given & 255) == 0) {
                        long long f = memfree_mb();

                        if (f >= free_mb)
                                break;
                }
                if (madvise(base + i * PAGE_SZ, PAGE_SZ, MADV_DONTNEED) == 0) {
                        ent[i] = 0;
                        given++;
                }
        }
        held = n - given;
        size_t pinned = 0;
        if (pin) {
                /* one pipe buffer per held page: vmsplice takes a page reference */
                size_t per_pipe = 4096;
                struct iovec iov[512];
                int fds[2] = { -1, -1 };
                size_t in_pipe = per_pipe, k = 0;

                for (i = 0; i <= n && !stop; i++) {
                        bool last = i == n;

                        if (!last && !(ent[i] >> 63))
                                continue;
                        if (!last) {
                                if (in_pipe >= per_pipe) {
                                        if (k) {
                                                ssize_t r = vmsplice(fds[1], iov, k, 0);
                                                if (r > 0)
                                                        pinned += (size_t)r / PAGE_SZ;
                                                k = 0;
                                        }
                                        if (pipe(fds) != 0) {
                                                perror("holder: pipe");
                                                break;
                                        }
                                        /* beyond fs.pipe-max-size needs CAP_SYS_RESOURCE */
                                        while (per_pipe > 16 &&
                                               fcntl(fds[1], F_SETPIPE_SZ, (int)(per_pipe * PAGE_SZ)) < 0)
                                                per_pipe /= 2;
                                        in_pipe = 0;
                                }
                                iov[k].iov_base = base + i * PAGE_SZ;
                                iov[k].iov_len = PAGE_SZ;
                                k++;
                                in_pipe++;
                        }
                        if (k == 512 || (last && k)) {
                                ssize_t r = vmsplice(fds[1], iov, k, 0);
                                if (r > 0)
                                        pinned += (size_t)r / PAGE_SZ;
                                k = 0;
                        }
                }
        }
        printf("holder: taken_mb=%zu held_mb=%zu given_mb=%zu pinned_mb=%zu memfree_mb=%lld\n", n >> 8, held >> 8,
               given >> 8, pinned >> 8, memfree_mb());
        fflush(stdout);
        if (ready) {
                int fd = open(ready, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
                if (fd >= 0)
                        close(fd);
        }
        while (!stop)
                pause();
        return 0;
}
