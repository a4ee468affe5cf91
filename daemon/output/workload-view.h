/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* What the daemon hands on from the workload module (daemon/output/workload-view.c,
 * pure: no files, no clock, no logging). The manager calls workload_view()
 * for every watched cgroup each tick and converts the views with these:
 *   - workload_stalls_fill():  Assessment.workloads[], after assess() and
 *                              before policy_decide();
 *   - cgroup_view_fill():      the exporter's CgroupView (fragd_cgroup_*);
 *   - workload_stall_text():   the `fragd status` line of a cgroup. */

#include <stdbool.h>
#include <stddef.h>

#include "fragd/metrics.h"
#include "output/exporter.h"
#include "workload/workload.h"

/* Is any [cgroup "..."] section watched? Only then does fragd create the
 * workload module (and open its netlink sockets). */
bool workload_configured(const FragdConfig *cfg);

/* Fills ret[] (at most cap entries) with the cgroups whose last minute of
 * stall is known: present, attribution "ok" and at least one sample. The
 * others are left out rather than reported as "no stall": without delay
 * accounting fragd does not know. Names are the configured paths ("/" for
 * the root cgroup), cut to fit WorkloadStall.name. Returns the number
 * written. */
unsigned workload_stalls_fill(const CgroupWorkloadView *v, unsigned n, WorkloadStall *ret, unsigned cap);

/* The exporter's view of one watched cgroup. ret->name points into v->path
 * (v must outlive the snapshot). Delays are exported only with attribution
 * "ok"; the THP mechanism as the exporter's fixed label set. */
void cgroup_view_fill(const CgroupWorkloadView *v, CgroupView *ret);

/* ThpMechanism -> the exporter's label: "none", "madv_collapse",
 * "memory_thp", "prctl_launcher"; NULL for an unknown value. */
const char *thp_mechanism_metric_label(ThpMechanism m);

/* One line for a person: "last minute: 380 ms direct compaction (12), 20 ms
 * direct reclaim (3), 0 ms thrashing, budget 500 ms", "absent", "stall
 * attribution unavailable (delayacct-off)". Returns buf. */
char *workload_stall_text(const CgroupWorkloadView *v, char *buf, size_t size);
