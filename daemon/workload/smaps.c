/* SPDX-License-Identifier: GPL-2.0-or-later */
/* /proc/PID/smaps: collapse candidates (pure, fuzzed), and /proc/PID/status
 * THP_enabled. Split from thp-cgroup.c. */

#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <systemd/sd-bus.h>
#include <time.h>
#include <unistd.h>

#include "core/missing-thp.h"
#include "core/parse-util.h"
#include "fragd/macro.h"
#include "workload/thp-cgroup.h"

/* ---- smaps ----------------------------------------------------------------- */

typedef struct Vma {
        bool valid;
        uint64_t start, end;
        SmapsKind kind;
        bool eligible;
        uint64_t rss, anon_huge, shmem_pmd, kernel_page_kb;
        bool nohuge, hugetlb, advised;
} Vma;

static bool hex_u64(Span s, uint64_t *ret)
{
        uint64_t v = 0;

        if (s.len == 0 || s.len > 16)
                return false;
        for (size_t i = 0; i < s.len; i++) {
                char c = s.p[i];
                unsigned d;

                if (c >= '0' && c <= '9')
                        d = (unsigned) (c - '0');
                else if (c >= 'a' && c <= 'f')
                        d = (unsigned) (c - 'a' + 10);
                else if (c >= 'A' && c <= 'F')
                        d = (unsigned) (c - 'A' + 10);
                else
                        return false;
                v = v << 4 | d;
        }
        *ret = v;
        return true;
}

/* "start-end perms offset dev inode [path]" */
static int parse_header(Span line, Vma *v)
{
        Span range, perms, tok, path;
        const char *dash;

        if (!span_next_token(&line, &range) || !span_next_token(&line, &perms) || perms.len != 4)
                return -EBADMSG;
        dash = memchr(range.p, '-', range.len);
        if (!dash)
                return -EBADMSG;
        if (!hex_u64((Span) { range.p, (size_t) (dash - range.p) }, &v->start) ||
            !hex_u64((Span) { dash + 1, range.len - (size_t) (dash - range.p) - 1 }, &v->end) || v->end < v->start)
                return -EBADMSG;
        for (int i = 0; i < 3; i++) /* offset dev inode */
                if (!span_next_token(&line, &tok))
                        return -EBADMSG;
        span_skip_blanks(&line);
        path = span_rstrip(line, false);

        if (perms.p[3] == 'p') {
                v->kind = SMAPS_ANON;
                v->eligible = path.len == 0 || span_eq(path, "[heap]") || span_startswith(path, "[anon:");
        } else {
                v->kind = SMAPS_SHMEM;
                v->eligible = span_startswith(path, "/dev/zero") || span_startswith(path, "/SYSV") ||
                              span_startswith(path, "/memfd:") || span_startswith(path, "/dev/shm/");
        }
        v->valid = true;
        return 0;
}

static bool is_header(Span line)
{
        /* a header starts with hex digits then '-'; field lines with "Name:" */
        size_t i = 0;

        while (i < line.len && ((line.p[i] >= '0' && line.p[i] <= '9') || (line.p[i] >= 'a' && line.p[i] <= 'f')))
                i++;
        return i > 0 && i < line.len && line.p[i] == '-';
}

static void insert_candidate(SmapsRange *ranges, unsigned cap, unsigned *n, const SmapsRange *c)
{
        unsigned pos;

        if (cap == 0)
                return;
        if (*n == cap && ranges[cap - 1].gain >= c->gain)
                return;
        pos = *n < cap ? (*n)++ : cap - 1;
        while (pos > 0 && ranges[pos - 1].gain < c->gain) {
                ranges[pos] = ranges[pos - 1];
                pos--;
        }
        ranges[pos] = *c;
}

