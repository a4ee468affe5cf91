/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Fuzzes the cgroup parsers: mountinfo_find_cgroup2 (/proc/self/mountinfo:
 * where cgroup2 is mounted), cgroup_procs_parse (a cgroup.procs file) and
 * proc_pid_cgroup_parse (/proc/PID/cgroup), the files fragd reads to find
 * the cgroup tree and tell which watched cgroup a process is in. */

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "sources/cgroup.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void procs(const char *buf, size_t size)
{
        int32_t few[8], many[256];
        size_t n_few = 0, n_many = 0;
        int r_few = cgroup_procs_parse(buf, size, few, 8, &n_few);
        int r_many = cgroup_procs_parse(buf, size, many, 256, &n_many);

        if (r_few == 0 || r_few == -E2BIG) {
                if (n_few > 8 || (r_few == -E2BIG && n_few != 8))
                        __builtin_trap();
                for (size_t i = 0; i < n_few; i++)
                        if (few[i] <= 0)
                                __builtin_trap();
        }
        /* a larger array sees the same pids first, and fails no earlier */
        if (r_many == 0 || r_many == -E2BIG) {
                if (n_many > 256)
                        __builtin_trap();
                if (r_few == 0 && (r_many != 0 || n_many != n_few))
                        __builtin_trap();
                for (size_t i = 0; i < n_few && i < n_many; i++)
                        if (few[i] != many[i])
                                __builtin_trap();
        } else if (r_few == 0)
                __builtin_trap();
}

static void pid_cgroup(const char *buf, size_t size)
{
        char small[16], big[4096];
        int r_small = proc_pid_cgroup_parse(buf, size, small, sizeof(small));
        int r_big = proc_pid_cgroup_parse(buf, size, big, sizeof(big));

        if (r_big == 0) {
                size_t n = strlen(big);

                /* one line's path, its leading '/' gone, NUL-terminated */
                if (n >= sizeof(big) || big[0] == '/' || memchr(big, '\n', n) || !memmem(buf, size, big, n))
                        __builtin_trap();
                /* a short buffer gives the same path or says it is too long */
                if (r_small == 0 ? strcmp(small, big) != 0 : r_small != -ENAMETOOLONG)
                        __builtin_trap();
        } else if (r_small == 0 || (r_big == -ENODATA) != (r_small == -ENODATA))
                __builtin_trap();
}

static void mountinfo(const char *buf, size_t size)
{
        char small[16], big[CGROUP_PATH_MAX];
        int r_small = mountinfo_find_cgroup2(buf, size, small, sizeof(small));
        int r_big = mountinfo_find_cgroup2(buf, size, big, sizeof(big));

        if (r_big == 0) {
                /* relative to the root: no leading '/', NUL-terminated */
                if (strnlen(big, sizeof(big)) == sizeof(big) || big[0] == '/')
                        __builtin_trap();
                if (r_small == 0 ? strcmp(small, big) != 0 : r_small != -ENAMETOOLONG)
                        __builtin_trap();
        } else if (r_small == 0)
                __builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        mountinfo((const char *) data, size);
        procs((const char *) data, size);
        pid_cgroup((const char *) data, size);
        return 0;
}
