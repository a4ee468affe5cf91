/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Per-cgroup THP: smaps candidates, the MADV_COLLAPSE engine and its worker
 * thread, the mechanism table, systemd drop-ins. */

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

#include "fragd/macro.h"
#include "fragd/parse-util.h"
#include "fragd/thp-cgroup.h"

#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE 25
#endif
#ifndef PR_SET_THP_DISABLE
#define PR_SET_THP_DISABLE 41
#endif
#ifndef PR_GET_THP_DISABLE
#define PR_GET_THP_DISABLE 42
#endif
#ifndef PR_THP_DISABLE_EXCEPT_ADVISED
#define PR_THP_DISABLE_EXCEPT_ADVISED (1 << 1)
#endif

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

/* ---- collapse engine ----------------------------------------------------------- */

const char *collapse_err_class_name(CollapseErrClass c)
{
        static const char *const n[_COLLAPSE_ERR_MAX] = {
                [COLLAPSE_ERR_EAGAIN] = "eagain", [COLLAPSE_ERR_EBUSY] = "ebusy",
                [COLLAPSE_ERR_ENOMEM] = "enomem", [COLLAPSE_ERR_EINVAL] = "einval",
                [COLLAPSE_ERR_PERM] = "eperm",    [COLLAPSE_ERR_GONE] = "esrch",
                [COLLAPSE_ERR_OTHER] = "other",
        };
        return (unsigned) c < _COLLAPSE_ERR_MAX ? n[c] : NULL;
}

CollapseErrClass collapse_err_class(int err)
{
        switch (err < 0 ? -err : err) {
        case EAGAIN:
                return COLLAPSE_ERR_EAGAIN;
        case EBUSY:
                return COLLAPSE_ERR_EBUSY;
        case ENOMEM:
                return COLLAPSE_ERR_ENOMEM;
        case EINVAL:
                return COLLAPSE_ERR_EINVAL;
        case EPERM:
        case EACCES:
                return COLLAPSE_ERR_PERM;
        case ESRCH:
        case ENOENT:
                return COLLAPSE_ERR_GONE;
        default:
                return COLLAPSE_ERR_OTHER;
        }
}

#define CANDIDATES_PER_PID 64

static void add_failure(CollapseResult *res, int32_t pid, uint64_t start, uint64_t len, int err)
{
        if (res->n_failures < COLLAPSE_MAX_FAILURES)
                res->failures[res->n_failures++] = (CollapseFailure) { pid, start, len, err };
}

static uint64_t smaps_huge_of(const CollapseOps *ops, int32_t pid, const SmapsFilter *f)
{
        _cleanup_free_ char *buf = NULL;
        SmapsRange dummy[1];
        SmapsSummary sum;
        unsigned n;
        size_t len;

        if (ops->read_smaps(ops->userdata, pid, &buf, &len) < 0)
                return 0;
        if (smaps_parse_candidates(buf, len, f, dummy, 0, &n, &sum) < 0)
                return 0;
        return sum.anon_huge + sum.shmem_huge;
}

