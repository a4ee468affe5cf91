/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fragmenter - keep physical memory fragmented, continuously, until SIGTERM.
 *
 * An anonymous arena of 4K pages (MADV_NOHUGEPAGE) is cut into chunks. The
 * first pass faults every chunk and frees all but one page in every group of
 * --keep pages (which one is drawn from a PRNG seeded by --seed), so the kept
 * pages pin most pageblocks and free memory sits in low orders. Then, cycle
 * after cycle (--interval-ms apart), --churn chunks are released, faulted
 * again and scattered again with fresh choices, and every --wave-every cycles
 * the whole arena is (a wave: it also eats the free blocks that compaction
 * assembled since the last one, down to --floor-mb). A page-cache file in
 * --dir (tmpfs in the test guest) gets the same treatment with hole punching,
 * and a pinned set grows slowly (optionally mlock()ed): pages that are never
 * freed again. SIGUSR1 asks for a wave at the next cycle; --state FILE says
 * "cycle=N waves=M" after every cycle (consumer --sync uses both).
 *
 * Deterministic given --seed: the n-th re-fragmentation of a chunk (or file
 * slice) always keeps and pins the same pages, however the cycles and waves
 * interleave in time (what the kernel makes of them physically is, of
 * course, its business).
 * Faulting stops while MemAvailable is below --floor-mb (half --reserve-mb in
 * the first pass), so the workload never drives the guest into the OOM killer
 * and leaves room for the consumer.
 *
 * Output: one line per --report cycles and a summary on exit, all starting
 * "fragmenter:" with key=value fields.
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
#include <sys/stat.h>
#include <unistd.h>

#include "vmstat.h"

static volatile sig_atomic_t stop, wave_requested;

static void on_signal(int sig)
{
        if (sig == SIGUSR1)
                wave_requested = 1;
        else
                stop = 1;
}

typedef struct Opts {
        uint64_t seed;
        long arena_mb;        /* 0: MemAvailable - reserve_mb */
        long reserve_mb;
        long keep;
        long chunk_mb;
        long churn;           /* chunks churned per cycle */
        long wave_every;      /* a full wave every N cycles, 0: never */
        long file_mb;
        long file_slice_mb;
        const char *dir;
        long pin_pages;       /* pages added to the pinned set per cycle */
        long pin_max_mb;
        bool do_mlock;
        long interval_ms;
        long floor_mb;
        long report;
        long cycles;          /* 0: until SIGTERM */
        const char *ready;
        const char *state;
} Opts;

typedef struct Arena {
        char *base;
        size_t npages, chunk_pages, nchunks;
        uint8_t *pinned;
        size_t npinned, pin_max;
        int fd;
        size_t file_pages;
        uint64_t seed;
        uint32_t *chunk_gen, *slice_gen; /* times each chunk/slice was scattered */
        uint64_t faulted, dropped, punched, floor_hits;
} Arena;

static long long avail_mb(void)
{
        long long kb = procfile_kb("/proc/meminfo", "MemAvailable");

        return kb < 0 ? -1 : kb / 1024;
}

/* MADV_DONTNEED the pages [first, first+n) of the arena, skipping pinned ones. */
static void release_range(Arena *a, size_t first, size_t n, const uint8_t *keepmask)
{
        size_t i, run = 0, start = 0;

        for (i = first; i <= first + n; i++) {
                bool drop = i < first + n && !a->pinned[i] && !(keepmask && keepmask[i - first]);

                if (drop) {
                        if (!run)
                                start = i;
                        run++;
                        continue;
                }
                if (run) {
                        if (madvise(a->base + start * PAGE_SZ, run * PAGE_SZ, MADV_DONTNEED) == 0)
                                a->dropped += run;
                        run = 0;
                }
        }
}

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

/*
 * Fault every page of chunk c, in 4 MiB steps, unless memory runs below the
 * floor. MADV_POPULATE_WRITE (5.14+) faults a whole step in one call: under
 * TCG a trap per page costs several times more.
 */
static size_t fault_chunk(Arena *a, long floor_mb, size_t c)
{
        const size_t step = (4UL << 20) / PAGE_SZ;
        size_t i, j, first = c * a->chunk_pages, done = 0;

        for (i = 0; i < a->chunk_pages && !stop; i += step) {
                size_t n = a->chunk_pages - i < step ? a->chunk_pages - i : step;
                char *p = a->base + (first + i) * PAGE_SZ;

                if (floor_mb) {
                        long long av = avail_mb();

                        if (av >= 0 && av < floor_mb) {
                                a->floor_hits++;
                                break;
                        }
                }
                if (madvise(p, n * PAGE_SZ, MADV_POPULATE_WRITE) != 0)
                        for (j = 0; j < n; j++)
                                p[j * PAGE_SZ] = (char)(j + 1);
                done += n;
        }
        a->faulted += done;
        return done;
}

