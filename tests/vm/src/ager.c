/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ager - age a host as real ones age, under a full page cache, and hold the
 * result until SIGTERM.
 *
 * A database host that has been up a while has its memory full of page
 * cache, much of it in small folios (pages read at random, readahead off),
 * and the kernel's own allocations of its life (inodes, dentries, pipe and
 * socket buffers) spread over pageblocks all over memory, half of them freed
 * again and the blocks they polluted still unmovable or reclaimable. Pinning
 * pages by hand (holder --pin) defeats the kernel's grouping by mobility on
 * purpose; this does what a host does and leaves grouping to the kernel.
 *
 *   --cache-file PATH --cache-mb N
 *       writes N MiB to PATH with O_DIRECT (no page cache), then reads its
 *       4 KiB pages back in a random order with POSIX_FADV_RANDOM (no
 *       readahead: one order-0 folio each) until all are read or MemFree is
 *       down to --floor-mb (the kernel reclaims for the rest)
 *   --inodes N --dir DIR
 *       creates N empty files in DIR (inodes and dentries: reclaimable slab),
 *       then removes every other one
 *   --pipes N
 *       opens N pipes and fills each with 64 KiB (16 unmovable pages, kernel
 *       memory), then closes every other one; the rest stay held
 *   --ready FILE   created once the host is aged
 *
 * Steps run in that order (cache first: the kernel's allocations are taken
 * while the cache is full). Output: "ager: ..." lines with key=value fields.
 */
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "vmstat.h"

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

static uint64_t seed = 1;

static int cache_fill(const char *path, long mb, long floor_mb)
{
        size_t pages = ((size_t)mb << 20) / PAGE_SZ, i, n = 0;
        uint32_t *order;
        char *buf;
        int fd;

        fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_DIRECT | O_CLOEXEC, 0600);
        if (fd < 0) {
                fprintf(stderr, "ager: %s: %s\n", path, strerror(errno));
                return -1;
        }
        if (posix_memalign((void **)&buf, 1 << 20, 1 << 20)) {
                close(fd);
                return -1;
        }
        memset(buf, 0x5a, 1 << 20);
        for (long m = 0; m < mb && !stop; m++)
                if (write(fd, buf, 1 << 20) != 1 << 20) {
                        fprintf(stderr, "ager: writing %s: %s\n", path, strerror(errno ? errno : EIO));
                        close(fd);
                        free(buf);
                        return -1;
                }
        fsync(fd);
        close(fd);
        free(buf);

        fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0) {
                fprintf(stderr, "ager: %s: %s\n", path, strerror(errno));
                return -1;
        }
        /* nothing of it cached yet (O_DIRECT), and no readahead from here */
        posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
        posix_fadvise(fd, 0, 0, POSIX_FADV_RANDOM);
        order = malloc(pages * sizeof(*order));
        if (!order) {
                close(fd);
                return -1;
        }
        for (i = 0; i < pages; i++)
                order[i] = (uint32_t)i;
        for (i = pages; i > 1; i--) { /* Fisher-Yates */
                size_t j = rng_below(&seed, i);
                uint32_t t = order[i - 1];

                order[i - 1] = order[j];
                order[j] = t;
        }
        for (i = 0; i < pages && !stop; i++) {
                char page[PAGE_SZ];

                if ((i & 1023) == 0 && floor_mb > 0 && memfree_mb() <= floor_mb)
                        break;
                if (pread(fd, page, PAGE_SZ, (off_t)order[i] * PAGE_SZ) == (ssize_t)PAGE_SZ)
                        n++;
        }
        free(order);
        close(fd);
        printf("ager: cache_read_mb=%zu of %ld memfree_mb=%lld\n", n * PAGE_SZ >> 20, mb, memfree_mb());
        return 0;
}

static int make_inodes(const char *dir, long count)
{
        char name[64];
        long made = 0, removed = 0;

        if (mkdir(dir, 0700) < 0 && errno != EEXIST) {
                fprintf(stderr, "ager: mkdir %s: %s\n", dir, strerror(errno));
                return -1;
        }
        int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

        if (dfd < 0)
                return -1;
        for (long i = 0; i < count && !stop; i++) {
                snprintf(name, sizeof(name), "f%07ld", i);
                int fd = openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);

                if (fd < 0)
                        break;
                close(fd);
                made++;
        }
        for (long i = 0; i < made && !stop; i += 2) {
                snprintf(name, sizeof(name), "f%07ld", i);
                if (unlinkat(dfd, name, 0) == 0)
                        removed++;
        }
        close(dfd);
        printf("ager: inodes_made=%ld removed=%ld\n", made, removed);
        return 0;
}