int collapse_run(const CollapseOps *ops, const CollapseRequest *req, const volatile bool *cancel,
                 CollapseResult *ret)
{
        CollapseResult res = { .cgroup_index = req->cgroup_index };
        SmapsRange *cand;
        uint64_t hp = req->filter.hpage_size ? req->filter.hpage_size : 2u << 20;
        usec_t cpu0 = ops->cpu_now(ops->userdata);
        uint64_t perm_fail = 0, tried = 0;
        bool stop = false;

        size_t n_pids = MIN(req->n_pids, (size_t) COLLAPSE_MAX_PIDS), first = 0;

        cand = calloc(CANDIDATES_PER_PID, sizeof(*cand));
        if (!cand)
                return -ENOMEM;
        /* resume where the last run stopped: rotate the pid list to begin
         * with resume_pid, and skip its addresses below resume_addr */
        for (size_t i = 0; req->resume_pid && i < n_pids; i++)
                if (req->pids[i] == req->resume_pid) {
                        first = i;
                        break;
                }
        for (size_t j = 0; j < n_pids && !stop; j++) {
                _cleanup_free_ char *buf = NULL;
                size_t i = (first + j) % n_pids;
                int32_t pid = req->pids[i];
                uint64_t skip_below = (req->resume_pid && pid == req->resume_pid) ? req->resume_addr : 0;
                SmapsSummary sum;
                unsigned n = 0;
                size_t len;
                int pidfd, r;
                bool touched = false, abort_pid = false;

                if (cancel && *cancel) {
                        res.stopped_cancel = true;
                        break;
                }
                r = ops->read_smaps(ops->userdata, pid, &buf, &len);
                if (r < 0) {
                        res.err_counts[collapse_err_class(r)]++;
                        continue;
                }
                if (smaps_parse_candidates(buf, len, &req->filter, cand, CANDIDATES_PER_PID, &n, &sum) < 0)
                        continue;
                res.pids_scanned++;
                if (n == 0)
                        continue;
                pidfd = ops->pidfd_open(ops->userdata, pid);
                if (pidfd < 0) {
                        res.err_counts[collapse_err_class(pidfd)]++;
                        if (collapse_err_class(pidfd) == COLLAPSE_ERR_PERM) {
                                perm_fail++;
                                tried++;
                        }
                        continue;
                }
                res.huge_before += sum.anon_huge + sum.shmem_huge;
                for (unsigned k = 0; k < n && !stop && !abort_pid; k++) {
                        uint64_t ok = 0;
                        int range_err = 0;

                        for (uint64_t a = cand[k].start; a + hp <= cand[k].end; a += hp) {
                                if (a < skip_below)
                                        continue;
                                if (cancel && *cancel)
                                        res.stopped_cancel = stop = true;
                                else if (req->max_bytes && res.attempted_bytes + hp > req->max_bytes)
                                        res.stopped_cap = stop = true;
                                else if (ops->cpu_now(ops->userdata) - cpu0 >= req->cpu_budget_usec)
                                        res.stopped_budget = stop = true;
                                if (stop) {
                                        res.next_pid = pid;
                                        res.next_addr = a;
                                        break;
                                }
                                res.attempted_bytes += hp;
                                touched = true;
                                tried++;
                                r = ops->collapse(ops->userdata, pidfd, a, hp);
                                if (r >= 0) {
                                        ok += hp;
                                        res.collapsed_bytes += hp;
                                        continue;
                                }
                                res.hpages_failed++;
                                res.err_counts[collapse_err_class(r)]++;
                                range_err = r;
                                if (collapse_err_class(r) == COLLAPSE_ERR_PERM)
                                        perm_fail++;
                                if (collapse_err_class(r) == COLLAPSE_ERR_PERM ||
                                    collapse_err_class(r) == COLLAPSE_ERR_GONE) {
                                        abort_pid = true;
                                        break;
                                }
                        }
                        if (range_err < 0) {
                                res.ranges_failed++;
                                add_failure(&res, pid, cand[k].start, cand[k].end - cand[k].start, range_err);
                        } else if (ok > 0)
                                res.ranges_ok++;
                }
                ops->close_fd(ops->userdata, pidfd);
                if (touched)
                        res.huge_after += smaps_huge_of(ops, pid, &req->filter);
                else
                        res.huge_before -= sum.anon_huge + sum.shmem_huge;
        }
        free(cand);
        res.cpu_usec = ops->cpu_now(ops->userdata) - cpu0;
        if (tried > 0 && perm_fail == tried)
                res.err = -EPERM;
        *ret = res;
        return 0;
}

static int real_pidfd_open(void *userdata, int32_t pid)
{
        long fd = syscall(SYS_pidfd_open, (pid_t) pid, 0);

        return fd < 0 ? negative_errno() : (int) fd;
}

static int real_collapse(void *userdata, int pidfd, uint64_t start, uint64_t len)
{
        struct iovec iov = { .iov_base = (void *) (uintptr_t) start, .iov_len = (size_t) len };
        long r = syscall(SYS_process_madvise, pidfd, &iov, 1UL, MADV_COLLAPSE, 0U);

        return r < 0 ? negative_errno() : 0;
}

static int real_read_smaps(void *userdata, int32_t pid, char **ret_buf, size_t *ret_len)
{
        const Root *root = userdata;
        char path[32];
        int r;

        snprintf(path, sizeof(path), "%d/smaps", (int) pid);
        r = read_file_alloc_at(root->proc_fd, path, ret_buf, ret_len);
        return r == -ENOENT ? -ESRCH : r;
}

