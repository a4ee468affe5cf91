/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * consumer - the workload that wants huge pages.
 *
 * Each of --cycles cycles maps a 2 MiB-aligned region of --mb MiB with
 * MADV_HUGEPAGE, touches every page, counts the huge pages it got
 * (AnonHugePages in /proc/self/smaps_rollup, and thp_fault_alloc /
 * thp_fault_fallback deltas), the direct-compaction stalls and compaction
 * scanning that happened while faulting, holds the memory --hold-ms, unmaps
 * it and sleeps --interval-ms. With --sync PID:STATEFILE the cycles run in
 * lockstep with the fragmenter: before every cycle but the first, SIGUSR1
 * asks it for a wave (a full re-fragmentation) and the consumer waits until
 * STATEFILE counts one more wave; then --interval-ms is the time the system
 * gets to prepare huge pages before the next fault. One line per cycle, then
 * a summary whose
 * counters cover the whole run (background compaction between the cycles is
 * part of what a policy costs):
 *
 *   consumer: cycle=N requested=H huge=H thp_fault_alloc= thp_fault_fallback=
 *             compact_stall= migrate_scanned= free_scanned= fault_ms=
 *             free_huge_mb= bg_migrate_scanned= bg_daemon_wake= bg_pgscan_kswapd=
 * (free_huge_mb: free memory in order>=9 blocks just before the fault; bg_*:
 * what happened between the previous fault and this one)
 *   consumer: cycles= requested= huge= thp_pct= compact_stall= scanned=
 *             migrate_scanned= free_scanned= compact_success= compact_fail=
 *             thp_fault_fallback= fault_ms= first_requested= first_huge=
 *             first_compact_stall= seen_requested= seen_huge= seen_compact_stall=
 * (first_*: the first cycle alone, from the start to the end of its fault:
 * the burst no policy that waits for demand has seen coming; seen_*: the
 * cycles up to the first whose faults stalled in direct compaction or fell
 * back, all of them when none did: the harm a policy that acts on what it
 * sees had to see before it could act)
 *
 * Compare runs by these counters, never by the times: under TCG they say little.
 */
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/types.h>
#include <unistd.h>

#include "vmstat.h"

enum { C_ALLOC, C_FALLBACK, C_STALL, C_MIGRATE, C_FREE, C_SUCCESS, C_FAIL, C_WAKE, C_KSWAPD, C_N };
static const char *const counter_names[C_N] = {
        "thp_fault_alloc",         "thp_fault_fallback",   "compact_stall",
        "compact_migrate_scanned", "compact_free_scanned", "compact_success",
        "compact_fail",            "compact_daemon_wake",  "pgscan_kswapd",
};

/* free memory in blocks of order >= 9, MiB, all nodes and zones */
static long long free_huge_mb(void)
{
        long long pages = buddy_free_pages(9, 0);

        return pages < 0 ? -1 : pages / 256;
}

static void counters_read(long long v[C_N])
{
        for (int i = 0; i < C_N; i++)
                v[i] = vmstat_get(counter_names[i]);
}

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
        (void)sig;
        stop = 1;
}

static void usage(const char *prog)
{
        fprintf(stderr, "usage: %s [--mb M] [--cycles N] [--interval-ms I] [--hold-ms H]\n"
                        "       [--sync PID:STATEFILE]\n", prog);
        exit(2);
}

/* waves=N from the fragmenter's state file, -1 if unreadable */
static long waves_done(const char *path)
{
        char buf[128];
        const char *w;
        FILE *f = fopen(path, "re");
        size_t n;

        if (!f)
                return -1;
        n = fread(buf, 1, sizeof(buf) - 1, f);
        fclose(f);
        buf[n] = 0;
        w = strstr(buf, "waves=");
        return w ? strtol(w + 6, NULL, 10) : -1;
}

/* ask the fragmenter for a wave and wait for it (at most two minutes) */
static int sync_wave(pid_t pid, const char *path)
{
        long before = waves_done(path);
        int i;

        if (before < 0 || kill(pid, SIGUSR1) < 0) {
                perror("consumer: --sync");
                return -1;
        }
        for (i = 0; i < 6000 && !stop; i++) {
                if (waves_done(path) > before)
                        return 0;
                sleep_ms(20);
        }
        fprintf(stderr, "consumer: no wave from pid %d\n", (int)pid);
        return -1;
}

