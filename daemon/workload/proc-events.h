/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* Proc connector (KERNEL.md §7): fork/exec/exit notifications that keep the
 * watched-process set current without rescanning cgroup.procs every tick.
 *
 * Wiring: sd_event_add_io(e, NULL, proc_events_fd(p), EPOLLIN, cb, ...); in cb
 * call proc_events_receive() until it returns 0. -ENOBUFS means events were
 * lost (socket overrun): rescan membership. Only works in the initial user
 * and pid namespaces (requests from elsewhere are silently ignored by the
 * kernel, so proc_events_open() checks first and returns -EPERM). */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum ProcEventType {
        PROC_EV_NONE,  /* an ack (ack_err set) or an event fragd does not use */
        PROC_EV_FORK,  /* pid/tgid: the child; parent_pid/parent_tgid */
        PROC_EV_EXEC,  /* pid/tgid */
        PROC_EV_EXIT,  /* pid/tgid, exit_code, exit_signal, parent_* (when present) */
        PROC_EV_OTHER, /* uid/gid/sid/ptrace/comm/coredump: pid/tgid */
} ProcEventType;

typedef struct ProcEvent {
        ProcEventType type;
        uint32_t what; /* the kernel's PROC_EVENT_* value */
        uint32_t cpu;
        uint64_t timestamp_ns;
        uint32_t seq, ack; /* cn_msg seq/ack: matches acks to requests */
        int32_t pid, tgid;
        int32_t parent_pid, parent_tgid; /* fork; exit on 4.18+ (else -1) */
        uint32_t exit_code, exit_signal;
        int32_t ack_err; /* PROC_EV_NONE: errno the kernel acked with (0 ok) */
} ProcEvent;

/* Decodes one netlink datagram from the connector socket (nlmsghdr + cn_msg
 * + struct proc_event). Pure. 0 and *ret set; -ENOMSG for a datagram that is
 * valid netlink but not a proc event (other connector id, NLMSG_NOOP...);
 * -EBADMSG when malformed or truncated. */
int proc_event_decode(const void *buf, size_t len, ProcEvent *ret);

/* Builds the LISTEN request into buf: with filter (6.6+: struct proc_input,
 * fork|exec|exit only) or the plain op. seq is also the ack cookie: the
 * kernel's ack carries ack == seq + 1. Returns its length. Pure. */
int proc_event_build_listen(void *buf, size_t size, uint32_t seq, bool filter);

typedef struct ProcEvents ProcEvents;

/* Opens, binds CN_IDX_PROC and subscribes; waits briefly for the kernel's
 * ack. -EPERM outside the initial namespaces or without permission,
 * -EPROTONOSUPPORT/-ENOENT without CONFIG_PROC_EVENTS, -ETIMEDOUT without
 * an ack. */
int proc_events_open(ProcEvents **ret);
ProcEvents *proc_events_free(ProcEvents *p);
int proc_events_fd(const ProcEvents *p);
bool proc_events_filtered(const ProcEvents *p); /* filter requested (effective on 6.6+) */
/* 1 and *ret when an event was read, 0 when none is pending, -ENOBUFS when
 * the kernel dropped events (rescan), other -errno. Non-blocking. */
int proc_events_receive(ProcEvents *p, ProcEvent *ret);
/* Counters since open. */
uint64_t proc_events_lost(const ProcEvents *p);

/* In the initial user and pid namespaces? (proc connector, taskstats
 * listeners). Reads /proc/self/ns inode numbers. */
bool in_initial_namespaces(void);