static usec_t real_cpu_now(void *userdata)
{
        struct timespec ts;

        if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) < 0)
                return 0;
        return (usec_t) ts.tv_sec * USEC_PER_SEC + (usec_t) ts.tv_nsec / NSEC_PER_USEC;
}

static void real_close_fd(void *userdata, int fd)
{
        (void) close(fd);
}

const CollapseOps collapse_ops_real = {
        .pidfd_open = real_pidfd_open,
        .collapse = real_collapse,
        .read_smaps = real_read_smaps,
        .cpu_now = real_cpu_now,
        .close_fd = real_close_fd,
        .userdata = NULL, /* set to the Root by the caller: copy and fill */
};

bool collapse_capable(void)
{
        struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3, .pid = 0 };
        struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3] = {};

        if (syscall(SYS_capget, &hdr, data) < 0)
                return false;
        return data[CAP_TO_INDEX(CAP_SYS_NICE)].effective & CAP_TO_MASK(CAP_SYS_NICE);
}

/* ---- worker ----------------------------------------------------------------------- */

struct CollapseWorker {
        CollapseOps ops;
        pthread_t thread;
        pthread_mutex_t lock;
        pthread_cond_t cond;
        int efd;
        bool have_request, running, have_result, quit;
        volatile bool cancel;
        CollapseRequest *req;
        CollapseResult result;
};

static void *worker_main(void *arg)
{
        CollapseWorker *w = arg;

        pthread_mutex_lock(&w->lock);
        for (;;) {
                CollapseResult res;
                uint64_t one = 1;

                while (!w->have_request && !w->quit)
                        pthread_cond_wait(&w->cond, &w->lock);
                if (w->quit)
                        break;
                w->have_request = false;
                w->running = true;
                pthread_mutex_unlock(&w->lock);

                if (collapse_run(&w->ops, w->req, &w->cancel, &res) < 0) {
                        memset(&res, 0, sizeof(res));
                        res.cgroup_index = w->req->cgroup_index;
                        res.err = -ENOMEM;
                }

                pthread_mutex_lock(&w->lock);
                w->running = false;
                w->result = res;
                w->have_result = true;
                (void) !write(w->efd, &one, sizeof(one));
        }
        pthread_mutex_unlock(&w->lock);
        return NULL;
}

int collapse_worker_new(const CollapseOps *ops, CollapseWorker **ret)
{
        CollapseWorker *w;
        int r;

        w = calloc(1, sizeof(*w));
        if (!w)
                return -ENOMEM;
        w->ops = *ops;
        w->req = calloc(1, sizeof(*w->req));
        w->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
        if (!w->req || w->efd < 0) {
                r = w->efd < 0 ? negative_errno() : -ENOMEM;
                closep(&w->efd);
                free(w->req);
                free(w);
                return r;
        }
        pthread_mutex_init(&w->lock, NULL);
        pthread_cond_init(&w->cond, NULL);
        r = -pthread_create(&w->thread, NULL, worker_main, w);
        if (r < 0) {
                closep(&w->efd);
                free(w->req);
                free(w);
                return r;
        }
        *ret = w;
        return 0;
}

CollapseWorker *collapse_worker_free(CollapseWorker *w)
{
        if (!w)
                return NULL;
        pthread_mutex_lock(&w->lock);
        w->quit = true;
        w->cancel = true;
        pthread_cond_signal(&w->cond);
        pthread_mutex_unlock(&w->lock);
        (void) pthread_join(w->thread, NULL);
        pthread_mutex_destroy(&w->lock);
        pthread_cond_destroy(&w->cond);
        closep(&w->efd);
        free(w->req);
        free(w);
        return NULL;
}

int collapse_worker_fd(const CollapseWorker *w)
{
        return w->efd;
}

bool collapse_worker_busy(CollapseWorker *w)
{
        bool b;

        pthread_mutex_lock(&w->lock);
        b = w->have_request || w->running;
        pthread_mutex_unlock(&w->lock);
        return b;
}

int collapse_worker_submit(CollapseWorker *w, const CollapseRequest *req)
{
        pthread_mutex_lock(&w->lock);
        if (w->have_request || w->running || w->have_result) {
                pthread_mutex_unlock(&w->lock);
                return -EBUSY;
        }
        *w->req = *req;
        w->cancel = false;
        w->have_request = true;
        pthread_cond_signal(&w->cond);
        pthread_mutex_unlock(&w->lock);
        return 0;
}

