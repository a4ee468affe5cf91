/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* Builds the exporter's Snapshot from what the daemon (or --once) has: the
 * configuration, the tick's observation and assessment, the decision (for
 * the reserve targets), and the knob registry when there is one. Shared by
 * the daemon's textfile and `fragd --once --format prom`, so the two print
 * the same families. */

#include "config/config.h"
#include "fragd/policy.h"
#include "knobs/knob.h"
#include "output/exporter.h"

typedef struct SnapshotBuilder {
        Snapshot s;
        KnobView knobs[SNAPSHOT_MAX_KNOBS];
        ReserveTargetView targets[SNAPSHOT_MAX_TARGETS];
        WatermarkHeldView held[FRAGD_MAX_NODES];
        CgroupView cgroups[SNAPSHOT_MAX_CGROUPS];
} SnapshotBuilder;

/* reg and d may be NULL. Values of levers come from d->levers when d is
 * given (what the policy saw), else from the observation. */
void snapshot_build(SnapshotBuilder *b, const FragdConfig *cfg, const Observation *o, const Observation *prev,
                    const Assessment *a, const Decision *d, const KnobRegistry *reg);
