/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Knob ops: real file I/O below the Root, and the dry-run writer. */

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/cleanup.h"
#include "core/log.h"
#include "knobs/knob.h"

/* ---- real ---------------------------------------------------------------- */

static int real_read(const Knob *k, char *ret_buf, size_t n)
{
        if (k->dirfd < 0)
                return -ENOENT;
        /* ROOT_BENEATH: an absolute or escaping symlink in a --root tree is
         * refused (-EXDEV), never followed to a host file */
        return read_file_at_full(k->dirfd, k->path, ROOT_BENEATH, ret_buf, n);
}

/* One write(2) of "value\n", as sysctl(8) does. O_TRUNC: harmless on procfs
 * and sysfs, and needed when the knob is a plain file in a test tree. Never
 * O_CREAT: a knob that does not exist is an error (-ENOENT). Resolved
 * below proc/ or sys/ of the root: a symlink that leads out of it is an error
 * (-EXDEV), never followed. EINTR is not
 * retried: compact_memory is only interrupted by a fatal signal. */
static int real_write(const Knob *k, const char *value)
{
        _cleanup_close_ int fd = -1;
        char buf[KNOB_VALUE_MAX + 2];
        ssize_t n;
        int len;

        if (k->dirfd < 0)
                return -ENOENT;
        len = snprintf(buf, sizeof(buf), "%s\n", value);
        if (len < 0 || (size_t) len >= sizeof(buf))
                return -EINVAL;
        fd = root_openat(k->dirfd, k->path, O_WRONLY | O_TRUNC | O_CLOEXEC | O_NOCTTY, 0, ROOT_BENEATH);
        if (fd < 0)
                return fd;
        n = write(fd, buf, (size_t) len);
        if (n < 0)
                return negative_errno();
        if (n != len)
                return -EIO;
        return 0;
}

const KnobOps knob_ops_real = {
        .name = "real",
        .dry_run = false,
        .read = real_read,
        .write = real_write,
};

/* ---- dry run --------------------------------------------------------------- */

#define DRYRUN_MAX (2 * KNOB_MAX)

typedef struct DryrunEntry {
        char name[KNOB_NAME_MAX];
        char value[KNOB_VALUE_MAX];
        unsigned n_writes;
} DryrunEntry;

struct KnobDryrun {
        pthread_mutex_t lock;
        size_t n;
        DryrunEntry e[DRYRUN_MAX];
};

KnobDryrun *knob_dryrun_new(void)
{
        KnobDryrun *d = calloc(1, sizeof(*d));

        if (!d)
                return NULL;
        pthread_mutex_init(&d->lock, NULL);
        return d;
}

KnobDryrun *knob_dryrun_free(KnobDryrun *d)
{
        if (!d)
                return NULL;
        pthread_mutex_destroy(&d->lock);
        free(d);
        return NULL;
}

static DryrunEntry *dryrun_find(KnobDryrun *d, const char *name)
{
        for (size_t i = 0; i < d->n; i++)
                if (strcmp(d->e[i].name, name) == 0)
                        return &d->e[i];
        return NULL;
}

size_t knob_dryrun_count(const KnobDryrun *d)
{
        size_t n;

        if (!d)
                return 0;
        pthread_mutex_lock((pthread_mutex_t *) &d->lock);
        n = d->n;
        pthread_mutex_unlock((pthread_mutex_t *) &d->lock);
        return n;
}

int knob_dryrun_get(const KnobDryrun *d, size_t i, const char **ret_name, const char **ret_value,
                    unsigned *ret_n_writes)
{
        int r = -ENOENT;

        if (!d)
                return -ENOENT;
        pthread_mutex_lock((pthread_mutex_t *) &d->lock);
        if (i < d->n) {
                if (ret_name)
                        *ret_name = d->e[i].name;
                if (ret_value)
                        *ret_value = d->e[i].value;
                if (ret_n_writes)
                        *ret_n_writes = d->e[i].n_writes;
                r = 0;
        }
        pthread_mutex_unlock((pthread_mutex_t *) &d->lock);
        return r;
}

/* Reads are real, except for a knob the dry run has "written": then the
 * recorded value, so read-back and ownership checks see what a real run
 * would have seen. */
static int dryrun_read(const Knob *k, char *ret_buf, size_t n)
{
        KnobDryrun *d = k->ops_data;
        bool found = false;
        int r = 0;

        if (d && k->kind != KNOB_KIND_ONESHOT) {
                DryrunEntry *e;

                pthread_mutex_lock(&d->lock);
                e = dryrun_find(d, k->name);
                if (e) {
                        int len = snprintf(ret_buf, n, "%s\n", e->value);

                        found = true;
                        r = len < 0 || (size_t) len >= n ? -EFBIG : len;
                }
                pthread_mutex_unlock(&d->lock);
        }
        if (found)
                return r;
        return real_read(k, ret_buf, n);
}

static int dryrun_write(const Knob *k, const char *value)
{
        KnobDryrun *d = k->ops_data;

        log_info("Dry run: would write '%s' to %s ('%s')", value, k->name, k->path);
        if (!d)
                return 0;
        pthread_mutex_lock(&d->lock);
        {
                DryrunEntry *e = dryrun_find(d, k->name);

                if (!e && d->n < DRYRUN_MAX) {
                        e = &d->e[d->n++];
                        snprintf(e->name, sizeof(e->name), "%s", k->name);
                }
                if (e) {
                        snprintf(e->value, sizeof(e->value), "%s", value);
                        e->n_writes++;
                }
        }
        pthread_mutex_unlock(&d->lock);
        return 0;
}

const KnobOps knob_ops_dryrun = {
        .name = "dryrun",
        .dry_run = true,
        .read = dryrun_read,
        .write = dryrun_write,
};
