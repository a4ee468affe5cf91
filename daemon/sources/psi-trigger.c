/* SPDX-License-Identifier: GPL-2.0-or-later */
/* PSI trigger fds for /proc/pressure/memory and cgroup memory.pressure. */

#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/cleanup.h"
#include "core/root.h"
#include "fragd/macro.h"
#include "sources/psi-trigger.h"

int psi_trigger_adjust(const PsiTriggerSpec *in, bool privileged, PsiTriggerSpec *ret)
{
        PsiTriggerSpec s = *in;

        if (s.threshold_usec == 0 || s.window_usec == 0 || s.window_usec > PSI_WINDOW_MAX_USEC ||
            s.threshold_usec > s.window_usec)
                return -EINVAL;
        if (!privileged && s.window_usec % PSI_UNPRIV_WINDOW_GRAIN_USEC != 0) {
                uint32_t w = (s.window_usec / PSI_UNPRIV_WINDOW_GRAIN_USEC + 1) * PSI_UNPRIV_WINDOW_GRAIN_USEC;
                uint64_t t;

                if (w > PSI_WINDOW_MAX_USEC)
                        w = PSI_WINDOW_MAX_USEC;
                /* keep the stall share: threshold/window */
                t = (uint64_t) s.threshold_usec * w / s.window_usec;
                s.threshold_usec = (uint32_t) CLAMP(t, 1u, (uint64_t) w);
                s.window_usec = w;
        }
        *ret = s;
        return 0;
}

int psi_trigger_format(const PsiTriggerSpec *spec, char *buf, size_t size)
{
        int n;

        n = snprintf(buf, size, "%s %u %u", spec->full ? "full" : "some", spec->threshold_usec,
                     spec->window_usec);
        if (n < 0 || (size_t) n >= size)
                return -ENOBUFS;
        return n + 1;
}

bool psi_trigger_privileged(void)
{
        struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3, .pid = 0 };
        struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3] = {};

        if (syscall(SYS_capget, &hdr, data) < 0)
                return false;
        return data[CAP_TO_INDEX(CAP_SYS_RESOURCE)].effective & CAP_TO_MASK(CAP_SYS_RESOURCE);
}

int psi_trigger_open_at(int dirfd, const char *path, const PsiTriggerSpec *spec, PsiTriggerSpec *ret_effective)
{
        _cleanup_close_ int fd = -1;
        PsiTriggerSpec eff;
        char buf[64];
        ssize_t n;
        int len, r;

        r = psi_trigger_adjust(spec, psi_trigger_privileged(), &eff);
        if (r < 0)
                return r;
        len = psi_trigger_format(&eff, buf, sizeof(buf));
        if (len < 0)
                return len;
        fd = root_openat(dirfd, path, O_RDWR | O_NONBLOCK | O_CLOEXEC | O_NOCTTY, 0, ROOT_BENEATH);
        if (fd < 0)
                return negative_errno();
        do
                n = write(fd, buf, (size_t) len); /* the NUL is part of the write */
        while (n < 0 && errno == EINTR);
        if (n < 0)
                return negative_errno();
        if (n != len)
                return -EIO;
        if (ret_effective)
                *ret_effective = eff;
        return TAKE_FD(fd);
}
