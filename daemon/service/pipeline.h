/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* The one observe -> assess -> decide pipeline (daemon/service/pipeline.c),
 * used by the daemon's tick (service/manager.c, which then applies the
 * decision and writes the outputs) and by fragd --once (cli/once.c, which
 * prints it). What differs between the two comes in through the hooks:
 * what is said about the sources, the watched workloads' share of the
 * assessment, the learned reserve's seed, and where the levers' values are
 * read (the knob registry, or the observation). */

#include "core/root.h"
#include "fragd/metrics.h"
#include "fragd/obs.h"
#include "fragd/policy.h"

typedef enum PipelineStage {
        PIPELINE_OBSERVE,
        PIPELINE_ASSESS,
        PIPELINE_DECIDE,
        PIPELINE_DONE,
} PipelineStage;

typedef struct PipelineHooks {
        /* After observation_read() (r its result: < 0 when buddyinfo is
         * unreadable): the caller's messages and counters. A negative
         * return ends the run there with that error. Optional. */
        int (*observed)(void *userdata, const Observation *cur, unsigned mask, int r);
        /* After assess(), before policy_decide(): the workloads' share of a,
         * the learned reserve's seed in state, and in[] (the levers). */
        void (*levers)(void *userdata, const Observation *cur, Assessment *a, PolicyState *state,
                       LeverInput in[_LEVER_MAX]);
        void *userdata;
} PipelineHooks;

typedef struct Pipeline {
        const Root *root;
        const PolicyConfig *policy;
        const Observation *prev; /* the reading before, or NULL */
        Observation *cur;        /* out: this reading */
        Assessment *a;           /* out */
        PolicyState *state;      /* in (the policy's memory), seeded by the hooks */
        Decision *d;             /* out */
} Pipeline;

/* Reads the sources in mask at now, assesses against p->prev, decides.
 * Returns 0, or the error of the stage in *ret_stage (optional): the
 * observation's as the hook returned it; assess() and policy_decide()'s
 * logged here. */
int pipeline_run(const Pipeline *p, unsigned mask, usec_t now, const PipelineHooks *h,
                 PipelineStage *ret_stage);
