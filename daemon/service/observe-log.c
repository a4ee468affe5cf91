/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The daemon's messages about its sources: see daemon/service/observe-log.h. */

#include <inttypes.h>

#include "core/format.h"
#include "core/log.h"
#include "fragd/obs.h"
#include "service/observe-log.h"
#include "sources/observe.h"

static uint64_t problems_hash(const Observation *o)
{
        uint64_t h = 0;

        if (o->n_problems == 0)
                return 0;
        h = 1469598103934665603ULL; /* FNV-1a */
        for (unsigned i = 0; i < o->n_problems; i++)
                for (const char *p = o->problems[i]; *p; p++) {
                        h ^= (unsigned char) *p;
                        h *= 1099511628211ULL;
                }
        return h ? h : 1;
}

unsigned observe_log_transitions(ObsLogState *st, const Observation *o, unsigned mask)
{
        unsigned missing = observation_missing(o, mask) & ~OBS_MASK(OBS_BUDDYINFO);
        unsigned n = 0;
        uint64_t h = problems_hash(o);
        char why[160];

        if (h != st->problems_hash) {
                for (unsigned i = 0; i < o->n_problems; i++, n++)
                        log_warning("%s", o->problems[i]);
                if (h == 0 && st->problems_hash != 0) {
                        log_info("The kernel's readings are consistent again");
                        n++;
                }
                st->problems_hash = h;
        }
        for (unsigned s = 0; s < _OBS_SOURCE_MAX; s++) {
                unsigned bit = OBS_MASK(s);

                if (!(mask & bit) || s == OBS_BUDDYINFO)
                        continue; /* not asked this tick: its state stands */
                if ((missing & bit) && !(st->missing & bit)) {
                        log_warning("Decisions degraded: %s: %s",
                                    obs_source_missing_why(o, (ObsSource) s, why, sizeof(why)),
                                    obs_source_impact((ObsSource) s));
                        st->missing |= bit;
                        n++;
                } else if (!(missing & bit) && (st->missing & bit)) {
                        log_info("%s readable again: decisions no longer degraded by its absence",
                                 obs_source_name((ObsSource) s));
                        st->missing &= ~bit;
                        n++;
                }
        }
        return n;
}

unsigned observe_log_assessment(const Assessment *a, const PolicyEval *e)
{
        unsigned n = 0;

        if (a->rates.valid && a->rates.n_resets > 0) {
                log_warning("Counter %s went from %" PRIu64 " to %" PRIu64 " in %.1f s%s: more than the kernel can "
                            "count, or backwards; taken as a reset, its rate is 0 for this interval%s",
                            a->rates.reset_counter, a->rates.reset_from, a->rates.reset_to, a->rates.interval_sec,
                            a->rates.n_resets > 1 ? " (and other counters with it)" : "",
                            a->rates.reset_to < a->rates.reset_from ? "" : " (nothing is learned from it)");
                n++;
        }
        if (e && e->learned_capped_from_bytes > 0) {
                char burst[32], mem[32];

                log_warning("THP fault burst of %s is more than the host's memory (%s): the learned reserve is "
                            "capped at the latter",
                            format_bytes(burst, sizeof(burst), e->learned_capped_from_bytes),
                            format_bytes(mem, sizeof(mem), policy_mem_total_bytes(a)));
                n++;
        }
        return n;
}