/* the PRNG state for the gen-th scattering of chunk or slice `what` */
static uint64_t stream(const Arena *a, uint64_t kind, size_t what, uint32_t gen)
{
        uint64_t s = a->seed ^ (kind << 62) ^ ((uint64_t)what << 24) ^ gen;

        return rng_next(&s);
}

/* Keep one page per group of `keep` (PRNG choice) plus the pinned ones. */
static void scatter_chunk(Arena *a, const Opts *o, size_t c, uint8_t *mask)
{
        size_t i, g, first = c * a->chunk_pages;
        uint64_t rng = stream(a, 1, c, a->chunk_gen[c]++);

        memset(mask, 0, a->chunk_pages);
        for (g = 0; g < a->chunk_pages; g += (size_t)o->keep)
                mask[g + rng_below(&rng, (uint64_t)o->keep) % (a->chunk_pages - g)] = 1;
        /* grow the pinned set from pages that are resident right now */
        for (i = 0; i < (size_t)o->pin_pages && a->npinned < a->pin_max; i++) {
                size_t p = first + rng_below(&rng, a->chunk_pages);

                if (a->pinned[p])
                        continue;
                a->pinned[p] = 1;
                a->npinned++;
                if (o->do_mlock)
                        (void)mlock(a->base + p * PAGE_SZ, PAGE_SZ);
        }
        release_range(a, first, a->chunk_pages, mask);
}

/*
 * Release n chunks from chunk `from` on, fault them all, then scatter them.
 * Faulting takes the smallest free blocks first, so churning a few chunks
 * mostly recycles holes; a full wave (all chunks, down to the floor) also
 * eats the large blocks compaction assembled since the last one.
 */
static void refragment(Arena *a, const Opts *o, size_t from, size_t n, uint8_t *mask)
{
        size_t i;

        for (i = 0; i < n && !stop; i++)
                release_range(a, ((from + i) % a->nchunks) * a->chunk_pages, a->chunk_pages, NULL);
        for (i = 0; i < n && !stop; i++)
                fault_chunk(a, o->floor_mb, (from + i) % a->nchunks);
        for (i = 0; i < n && !stop; i++)
                scatter_chunk(a, o, (from + i) % a->nchunks, mask);
}

/* Page-cache churn: (re)write a slice of the file, read it, punch holes. */
static void churn_file(Arena *a, const Opts *o, size_t slice, size_t slice_pages, const char *buf)
{
        size_t i, first = slice * slice_pages;
        uint64_t rng;

        if (a->fd < 0)
                return;
        rng = stream(a, 2, slice, a->slice_gen[slice]++);
        for (i = 0; i < slice_pages && first + i < a->file_pages; i++) {
                if (pwrite(a->fd, buf, PAGE_SZ, (off_t)((first + i) * PAGE_SZ)) != (ssize_t)PAGE_SZ)
                        break;
        }
        for (i = 0; i < slice_pages && first + i < a->file_pages; i += (size_t)o->keep) {
                size_t k = rng_below(&rng, (uint64_t)o->keep), j;
                char tmp[64];

                if (pread(a->fd, tmp, sizeof(tmp), (off_t)((first + i) * PAGE_SZ)) < 0)
                        break;
                for (j = 0; j < (size_t)o->keep && first + i + j < a->file_pages; j++) {
                        if (j == k)
                                continue;
                        if (fallocate(a->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
                                      (off_t)((first + i + j) * PAGE_SZ), PAGE_SZ) == 0)
                                a->punched++;
                }
        }
}

static void report(const Arena *a, const char *what, unsigned long cycle, size_t chunk)
{
        printf("fragmenter: %s cycle=%lu chunk=%zu rss_mb=%lld pinned=%zu avail_mb=%lld "
               "faulted=%llu dropped=%llu punched=%llu floor_hits=%llu\n",
               what, cycle, chunk, procfile_kb("/proc/self/status", "VmRSS") / 1024, a->npinned,
               avail_mb(), (unsigned long long)a->faulted, (unsigned long long)a->dropped,
               (unsigned long long)a->punched, (unsigned long long)a->floor_hits);
        fflush(stdout);
}

static void write_state(const char *path, unsigned long cycle, unsigned long waves)
{
        char tmp[4096];
        FILE *f;

        if (!path)
                return;
        snprintf(tmp, sizeof(tmp), "%s.tmp", path);
        f = fopen(tmp, "we");
        if (!f)
                return;
        fprintf(f, "cycle=%lu waves=%lu\n", cycle, waves);
        if (fclose(f) == 0)
                (void)rename(tmp, path);
}