int main(int argc, char **argv)
{
        static const struct option lo[] = {
                { "mb", 1, NULL, 'm' },          { "cycles", 1, NULL, 'n' },
                { "interval-ms", 1, NULL, 'i' }, { "hold-ms", 1, NULL, 'H' },
                { "sync", 1, NULL, 's' },        { "help", 0, NULL, 'h' },
                { 0 }
        };
        struct sigaction sa = { .sa_handler = on_signal };
        long mb = 256, cycles = 8, interval_ms = 1000, hold_ms = 0, cycle;
        long long start[C_N], end[C_N], before[C_N], after[C_N], prev[C_N];
        long long requested = 0, huge = 0;
        double fault_ms = 0;
        long long first_requested = 0, first_huge = 0, first_stall = 0;
        long long seen_requested = 0, seen_huge = 0, seen_stall = 0;
        int seen = 0;
        const char *sync_file = NULL;
        pid_t sync_pid = 0;
        int c;

        while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
                switch (c) {
                case 'm': mb = opt_long("consumer", "--mb", optarg); break;
                case 'n': cycles = opt_long("consumer", "--cycles", optarg); break;
                case 'i': interval_ms = opt_long("consumer", "--interval-ms", optarg); break;
                case 'H': hold_ms = opt_long("consumer", "--hold-ms", optarg); break;
                case 's':
                        sync_file = strchr(optarg, ':');
                        if (!sync_file)
                                usage(argv[0]);
                        sync_pid = (pid_t)strtol(optarg, NULL, 10);
                        sync_file++;
                        break;
                default: usage(argv[0]);
                }
        }
        if (optind != argc || mb < 2 || cycles < 1)
                usage(argv[0]);
        sigaction(SIGTERM, &sa, NULL);
        sigaction(SIGINT, &sa, NULL);

        counters_read(start);
        memcpy(prev, start, sizeof(prev));
        for (cycle = 1; cycle <= cycles && !stop; cycle++) {
                size_t len = ((size_t)mb << 20) & ~(HUGE_SZ - 1), i;
                char *raw, *p;
                long long hkb, ready_mb;
                double t0, t1;

                if (sync_file) {
                        if (cycle > 1 && sync_wave(sync_pid, sync_file) < 0)
                                return 1;
                        if (interval_ms)
                                sleep_ms(interval_ms);
                }
                raw = mmap(NULL, len + HUGE_SZ, PROT_READ | PROT_WRITE,
                           MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
                if (raw == MAP_FAILED) {
                        perror("consumer: mmap");
                        return 1;
                }
                p = (char *)(((unsigned long)raw + HUGE_SZ - 1) & ~(HUGE_SZ - 1));
                if (madvise(p, len, MADV_HUGEPAGE))
                        perror("consumer: madvise(MADV_HUGEPAGE)");
                ready_mb = free_huge_mb();
                counters_read(before);
                t0 = now_ms();
                for (i = 0; i < len; i += PAGE_SZ)
                        p[i] = 1;
                t1 = now_ms();
                counters_read(after);
                hkb = procfile_kb("/proc/self/smaps_rollup", "AnonHugePages");
                if (hkb < 0)
                        hkb = 0;
                requested += (long long)(len / HUGE_SZ);
                huge += hkb / 2048;
                if (cycle == 1) {
                        first_requested = requested;
                        first_huge = huge;
                        first_stall = after[C_STALL] - start[C_STALL];
                }
                if (!seen) {
                        seen_requested = requested;
                        seen_huge = huge;
                        seen_stall = after[C_STALL] - start[C_STALL];
                        seen = after[C_STALL] > before[C_STALL] || hkb / 2048 < (long long)(len / HUGE_SZ);
                }
                fault_ms += t1 - t0;
                printf("consumer: cycle=%ld requested=%zu huge=%lld thp_fault_alloc=%lld "
                       "thp_fault_fallback=%lld compact_stall=%lld migrate_scanned=%lld "
                       "free_scanned=%lld fault_ms=%.0f free_huge_mb=%lld bg_migrate_scanned=%lld "
                       "bg_daemon_wake=%lld bg_pgscan_kswapd=%lld\n",
                       cycle, len / HUGE_SZ, hkb / 2048, after[C_ALLOC] - before[C_ALLOC],
                       after[C_FALLBACK] - before[C_FALLBACK], after[C_STALL] - before[C_STALL],
                       after[C_MIGRATE] - before[C_MIGRATE], after[C_FREE] - before[C_FREE],
                       t1 - t0, ready_mb, before[C_MIGRATE] - prev[C_MIGRATE],
                       before[C_WAKE] - prev[C_WAKE], before[C_KSWAPD] - prev[C_KSWAPD]);
                memcpy(prev, after, sizeof(prev));
                fflush(stdout);
                if (hold_ms)
                        sleep_ms(hold_ms);
                munmap(raw, len + HUGE_SZ);
                if (!sync_file && cycle < cycles && interval_ms)
                        sleep_ms(interval_ms);
        }
        counters_read(end);
        printf("consumer: cycles=%ld requested=%lld huge=%lld thp_pct=%lld compact_stall=%lld "
               "scanned=%lld migrate_scanned=%lld free_scanned=%lld compact_success=%lld "
               "compact_fail=%lld thp_fault_fallback=%lld fault_ms=%.0f first_requested=%lld "
               "first_huge=%lld first_compact_stall=%lld seen_requested=%lld seen_huge=%lld "
               "seen_compact_stall=%lld\n",
               cycle - 1, requested, huge, requested ? huge * 100 / requested : 0,
               end[C_STALL] - start[C_STALL],
               end[C_MIGRATE] - start[C_MIGRATE] + end[C_FREE] - start[C_FREE],
               end[C_MIGRATE] - start[C_MIGRATE], end[C_FREE] - start[C_FREE],
               end[C_SUCCESS] - start[C_SUCCESS], end[C_FAIL] - start[C_FAIL],
               end[C_FALLBACK] - start[C_FALLBACK], fault_ms, first_requested, first_huge, first_stall,
               seen_requested, seen_huge, seen_stall);
        return 0;
}
