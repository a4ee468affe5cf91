/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The vm sysctls fragd reads or steers: /proc/sys/vm/<name>, one integer
 * each. A knob the running kernel lacks (defrag_mode before 6.15) is simply
 * not present. */

#include <errno.h>
#include <fcntl.h>
#include <string.h>

#include "core/cleanup.h"
#include "core/parse-util.h"
#include "core/root.h"
#include "fragd/macro.h"
#include "fragd/obs.h"
#include "sources/sources.h"

static const char *const vm_knob_names[_VM_KNOB_MAX] = {
        [VM_MIN_FREE_KBYTES] = "min_free_kbytes",
        [VM_WATERMARK_SCALE_FACTOR] = "watermark_scale_factor",
        [VM_WATERMARK_BOOST_FACTOR] = "watermark_boost_factor",
        [VM_COMPACTION_PROACTIVENESS] = "compaction_proactiveness",
        [VM_EXTFRAG_THRESHOLD] = "extfrag_threshold",
        [VM_DEFRAG_MODE] = "defrag_mode",
        [VM_PERCPU_PAGELIST_HIGH_FRACTION] = "percpu_pagelist_high_fraction",
        [VM_COMPACT_UNEVICTABLE_ALLOWED] = "compact_unevictable_allowed",
        [VM_ZONE_RECLAIM_MODE] = "zone_reclaim_mode",
};

const char *vm_knob_name(VmKnob k)
{
        if ((unsigned) k >= _VM_KNOB_MAX)
                return NULL;
        return vm_knob_names[k];
}

int vm_knob_from_name(const char *name)
{
        if (!name)
                return -ENOENT;
        for (unsigned k = 0; k < _VM_KNOB_MAX; k++)
                if (strcmp(vm_knob_names[k], name) == 0)
                        return (int) k;
        return -ENOENT;
}

int sysctl_value_parse(const char *buf, size_t len, int64_t *ret)
{
        Cursor c;
        Span line, tok, value = {};
        bool seen = false;
        int64_t v;
        int r;

        if (cursor_open(&c, buf, len) < 0)
                return -EINVAL;
        while (cursor_next_line(&c, &line))
                while (span_next_token(&line, &tok)) {
                        if (seen)
                                return -EBADMSG; /* a vector ("256 256 32") */
                        value = tok;
                        seen = true;
                }
        if (!seen)
                return -ENODATA;
        r = span_to_i64(value, &v);
        if (r < 0)
                return r;
        *ret = v;
        return 0;
}

int sysctl_read_at(int dirfd, const char *path, int64_t *ret)
{
        char buf[128];
        int r;

        r = read_file_at(dirfd, path, buf, sizeof(buf));
        if (r < 0)
                return r;
        return sysctl_value_parse(buf, (size_t) r, ret);
}

int vm_sysctls_read(const Root *root, VmSysctls *ret)
{
        _cleanup_close_ int dfd = -1;
        VmSysctls tmp = {};

        if (root->proc_fd < 0)
                return -ENOENT;
        dfd = root_openat(root->proc_fd, "sys/vm", O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0, 0);
        if (dfd < 0)
                return negative_errno();
        for (unsigned k = 0; k < _VM_KNOB_MAX; k++) {
                /* Missing (older kernel), unreadable or not one integer:
                 * the knob is not present, the others still count. */
                if (sysctl_read_at(dfd, vm_knob_names[k], &tmp.value[k]) >= 0)
                        tmp.present[k] = true;
                else
                        tmp.value[k] = 0;
        }
        *ret = tmp;
        return 0;
}
