/* SPDX-License-Identifier: GPL-2.0-or-later */
/* observe -> assess -> decide: see daemon/service/pipeline.h. */

#include "core/log.h"
#include "service/pipeline.h"
#include "sources/observe.h"

int pipeline_run(const Pipeline *p, unsigned mask, usec_t now, const PipelineHooks *h,
                 PipelineStage *ret_stage)
{
        LeverInput in[_LEVER_MAX];
        PipelineStage stage = PIPELINE_OBSERVE;
        int r;

        r = observation_read(p->root, mask, now, p->cur);
        if (h->observed)
                r = h->observed(h->userdata, p->cur, mask, r);
        if (r < 0)
                goto done;

        stage = PIPELINE_ASSESS;
        r = assess(p->cur, p->prev, p->a);
        if (r < 0) {
                log_error_errno(r, "Cannot assess the observation: %m");
                goto done;
        }

        stage = PIPELINE_DECIDE;
        h->levers(h->userdata, p->cur, p->a, p->state, in);
        r = policy_decide(p->policy, p->state, p->a, in, p->cur->now_usec, p->d);
        if (r < 0) {
                log_error_errno(r, "The policy could not decide: %m");
                goto done;
        }
        stage = PIPELINE_DONE;
done:
        if (ret_stage)
                *ret_stage = stage;
        return r;
}
