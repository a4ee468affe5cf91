/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* Captures the journal entries log_event() sends (core/log-event.h): the
 * tests force the journal on and read the fields back by name. The
 * expected MESSAGE_IDs are written out here, not taken from the code under
 * test: they are the catalog's (systemd/fragd.catalog) and must not change. */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include "core/log-event.h"

#define ID_KNOB_RAISED "b02f36ec631f4755841ad419f082ce08"
#define ID_KNOB_LOWERED "cd516d67813b419b807b1c09bae4b4ae"
#define ID_KNOB_RESTORED "87fe55211fd841a4b4f2f510b4fb8fd5"
#define ID_KNOB_YIELDED "5bcdf394557042c0a5a95b7d96225973"
#define ID_BACKOFF "ecb432f8bb5a4e7d98f1cca13aa16610"
#define ID_ROLLBACK "74e2e44b8463415c86996c7d9edef3ed"
#define ID_COMPACTION "5e790dcdc4df440580e1835df295bb84"
#define ID_LEARNED_RESERVE "f06e96b124574574af88e51be6109110"
#define ID_KNOB_HELD "10f8793bfbe44c60a4216b44d7dc33de"
#define ID_KNOB_HOLD_ENDED "20d692170f6949f680eb0a486d6d2316"

#define CAPTURE_MAX 32

typedef struct CapturedEntry {
        unsigned n;
        char field[16][2200]; /* "KEY=value" */
} CapturedEntry;

typedef struct Capture {
        unsigned n;
        int fail; /* return this from the sender (a -errno) when non-zero */
        CapturedEntry e[CAPTURE_MAX];
} Capture;

static inline int capture_send(const struct iovec *iov, int n, void *userdata)
{
        Capture *c = userdata;
        CapturedEntry *e;

        if (c->fail)
                return c->fail;
        if (c->n >= CAPTURE_MAX)
                abort();
        e = &c->e[c->n++];
        e->n = 0;
        for (int i = 0; i < n && i < 16; i++) {
                size_t len = iov[i].iov_len < sizeof(e->field[0]) - 1 ? iov[i].iov_len : sizeof(e->field[0]) - 1;

                memcpy(e->field[i], iov[i].iov_base, len);
                e->field[i][len] = '\0';
                e->n++;
        }
        return 0;
}

/* Journal on, entries into c (cleared) */
static inline void capture_start(Capture *c)
{
        memset(c, 0, sizeof(*c));
        log_event_set_sender(capture_send, c);
        log_event_set_journal(true);
}

static inline void capture_stop(void)
{
        log_event_set_sender(NULL, NULL);
        log_event_set_journal_auto();
}

/* The value of KEY in entry i, NULL when the entry has no such field */
static inline const char *capture_get(const Capture *c, unsigned i, const char *key)
{
        size_t kl = strlen(key);

        if (i >= c->n)
                return NULL;
        for (unsigned f = 0; f < c->e[i].n; f++)
                if (strncmp(c->e[i].field[f], key, kl) == 0 && c->e[i].field[f][kl] == '=')
                        return c->e[i].field[f] + kl + 1;
        return NULL;
}

/* The first entry with this MESSAGE_ID (and FRAGD_KNOB, when knob is not
 * NULL), or -1 */
static inline int capture_find(const Capture *c, const char *id, const char *knob)
{
        for (unsigned i = 0; i < c->n; i++) {
                const char *m = capture_get(c, i, "MESSAGE_ID"), *k = capture_get(c, i, "FRAGD_KNOB");

                if (m && strcmp(m, id) == 0 && (!knob || (k && strcmp(k, knob) == 0)))
                        return (int) i;
        }
        return -1;
}