static void usage(const char *prog)
{
        fprintf(stderr,
                "usage: %s [--seed N] [--mb N | --reserve-mb N] [--keep N] [--chunk-mb N]\n"
                "       [--churn N] [--wave-every N] [--file-mb N] [--file-slice-mb N] [--dir DIR] [--pin-pages N]\n"
                "       [--pin-max-mb N] [--mlock] [--interval-ms N] [--floor-mb N] [--report N]\n"
                "       [--cycles N] [--ready FILE] [--state FILE]\n",
                prog);
        exit(2);
}

static void parse_opts(int argc, char **argv, Opts *o)
{
        static const struct option lo[] = {
                { "seed", 1, NULL, 's' },       { "mb", 1, NULL, 'm' },
                { "reserve-mb", 1, NULL, 'R' }, { "keep", 1, NULL, 'k' },
                { "chunk-mb", 1, NULL, 'c' },   { "churn", 1, NULL, 'w' },
                { "wave-every", 1, NULL, 'W' },
                { "file-mb", 1, NULL, 'f' },    { "file-slice-mb", 1, NULL, 'F' },
                { "dir", 1, NULL, 'd' },        { "pin-pages", 1, NULL, 'p' },
                { "pin-max-mb", 1, NULL, 'P' }, { "mlock", 0, NULL, 'L' },
                { "interval-ms", 1, NULL, 'i' }, { "floor-mb", 1, NULL, 'l' },
                { "report", 1, NULL, 'r' },     { "cycles", 1, NULL, 'n' },
                { "ready", 1, NULL, 'y' },      { "state", 1, NULL, 'S' },
                { "help", 0, NULL, 'h' },       { 0 }
        };
        const char *p = "fragmenter";
        int c;

        *o = (Opts){ .seed = 1, .reserve_mb = 192, .keep = 16, .chunk_mb = 16, .churn = 1,
                     .file_mb = 64, .file_slice_mb = 4, .dir = "/tmp", .pin_pages = 16,
                     .pin_max_mb = 16, .interval_ms = 200, .floor_mb = 192, .report = 10 };
        while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
                switch (c) {
                case 's': o->seed = (uint64_t)opt_long(p, "--seed", optarg); break;
                case 'm': o->arena_mb = opt_long(p, "--mb", optarg); break;
                case 'R': o->reserve_mb = opt_long(p, "--reserve-mb", optarg); break;
                case 'k': o->keep = opt_long(p, "--keep", optarg); break;
                case 'c': o->chunk_mb = opt_long(p, "--chunk-mb", optarg); break;
                case 'w': o->churn = opt_long(p, "--churn", optarg); break;
                case 'W': o->wave_every = opt_long(p, "--wave-every", optarg); break;
                case 'f': o->file_mb = opt_long(p, "--file-mb", optarg); break;
                case 'F': o->file_slice_mb = opt_long(p, "--file-slice-mb", optarg); break;
                case 'd': o->dir = optarg; break;
                case 'p': o->pin_pages = opt_long(p, "--pin-pages", optarg); break;
                case 'P': o->pin_max_mb = opt_long(p, "--pin-max-mb", optarg); break;
                case 'L': o->do_mlock = true; break;
                case 'i': o->interval_ms = opt_long(p, "--interval-ms", optarg); break;
                case 'l': o->floor_mb = opt_long(p, "--floor-mb", optarg); break;
                case 'r': o->report = opt_long(p, "--report", optarg); break;
                case 'n': o->cycles = opt_long(p, "--cycles", optarg); break;
                case 'y': o->ready = optarg; break;
                case 'S': o->state = optarg; break;
                default: usage(argv[0]);
                }
        }
        if (optind != argc || o->keep < 1 || o->chunk_mb < 1 || o->churn < 0 ||
            o->file_slice_mb < 1)
                usage(argv[0]);
}

