/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Pure: a watched cgroup's path (relative to the cgroup2 root) and the path
 * of one of its files below sys/. The one check of such a path, for the
 * cgroup watches (source-cgroup.c), memory.stat (source-vmstat.c) and cgroup
 * PSI (source-psi.c), which call it and never back. */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "sources/cgroup.h"
#include "sources/sources.h"

bool cgroup_relpath_valid(const char *path)
{
        const char *p = path;

        if (!path || *path == '/')
                return false;
        if (*path == '\0')
                return true;
        if (strlen(path) >= CGROUP_PATH_MAX)
                return false;
        for (;;) {
                size_t n = strcspn(p, "/");

                if (n == 0 || (n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.'))
                        return false;
                if (p[n] == '\0')
                        return true;
                p += n + 1;
        }
}

bool cgroup_path_contains(const char *parent, const char *child)
{
        size_t n = strlen(parent);

        if (n == 0)
                return true;
        return strncmp(parent, child, n) == 0 && (child[n] == '\0' || child[n] == '/');
}

int cgroup_file_path(const char *cgroup, const char *file, char *buf, size_t size)
{
        int n;

        if (!cgroup_relpath_valid(cgroup) || !file || !*file || strchr(file, '/'))
                return -EINVAL;
        n = snprintf(buf, size, "fs/cgroup/%s%s%s", cgroup, *cgroup ? "/" : "", file);
        if (n < 0 || (size_t) n >= size)
                return -ENAMETOOLONG;
        return 0;
}
