/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The facts instance detection works from, read under a Root. Kept apart
 * from fleet.c and config.c so that loading and matching stay testable
 * without the sources (dmi_read, nodes_read, meminfo_read). */

#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>

#include "config/config.h"
#include "core/cleanup.h"
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

        if (arch)
                arch_normalise(arch, p.arch, sizeof(p.arch));
        else {
                struct utsname u;

                if (uname(&u) >= 0)
                        arch_normalise(u.machine, p.arch, sizeof(p.arch));
        }
        p.page_size = root->page_size;
        *ret = p;
        return 0;
}
