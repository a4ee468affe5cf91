/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The facts instance detection works from, read under a Root. Kept apart
 * from fleet.c and config.c so that loading and matching stay testable
 * without the sources (dmi_read, nodes_read, meminfo_read). */

#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>

#include "config/config.h"
#include "core/cleanup.h"
#include "core/root.h"
#include "sources/sources.h"

static void arch_normalise(const char *machine, char *buf, size_t size)
{
        if (strcmp(machine, "aarch64") == 0 || strcmp(machine, "arm64") == 0)
                snprintf(buf, size, "arm64");
        else if (strcmp(machine, "amd64") == 0 || strcmp(machine, "x86_64") == 0)
                snprintf(buf, size, "x86_64");
        else
                snprintf(buf, size, "%s", machine);
}

/* /proc/cpuinfo names no architecture, but each one's layout gives it
 * away: arm64 prints "CPU architecture: 8", x86-64 a "flags" line with "lm"
 * (long mode). Anything else: "" (the caller falls back). */
static void arch_from_cpuinfo(const char *text, char *buf, size_t size)
{
        buf[0] = '\0';
        for (const char *line = text; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
                size_t len = strcspn(line, "\n");
                const char *colon = memchr(line, ':', len);

                if (!colon)
                        continue;
                if (strncmp(line, "CPU architecture", 16) == 0) {
                        if (strtoul(colon + 1, NULL, 10) == 8)
                                snprintf(buf, size, "arm64");
                        return;
                }
                if (strncmp(line, "flags", 5) == 0) {
                        char flags[4096];

                        snprintf(flags, sizeof(flags), " %.*s ", (int) (len - (size_t) (colon + 1 - line)),
                                 colon + 1);
                        if (strstr(flags, " lm "))
                                snprintf(buf, size, "x86_64");
                        return;
                }
        }
}

/* The architecture of the tree under root, not of the machine fragd runs
 * on: the two differ with --root on a fixture or another machine's image. */
static void arch_probe(const Root *root, InstanceProbe *p)
{
        _cleanup_free_ char *cpuinfo = NULL;
        char buf[64];
        size_t len;
        struct utsname u;

        if (root->proc_fd >= 0 && read_file_at(root->proc_fd, "sys/kernel/arch", buf, sizeof(buf)) > 0) {
                buf[strcspn(buf, " \t\r\n")] = '\0';
                if (buf[0]) {
                        arch_normalise(buf, p->arch, sizeof(p->arch));
                        p->arch_source = "the root's proc/sys/kernel/arch";
                        return;
                }
        }
        if (root->proc_fd >= 0 && read_file_alloc_at(root->proc_fd, "cpuinfo", &cpuinfo, &len) >= 0) {
                arch_from_cpuinfo(cpuinfo, p->arch, sizeof(p->arch));
                if (p->arch[0]) {
                        p->arch_source = "the root's proc/cpuinfo";
                        return;
                }
        }
        if (uname(&u) >= 0) {
                arch_normalise(u.machine, p->arch, sizeof(p->arch));
                p->arch_source = "this host (uname): the root has neither proc/sys/kernel/arch nor a known proc/cpuinfo";
        }
}

int instance_probe(const Root *root, const char *arch, InstanceProbe *ret)
{
        _cleanup_free_ NodeTopo *topo = NULL;
        _cleanup_free_ KvList *mi = NULL;
        InstanceProbe p = { 0 };
        DmiInfo dmi;

        if (!root || !ret)
                return -EINVAL;

        if (dmi_read(root, &dmi) >= 0) {
                p.have_dmi = true;
                p.dmi = dmi;
        }

        topo = calloc(1, sizeof(*topo));
        if (!topo)
                return -ENOMEM;
        if (nodes_read(root, topo) >= 0) {
                for (unsigned i = 0; i < topo->n_nodes && i < FRAGD_MAX_NODES; i++)
                        p.mem_total_kb += topo->mem_total_kb[i];
                p.n_cpus = topo->n_cpus;
        }
        if (p.mem_total_kb == 0) {
                uint64_t kb;

                mi = calloc(1, sizeof(*mi));
                if (!mi)
                        return -ENOMEM;
                if (meminfo_read(root, mi) >= 0 && kv_get(mi, "MemTotal", &kb) >= 0)
                        p.mem_total_kb = kb;
        }

        if (arch) {
                arch_normalise(arch, p.arch, sizeof(p.arch));
                p.arch_source = "given";
        } else
                arch_probe(root, &p);
        p.page_size = root->page_size;
        *ret = p;
        return 0;
}
