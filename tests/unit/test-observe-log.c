/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What the daemon says about a tick's assessment (daemon/service/observe-log.c):
 * a learned THP burst cut to the host's memory is told in units, as every
 * other line is, not in raw bytes. */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/log.h"
#include "service/observe-log.h"
#include "stderr-test-util.h"

/* observe_log_assessment() on these, and the count it returned */
static const Assessment *the_a;
static const PolicyEval *the_e;
static unsigned the_n;

static void log_it(void)
{
        the_n = observe_log_assessment(the_a, the_e);
}

static char *assessment_log(const Assessment *a, const PolicyEval *e, unsigned *n)
{
        char *out;

        the_a = a;
        the_e = e;
        out = stderr_of(log_it);
        *n = the_n;
        return out;
}

static void test_capped_burst_in_units(void **state)
{
        Assessment *a = calloc(1, sizeof(*a));
        PolicyEval *e = calloc(1, sizeof(*e));
        unsigned n;
        char *out;

        (void) state;
        assert_non_null(a);
        assert_non_null(e);
        a->page_size = 4096;
        a->n_nodes = 1;
        a->nodes[0].managed_pages = 494635; /* 1.9 GiB: the 2 GiB churn guest */
        e->learned_capped_from_bytes = UINT64_C(2147483648);
        out = assessment_log(a, e, &n);
        assert_int_equal(n, 1);
        assert_non_null(strstr(out, "THP fault burst of 2.0 GiB is more than the host's memory (1.9 GiB)"));
        assert_null(strstr(out, "2147483648"));
        free(out);

        /* nothing capped: nothing said */
        e->learned_capped_from_bytes = 0;
        out = assessment_log(a, e, &n);
        assert_int_equal(n, 0);
        assert_string_equal(out, "");
        free(out);
        free(a);
        free(e);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_capped_burst_in_units),
        };

        log_set_max_level(LOG_INFO);
        return cmocka_run_group_tests(tests, NULL, NULL);
}