int collapse_worker_result(CollapseWorker *w, CollapseResult *ret)
{
        uint64_t v;
        int r = 0;

        (void) !read(w->efd, &v, sizeof(v));
        pthread_mutex_lock(&w->lock);
        if (w->have_result) {
                *ret = w->result;
                w->have_result = false;
                r = 1;
        }
        pthread_mutex_unlock(&w->lock);
        return r;
}

/* ---- mechanisms ------------------------------------------------------------------- */

const char *cgroup_thp_name(CgroupThp t)
{
        switch (t) {
        case CGROUP_THP_INHERIT:
                return "inherit";
        case CGROUP_THP_ALWAYS:
                return "always";
        case CGROUP_THP_MADVISE:
                return "madvise";
        case CGROUP_THP_NEVER:
                return "never";
        }
        return NULL;
}

const char *thp_effect_name(ThpEffect e)
{
        static const char *const n[] = {
                [THP_EFFECT_NOT_APPLICABLE] = "not-applicable", [THP_EFFECT_IN_EFFECT] = "in-effect",
                [THP_EFFECT_PARTIAL] = "partial",               [THP_EFFECT_NOT_IN_EFFECT] = "not-in-effect",
                [THP_EFFECT_UNKNOWN] = "unknown",
        };
        return (unsigned) e < ELEMENTSOF(n) ? n[e] : NULL;
}

static bool is_service_unit(const char *cgroup_path)
{
        const char *last = strrchr(cgroup_path, '/');
        size_t n;

        last = last ? last + 1 : cgroup_path;
        n = strlen(last);
        return n > 8 && strcmp(last + n - 8, ".service") == 0;
}

static bool none_applicable(const ThpEnv *env, CgroupThp thp, bool collapse, const char *p)
{
        return true;
}

static void none_assess(const ThpEnv *env, CgroupThp thp, const ThpObserved *o, ThpStatus *ret)
{
        ret->effect = THP_EFFECT_NOT_APPLICABLE;
        if (thp == CGROUP_THP_ALWAYS)
                snprintf(ret->detail, sizeof(ret->detail),
                         "thp=always without collapse: the global transparent_hugepage mode governs this cgroup");
        else
                snprintf(ret->detail, sizeof(ret->detail), "no per-cgroup THP intent: global mode governs");
}

static bool collapse_applicable(const ThpEnv *env, CgroupThp thp, bool collapse, const char *p)
{
        return thp == CGROUP_THP_ALWAYS && collapse;
}

static void collapse_assess(const ThpEnv *env, CgroupThp thp, const ThpObserved *o, ThpStatus *ret)
{
        if (!env->can_collapse) {
                ret->effect = THP_EFFECT_NOT_IN_EFFECT;
                snprintf(ret->detail, sizeof(ret->detail),
                         "collapse needs CAP_SYS_NICE (process_madvise): fragd does not have it");
        } else if (!o->present || o->n_procs == 0) {
                ret->effect = THP_EFFECT_UNKNOWN;
                snprintf(ret->detail, sizeof(ret->detail), "no processes to collapse");
        } else if (o->procs_thp_disabled > 0 && o->procs_thp_disabled == o->n_procs) {
                ret->effect = THP_EFFECT_NOT_IN_EFFECT;
                snprintf(ret->detail, sizeof(ret->detail),
                         "every member has THP disabled by prctl: MADV_COLLAPSE is refused for them");
        } else {
                ret->effect = o->collapsed_bytes_total > 0 || o->collapse_running ? THP_EFFECT_IN_EFFECT
                                                                                   : THP_EFFECT_PARTIAL;
                snprintf(ret->detail, sizeof(ret->detail),
                         "MADV_COLLAPSE in calm periods; %llu bytes collapsed so far; anon_thp %u.%u%% of anon",
                         (unsigned long long) o->collapsed_bytes_total, ret->anon_thp_permille / 10,
                         ret->anon_thp_permille % 10);
        }
}

static bool memorythp_applicable(const ThpEnv *env, CgroupThp thp, bool collapse, const char *p)
{
        return (thp == CGROUP_THP_NEVER || thp == CGROUP_THP_MADVISE) &&
               env->systemd_version >= SYSTEMD_MEMORYTHP_MIN_VERSION && is_service_unit(p);
}

