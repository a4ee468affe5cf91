/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fragd's one integer parser (daemon/core/parse-util.c): parse_i64,
 * parse_u64 and their Span forms, which every other integer parse in the
 * daemon now goes through (config values, knob values, the fake knob ops,
 * fragd status, --page-size, the kernel-file sources). Table tests. */

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "config/config-internal.h"
#include "core/parse-util.h"
#include "fragd/macro.h"
#include "knobs/knob-internal.h"

typedef struct I64Case {
        const char *in;
        int rc;
        int64_t want;
} I64Case;

typedef struct U64Case {
        const char *in;
        int rc;
        uint64_t want;
} U64Case;

static const I64Case i64_cases[] = {
        /* plain */
        { "0", 0, 0 },
        { "7", 0, 7 },
        { "-7", 0, -7 },
        { "-0", 0, 0 },
        { "007", 0, 7 },
        { "-007", 0, -7 },
        /* the edges */
        { "9223372036854775807", 0, INT64_MAX },
        { "-9223372036854775808", 0, INT64_MIN },
        { "0000000000000000000009223372036854775807", 0, INT64_MAX }, /* leading zeros do not count */
        { "9223372036854775808", -ERANGE, 0 },
        { "-9223372036854775809", -ERANGE, 0 },
        { "18446744073709551615", -ERANGE, 0 },
        { "18446744073709551616", -ERANGE, 0 },
        { "99999999999999999999999999", -ERANGE, 0 },
        { "-99999999999999999999999999", -ERANGE, 0 },
        /* empty and sign alone */
        { "", -EBADMSG, 0 },
        { "-", -EBADMSG, 0 },
        { "--5", -EBADMSG, 0 },
        { "+5", -EBADMSG, 0 },
        { "-+5", -EBADMSG, 0 },
        /* trailing junk */
        { "5x", -EBADMSG, 0 },
        { "5-", -EBADMSG, 0 },
        { "1.0", -EBADMSG, 0 },
        { "1e3", -EBADMSG, 0 },
        { "0x10", -EBADMSG, 0 },
        { "12 34", -EBADMSG, 0 },
        /* whitespace: none anywhere */
        { " 5", -EBADMSG, 0 },
        { "5 ", -EBADMSG, 0 },
        { "\t5", -EBADMSG, 0 },
        { "5\n", -EBADMSG, 0 },
        { "- 5", -EBADMSG, 0 },
        { " ", -EBADMSG, 0 },
        /* not ASCII digits */
        { "\xd9\xa5", -EBADMSG, 0 }, /* ARABIC-INDIC DIGIT FIVE */
        { "five", -EBADMSG, 0 },
};

static const U64Case u64_cases[] = {
        { "0", 0, 0 },
        { "42", 0, 42 },
        { "000", 0, 0 },
        { "9223372036854775808", 0, (uint64_t) INT64_MAX + 1 },
        { "18446744073709551615", 0, UINT64_MAX },
        { "018446744073709551615", 0, UINT64_MAX },
        { "18446744073709551616", -ERANGE, 0 },
        { "18446744073709551620", -ERANGE, 0 },
        { "99999999999999999999", -ERANGE, 0 },
        { "-0", -EBADMSG, 0 }, /* unsigned: no sign at all */
        { "-1", -EBADMSG, 0 },
        { "+1", -EBADMSG, 0 },
        { "", -EBADMSG, 0 },
        { "1 ", -EBADMSG, 0 },
        { " 1", -EBADMSG, 0 },
        { "1\r", -EBADMSG, 0 },
        { "1k", -EBADMSG, 0 },
        { "0x1", -EBADMSG, 0 },
};

