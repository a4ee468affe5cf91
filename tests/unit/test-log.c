/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Logging: "<N>" prefixes only when stderr is the journal stream named by
 * $JOURNAL_STREAM (issue 11 item 16: presence alone put "<6>" into files
 * stderr was redirected to). */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/log.h"

static void env_of(int fd, char *buf, size_t size)
{
        struct stat st;

        assert_int_equal(fstat(fd, &st), 0);
        snprintf(buf, size, "%llu:%llu", (unsigned long long) st.st_dev, (unsigned long long) st.st_ino);
}

static void test_matches(void **state)
{
        char tmpl[] = "/tmp/fragd-log-test-XXXXXX", env[64], other[64];
        int fd = mkstemp(tmpl), p[2];

        (void) state;
        assert_true(fd >= 0);
        (void) unlink(tmpl);
        assert_int_equal(pipe(p), 0);
        env_of(fd, env, sizeof(env));
        env_of(p[1], other, sizeof(other));

        assert_true(log_journal_stream_matches(env, fd));
        assert_false(log_journal_stream_matches(other, fd)); /* another stream: a redirect */
        assert_false(log_journal_stream_matches(env, p[1]));
        assert_false(log_journal_stream_matches(NULL, fd));
        assert_false(log_journal_stream_matches("", fd));
        assert_false(log_journal_stream_matches("0:0", fd));
        assert_false(log_journal_stream_matches(env, -1));
        {
                /* malformed: never a match */
                static const char *const bad[] = { "1", "1:", ":2", "1:2x", "-1:2", "1:-2", " 1:2", "1: 2", "+1:2",
                                                   "99999999999999999999999:1" };

                for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
                        assert_false(log_journal_stream_matches(bad[i], fd));
        }
        close(fd);
        close(p[0]);
        close(p[1]);
}

/* End to end: stderr redirected to a file, JOURNAL_STREAM naming another
 * stream (what a shell under a unit inherits): plain "fragd: " lines. Then
 * JOURNAL_STREAM naming that very file: "<N>" prefixes. */
static char *log_to_file(const char *journal_stream)
{
        char tmpl[] = "/tmp/fragd-log-test-XXXXXX", env[64];
        int fd = mkstemp(tmpl), saved = dup(STDERR_FILENO);
        char *buf = calloc(1, 4096);
        ssize_t n;

        assert_true(fd >= 0 && saved >= 0 && buf);
        (void) unlink(tmpl);
        fflush(stderr);
        assert_int_equal(dup2(fd, STDERR_FILENO), STDERR_FILENO);
        if (!journal_stream) {
                env_of(fd, env, sizeof(env));
                journal_stream = env;
        }
        assert_int_equal(setenv("JOURNAL_STREAM", journal_stream, 1), 0);
        log_set_prefix_auto();
        log_info("hello %d", 42);
        fflush(stderr);
        assert_int_equal(dup2(saved, STDERR_FILENO), STDERR_FILENO);
        close(saved);
        n = pread(fd, buf, 4095, 0);
        assert_true(n > 0);
        close(fd);
        unsetenv("JOURNAL_STREAM");
        return buf;
}

static void test_prefix_only_on_the_journal_stream(void **state)
{
        char *out;

        (void) state;
        log_set_max_level(LOG_INFO);
        out = log_to_file("1:1");
        assert_string_equal(out, "fragd: hello 42\n");
        free(out);
        out = log_to_file(NULL);
        assert_string_equal(out, "<6>hello 42\n");
        free(out);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_matches),
                cmocka_unit_test(test_prefix_only_on_the_journal_stream),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
