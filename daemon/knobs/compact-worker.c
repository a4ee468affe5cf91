/* SPDX-License-Identifier: GPL-2.0-or-later */
/* One-shot compaction on a worker thread; see daemon/knobs/compact-worker.h. */

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "core/cleanup.h"
#include "core/log.h"
#include "knobs/compact-worker.h"

struct CompactWorker {
        const KnobRegistry *reg;
        const Root *root;
        const KnobOps *ops;
        void *ops_data;
        pthread_t thread;
        bool thread_started;
        int efd;

        pthread_mutex_t lock;
        pthread_cond_t cond;
        bool stop;
        bool pending, running, have_result;
        Knob job;
        int job_node;
        uint64_t seq;
        CompactResult result;
};

static usec_t now_mono_usec(void)
{
        struct timespec ts;

        (void) clock_gettime(CLOCK_MONOTONIC, &ts);
        return (usec_t) ts.tv_sec * USEC_PER_SEC + (usec_t) ts.tv_nsec / NSEC_PER_USEC;
}

static void *worker_main(void *arg)
{
        CompactWorker *w = arg;

        pthread_mutex_lock(&w->lock);
        for (;;) {
                Knob k;
                int node, r;
                uint64_t seq, one = 1;
                usec_t t0, t1;

                while (!w->pending && !w->stop)
                        pthread_cond_wait(&w->cond, &w->lock);
                if (w->stop)
                        break;
                k = w->job;
                node = w->job_node;
                seq = w->seq;
                w->pending = false;
                w->running = true;
                pthread_mutex_unlock(&w->lock);

                t0 = now_mono_usec();
                r = w->ops->write(&k, "1"); /* compact_memory must be "1"; nodeN/compact ignores it */
                t1 = now_mono_usec();

                pthread_mutex_lock(&w->lock);
                w->result = (CompactResult) {
                        .node = node,
                        .error = r < 0 ? r : 0,
                        .duration_usec = t1 - t0,
                        .seq = seq,
                };
                snprintf(w->result.knob, sizeof(w->result.knob), "%s", k.name);
                w->running = false;
                w->have_result = true;
                /* an eventfd write of 1 cannot fail short of overflow */
                if (write(w->efd, &one, sizeof(one)) < 0)
                        log_debug_errno(errno, "Failed to signal the compaction eventfd: %m");
        }
        pthread_mutex_unlock(&w->lock);
        return NULL;
}

int compact_worker_new(const KnobRegistry *reg, CompactWorker **ret)
{
        CompactWorker *w;
        sigset_t all, old;
        int r;

        w = calloc(1, sizeof(*w));
        if (!w)
                return -ENOMEM;
        w->reg = reg;
        w->root = knob_registry_root(reg);
        w->ops = knob_registry_ops(reg);
        w->ops_data = knob_registry_ops_data(reg);
        w->efd = -1;
        pthread_mutex_init(&w->lock, NULL);
        pthread_cond_init(&w->cond, NULL);
        w->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
        if (w->efd < 0) {
                r = negative_errno();
                compact_worker_free(w);
                return r;
        }
        /* the thread inherits a mask with every signal blocked */
        sigfillset(&all);
        pthread_sigmask(SIG_SETMASK, &all, &old);
        r = -pthread_create(&w->thread, NULL, worker_main, w);
        pthread_sigmask(SIG_SETMASK, &old, NULL);
        if (r < 0) {
                compact_worker_free(w);
                return r;
        }
        w->thread_started = true;
        *ret = w;
        return 0;
}

CompactWorker *compact_worker_free(CompactWorker *w)
{
        if (!w)
                return NULL;
        if (w->thread_started) {
                pthread_mutex_lock(&w->lock);
                w->stop = true;
                if (w->pending)
                        log_debug("Dropping a queued compaction of %s", w->job.name);
                w->pending = false;
                pthread_cond_signal(&w->cond);
                pthread_mutex_unlock(&w->lock);
                pthread_join(w->thread, NULL);
        }
        closep(&w->efd);
        pthread_cond_destroy(&w->cond);
        pthread_mutex_destroy(&w->lock);
        free(w);
        return NULL;
}

int compact_worker_fd(const CompactWorker *w)
{
        return w->efd;
}

bool compact_worker_running(CompactWorker *w)
{
        bool running;

        pthread_mutex_lock(&w->lock);
        running = w->running;
        pthread_mutex_unlock(&w->lock);
        return running;
}

bool compact_worker_busy(CompactWorker *w)
{
        bool busy;

        pthread_mutex_lock(&w->lock);
        busy = w->pending || w->running;
        pthread_mutex_unlock(&w->lock);
        return busy;
}

void compact_worker_knob_name(int node, char *ret, size_t size)
{
        if (node == COMPACT_ALL_NODES)
                snprintf(ret, size, "vm.compact_memory");
        else
                snprintf(ret, size, "node%d.compact", node);
}

int compact_worker_submit(CompactWorker *w, int node)
{
        char name[KNOB_NAME_MAX];
        Knob k;
        int r = 0;

        if (node < COMPACT_ALL_NODES || node >= 1 << 16)
                return -EINVAL;
        compact_worker_knob_name(node, name, sizeof(name));
        r = knob_init(&k, w->root, name, w->ops_data);
        if (r < 0)
                return r;
        if (knob_is_disabled(w->reg, name))
                return -ECANCELED;

        pthread_mutex_lock(&w->lock);
        if (w->pending || w->running)
                r = -EBUSY;
        else {
                w->job = k;
                w->job_node = node;
                w->seq++;
                w->pending = true;
                pthread_cond_signal(&w->cond);
        }
        pthread_mutex_unlock(&w->lock);
        if (r == 0)
                log_debug("Compaction of %s queued", name);
        return r;
}

int compact_worker_result(CompactWorker *w, CompactResult *ret)
{
        uint64_t v;
        int r = -EAGAIN;

        /* clear the eventfd first: a completion after this leaves it readable */
        if (read(w->efd, &v, sizeof(v)) < 0 && errno != EAGAIN)
                return negative_errno();
        pthread_mutex_lock(&w->lock);
        if (w->have_result) {
                *ret = w->result;
                w->have_result = false;
                r = 0;
        }
        pthread_mutex_unlock(&w->lock);
        return r;
}
