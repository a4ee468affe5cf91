/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* What the daemon says about its sources, once per change: a source that
 * goes missing (unreadable or rejected as implausible) is logged at
 * warning with what its absence disables, its return at info; the problems
 * observation_check() found are logged at warning when they change, and
 * their end at info. daemon/service/observe-log.c. */

#include <stdint.h>

#include "fragd/metrics.h"
#include "fragd/obs.h"
#include "fragd/policy.h"

typedef struct ObsLogState {
        unsigned missing;       /* sources missing at the last report */
        uint64_t problems_hash; /* of the last problems logged, 0 none */
} ObsLogState;

/* After each observation_read(o, mask, ...). buddyinfo is left to the
 * caller (without it there is no tick at all). Returns the number of
 * messages logged, for tests. */
unsigned observe_log_transitions(ObsLogState *st, const Observation *o, unsigned mask);

/* After each policy_decide(): a counter taken as reset (Rates.n_resets)
 * and a learned burst cut to the host's memory, at warning, each time it
 * happens (a reset is one interval's event). Returns the messages logged. */
unsigned observe_log_assessment(const Assessment *a, const PolicyEval *e);
