/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Events to the journal as structured entries, or to stderr as text: see
 * daemon/core/log-event.h. Every MESSAGE_ID below has its entry in
 * systemd/fragd.catalog (tests/lint/check-catalog.sh checks both ways). */

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <systemd/sd-journal.h>

#include "core/log-event.h"

#define JOURNAL_SOCKET "/run/systemd/journal/socket"

static const struct {
        const char *name;
        const char *id;
} events[_LOG_EVENT_MAX] = {
        [LOG_EVENT_KNOB_RAISED] = { "knob_raised", "b02f36ec631f4755841ad419f082ce08" },
        [LOG_EVENT_KNOB_LOWERED] = { "knob_lowered", "cd516d67813b419b807b1c09bae4b4ae" },
        [LOG_EVENT_KNOB_RESTORED] = { "knob_restored", "87fe55211fd841a4b4f2f510b4fb8fd5" },
        [LOG_EVENT_KNOB_YIELDED] = { "knob_yielded", "5bcdf394557042c0a5a95b7d96225973" },
        [LOG_EVENT_BACKOFF] = { "backoff", "ecb432f8bb5a4e7d98f1cca13aa16610" },
        [LOG_EVENT_ROLLBACK] = { "rollback", "74e2e44b8463415c86996c7d9edef3ed" },
        [LOG_EVENT_COMPACTION] = { "compaction", "5e790dcdc4df440580e1835df295bb84" },
        [LOG_EVENT_LEARNED_RESERVE] = { "learned_reserve", "f06e96b124574574af88e51be6109110" },
        [LOG_EVENT_KNOB_HELD] = { "knob_held", "10f8793bfbe44c60a4216b44d7dc33de" },
        [LOG_EVENT_KNOB_HOLD_ENDED] = { "knob_hold_ended", "20d692170f6949f680eb0a486d6d2316" },
};

static LogJournalSender sender;
static void *sender_data;
static int journal = -1; /* -1: decide at the next event */

const char *log_event_name(LogEvent ev)
{
        return (unsigned) ev < _LOG_EVENT_MAX ? events[ev].name : NULL;
}

const char *log_event_message_id(LogEvent ev)
{
        return (unsigned) ev < _LOG_EVENT_MAX ? events[ev].id : NULL;
}

void log_event_set_sender(LogJournalSender fn, void *userdata)
{
        sender = fn;
        sender_data = userdata;
}

void log_event_set_journal(bool on)
{
        journal = on;
}

void log_event_set_journal_auto(void)
{
        journal = -1;
}

bool log_event_under_journald(const char *journal_stream, const char *invocation_id, int parent_pid,
                              const char *journal_socket)
{
        if (log_journal_stream_matches(journal_stream, STDERR_FILENO))
                return true;
        /* a service's main process whose stderr goes elsewhere (a file,
         * null): its children inherit INVOCATION_ID, not parent pid 1 */
        return invocation_id && *invocation_id && parent_pid == 1 && journal_socket &&
               access(journal_socket, W_OK) == 0;
}

static int send_default(const struct iovec *iov, int n, void *userdata)
{
        return sd_journal_sendv(iov, n);
}

typedef struct Fields {
        struct iovec iov[16];
        int n;
} Fields;

static void add(Fields *fs, char *buf, size_t size, const char *key, const char *value)
{
        int len;

        if (!value || fs->n >= (int) (sizeof(fs->iov) / sizeof(fs->iov[0])))
                return;
        len = snprintf(buf, size, "%s=%s", key, value);
        if (len < 0)
                return;
        if ((size_t) len >= size)
                len = (int) size - 1; /* cut: the journal takes it as it is */
        fs->iov[fs->n++] = (struct iovec) { .iov_base = buf, .iov_len = (size_t) len };
}

void log_event_internal(int level, LogEvent ev, const LogEventFields *f, const char *file, int line,
                        const char *func, const char *fmt, ...)
{
        char msg[2048], b_msg[2048 + 16], b_id[64], b_prio[32], b_ev[64], b_knob[128], b_node[32],
                b_from[128], b_to[128], b_reason[128], b_hold[64], b_file[256], b_line[32], b_func[128],
                b_ident[32], node[16];
        const LogEventFields none = {.node = LOG_EVENT_NO_NODE};
        Fields fs = {.n = 0};
        char prio[4];
        va_list ap;
        int saved = errno, r;

        if (level > log_get_max_level())
                return;
        if (!f)
                f = &none;
        va_start(ap, fmt);
        (void) vsnprintf(msg, sizeof(msg), fmt, ap);
        va_end(ap);
        if (journal < 0)
                journal = log_event_under_journald(getenv("JOURNAL_STREAM"), getenv("INVOCATION_ID"),
                                                   (int) getppid(), JOURNAL_SOCKET);
        if (!journal || (unsigned) ev >= _LOG_EVENT_MAX) {
                (void) log_internal(level, 0, file, line, "%s", msg);
                errno = saved;
                return;
        }

        snprintf(prio, sizeof(prio), "%d", level & 7);
        add(&fs, b_msg, sizeof(b_msg), "MESSAGE", msg);
        add(&fs, b_id, sizeof(b_id), "MESSAGE_ID", events[ev].id);
        add(&fs, b_prio, sizeof(b_prio), "PRIORITY", prio);
        add(&fs, b_ev, sizeof(b_ev), "FRAGD_EVENT", events[ev].name);
        add(&fs, b_knob, sizeof(b_knob), "FRAGD_KNOB", f->knob);
        if (f->node >= 0) {
                snprintf(node, sizeof(node), "%d", f->node);
                add(&fs, b_node, sizeof(b_node), "FRAGD_NODE", node);
        }
        add(&fs, b_from, sizeof(b_from), "FRAGD_FROM", f->from);
        add(&fs, b_to, sizeof(b_to), "FRAGD_TO", f->to);
        add(&fs, b_reason, sizeof(b_reason), "FRAGD_REASON", f->reason);
        add(&fs, b_hold, sizeof(b_hold), "FRAGD_HOLD", f->hold);
        /* what journald adds to stream lines from the unit's name, and where */
        add(&fs, b_ident, sizeof(b_ident), "SYSLOG_IDENTIFIER", "fragd");
        add(&fs, b_file, sizeof(b_file), "CODE_FILE", file);
        snprintf(node, sizeof(node), "%d", line);
        add(&fs, b_line, sizeof(b_line), "CODE_LINE", node);
        add(&fs, b_func, sizeof(b_func), "CODE_FUNC", func);

        r = (sender ? sender : send_default)(fs.iov, fs.n, sender ? sender_data : NULL);
        if (r < 0)
                /* no journal after all (socket gone, a chroot): the text is not lost */
                (void) log_internal(level, 0, file, line, "%s", msg);
        errno = saved;
}