static int *pipes_held;
static long npipes_held;

static int make_pipes(long count)
{
        struct rlimit rl = { .rlim_cur = (rlim_t)count + 256, .rlim_max = (rlim_t)count + 256 };
        static char buf[65536];
        long made = 0;

        setrlimit(RLIMIT_NOFILE, &rl);
        pipes_held = calloc((size_t)count, sizeof(*pipes_held));
        if (!pipes_held)
                return -1;
        memset(buf, 0xa5, sizeof(buf));
        for (long i = 0; i < count && !stop; i++) {
                int p[2];

                if (pipe2(p, O_CLOEXEC | O_NONBLOCK) < 0)
                        break;
                /* 16 pages of pipe buffer, then only the read end keeps them */
                fcntl(p[1], F_SETPIPE_SZ, (int)sizeof(buf));
                if (write(p[1], buf, sizeof(buf)) < 0) {
                        close(p[0]);
                        close(p[1]);
                        break;
                }
                close(p[1]);
                pipes_held[made++] = p[0];
        }
        long closed = 0;

        for (long i = 0; i < made; i += 2) {
                close(pipes_held[i]);
                pipes_held[i] = -1;
                closed++;
        }
        npipes_held = made;
        printf("ager: pipes_made=%ld closed=%ld held_mb=%ld\n", made, closed,
               (made - closed) * (long)sizeof(buf) >> 20);
        return 0;
}

int main(int argc, char **argv)
{
        static const struct option lo[] = {
                { "cache-file", 1, NULL, 'c' }, { "cache-mb", 1, NULL, 'm' }, { "floor-mb", 1, NULL, 'f' },
                { "inodes", 1, NULL, 'i' },     { "dir", 1, NULL, 'd' },      { "pipes", 1, NULL, 'p' },
                { "ready", 1, NULL, 'r' },      { "seed", 1, NULL, 's' },     { "help", 0, NULL, 'h' },
                { 0 },
        };
        const char *cache_file = NULL, *dir = NULL, *ready = NULL;
        long cache_mb = 0, floor_mb = 0, inodes = 0, pipes = 0;
        int c;

        while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
                switch (c) {
                case 'c': cache_file = optarg; break;
                case 'm': cache_mb = opt_long("ager", "--cache-mb", optarg); break;
                case 'f': floor_mb = opt_long("ager", "--floor-mb", optarg); break;
                case 'i': inodes = opt_long("ager", "--inodes", optarg); break;
                case 'd': dir = optarg; break;
                case 'p': pipes = opt_long("ager", "--pipes", optarg); break;
                case 'r': ready = optarg; break;
                case 's': seed = (uint64_t)opt_long("ager", "--seed", optarg); break;
                default:
                        fprintf(stderr, "usage: ager [--cache-file PATH --cache-mb N [--floor-mb N]] "
                                        "[--inodes N --dir DIR] [--pipes N] [--seed N] [--ready FILE]\n");
                        return c == 'h' ? 0 : 2;
                }
        }
        if ((cache_mb > 0 && !cache_file) || (inodes > 0 && !dir)) {
                fprintf(stderr, "ager: --cache-mb needs --cache-file, --inodes needs --dir\n");
                return 2;
        }
        signal(SIGTERM, on_signal);
        signal(SIGINT, on_signal);
        long long mf0 = memfree_mb();

        if (cache_mb > 0 && cache_fill(cache_file, cache_mb, floor_mb) < 0)
                return 1;
        if (inodes > 0 && make_inodes(dir, inodes) < 0)
                return 1;
        if (pipes > 0 && make_pipes(pipes) < 0)
                return 1;
        printf("ager: aged memfree_mb=%lld->%lld\n", mf0, memfree_mb());
        fflush(stdout);
        if (ready) {
                int fd = open(ready, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);

                if (fd >= 0)
                        close(fd);
        }
        while (!stop)
                pause();
        return 0;
}
