/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* Taskstats over generic netlink (KERNEL.md §7), via libnl-genl-3: per
 * process direct compaction / direct reclaim / thrashing delay.
 *
 * Two sockets: a query socket (TASKSTATS_CMD_GET with TGID, synchronous,
 * short) and an exit-listener socket registered for a CPU list, which the
 * kernel unicasts a record to on every task exit. Both need CAP_NET_ADMIN;
 * the listener also needs the initial user+pid namespaces.
 *
 * Wiring: sd_event_add_io(e, NULL, taskstats_exit_fd(t), EPOLLIN, cb, ...);
 * in cb call taskstats_exit_receive() until it returns 0; -ENOBUFS means
 * exit records were lost (the totals of those processes fall back to their
 * last query). libnl's -NLE_* codes are converted to -errno here, once.
 *
 * struct taskstats is versioned: fields are used only when the record's
 * version has them AND they lie inside the attribute the kernel sent (older
 * structs are copied into a zeroed one). Version 15 moved fields mid-struct
 * (an ABI break fixed by v16): such records are refused with -EPROTO. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/root.h"

#define TASKSTATS_COMM_MAX 32

enum {
        TS_HAVE_PID = 1u << 0,       /* ac_pid, ac_ppid, comm, exitcode */
        TS_HAVE_RECLAIM = 1u << 1,   /* freepages_* */
        TS_HAVE_THRASHING = 1u << 2, /* thrashing_* */
        TS_HAVE_COMPACT = 1u << 3,   /* compact_* (v11+, 5.17) */
        TS_HAVE_TGID = 1u << 4,      /* ac_tgid (v12+) */
        TS_HAVE_CPU_DELAY = 1u << 5, /* cpu_count/cpu_delay_total */
};

typedef struct TaskstatsRecord {
        bool aggr_tgid;  /* TASKSTATS_TYPE_AGGR_TGID: whole thread group */
        uint32_t id;     /* the pid or tgid the record is for */
        uint16_t version;
        unsigned have;   /* TS_HAVE_* */
        uint32_t ac_pid, ac_ppid, ac_tgid; /* ac_tgid 0 when absent */
        uint32_t exitcode;
        char comm[TASKSTATS_COMM_MAX + 1];
        uint64_t btime64;                  /* start, seconds since epoch */
        uint64_t cpu_count, cpu_delay_ns;
        uint64_t reclaim_count, reclaim_delay_ns;     /* freepages_* */
        uint64_t thrashing_count, thrashing_delay_ns;
        uint64_t compact_count, compact_delay_ns;
} TaskstatsRecord;

typedef struct TaskstatsReply {
        unsigned n; /* an exit of a thread group's last task carries two */
        TaskstatsRecord rec[2];
} TaskstatsReply;

/* Pure. buf/len: one struct taskstats as carried in TASKSTATS_TYPE_STATS.
 * -EBADMSG (too short for version), -EPROTO (version 15). */
int taskstats_parse_stats(const void *buf, size_t len, TaskstatsRecord *ret);

/* Pure. payload/len: a generic netlink message body (struct genlmsghdr and
 * the attributes), i.e. what follows the nlmsghdr. -EBADMSG when malformed,
 * -ENOMSG when no record is inside, -EPROTO for a version 15 struct. */
int taskstats_parse_reply(const void *payload, size_t len, TaskstatsReply *ret);

typedef struct Taskstats Taskstats;

/* Query socket. -ENOENT when the kernel has no TASKSTATS family. */
int taskstats_open(Taskstats **ret);
Taskstats *taskstats_free(Taskstats *t); /* deregisters the listener */

/* TASKSTATS_CMD_GET with ATTR_TGID (tgid = true) or ATTR_PID. -ESRCH: gone;
 * -EPERM: no CAP_NET_ADMIN. */
int taskstats_query(Taskstats *t, bool tgid, uint32_t id, TaskstatsRecord *ret);

/* Opens the exit-listener socket and registers it for cpumask ("0-3").
 * -EINVAL outside the initial namespaces (the kernel's answer), -EPERM. */
int taskstats_listen(Taskstats *t, const char *cpumask);
int taskstats_exit_fd(const Taskstats *t); /* -1 when not listening */
/* 1 and *ret when a record arrived, 0 when none pending, -ENOBUFS when the
 * kernel dropped records, other -errno. Non-blocking. */
int taskstats_exit_receive(Taskstats *t, TaskstatsReply *ret);
uint64_t taskstats_exit_lost(const Taskstats *t);
/* Highest struct version seen so far (0 before any record). */
uint16_t taskstats_version_seen(const Taskstats *t);

/* <root>/sys/devices/system/cpu/online, e.g. "0-3" (newline stripped). */
int online_cpus_read(const Root *root, char *ret, size_t size);

/* kernel.task_delayacct: 1 on, 0 off, -ENOENT when the sysctl does not exist
 * (before 5.14 it did not; delay accounting was then on when compiled in). */
int delayacct_read(const Root *root, int *ret);

/* libnl -NLE_* (negative or positive) to -errno. */
int nlerr_to_errno(int nlerr);
