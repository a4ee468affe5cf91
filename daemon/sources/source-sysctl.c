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

/* the kernel's limits (proc_dointvec_minmax extra1/extra2) of the knobs fragd
 * steers; an integer knob not listed holds one or more integers */
static const struct {
        const char *name;
        int64_t lo, hi;
} kernel_ranges[] = {
        { "vm.compaction_proactiveness", 0, 100 },
        { "vm.extfrag_threshold", 0, 1000 },
        { "vm.watermark_scale_factor", 1, 3000 },
        { "vm.watermark_boost_factor", 0, INT32_MAX },
        { "vm.min_free_kbytes", 0, INT32_MAX },
        { "vm.compact_unevictable_allowed", 0, 1 },
        { "vm.defrag_mode", 0, 1 },
        { "kernel.task_delayacct", 0, 1 },
        { "thp.khugepaged.defrag", 0, 1 },
        { "thp.khugepaged.max_ptes_none", 0, 8191 }, /* HPAGE_PMD_NR - 1: 511 with 4 KiB pages, 8191 with 64 KiB */
        { "thp.khugepaged.max_ptes_swap", 0, 8191 },
        { "thp.khugepaged.max_ptes_shared", 0, 8191 },
        { "thp.khugepaged.pages_to_scan", 1, UINT32_MAX },
        { "thp.khugepaged.scan_sleep_millisecs", 0, UINT32_MAX },
        { "thp.khugepaged.alloc_sleep_millisecs", 0, UINT32_MAX },
};

int sysctl_kernel_range(const char *name, int64_t *ret_lo, int64_t *ret_hi)
{
        for (size_t i = 0; i < ELEMENTSOF(kernel_ranges); i++)
                if (strcmp(kernel_ranges[i].name, name) == 0) {
                        *ret_lo = kernel_ranges[i].lo;
                        *ret_hi = kernel_ranges[i].hi;
                        return 0;
                }
        return -ENOENT;
}
