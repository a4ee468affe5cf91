/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* PSI triggers (KERNEL.md §6) for /proc/pressure/memory and a cgroup's
 * memory.pressure. The returned fd is for sd_event_add_io(..., EPOLLPRI, ...):
 *   EPOLLPRI  the threshold was crossed within the window (at most once per window)
 *   EPOLLERR  the source is gone (cgroup removed): close the fd, reopen later.
 * One trigger per fd; the trigger dies with the fd. Nothing here logs. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PSI_WINDOW_MAX_USEC 10000000u
#define PSI_UNPRIV_WINDOW_GRAIN_USEC 2000000u /* unprivileged: multiple of 2 s */

typedef struct PsiTriggerSpec {
        bool full;              /* "full" instead of "some" */
        uint32_t threshold_usec;
        uint32_t window_usec;
} PsiTriggerSpec;

/* Window the kernel will accept from this opener: unchanged when privileged
 * (CAP_SYS_RESOURCE), else rounded up to a multiple of 2 s (max 10 s).
 * The threshold is scaled with it so the ratio stays the same. Pure.
 * -EINVAL when threshold is 0, window 0 or above 10 s, or threshold > window. */
int psi_trigger_adjust(const PsiTriggerSpec *in, bool privileged, PsiTriggerSpec *ret);

/* "some 150000 1000000" into buf (NUL-terminated). Returns the number of
 * bytes to write INCLUDING the NUL (psi_write() drops the last byte). Pure. */
int psi_trigger_format(const PsiTriggerSpec *spec, char *buf, size_t size);

/* Does this process have CAP_SYS_RESOURCE in its effective set? */
bool psi_trigger_privileged(void);

/* Opens path relative to dirfd O_RDWR|O_NONBLOCK|O_CLOEXEC, writes the
 * (adjusted) trigger and returns the fd (>= 0) or -errno: -ENOENT (source
 * missing: PSI off or cgroup gone), -EOPNOTSUPP (PSI disabled), -EBUSY,
 * -EINVAL (rejected spec), -EACCES. ret_effective (may be NULL) gets the
 * spec actually written. Never returns an fd without a trigger (polling one
 * would busy-loop on EPOLLERR|EPOLLPRI). */
int psi_trigger_open_at(int dirfd, const char *path, const PsiTriggerSpec *spec, PsiTriggerSpec *ret_effective);
