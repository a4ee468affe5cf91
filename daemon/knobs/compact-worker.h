/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* One-shot compaction off the event loop thread (daemon/knobs/compact-worker.c).
 *
 * Writing nodeN/compact or vm.compact_memory compacts synchronously in the
 * writer and is only interrupted by a fatal signal (KERNEL.md §3), so one
 * worker thread does it. The queue has one slot: a submission while a job is
 * queued or running is rejected with -EBUSY, so two compactions never run at
 * once. A finished job makes compact_worker_fd() readable (an eventfd: watch
 * it with sd_event_add_io(..., EPOLLIN, ...)), then compact_worker_result()
 * tells how it went and clears the fd. Writes go through the registry's ops,
 * so --dry-run and the fake ops apply. Feed result.error to
 * knob_note_result(reg, result.knob, ...) so permanent errors disable the
 * knob. The worker thread blocks all signals. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/cleanup.h"
#include "knobs/knob.h"

#define COMPACT_ALL_NODES (-1) /* vm.compact_memory */

typedef struct CompactWorker CompactWorker;

typedef struct CompactResult {
        int node;                  /* COMPACT_ALL_NODES for vm.compact_memory */
        char knob[KNOB_NAME_MAX];  /* "node0.compact" */
        int error;                 /* 0 or -errno of the write */
        usec_t duration_usec;      /* CLOCK_MONOTONIC time the write took */
        uint64_t seq;              /* job number, from 1 */
} CompactResult;

/* reg is borrowed (its Root, ops and ops data) and must outlive the worker. */
int compact_worker_new(const KnobRegistry *reg, CompactWorker **ret);
/* Drops a queued job, waits for a running one (compaction cannot be
 * interrupted), joins the thread. */
CompactWorker *compact_worker_free(CompactWorker *w);
DEFINE_TRIVIAL_CLEANUP_FUNC(CompactWorker *, compact_worker_free);

/* The eventfd: readable when a result is waiting. */
int compact_worker_fd(const CompactWorker *w);
/* The knob that compacts node: "node0.compact", "vm.compact_memory" */
void compact_worker_knob_name(int node, char *ret, size_t size);
/* Queues compaction of node (or COMPACT_ALL_NODES). 0, -EBUSY while a job is
 * queued or running, -ECANCELED when the knob is disabled (an earlier
 * permanent error fed through knob_note_result), -EINVAL for a bad node.
 * Call it from the thread that owns the registry. */
int compact_worker_submit(CompactWorker *w, int node);
bool compact_worker_busy(CompactWorker *w);
/* A job is being written now (not merely queued). */
bool compact_worker_running(CompactWorker *w);
/* The result of the last finished job, once: -EAGAIN when none is new.
 * Clears the eventfd. */
int compact_worker_result(CompactWorker *w, CompactResult *ret);
