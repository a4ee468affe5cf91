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

/* the lines observe_log_assessment() writes to stderr */
static char *assessment_log(const Assessment *a, const PolicyEval *e, unsigned *n)
{
        char tmpl[] = "/tmp/fragd-observe-log-test-XXXXXX";
        int fd = mkstemp(tmpl), saved = dup(STDERR_FILENO);
        char *buf = calloc(1, 4096);
        ssize_t len;

        assert_true(fd >= 0 && saved >= 0 && buf);
        (void) unlink(tmpl);
        fflush(stderr);
        assert_int_equal(dup2(fd, STDERR_FILENO), STDERR_FILENO);
        *n = observe_log_assessment(a, e);
        fflush(stderr);
        assert_int_equal(dup2(saved, STDERR_FILENO), STDERR_FILENO);
        close(saved);
        len = pread(fd, buf, 4095, 0);
        close(fd);
        if (len < 0)
                len = 0;
        buf[len] = '\0';
        return buf;
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