int main(int argc, char **argv)
{
        Opts o;
        Arena a = { .fd = -1 };
        struct sigaction sa = { .sa_handler = on_signal };
        unsigned long cycle = 0, waves = 0;
        size_t c, next = 0, slice = 0, nslices = 0, slice_pages;
        uint8_t *mask;
        char *buf;
        double t0, t1, t2;

        parse_opts(argc, argv, &o);
        sigaction(SIGTERM, &sa, NULL);
        sigaction(SIGINT, &sa, NULL);
        sigaction(SIGUSR1, &sa, NULL);
        a.seed = o.seed;

        if (!o.arena_mb) {
                long long av = avail_mb();

                if (av < 0) {
                        fprintf(stderr, "fragmenter: cannot read MemAvailable\n");
                        return 1;
                }
                o.arena_mb = (long)(av - o.reserve_mb - o.file_mb / o.keep);
        }
        if (o.arena_mb < o.chunk_mb) {
                fprintf(stderr, "fragmenter: arena %ld MiB is smaller than one chunk\n", o.arena_mb);
                return 1;
        }
        a.chunk_pages = ((size_t)o.chunk_mb << 20) / PAGE_SZ;
        a.nchunks = (size_t)o.arena_mb / (size_t)o.chunk_mb;
        a.npages = a.chunk_pages * a.nchunks;
        a.pin_max = ((size_t)o.pin_max_mb << 20) / PAGE_SZ;
        if ((size_t)o.churn > a.nchunks)
                o.churn = (long)a.nchunks;
        a.base = mmap(NULL, a.npages * PAGE_SZ, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        a.pinned = calloc(a.npages, 1);
        a.chunk_gen = calloc(a.nchunks, sizeof(*a.chunk_gen));
        mask = malloc(a.chunk_pages);
        buf = malloc(PAGE_SZ);
        if (a.base == MAP_FAILED || !a.pinned || !a.chunk_gen || !mask || !buf) {
                perror("fragmenter: allocation");
                return 1;
        }
        memset(buf, 0x5a, PAGE_SZ);
        if (madvise(a.base, a.npages * PAGE_SZ, MADV_NOHUGEPAGE))
                perror("fragmenter: madvise(MADV_NOHUGEPAGE)");

        slice_pages = ((size_t)o.file_slice_mb << 20) / PAGE_SZ;
        if (o.file_mb > 0) {
                char path[4096];

                snprintf(path, sizeof(path), "%s/fragmenter.%d", o.dir, (int)getpid());
                a.fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
                if (a.fd < 0) {
                        perror("fragmenter: open page-cache file");
                        return 1;
                }
                (void)unlink(path); /* gone when we exit, whatever way */
                a.file_pages = ((size_t)o.file_mb << 20) / PAGE_SZ;
                nslices = (a.file_pages + slice_pages - 1) / slice_pages;
                a.slice_gen = calloc(nslices, sizeof(*a.slice_gen));
                if (!a.slice_gen) {
                        perror("fragmenter: allocation");
                        return 1;
                }
        }
        printf("fragmenter: start seed=%llu arena_mb=%zu chunks=%zu chunk_mb=%ld keep=%ld churn=%ld wave_every=%ld "
               "file_mb=%ld pin_max_mb=%ld mlock=%d floor_mb=%ld avail_mb=%lld\n",
               (unsigned long long)o.seed, a.npages * PAGE_SZ >> 20, a.nchunks, o.chunk_mb,
               o.keep, o.churn, o.wave_every, o.file_mb, o.pin_max_mb, o.do_mlock, o.floor_mb, avail_mb());
        fflush(stdout);

        /*
         * First pass: fault everything, then scatter everything. (Faulting and
         * scattering one chunk at a time would only recycle the holes of the
         * previous chunk: the kept pages would end up packed together.)
         */
        t0 = now_ms();
        for (c = 0; c < a.nchunks && !stop; c++)
                fault_chunk(&a, o.reserve_mb / 2, c); /* the consumer is not running yet */
        t1 = now_ms();
        for (c = 0; c < a.nchunks && !stop; c++)
                scatter_chunk(&a, &o, c, mask);
        t2 = now_ms();
        for (slice = 0; slice < nslices && !stop; slice++)
                churn_file(&a, &o, slice, slice_pages, buf);
        slice = 0;
        printf("fragmenter: first pass fault_ms=%.0f scatter_ms=%.0f file_ms=%.0f\n", t1 - t0,
               t2 - t1, now_ms() - t2);
        report(&a, "ready", cycle, 0);
        write_state(o.state, cycle, waves);
        if (o.ready)
                close(open(o.ready, O_CREAT | O_WRONLY | O_CLOEXEC, 0644));

        while (!stop && (!o.cycles || cycle < (unsigned long)o.cycles)) {
                cycle++;
                if (wave_requested || (o.wave_every && cycle % (unsigned long)o.wave_every == 0)) {
                        wave_requested = 0;
                        refragment(&a, &o, 0, a.nchunks, mask);
                        waves++;
                        report(&a, "wave", cycle, 0);
                } else if (o.churn) {
                        refragment(&a, &o, next, (size_t)o.churn, mask);
                        next = (next + (size_t)o.churn) % a.nchunks;
                }
                if (nslices) {
                        churn_file(&a, &o, slice, slice_pages, buf);
                        slice = (slice + 1) % nslices;
                }
                write_state(o.state, cycle, waves);
                if (o.report && cycle % (unsigned long)o.report == 0)
                        report(&a, "progress", cycle, next);
                if (o.interval_ms)
                        sleep_ms(o.interval_ms);
        }
        report(&a, "done", cycle, next);
        return 0;
}