static void test_parse_i64_table(void **state)
{
        (void) state;
        for (size_t i = 0; i < ELEMENTSOF(i64_cases); i++) {
                const I64Case *c = &i64_cases[i];
                int64_t v = 12345, w = 12345;
                int r = parse_i64(c->in, &v);

                print_message("parse_i64(\"%s\")\n", c->in);
                assert_int_equal(r, c->rc);
                /* the Span form agrees, and reads only its length */
                assert_int_equal(span_to_i64((Span) { c->in, strlen(c->in) }, &w), c->rc);
                if (c->rc == 0) {
                        assert_true(v == c->want);
                        assert_true(w == c->want);
                } else {
                        assert_true(v == 12345); /* untouched on failure */
                        assert_true(w == 12345);
                }
        }
}

static void test_parse_u64_table(void **state)
{
        (void) state;
        for (size_t i = 0; i < ELEMENTSOF(u64_cases); i++) {
                const U64Case *c = &u64_cases[i];
                uint64_t v = 12345, w = 12345;

                print_message("parse_u64(\"%s\")\n", c->in);
                assert_int_equal(parse_u64(c->in, &v), c->rc);
                assert_int_equal(span_to_u64((Span) { c->in, strlen(c->in) }, &w), c->rc);
                if (c->rc == 0) {
                        assert_true(v == c->want);
                        assert_true(w == c->want);
                } else {
                        assert_true(v == 12345);
                        assert_true(w == 12345);
                }
        }
}

static void test_parse_null_and_span_bounds(void **state)
{
        const char buf[] = "123456";
        int64_t i = 1;
        uint64_t u = 1;

        (void) state;
        assert_int_equal(parse_i64(NULL, &i), -EBADMSG);
        assert_int_equal(parse_u64(NULL, &u), -EBADMSG);
        /* a Span ends where its length says, not at a NUL */
        assert_int_equal(span_to_u64((Span) { buf, 3 }, &u), 0);
        assert_true(u == 123);
        assert_int_equal(span_to_i64((Span) { buf, 0 }, &i), -EBADMSG);
        assert_int_equal(span_to_u64((Span) { "12\0" "3", 4 }, &u), -EBADMSG);
}

/* The callers that allow more than the core syntax add exactly that: the
 * configuration's blanks around a value. Everything else is the core's. */
static void test_callers_follow_core(void **state)
{
        int64_t i = 0;
        uint64_t u = 0;

        (void) state;
        for (size_t k = 0; k < ELEMENTSOF(i64_cases); k++) {
                const I64Case *c = &i64_cases[k];
                int64_t v = 0;
                bool blank_only = c->in[0] == ' ' || c->in[0] == '\t' ||
                                  (c->in[0] && c->in[strlen(c->in) - 1] == ' ');
                bool ok = knob_parse_i64(c->in, &v);

                print_message("knob_parse_i64 / config_parse_int(\"%s\")\n", c->in);
                assert_true(ok == (c->rc == 0));
                if (!blank_only)
                        assert_int_equal(config_parse_int(c->in, &v), c->rc);
        }
        for (size_t k = 0; k < ELEMENTSOF(u64_cases); k++) {
                const U64Case *c = &u64_cases[k];
                bool blank = c->in[0] == ' ' || (c->in[0] && c->in[strlen(c->in) - 1] == ' ');

                if (!blank)
                        assert_int_equal(config_parse_uint(c->in, &u), c->rc);
        }
        /* blanks (space, tab) around a configuration value, not inside it */
        assert_int_equal(config_parse_int(" \t-5 \t", &i), 0);
        assert_true(i == -5);
        assert_int_equal(config_parse_uint(" 5 ", &u), 0);
        assert_true(u == 5);
        assert_int_equal(config_parse_int("- 5", &i), -EBADMSG);
        assert_int_equal(config_parse_int(" ", &i), -EBADMSG);
        assert_int_equal(config_parse_uint("5\n", &u), -EBADMSG);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_parse_i64_table),
                cmocka_unit_test(test_parse_u64_table),
                cmocka_unit_test(test_parse_null_and_span_bounds),
                cmocka_unit_test(test_callers_follow_core),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
