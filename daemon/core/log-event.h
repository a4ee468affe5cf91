/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* Events: the log messages an operator filters on (a knob raised, lowered,
 * restored or yielded, a back-off, a rollback, a one-shot compaction, the
 * learned reserve changed, a knob held and no longer held). Under journald
 * each is one structured entry sent with sd_journal_sendv(): MESSAGE,
 * PRIORITY, a fixed MESSAGE_ID per kind (explained by systemd/fragd.catalog:
 * journalctl -x), FRAGD_EVENT and the FRAGD_KNOB, FRAGD_NODE, FRAGD_FROM,
 * FRAGD_TO, FRAGD_REASON, FRAGD_HOLD fields that apply. Elsewhere the same
 * text goes to stderr through log_internal(), exactly as a log_*() call
 * would write it.
 *
 * "Under journald": $JOURNAL_STREAM names stderr (log_journal_stream_matches),
 * or fragd is a service's own process (systemd's $INVOCATION_ID set, parent
 * pid 1) and journald's socket exists (StandardError= not the journal).
 * A child of a service that inherits the environment, with stderr redirected,
 * keeps writing text. */

#include <stdbool.h>
#include <sys/uio.h>

#include "core/log.h"

typedef enum LogEvent {
        LOG_EVENT_NONE = -1, /* the text only, as log_internal() writes it (a dry run changes nothing) */
        LOG_EVENT_KNOB_RAISED,
        LOG_EVENT_KNOB_LOWERED,
        LOG_EVENT_KNOB_RESTORED,
        LOG_EVENT_KNOB_YIELDED,
        LOG_EVENT_BACKOFF,
        LOG_EVENT_ROLLBACK,
        LOG_EVENT_COMPACTION,
        LOG_EVENT_LEARNED_RESERVE,
        LOG_EVENT_KNOB_HELD,       /* a wanted move not made, for a hold worth showing */
        LOG_EVENT_KNOB_HOLD_ENDED, /* that hold gone */
        _LOG_EVENT_MAX,
} LogEvent;

#define LOG_EVENT_NO_NODE (-1)

/* What the fields of one event say; NULL (or LOG_EVENT_NO_NODE) leaves a
 * field out. */
typedef struct LogEventFields {
        const char *knob;   /* FRAGD_KNOB: "vm.min_free_kbytes", "node0.compact" */
        int node;           /* FRAGD_NODE: the NUMA node, or LOG_EVENT_NO_NODE */
        const char *from;   /* FRAGD_FROM: the value before */
        const char *to;     /* FRAGD_TO: the value after */
        const char *reason; /* FRAGD_REASON: "reserve_below_target", "stop", ... */
        const char *hold;   /* FRAGD_HOLD: "psi", "nothing_to_reclaim", ... */
} LogEventFields;

/* "knob_raised": the FRAGD_EVENT value; NULL past the end */
const char *log_event_name(LogEvent ev);
/* the 32 lowercase hex digits of the kind's MESSAGE_ID; NULL past the end */
const char *log_event_message_id(LogEvent ev);

/* The journal's side, for tests: fn gets the entry's fields as sd_journal_sendv()
 * would ("KEY=value" each) and returns >= 0 or -errno (a failure writes the
 * text to stderr instead). NULL: sd_journal_sendv(). */
typedef int (*LogJournalSender)(const struct iovec *iov, int n, void *userdata);
void log_event_set_sender(LogJournalSender fn, void *userdata);
/* Force the journal on or off; log_event_set_journal_auto() decides again
 * at the next event (the default). */
void log_event_set_journal(bool on);
void log_event_set_journal_auto(void);
/* The automatic decision, from the given environment values (tests) */
bool log_event_under_journald(const char *journal_stream, const char *invocation_id, int parent_pid,
                              const char *journal_socket);

/* Logs one event at level (LOG_NOTICE for knob changes); dropped like any
 * message above the maximum level. */
void log_event_internal(int level, LogEvent ev, const LogEventFields *f, const char *file, int line,
                        const char *func, const char *fmt, ...) _printf_(7, 8);

#define log_event(level, ev, knob_, node_, from_, to_, reason_, ...)                                          \
        log_event_internal((level), (ev),                                                                     \
                           &(const LogEventFields) { .knob = (knob_), .node = (node_), .from = (from_),       \
                                                     .to = (to_), .reason = (reason_) },                      \
                           __FILE__, __LINE__, __func__, __VA_ARGS__)

/* The same with the fields given whole (any of them, FRAGD_HOLD too) */
#define log_event_fields(level, ev, fields, ...)                                                              \
        log_event_internal((level), (ev), (fields), __FILE__, __LINE__, __func__, __VA_ARGS__)
