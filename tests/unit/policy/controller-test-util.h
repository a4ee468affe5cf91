/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* Shared by the test-controller-*.c programs: a TSim on the heap, the
 * decisions' sentences printed into the test log, and the worlds the
 * scenarios start from. Header only, on top of policy-test-util.h: each
 * program still links libpolicy.a and cmocka, nothing else. */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "policy-test-util.h"

#define S USEC_PER_SEC

static inline TSim *sim_new(void)
{
        TSim *s = malloc(sizeof(*s));

        assert_non_null(s);
        t_sim_init(s);
        return s;
}

static inline void explain_print(const Decision *d)
{
        char buf[512];

        for (unsigned i = 0; i < d->n_items; i++) {
                decision_explain(&d->items[i], buf, sizeof(buf));
                print_message("    %s\n", buf);
        }
}

/* Short of free memory with plenty to reclaim: 30000 pages free, only 3000
 * of them in order>=9 blocks, 600000 reclaimable. */
static inline TNode t_node_memory_short(void)
{
        return (TNode){ .free_pages = 30000, .ge_large_pages = 8000, .ge_thp_pages = 3000,
                        .reclaimable_pages = 600000 };
}
