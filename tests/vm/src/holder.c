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
 * --eat ORDER: the preparation's other half, run after the holder: takes
 * memory 2 MiB at a time with THP/mTHP faults (largest free blocks first, no
 * compaction) while a free block of order >= ORDER is left in DMA32/Normal,
 * keeps one page of every aligned 2^ORDER block it got and gives the rest
 * back chunk by chunk, so MemFree hardly moves (stops at --floor-mb too):
 * no kswapd wake-up, no free block of that order left.
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

/* free memory in blocks of order >= o, in pages (DMA32 and above) */
static long long free_ge(unsigned o)
{
        return buddy_free_pages(o, 1);
}

/* drop_caches=2: slab shrinkers, among them the deferred split of large
 * folios partly unmapped (their unmapped pages reach the free lists only
 * when it runs), and no page cache */
static void shrink_slab(void)
{
        int dc = open("/proc/sys/vm/drop_caches", O_WRONLY | O_CLOEXEC);

        if (dc < 0)
                return;
        if (write(dc, "2\n", 2) != 2)
                perror("holder: drop_caches");
        close(dc);
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
         * kernel reclaims for the holder is page cache the host had (the
         * eater gives back nearly all it takes as it goes: its address
         * range may be larger than free memory) */
        long long f0 = memfree_mb();
        if (eat < 0 && f0 > 0 && f0 + 32 < max_mb)
                max_mb = (long)f0 + 32;
        size_t npages = (size_t)max_mb << 8, step = 256, n = 0, i, given = 0, held, since_shrink = 0;
        uint64_t last_block = UINT64_MAX;
        const char *why = "max_mb";
        char *raw = mmap(NULL, (npages + 512) * PAGE_SZ, PROT_READ | PROT_WRITE,
                         MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (raw == MAP_FAILED) {
                perror("holder: mmap");
                return 1;
        }
        int pm = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
        uint64_t *ent = calloc(npages, sizeof(*ent));
        if (pm < 0 || !ent) {
                perror("holder: /proc/self/pagemap");
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
         * first, where order-0 faults would take the smallest. --eat keeps
         * the first page of every aligned block of 2^eat frames it took and
         * gives back the rest at once, chunk by chunk (nothing given back
         * can merge to that order again while the kept page is held), so
         * free memory stays near where it was: the eater never wakes kswapd
         * above its floor */
        while (n + step <= npages && !stop) {
                long long f = memfree_mb();

                if (f >= 0 && f <= floor_mb) {
                        why = "floor";
                        break;
                }
                if (eat >= 0 && free_ge((unsigned)eat) <= 0) {
                        why = "no_block";
                        break;
                }
                if (madvise(base + n * PAGE_SZ, step * PAGE_SZ, MADV_POPULATE_WRITE) != 0)
                        for (i = 0; i < step; i++)
                                base[(n + i) * PAGE_SZ] = 1;
                if (eat >= 0) {
                        if (pread(pm, ent + n, step * sizeof(*ent),
                                  (off_t)((uintptr_t)(base + n * PAGE_SZ) / PAGE_SZ * sizeof(*ent))) !=
                            (ssize_t)(step * sizeof(*ent))) {
                                perror("holder: pagemap read");
                                return 1;
                        }
                        /* splits the VMA, not the folios; no khugepaged */
                        (void)madvise(base + n * PAGE_SZ, step * PAGE_SZ, MADV_NOHUGEPAGE);
                        size_t run = n; /* pages [run, i) are to be given back */

                        for (i = n; i <= n + step; i++) {
                                uint64_t pfn = i < n + step ? ent[i] & ((1ULL << 55) - 1) : 0;
                                bool back = pfn && (ent[i] >> 63) && pfn >> eat == last_block;

                                if (back) {
                                        ent[i] = 0;
                                        given++;
                                        continue;
                                }
                                if (i > run)
                                        (void)madvise(base + run * PAGE_SZ, (i - run) * PAGE_SZ, MADV_DONTNEED);
                                run = i + 1;
                                if (pfn && (ent[i] >> 63))
                                        last_block = pfn >> eat;
                        }
                        since_shrink += step;
                        if (since_shrink >= (32u << 8) || (f >= 0 && f <= floor_mb + 32)) {
                                shrink_slab();
                                since_shrink = 0;
                        }
                }
                n += step;
        }
        if (eat >= 0)
                shrink_slab(); /* a pinned page would forbid the split */
        else if (n && pread(pm, ent, n * sizeof(*ent), (off_t)((uintptr_t)base / PAGE_SZ * sizeof(*ent))) !=
                              (ssize_t)(n * sizeof(*ent))) {
                perror("holder: pagemap read");
                return 1;
        }
        close(pm);
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
        printf("holder: taken_mb=%zu held_mb=%zu given_mb=%zu pinned_mb=%zu memfree_mb=%lld stopped=%s\n", n >> 8,
               held >> 8, given >> 8, pinned >> 8, memfree_mb(), stop ? "signal" : why);
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
