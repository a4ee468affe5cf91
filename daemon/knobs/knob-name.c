/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Knob names: a name ("vm.<sysctl>", "thp.<file>", "node<N>.compact", ...)
 * to its path below the Root and its kind, and the knob behind each policy
 * lever. The name table is in daemon/knobs/knob.h. Split from knob.c. */

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/log.h"
#include "knobs/knob-internal.h"
#include "knobs/knob.h"

static const char *startswith_str(const char *s, const char *prefix)
{
        size_t n = strlen(prefix);

        return strncmp(s, prefix, n) == 0 ? s + n : NULL;
}

static bool all_chars(const char *s, const char *extra)
{
        if (!*s)
                return false;
        for (; *s; s++)
                if (!(islower((unsigned char) *s) || isdigit((unsigned char) *s) || strchr(extra, *s)))
                        return false;
        return true;
}

static bool all_digits(const char *s, size_t n)
{
        if (n == 0 || n > 6)
                return false;
        for (size_t i = 0; i < n; i++)
                if (!isdigit((unsigned char) s[i]))
                        return false;
        return true;
}

int knob_init(Knob *k, const Root *root, const char *name, void *ops_data)
{
        Knob t = { .dirfd = -1, .ops_data = ops_data };
        const char *rest;
        bool on_sys = false;
        int r;

        if (!name || strlen(name) >= sizeof(t.name))
                return -EINVAL;
        strcpy(t.name, name);

        if ((rest = startswith_str(name, "vm."))) {
                if (!all_chars(rest, "_"))
                        return -EINVAL;
                t.kind = strcmp(rest, "compact_memory") == 0 ? KNOB_KIND_ONESHOT : KNOB_KIND_INT;
                r = snprintf(t.path, sizeof(t.path), "sys/vm/%s", rest);
        } else if (strcmp(name, "kernel.task_delayacct") == 0) {
                t.kind = KNOB_KIND_INT;
                r = snprintf(t.path, sizeof(t.path), "sys/kernel/task_delayacct");
        } else if ((rest = startswith_str(name, "thp."))) {
                const char *sub;

                on_sys = true;
                if (strcmp(rest, "enabled") == 0 || strcmp(rest, "shmem_enabled") == 0) {
                        t.kind = KNOB_KIND_CHOICE;
                        t.recomputes_min_free = true;
                        r = snprintf(t.path, sizeof(t.path), "kernel/mm/transparent_hugepage/%s", rest);
                } else if (strcmp(rest, "defrag") == 0) {
                        t.kind = KNOB_KIND_CHOICE;
                        r = snprintf(t.path, sizeof(t.path), "kernel/mm/transparent_hugepage/%s", rest);
                } else if ((sub = startswith_str(rest, "khugepaged."))) {
                        if (!all_chars(sub, "_"))
                                return -EINVAL;
                        t.kind = KNOB_KIND_INT;
                        r = snprintf(t.path, sizeof(t.path), "kernel/mm/transparent_hugepage/khugepaged/%s",
                                     sub);
                } else if ((sub = startswith_str(rest, "hugepages-"))) {
                        const char *kb = strstr(sub, "kB.");
                        const char *file;

                        if (!kb || !all_digits(sub, (size_t) (kb - sub)))
                                return -EINVAL;
                        file = kb + 3;
                        if (strcmp(file, "enabled") != 0 && strcmp(file, "shmem_enabled") != 0)
                                return -EINVAL;
                        t.kind = KNOB_KIND_CHOICE;
                        t.recomputes_min_free = true;
                        r = snprintf(t.path, sizeof(t.path), "kernel/mm/transparent_hugepage/hugepages-%.*skB/%s",
                                     (int) (kb - sub), sub, file);
                } else
                        return -EINVAL;
        } else if ((rest = startswith_str(name, "node"))) {
                const char *dot = strchr(rest, '.');

                if (!dot || !all_digits(rest, (size_t) (dot - rest)) || strcmp(dot, ".compact") != 0)
                        return -EINVAL;
                on_sys = true;
                t.kind = KNOB_KIND_ONESHOT;
                r = snprintf(t.path, sizeof(t.path), "devices/system/node/node%.*s/compact", (int) (dot - rest),
                             rest);
        } else
                return -EINVAL;

        if (r < 0 || (size_t) r >= sizeof(t.path))
                return -EINVAL;
        if (root)
                t.dirfd = on_sys ? root->sys_fd : root->proc_fd;
        *k = t;
        return 0;
}

const char *knob_lever_name(Lever l)
{
        static const char *const names[_LEVER_MAX] = {
                [LEVER_COMPACTION_PROACTIVENESS] = "vm.compaction_proactiveness",
                [LEVER_WATERMARK_SCALE_FACTOR] = "vm.watermark_scale_factor",
                [LEVER_MIN_FREE_KBYTES] = MIN_FREE_KNOB,
                [LEVER_WATERMARK_BOOST_FACTOR] = "vm.watermark_boost_factor",
                [LEVER_EXTFRAG_THRESHOLD] = "vm.extfrag_threshold",
                [LEVER_THP_DEFRAG] = "thp.defrag",
                [LEVER_DEFRAG_MODE] = "vm.defrag_mode",
        };
        if ((unsigned) l >= _LEVER_MAX)
                return NULL;
        return names[l];
}

unsigned knob_warn_escaping_links(const Root *root)
{
        unsigned n = 0;

        if (!root)
                return 0;
        for (Lever l = 0; l < _LEVER_MAX; l++) {
                const char *name = knob_lever_name(l);
                Knob k;
                int fd;

                if (!name || knob_init(&k, root, name, NULL) < 0 || k.dirfd < 0)
                        continue;
                fd = root_openat(k.dirfd, k.path, O_PATH | O_CLOEXEC, 0, ROOT_BENEATH);
                if (fd >= 0) {
                        close(fd);
                        continue;
                }
                if (fd != -EXDEV)
                        continue;
                log_error("Knob %s: '%s/%s/%s' is a symlink that leads out of the root; fragd neither reads "
                          "nor writes it and leaves this knob alone. Make it a file inside the tree (or a "
                          "symlink to one, relative and below proc/ or sys/).",
                          name, root->is_host ? "" : root->path, k.dirfd == root->sys_fd ? "sys" : "proc",
                          k.path);
                n++;
        }
        return n;
}