static bool launcher_applicable(const ThpEnv *env, CgroupThp thp, bool collapse, const char *p)
{
        return thp == CGROUP_THP_NEVER || thp == CGROUP_THP_MADVISE;
}

/* Both drop-in mechanisms act through prctl at exec: judge by the members. */
static void prctl_assess(const ThpEnv *env, CgroupThp thp, const ThpObserved *o, ThpStatus *ret)
{
        unsigned known = o->procs_thp_disabled + o->procs_thp_enabled;

        if (thp == CGROUP_THP_MADVISE && !env->kernel_except_advised) {
                ret->effect = THP_EFFECT_NOT_IN_EFFECT;
                snprintf(ret->detail, sizeof(ret->detail),
                         "thp=madvise needs PR_THP_DISABLE_EXCEPT_ADVISED (Linux 6.18+); this kernel refuses it");
                return;
        }
        if (!o->present || o->n_procs == 0 || known == 0) {
                ret->effect = THP_EFFECT_UNKNOWN;
                snprintf(ret->detail, sizeof(ret->detail), "%s",
                         o->n_procs == 0 ? "no members to check"
                                         : "members show no THP_enabled line: cannot check");
                return;
        }
        if (thp == CGROUP_THP_MADVISE) {
                /* THP_enabled shows only the "completely" flag: except-advised reads 1 */
                ret->effect = THP_EFFECT_UNKNOWN;
                snprintf(ret->detail, sizeof(ret->detail),
                         "except-advised mode is invisible in /proc/PID/status (THP_enabled stays 1); "
                         "anon_thp is %u.%u%% of anon",
                         ret->anon_thp_permille / 10, ret->anon_thp_permille % 10);
                return;
        }
        if (o->procs_thp_disabled == known)
                ret->effect = THP_EFFECT_IN_EFFECT;
        else if (o->procs_thp_disabled > 0)
                ret->effect = THP_EFFECT_PARTIAL;
        else
                ret->effect = THP_EFFECT_NOT_IN_EFFECT;
        snprintf(ret->detail, sizeof(ret->detail),
                 "%u of %u members run with THP disabled%s", o->procs_thp_disabled, known,
                 ret->effect == THP_EFFECT_IN_EFFECT ? ""
                                                     : "; processes started before the drop-in keep their mode until the unit restarts");
}

static const ThpMechanismOps mech_ops[_THP_MECH_MAX] = {
        [THP_MECH_NONE] = { THP_MECH_NONE, "none", none_applicable, none_assess },
        [THP_MECH_COLLAPSE] = { THP_MECH_COLLAPSE, "collapse", collapse_applicable, collapse_assess },
        [THP_MECH_LAUNCHER] = { THP_MECH_LAUNCHER, "launcher", launcher_applicable, prctl_assess },
        [THP_MECH_SYSTEMD_MEMORYTHP] = { THP_MECH_SYSTEMD_MEMORYTHP, "systemd-memorythp", memorythp_applicable,
                                         prctl_assess },
};

const ThpMechanismOps *thp_mechanism_ops(ThpMechanism m)
{
        return (unsigned) m < _THP_MECH_MAX ? &mech_ops[m] : NULL;
}

const char *thp_mechanism_name(ThpMechanism m)
{
        return (unsigned) m < _THP_MECH_MAX ? mech_ops[m].name : NULL;
}

const ThpMechanismOps *thp_mechanism_select(const ThpEnv *env, CgroupThp thp, bool collapse, const char *cgroup_path)
{
        static const ThpMechanism order[] = { THP_MECH_SYSTEMD_MEMORYTHP, THP_MECH_LAUNCHER, THP_MECH_COLLAPSE };

        for (size_t i = 0; i < ELEMENTSOF(order); i++)
                if (mech_ops[order[i]].applicable(env, thp, collapse, cgroup_path))
                        return &mech_ops[order[i]];
        return &mech_ops[THP_MECH_NONE];
}

void thp_cgroup_status(const ThpEnv *env, CgroupThp thp, bool collapse, const char *cgroup_path,
                       const ThpObserved *obs, ThpStatus *ret)
{
        const ThpMechanismOps *m = thp_mechanism_select(env, thp, collapse, cgroup_path);
        ThpStatus st = { .mechanism = m->id, .mechanism_name = m->name, .intent = thp };

        if (obs->have_mem && obs->anon > 0) {
                unsigned __int128 pm = (unsigned __int128) obs->anon_thp * 1000 / obs->anon;

                st.anon_thp_permille = pm > 1000 ? 1000 : (uint32_t) pm;
        }
        m->assess(env, thp, obs, &st);
        *ret = st;
}

