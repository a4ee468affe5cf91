/* SPDX-License-Identifier: GPL-2.0-or-later */
/* core/log-event.c: the journal entry of each event (MESSAGE_ID, PRIORITY,
 * the FRAGD_* fields), the text on stderr when not under journald (the same
 * bytes log_internal() writes), the fallback when the journal refuses, and
 * the decision when fragd is under journald. */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <ctype.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "log-event-test-util.h"
#include "stderr-test-util.h"

static Capture cap;

static void test_ids(void **state)
{
        /* the catalog's IDs, in the order of the enum; each kind its own */
        static const char *const want[_LOG_EVENT_MAX][2] = {
                { "knob_raised", ID_KNOB_RAISED },       { "knob_lowered", ID_KNOB_LOWERED },
                { "knob_restored", ID_KNOB_RESTORED },   { "knob_yielded", ID_KNOB_YIELDED },
                { "backoff", ID_BACKOFF },               { "rollback", ID_ROLLBACK },
                { "compaction", ID_COMPACTION },         { "learned_reserve", ID_LEARNED_RESERVE },
                { "knob_held", ID_KNOB_HELD },           { "knob_hold_ended", ID_KNOB_HOLD_ENDED },
        };

        (void) state;
        for (unsigned i = 0; i < _LOG_EVENT_MAX; i++) {
                assert_string_equal(log_event_name((LogEvent) i), want[i][0]);
                assert_string_equal(log_event_message_id((LogEvent) i), want[i][1]);
                for (unsigned j = 0; j < i; j++)
                        assert_string_not_equal(want[i][1], want[j][1]);
        }
        assert_null(log_event_name(_LOG_EVENT_MAX));
        assert_null(log_event_message_id(_LOG_EVENT_MAX));
        assert_null(log_event_message_id((LogEvent) -1));
}

static void test_fields(void **state)
{
        (void) state;
        log_set_max_level(LOG_INFO);
        capture_start(&cap);
        log_event(LOG_NOTICE, LOG_EVENT_KNOB_RAISED, "vm.min_free_kbytes", LOG_EVENT_NO_NODE, "67584", "90112",
                  "reserve_below_target", "raise %s %s\u2192%s: because", "min_free_kbytes", "67584", "90112");
        log_event(LOG_INFO, LOG_EVENT_COMPACTION, "node1.compact", 1, NULL, NULL, "oneshot_compact",
                  "compact node %d now", 1);
        log_event(LOG_INFO, LOG_EVENT_LEARNED_RESERVE, NULL, LOG_EVENT_NO_NODE, "0", "1073741824", "burst_learned",
                  "learned");
        capture_stop();
        assert_int_equal(cap.n, 3);

        assert_string_equal(capture_get(&cap, 0, "MESSAGE"), "raise min_free_kbytes 67584\u219290112: because");
        assert_string_equal(capture_get(&cap, 0, "MESSAGE_ID"), ID_KNOB_RAISED);
        assert_string_equal(capture_get(&cap, 0, "PRIORITY"), "5"); /* NOTICE */
        assert_string_equal(capture_get(&cap, 0, "FRAGD_EVENT"), "knob_raised");
        assert_string_equal(capture_get(&cap, 0, "FRAGD_KNOB"), "vm.min_free_kbytes");
        assert_null(capture_get(&cap, 0, "FRAGD_NODE")); /* a global knob */
        assert_string_equal(capture_get(&cap, 0, "FRAGD_FROM"), "67584");
        assert_string_equal(capture_get(&cap, 0, "FRAGD_TO"), "90112");
        assert_string_equal(capture_get(&cap, 0, "FRAGD_REASON"), "reserve_below_target");
        assert_string_equal(capture_get(&cap, 0, "SYSLOG_IDENTIFIER"), "fragd");
        assert_non_null(strstr(capture_get(&cap, 0, "CODE_FILE"), "test-log-event.c"));
        assert_true(atoi(capture_get(&cap, 0, "CODE_LINE")) > 0);
        assert_string_equal(capture_get(&cap, 0, "CODE_FUNC"), "test_fields");

        assert_string_equal(capture_get(&cap, 1, "MESSAGE_ID"), ID_COMPACTION);
        assert_string_equal(capture_get(&cap, 1, "PRIORITY"), "6");
        assert_string_equal(capture_get(&cap, 1, "FRAGD_NODE"), "1");
        assert_string_equal(capture_get(&cap, 1, "FRAGD_KNOB"), "node1.compact");
        assert_null(capture_get(&cap, 1, "FRAGD_FROM"));
        assert_null(capture_get(&cap, 1, "FRAGD_TO"));

        assert_string_equal(capture_get(&cap, 2, "MESSAGE_ID"), ID_LEARNED_RESERVE);
        assert_null(capture_get(&cap, 2, "FRAGD_KNOB"));
        assert_string_equal(capture_get(&cap, 2, "FRAGD_TO"), "1073741824");
        assert_null(capture_get(&cap, 2, "FRAGD_HOLD"));
}

