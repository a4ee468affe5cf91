/* bench-churn: anonymous-memory churn for bench/overhead.sh.
 *
 * Keeps a working set of at most --size MiB (<= 2048) in 64 MiB chunks and,
 * until --seconds have passed, replaces one random chunk at a time: unmap it,
 * map a fresh one (half of them MADV_HUGEPAGE, so THP faults and, on a
 * fragmented host, direct compaction happen), touch every page, then punch
 * every other 4 KiB page out of a random live chunk with MADV_DONTNEED (splits
 * its huge pages and returns scattered order-0 pages to the buddy allocator).
 * Only its own memory is touched; alarm() ends it even if the loop stalls.
 * Prints one summary line: chunks replaced, bytes touched, elapsed. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include "core/root.h"

#define MIB (1024UL * 1024UL)
#define CHUNK (64 * MIB)
#define MAX_SIZE_MIB 2048UL
#define MAX_CHUNKS (MAX_SIZE_MIB * MIB / CHUNK)

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
        (void) sig;
        stop = 1;
}

static double now_sec(void)
{
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (double) ts.tv_sec + (double) ts.tv_nsec / 1e9;
}

/* xorshift64: cheap, reproducible with --seed */
static uint64_t rnd(uint64_t *s)
{
        *s ^= *s << 13;
        *s ^= *s >> 7;
        *s ^= *s << 17;
        return *s;
}

static void *chunk_new(bool huge, long page, uint64_t *touched)
{
        char *p = mmap(NULL, CHUNK, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

        if (p == MAP_FAILED)
                return NULL;
        if (huge)
                (void) madvise(p, CHUNK, MADV_HUGEPAGE);
        for (size_t off = 0; off < CHUNK && !stop; off += (size_t) page)
                p[off] = (char) off;
        *touched += CHUNK;
        return p;
}

static void usage(FILE *f)
{
        fprintf(f, "Usage: bench-churn [--size MIB] [--seconds N] [--seed N]\n"
                   "  --size MIB    working set, 64..%lu MiB (default 1024)\n"
                   "  --seconds N   run time, 1..3600 s (default 60)\n"
                   "  --seed N      random seed (default 1)\n", MAX_SIZE_MIB);
}

int main(int argc, char **argv)
{
        static const struct option opts[] = {
                { "size", required_argument, NULL, 's' },
                { "seconds", required_argument, NULL, 't' },
                { "seed", required_argument, NULL, 'r' },
                { "help", no_argument, NULL, 'h' },
                {}
        };
        unsigned long size_mib = 1024, seconds = 60;
        uint64_t seed = 1, touched = 0, replaced = 0, punched = 0;
        void *chunk[MAX_CHUNKS] = { 0 };
        long page = sysconf(_SC_PAGESIZE);
        size_t n;
        double t0, end;
        char *e;
        int c;

        while ((c = getopt_long(argc, argv, "h", opts, NULL)) >= 0) {
                switch (c) {
                case 's':
                        errno = 0;
                        size_mib = strtoul(optarg, &e, 10);
                        if (errno || *e || size_mib < 64 || size_mib > MAX_SIZE_MIB) {
                                fprintf(stderr, "bench-churn: --size must be 64..%lu MiB\n", MAX_SIZE_MIB);
                                return 2;
                        }
                        break;
                case 't':
                        errno = 0;
                        seconds = strtoul(optarg, &e, 10);
                        if (errno || *e || seconds < 1 || seconds > 3600) {
                                fprintf(stderr, "bench-churn: --seconds must be 1..3600\n");
                                return 2;
                        }
                        break;
                case 'r':
                        seed = strtoull(optarg, &e, 10);
                        if (*e || !seed) {
                                fprintf(stderr, "bench-churn: --seed must be a positive integer\n");
                                return 2;
                        }
                        break;
                case 'h':
                        usage(stdout);
                        return 0;
                default:
                        usage(stderr);
                        return 2;
                }
        }
        if (optind < argc || page <= 0) {
                usage(stderr);
                return 2;
        }

        signal(SIGTERM, on_signal);
        signal(SIGINT, on_signal);
        signal(SIGALRM, on_signal);
        alarm((unsigned) seconds + 5); /* hard stop, even if a fault stalls the loop */

        n = size_mib * MIB / CHUNK;
        t0 = now_sec();
        end = t0 + (double) seconds;
        for (size_t i = 0; i < n && !stop; i++) {
                chunk[i] = chunk_new(i % 2, page, &touched);
                if (!chunk[i]) {
                        perror("bench-churn: mmap");
                        break;
                }
        }
        while (!stop && now_sec() < end) {
                size_t i = rnd(&seed) % n, j = rnd(&seed) % n;

                if (chunk[i])
                        munmap(chunk[i], CHUNK);
                chunk[i] = chunk_new(rnd(&seed) & 1, page, &touched);
                if (!chunk[i]) {
                        perror("bench-churn: mmap");
                        break;
                }
                replaced++;
                if (chunk[j]) {
                        for (size_t off = 0; off < CHUNK; off += 2 * (size_t) page)
                                (void) madvise((char *) chunk[j] + off, (size_t) page, MADV_DONTNEED);
                        punched++;
                }
        }
        for (size_t i = 0; i < n; i++)
                if (chunk[i])
                        munmap(chunk[i], CHUNK);
        printf("bench-churn size_mib=%lu chunks_replaced=%" PRIu64 " chunks_punched=%" PRIu64
               " touched_mib=%" PRIu64 " seconds=%.1f\n",
               size_mib, replaced, punched, touched / MIB, now_sec() - t0);
        return 0;
}