/* ---- environment ------------------------------------------------------------------ */

int systemd_version_parse(const char *buf, size_t len, unsigned *ret)
{
        Cursor c = cursor_make(buf, len);
        Span line, tok;
        uint64_t v;

        if (!cursor_next_line(&c, &line) || !span_next_token(&line, &tok) || !span_eq(tok, "systemd") ||
            !span_next_token(&line, &tok))
                return -EBADMSG;
        if (span_to_u64(tok, &v) < 0 || v == 0 || v > 100000)
                return -EBADMSG;
        *ret = (unsigned) v;
        return 0;
}

int systemd_version_detect(unsigned *ret)
{
        int pipefd[2];
        pid_t pid;
        char buf[512];
        size_t len = 0;
        int status;

        if (pipe2(pipefd, O_CLOEXEC) < 0)
                return negative_errno();
        pid = fork();
        if (pid < 0) {
                int r = negative_errno();
                close(pipefd[0]);
                close(pipefd[1]);
                return r;
        }
        if (pid == 0) {
                int devnull = open("/dev/null", O_RDWR);

                (void) dup2(pipefd[1], STDOUT_FILENO);
                if (devnull >= 0) {
                        (void) dup2(devnull, STDIN_FILENO);
                        (void) dup2(devnull, STDERR_FILENO);
                }
                execlp("systemctl", "systemctl", "--version", (char *) NULL);
                _exit(127);
        }
        close(pipefd[1]);
        for (;;) {
                ssize_t n = read(pipefd[0], buf + len, sizeof(buf) - 1 - len);

                if (n < 0 && errno == EINTR)
                        continue;
                if (n <= 0)
                        break;
                len += (size_t) n;
                if (len >= sizeof(buf) - 1)
                        break;
        }
        close(pipefd[0]);
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
                ;
        if (!WIFEXITED(status) || WEXITSTATUS(status) == 127)
                return -ENOENT;
        return systemd_version_parse(buf, len, ret);
}