static void test_hold_field(void **state)
{
        const LogEventFields held = {
                .knob = "vm.watermark_scale_factor",
                .node = LOG_EVENT_NO_NODE,
                .from = "10",
                .to = "40",
                .reason = "reserve_below_target",
                .hold = "nothing_to_reclaim",
        };

        (void) state;
        log_set_max_level(LOG_INFO);
        capture_start(&cap);
        log_event_fields(LOG_INFO, LOG_EVENT_KNOB_HELD, &held, "held");
        capture_stop();
        assert_int_equal(cap.n, 1);
        assert_string_equal(capture_get(&cap, 0, "MESSAGE_ID"), ID_KNOB_HELD);
        assert_string_equal(capture_get(&cap, 0, "FRAGD_EVENT"), "knob_held");
        assert_string_equal(capture_get(&cap, 0, "PRIORITY"), "6");
        assert_string_equal(capture_get(&cap, 0, "FRAGD_HOLD"), "nothing_to_reclaim");
        assert_string_equal(capture_get(&cap, 0, "FRAGD_FROM"), "10");
        assert_string_equal(capture_get(&cap, 0, "FRAGD_TO"), "40");
        assert_string_equal(capture_get(&cap, 0, "FRAGD_REASON"), "reserve_below_target");
        /* every field fits: the code location is still there after the hold */
        assert_string_equal(capture_get(&cap, 0, "CODE_FUNC"), "test_hold_field");
}

static void test_level_filter(void **state)
{
        (void) state;
        log_set_max_level(LOG_WARNING);
        capture_start(&cap);
        log_event(LOG_NOTICE, LOG_EVENT_KNOB_LOWERED, "vm.watermark_scale_factor", LOG_EVENT_NO_NODE, "200", "150",
                  "targets_met_decay", "lower");
        capture_stop();
        assert_int_equal(cap.n, 0);
        log_set_max_level(LOG_INFO);
}

static void emit_restored(void)
{
        log_event(LOG_NOTICE, LOG_EVENT_KNOB_RESTORED, "vm.compaction_proactiveness", LOG_EVENT_NO_NODE, "40",
                  "20", "stop", "Knob %s: restored '%s' (fragd had '%s')", "vm.compaction_proactiveness", "20",
                  "40");
}

static void emit_plain(void)
{
        log_notice("Knob %s: restored '%s' (fragd had '%s')", "vm.compaction_proactiveness", "20", "40");
}

/* not under journald: the text log_notice() would write, byte for byte */
static void test_stderr_text_unchanged(void **state)
{
        static const char want[] = "fragd: Knob vm.compaction_proactiveness: restored '20' (fragd had '40')\n";
        char *ev, *plain;

        (void) state;
        log_set_max_level(LOG_INFO);
        log_set_prefix(false);
        capture_start(&cap);
        log_event_set_journal(false);
        ev = stderr_of(emit_restored);
        plain = stderr_of(emit_plain);
        capture_stop();
        assert_int_equal(cap.n, 0); /* the journal sender is not called */
        assert_string_equal(ev, want);
        assert_string_equal(plain, want);
        free(ev);
        free(plain);

        /* the journal refuses the entry (socket gone): the text is not lost */
        capture_start(&cap);
        cap.fail = -ECONNREFUSED;
        ev = stderr_of(emit_restored);
        capture_stop();
        assert_string_equal(ev, want);
        free(ev);

        /* under journald: the entry, and nothing on stderr */
        capture_start(&cap);
        ev = stderr_of(emit_restored);
        capture_stop();
        assert_string_equal(ev, "");
        assert_int_equal(cap.n, 1);
        assert_string_equal(capture_get(&cap, 0, "MESSAGE"),
                            "Knob vm.compaction_proactiveness: restored '20' (fragd had '40')");
        free(ev);
        log_set_prefix_auto();
}

static void test_under_journald(void **state)
{
        char tmpl[] = "/tmp/fragd-log-event-sock-XXXXXX", env[64];
        int fd = mkstemp(tmpl), saved = dup(STDERR_FILENO);
        struct stat st;

        (void) state;
        assert_true(fd >= 0 && saved >= 0);
        assert_int_equal(fstat(fd, &st), 0);
        snprintf(env, sizeof(env), "%llu:%llu", (unsigned long long) st.st_dev, (unsigned long long) st.st_ino);

        /* JOURNAL_STREAM names stderr */
        fflush(stderr);
        assert_int_equal(dup2(fd, STDERR_FILENO), STDERR_FILENO);
        assert_true(log_event_under_journald(env, NULL, 4711, NULL));
        assert_int_equal(dup2(saved, STDERR_FILENO), STDERR_FILENO);
        /* ... another stream: stderr was redirected */
        assert_false(log_event_under_journald(env, NULL, 4711, NULL));

        /* a service's own process with stderr elsewhere: INVOCATION_ID, parent pid 1, the socket */
        assert_true(log_event_under_journald(NULL, "0123456789abcdef0123456789abcdef", 1, tmpl));
        assert_false(log_event_under_journald(NULL, "0123456789abcdef0123456789abcdef", 4711, tmpl)); /* a child */
        assert_false(log_event_under_journald(NULL, NULL, 1, tmpl));
        assert_false(log_event_under_journald(NULL, "", 1, tmpl));
        assert_false(log_event_under_journald(NULL, "0123456789abcdef0123456789abcdef", 1,
                                              "/nonexistent/journal/socket"));
        close(fd);
        close(saved);
        (void) unlink(tmpl);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_ids),
                cmocka_unit_test(test_fields),
                cmocka_unit_test(test_hold_field),
                cmocka_unit_test(test_level_filter),
                cmocka_unit_test(test_stderr_text_unchanged),
                cmocka_unit_test(test_under_journald),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
