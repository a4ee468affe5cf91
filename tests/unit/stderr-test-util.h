/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* What a call writes to stderr (the daemon's log lines outside a unit):
 * stderr goes to an unlinked file while fn runs; the text is returned
 * (free() it). For tests only: cmocka asserts on every step. */

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static inline char *stderr_of(void (*fn)(void))
{
        char tmpl[] = "/tmp/fragd-stderr-test-XXXXXX";
        int fd = mkstemp(tmpl), saved = dup(STDERR_FILENO);
        char *buf = calloc(1, 8192);
        ssize_t n;

        assert_true(fd >= 0 && saved >= 0 && buf);
        (void) unlink(tmpl);
        fflush(stderr);
        assert_int_equal(dup2(fd, STDERR_FILENO), STDERR_FILENO);
        fn();
        fflush(stderr);
        assert_int_equal(dup2(saved, STDERR_FILENO), STDERR_FILENO);
        close(saved);
        n = pread(fd, buf, 8191, 0);
        assert_true(n >= 0);
        close(fd);
        return buf;
}
