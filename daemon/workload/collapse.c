/* SPDX-License-Identifier: GPL-2.0-or-later */
/* MADV_COLLAPSE into a workload: the engine (budgets, resume cursor, per-page
 * errno) and its worker thread. Split from thp-cgroup.c. */

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

#include "core/cleanup.h"
#include "core/missing-thp.h"
#include "core/parse-util.h"
#include "fragd/macro.h"
#include "workload/thp-cgroup.h"

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
