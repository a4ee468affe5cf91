/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* `fragd --once`: the one-shot report of a host, for a person (text) or for
 * tools (json). Rendering only: the caller observes, assesses and decides.
 * The text leads with the verdict (what fragd would change and why, or why
 * nothing), then the evidence; the per-zone tables only with verbose. */

#include <stdbool.h>
#include <stdio.h>

#include "core/format.h"
#include "fragd/metrics.h"
#include "fragd/policy-config.h"
#include "fragd/policy.h"
#include "service/boot-history.h"
#include "service/learned-store.h"

typedef struct ReportDecision {
        const char *knob;      /* "compaction_proactiveness", "compact" */
        int node;              /* -1: global */
        char from[32], to[32]; /* "" when not applicable (one-shot actions) */
        const char *reason;    /* stable code */
        char explanation[DECISION_TEXT_MAX];
} ReportDecision;

typedef struct ReportInstance {
        const char *name;       /* "r7g.4xlarge", "mem-8g-x86_64" */
        const char *source;     /* "config", "dmi", "sizing" */
        const char *cloud;      /* "aws", "gce", "azure" (DMI); NULL when none recognised */
        const char *fleet_file; /* NULL when none applied */
} ReportInstance;

typedef struct ReportInput {
        const char *root_path;
        const char *version;
        const Observation *cur;
        const Observation *prev;   /* NULL without --interval */
        const Assessment *a;
        const PolicyConfig *policy; /* targets; NULL: none shown */
        const ReportInstance *instance; /* NULL: not detected */
        const ReportDecision *decisions;
        unsigned n_decisions;
        /* what the policy wanted to move and held (PolicyHeldItem): reason
         * is the hold's name, from the lever's value, to empty */
        const ReportDecision *held;
        unsigned n_held;
        bool decisions_known;      /* false: the policy did not run */
        bool dry_run;
        const char *preset;
        const char *cgroups_text;  /* watched cgroups (workload_report()), NULL: none configured */
        const char *cgroups_json;  /* the same as a JSON array: the "cgroups" key; NULL: no key */
        /* the decision's numbers: a node's THP target when the learned
         * reserve set it (PolicyNodeEval.learned); NULL: configured targets */
        const PolicyEval *eval;
        /* the learned reserve file of an earlier run (learned_store_load()):
         * a line (text), the "learned" object (json); NULL, LEARNED_LOAD_NONE
         * or LEARNED_LOAD_NOT_KEPT: no line, "learned": null */
        const LearnedLoad *learned;
        const char *learned_file;  /* its name for messages (learned_store_name()) */
        /* the first reserve from the kernel's counters since boot
         * (boot_first_reserve()), asked when no learned file applied; NULL
         * or not asked: no line, "boot_history": null */
        const BootFirst *boot;
        /* the sources that were asked for (observation_missing()): those
         * not read make the report "degraded"; 0 means OBS_ALL */
        unsigned obs_mask;
        /* text: the per-zone tables of free memory by order (--verbose) */
        bool verbose;
} ReportInput;

int report_text(FILE *f, const ReportInput *in);
int report_json(FILE *f, const ReportInput *in);

/* Per-node reserve target in bytes from a SizeSpec and the node's memory. */
uint64_t report_reserve_bytes(const SizeSpec *s, uint64_t node_bytes);