bool thp_except_advised_supported(void)
{
        pid_t pid = fork();
        int status;

        if (pid < 0)
                return false;
        if (pid == 0)
                _exit(prctl(PR_SET_THP_DISABLE, 1, PR_THP_DISABLE_EXCEPT_ADVISED, 0, 0) == 0 ? 0 : 1);
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
                ;
        return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

void thp_env_detect(ThpEnv *env, const char *launcher_path)
{
        memset(env, 0, sizeof(*env));
        if (systemd_version_detect(&env->systemd_version) < 0)
                env->systemd_version = 0;
        env->kernel_except_advised = thp_except_advised_supported();
        env->can_collapse = collapse_capable();
        snprintf(env->launcher_path, sizeof(env->launcher_path), "%s",
                 launcher_path ? launcher_path : "/usr/local/bin/fragd-thp-exec");
}

/* ---- drop-ins ---------------------------------------------------------------------- */

int cgroup_unit_name(const char *cgroup_path, char *ret, size_t size)
{
        static const char *const suffixes[] = { ".service", ".scope", ".slice", ".socket", ".mount", ".swap" };
        const char *last = strrchr(cgroup_path, '/');
        size_t n;

        last = last ? last + 1 : cgroup_path;
        n = strlen(last);
        for (size_t i = 0; i < ELEMENTSOF(suffixes); i++) {
                size_t s = strlen(suffixes[i]);

                if (n > s && strcmp(last + n - s, suffixes[i]) == 0) {
                        if (n >= size)
                                return -ENAMETOOLONG;
                        memcpy(ret, last, n + 1);
                        return 0;
                }
        }
        return -EINVAL;
}

typedef struct Out {
        char *buf;
        size_t size, len;
        bool overflow;
} Out;

_printf_(2, 3) static void out_printf(Out *o, const char *fmt, ...)
{
        va_list ap;
        int n;

        if (o->overflow)
                return;
        va_start(ap, fmt);
        n = vsnprintf(o->buf + o->len, o->size - o->len, fmt, ap);
        va_end(ap);
        if (n < 0 || (size_t) n >= o->size - o->len) {
                o->overflow = true;
                return;
        }
        o->len += (size_t) n;
}

static void out_arg(Out *o, const char *a)
{
        bool quote = *a == '\0' || strpbrk(a, " \t\n\"'\\;") != NULL;

        if (quote)
                out_printf(o, "\"");
        for (const char *p = a; *p; p++) {
                switch (*p) {
                case '%':
                        out_printf(o, "%%%%");
                        break;
                case '$':
                        out_printf(o, "$$");
                        break;
                case '"':
                case '\\':
                        out_printf(o, "\\%c", *p);
                        break;
                case '\n':
                        out_printf(o, "\\n");
                        break;
                default:
                        out_printf(o, "%c", *p);
                }
        }
        if (quote)
                out_printf(o, "\"");
}

int exec_command_render(const char *path, const char *const *argv, size_t argc, bool ignore_failure,
                        char *buf, size_t size)
{
        Out o = { buf, size, 0, false };

        if (size == 0)
                return -ENOBUFS;
        buf[0] = '\0';
        if (ignore_failure)
                out_printf(&o, "-");
        out_arg(&o, path);
        for (size_t i = 1; i < argc; i++) {
                out_printf(&o, " ");
                out_arg(&o, argv[i]);
        }
        return o.overflow ? -ENOBUFS : (int) o.len;
}

int thp_dropin_render(const char *unit, CgroupThp thp, unsigned systemd_version, const char *launcher_path,
                      const char *const *exec_start, size_t n_exec_start, char *buf, size_t size,
                      ThpMechanism *ret_mech)
{
        Out o = { buf, size, 0, false };
        const char *mode;
        bool memorythp = systemd_version >= SYSTEMD_MEMORYTHP_MIN_VERSION;

        if (thp != CGROUP_THP_NEVER && thp != CGROUP_THP_MADVISE)
                return -EINVAL;
        if (!memorythp && n_exec_start == 0)
                return -ENODATA;
        if (size == 0)
                return -ENOBUFS;
        mode = thp == CGROUP_THP_NEVER ? "never" : "madvise";
        out_printf(&o, "# Generated by fragd thp-dropin for %s: thp=%s.\n", unit, mode);
        out_printf(&o, "# Install as /etc/systemd/system/%s.d/50-fragd-thp.conf, then\n", unit);
        out_printf(&o, "#   systemctl daemon-reload && systemctl restart %s\n", unit);
        out_printf(&o, "# It applies when the unit (re)starts: running processes keep their\n"
                       "# current THP mode until restarted.\n");
        if (memorythp) {
                out_printf(&o, "# systemd %u has MemoryTHP= (prctl(PR_SET_THP_DISABLE) at exec).\n",
                           systemd_version);
                out_printf(&o, "[Service]\nMemoryTHP=%s\n", thp == CGROUP_THP_NEVER ? "disable" : "madvise");
                if (ret_mech)
                        *ret_mech = THP_MECH_SYSTEMD_MEMORYTHP;
                return o.overflow ? -ENOBUFS : (int) o.len;
        }
        if (systemd_version > 0)
                out_printf(&o, "# systemd %u has no MemoryTHP= (needs %u): the unit's commands are\n",
                           systemd_version, SYSTEMD_MEMORYTHP_MIN_VERSION);
        else
                out_printf(&o, "# systemd version unknown, MemoryTHP= not assumed: the unit's commands are\n");
        out_printf(&o, "# wrapped with fragd-thp-exec, which calls prctl(PR_SET_THP_DISABLE%s)\n"
                       "# and then execs the original command (inherited by its children).\n",
                   thp == CGROUP_THP_MADVISE ? ", PR_THP_DISABLE_EXCEPT_ADVISED" : "");
        if (thp == CGROUP_THP_MADVISE)
                out_printf(&o, "# madvise mode needs Linux 6.18+; on older kernels the launcher fails\n"
                               "# unless --fallback=never is added (THP fully disabled instead).\n");
        out_printf(&o, "# Re-generate after changing the unit's ExecStart=.\n");
        out_printf(&o, "[Service]\nExecStart=\n");
        for (size_t i = 0; i < n_exec_start; i++) {
                const char *cmd = exec_start[i];
                size_t np = strspn(cmd, "-@:+!");

                out_printf(&o, "ExecStart=%.*s", (int) np, cmd);
                out_arg(&o, launcher_path);
                out_printf(&o, " --mode %s -- %s\n", mode, cmd + np);
        }
        if (ret_mech)
                *ret_mech = THP_MECH_LAUNCHER;
        return o.overflow ? -ENOBUFS : (int) o.len;
}

/* ExecStart of a service over D-Bus: a(sasbttttuii) */
static int unit_exec_start(const char *unit, char ***ret, size_t *ret_n)
{
        sd_bus *bus = NULL;
        sd_bus_message *reply = NULL;
        sd_bus_error error = SD_BUS_ERROR_NULL;
        char *path = NULL, **lines = NULL;
        size_t n = 0;
        int r;

        r = sd_bus_open_system(&bus);
        if (r < 0) {
                r = -ENOTCONN; /* no system bus: nothing to ask (container, chroot, no D-Bus) */
                goto out;
        }
        r = sd_bus_path_encode("/org/freedesktop/systemd1/unit", unit, &path);
        if (r < 0)
                goto out;
        r = sd_bus_get_property(bus, "org.freedesktop.systemd1", path, "org.freedesktop.systemd1.Service",
                                "ExecStart", &error, &reply, "a(sasbttttuii)");
        if (r < 0)
                goto out;
        r = sd_bus_message_enter_container(reply, 'a', "(sasbttttuii)");
        if (r < 0)
                goto out;
        while ((r = sd_bus_message_enter_container(reply, 'r', "sasbttttuii")) > 0) {
                const char *bin;
                char **argv = NULL, **nl, line[4096];
                int ignore;
                size_t argc = 0;

                r = sd_bus_message_read(reply, "s", &bin);
                if (r >= 0)
                        r = sd_bus_message_read_strv(reply, &argv);
                if (r >= 0)
                        r = sd_bus_message_read(reply, "b", &ignore);
                if (r >= 0)
                        r = sd_bus_message_skip(reply, "ttttuii");
                if (r >= 0)
                        r = sd_bus_message_exit_container(reply);
                while (argv && argv[argc])
                        argc++;
                if (r >= 0)
                        r = exec_command_render(bin, (const char *const *) argv, argc, ignore, line, sizeof(line));
                for (size_t i = 0; i < argc; i++)
                        free(argv[i]);
                free(argv);
                if (r < 0)
                        goto out;
                nl = realloc(lines, (n + 1) * sizeof(*nl));
                if (!nl) {
                        r = -ENOMEM;
                        goto out;
                }
                lines = nl;
                lines[n] = strdup(line);
                if (!lines[n]) {
                        r = -ENOMEM;
                        goto out;
                }
                n++;
        }
        if (r >= 0)
                r = sd_bus_message_exit_container(reply);
out:
        if (r >= 0) {
                *ret = lines;
                *ret_n = n;
                lines = NULL;
                r = 0;
        }
        for (size_t i = 0; lines && i < n; i++)
                free(lines[i]);
        free(lines);
        free(path);
        sd_bus_error_free(&error);
        sd_bus_message_unref(reply);
        sd_bus_flush_close_unref(bus);
        return r;
}

int thp_dropin_print(const char *unit, const char *mode, const char *launcher_path, FILE *f)
{
        _cleanup_free_ char *buf = NULL;
        char **lines = NULL;
        size_t n = 0, size = 65536;
        unsigned version = 0;
        CgroupThp thp;
        int r;

        if (strcmp(mode, "never") == 0)
                thp = CGROUP_THP_NEVER;
        else if (strcmp(mode, "madvise") == 0)
                thp = CGROUP_THP_MADVISE;
        else
                return -EINVAL;
        if (!strchr(unit, '.'))
                return -EINVAL;
        if (systemd_version_detect(&version) < 0)
                version = 0;
        if (version < SYSTEMD_MEMORYTHP_MIN_VERSION) {
                r = unit_exec_start(unit, &lines, &n);
                if (r < 0)
                        return r;
        }
        buf = malloc(size);
        if (!buf) {
                r = -ENOMEM;
                goto out;
        }
        r = thp_dropin_render(unit, thp, version, launcher_path ? launcher_path : "/usr/local/bin/fragd-thp-exec",
                              (const char *const *) lines, n, buf, size, NULL);
        if (r >= 0) {
                fputs(buf, f);
                r = 0;
        }
out:
        for (size_t i = 0; i < n; i++)
                free(lines[i]);
        free(lines);
        return r;
}
