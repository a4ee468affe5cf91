/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The kernel's THP fault counters since boot and the uptime, for the first
 * reserve of a fresh fragd (boot-history.h; docs/policy.md "The first
 * burst"). */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "core/format.h"
#include "service/boot-history.h"

int boot_uptime_parse(const char *text, usec_t *ret)
{
        uint64_t sec = 0, frac = 0;
        unsigned digits = 0;
        const char *p = text;

        if (!text || *p < '0' || *p > '9')
                return -EINVAL;
        for (; *p >= '0' && *p <= '9'; p++) {
                if (sec > (UINT64_MAX - 9) / 10)
                        return -EINVAL;
                sec = sec * 10 + (uint64_t) (*p - '0');
        }
        if (sec > (UINT64_MAX - (USEC_PER_SEC - 1)) / USEC_PER_SEC)
                return -EINVAL;
        if (*p == '.') {
                for (p++; *p >= '0' && *p <= '9'; p++) {
                        if (++digits > 2)
                                return -EINVAL;
                        frac = frac * 10 + (uint64_t) (*p - '0');
                }
                if (digits == 0)
                        return -EINVAL;
        }
        if (*p != ' ' && *p != '\n' && *p != '\0')
                return -EINVAL;
        for (; digits < 6; digits++)
                frac *= 10;
        if (sec == 0 && frac == 0)
                return -EINVAL;
        *ret = sec * USEC_PER_SEC + frac;
        return 0;
}

int boot_history_read(const Root *root, const Observation *cur, BootHistory *ret, char *why, size_t size)
{
        uint64_t alloc, fallback;
        usec_t up;
        char buf[128];
        int r;

        if (!(cur->have & OBS_MASK(OBS_VMSTAT))) {
                snprintf(why, size, "/proc/vmstat was not read");
                return -ENOENT;
        }
        if (kv_get(&cur->vmstat, "thp_fault_alloc", &alloc) < 0 ||
            kv_get(&cur->vmstat, "thp_fault_fallback", &fallback) < 0) {
                snprintf(why, size, "/proc/vmstat has no thp_fault_alloc or thp_fault_fallback "
                                    "(a kernel without transparent huge pages?)");
                return -ENOENT;
        }
        if (alloc > UINT64_MAX - fallback) {
                snprintf(why, size, "/proc/vmstat's THP fault counters add up past 2^64");
                return -ENOENT;
        }
        r = root->proc_fd < 0 ? -ENOENT : read_file_at(root->proc_fd, "uptime", buf, sizeof(buf));
        if (r < 0) {
                snprintf(why, size, "cannot read /proc/uptime: %s", strerror(-r));
                return -ENODATA;
        }
        if (boot_uptime_parse(buf, &up) < 0) {
                snprintf(why, size, "/proc/uptime does not start with the seconds since boot");
                return -ENODATA;
        }
        *ret = (BootHistory) {
                .thp_faults = alloc + fallback,
                .thp_fallbacks = fallback,
                .uptime_usec = up,
        };
        why[0] = '\0';
        return 0;
}

const char *boot_history_explain(const BootHistory *b, const LearnedRestore *r, char *buf, size_t size)
{
        char up[64], seed[64];

        format_duration(up, sizeof(up), b->uptime_usec);
        if (!r) {
                snprintf(buf, size, "%" PRIu64 " THP faults (%" PRIu64 " fell back) in %s since boot: %s",
                         b->thp_faults, b->thp_fallbacks, up,
                         b->thp_fallbacks > 0 ? "under one huge page, none"
                                              : "the kernel kept up (no fallback), none");
                return buf;
        }
        /* a seed is made from fallbacks only (policy_learned_from_boot()) */
        format_bytes(seed, sizeof(seed), r->peak_bytes);
        snprintf(buf, size, "%" PRIu64 " THP faults (%" PRIu64 " fell back) in %s since boot: %s, "
                 "the fallbacks as one burst at an unknown time since boot", b->thp_faults, b->thp_fallbacks, up,
                 seed);
        return buf;
}

bool boot_first_reserve(const Root *root, const Observation *cur, const PolicyConfig *cfg, uint64_t hpage_bytes,
                        usec_t now, BootFirst *ret)
{
        *ret = (BootFirst) { .asked = cfg->demand_learning && cfg->demand_from_boot, .res = LEARNED_RESTORE_OFF };
        if (!ret->asked)
                return false;
        ret->read = boot_history_read(root, cur, &ret->b, ret->why, sizeof(ret->why));
        if (ret->read < 0)
                return false;
        ret->res = policy_learned_from_boot(cfg, &ret->b, hpage_bytes, observation_mem_bytes(cur), now, &ret->lr);
        return ret->res == LEARNED_RESTORE_OK;
}