static void finish_vma(const Vma *v, const SmapsFilter *f, SmapsRange *ranges, unsigned cap, unsigned *n,
                       SmapsSummary *sum)
{
        uint64_t hp = f->hpage_size ? f->hpage_size : 2u << 20;
        uint64_t huge, astart, aend, size;
        SmapsRange c;

        if (!v->valid)
                return;
        sum->n_vmas++;
        if (!v->eligible || v->hugetlb || (v->kernel_page_kb && v->kernel_page_kb != 4 && v->kernel_page_kb * 1024 >= hp))
                return;
        huge = v->anon_huge + v->shmem_pmd;
        if (v->kind == SMAPS_ANON) {
                sum->anon_rss += v->rss;
                sum->anon_huge += huge;
        } else {
                sum->shmem_rss += v->rss;
                sum->shmem_huge += huge;
        }
        if (v->nohuge) {
                sum->skipped_nohugepage++;
                return;
        }
        astart = (v->start + hp - 1) / hp * hp;
        aend = v->end / hp * hp;
        if (astart < v->start || aend <= astart) {
                sum->skipped_small++;
                return;
        }
        if (huge >= v->rss) {
                sum->skipped_huge++;
                return;
        }
        size = v->end - v->start;
        if (size == 0 || (unsigned __int128) v->rss * 1000 < (unsigned __int128) size * f->min_resident_permille) {
                sum->skipped_sparse++;
                return;
        }
        c = (SmapsRange) {
                .start = astart, .end = aend, .vma_start = v->start, .vma_end = v->end, .kind = v->kind,
                .rss = v->rss, .huge = huge, .gain = v->rss - huge, .advised = v->advised,
        };
        sum->n_candidates++;
        insert_candidate(ranges, cap, n, &c);
}

int smaps_parse_candidates(const char *buf, size_t len, const SmapsFilter *f, SmapsRange *ranges,
                           unsigned cap, unsigned *ret_n, SmapsSummary *ret_sum)
{
        Cursor c = cursor_make(buf, len);
        SmapsSummary sum = { 0 };
        Vma v = { 0 };
        Span line;
        unsigned n = 0;
        int r;

        while (cursor_next_line(&c, &line)) {
                Span key, val;

                if (line.len == 0)
                        continue;
                if (is_header(line)) {
                        finish_vma(&v, f, ranges, cap, &n, &sum);
                        memset(&v, 0, sizeof(v));
                        r = parse_header(line, &v);
                        if (r < 0)
                                return r;
                        continue;
                }
                if (!v.valid || !span_next_token(&line, &key) || key.len < 2 || key.p[key.len - 1] != ':')
                        return -EBADMSG;
                if (span_eq(key, "VmFlags:")) {
                        while (span_next_token(&line, &val)) {
                                if (span_eq(val, "nh"))
                                        v.nohuge = true;
                                else if (span_eq(val, "ht"))
                                        v.hugetlb = true;
                                else if (span_eq(val, "hg"))
                                        v.advised = true;
                        }
                        continue;
                }
                if (!span_next_token(&line, &val))
                        continue; /* e.g. "THPeligible:" with nothing: tolerate */
                {
                        uint64_t x;
                        uint64_t *dst = NULL;

                        if (span_eq(key, "Rss:"))
                                dst = &v.rss;
                        else if (span_eq(key, "AnonHugePages:"))
                                dst = &v.anon_huge;
                        else if (span_eq(key, "ShmemPmdMapped:"))
                                dst = &v.shmem_pmd;
                        else if (span_eq(key, "KernelPageSize:"))
                                dst = &v.kernel_page_kb;
                        if (!dst)
                                continue;
                        r = span_to_u64(val, &x);
                        if (r < 0)
                                return r;
                        if (x > UINT64_MAX / 1024)
                                return -ERANGE;
                        *dst = dst == &v.kernel_page_kb ? x : x * 1024;
                }
        }
        finish_vma(&v, f, ranges, cap, &n, &sum);
        *ret_n = n;
        if (ret_sum)
                *ret_sum = sum;
        return 0;
}

int proc_status_thp_enabled(const char *buf, size_t len)
{
        Cursor c = cursor_make(buf, len);
        Span line, key, val;

        while (cursor_next_line(&c, &line)) {
                if (!span_next_token(&line, &key) || !span_eq(key, "THP_enabled:"))
                        continue;
                if (!span_next_token(&line, &val))
                        return -EBADMSG;
                if (span_eq(val, "0"))
                        return 0;
                if (span_eq(val, "1"))
                        return 1;
                return -EBADMSG;
        }
        return -ENODATA;
}
