/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Table tests for the fragd.conf value parsers and formatters. */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "config/config-internal.h"
#include "core/format.h"

#define MS USEC_PER_MSEC
#define S USEC_PER_SEC
#define MINU USEC_PER_MINUTE

static void test_bool(void **state)
{
        static const struct {
                const char *in;
                int rc;
                bool v;
        } t[] = {
                { "yes", 0, true },   { "no", 0, false },    { "true", 0, true },  { "false", 0, false },
                { "on", 0, true },    { "off", 0, false },   { "1", 0, true },     { "0", 0, false },
                { "YES", 0, true },   { "Off", 0, false },   { "TRUE", 0, true },  { "", -EBADMSG, 0 },
                { "y", -EBADMSG, 0 }, { "2", -EBADMSG, 0 },  { "yes ", -EBADMSG, 0 }, { "enable", -EBADMSG, 0 },
                { "nope", -EBADMSG, 0 },
        };
        (void) state;
        for (size_t i = 0; i < ELEMENTSOF(t); i++) {
                bool v = !t[i].v;
                int r = config_parse_bool(t[i].in, &v);

                if (r != t[i].rc)
                        fail_msg("'%s': rc %d, want %d", t[i].in, r, t[i].rc);
                if (r == 0)
                        assert_int_equal(v, t[i].v);
        }
        assert_int_equal(config_parse_bool(NULL, &(bool) { 0 }), -EBADMSG);
}

static void test_duration(void **state)
{
        static const struct {
                const char *in;
                int rc;
                usec_t v;
        } t[] = {
                { "0", 0, 0 },
                { "500ms", 0, 500 * MS },
                { "5s", 0, 5 * S },
                { "2min", 0, 2 * MINU },
                { "2m", 0, 2 * MINU },
                { "1h", 0, 60 * MINU },
                { "1d", 0, 24 * 60 * MINU },
                { "1.5s", 0, 1500 * MS },
                { "0.5s", 0, 500 * MS },
                { "250us", 0, 250 },
                { "3usec", 0, 3 },
                { "7msec", 0, 7 * MS },
                { "10sec", 0, 10 * S },
                { "1h30min", 0, 90 * MINU },
                { "1h 30min", 0, 90 * MINU },
                { "2 min", 0, 2 * MINU },
                { " 5s", 0, 5 * S },
                { "1min 0.5s", 0, MINU + 500 * MS },
                { "0s", 0, 0 },
                { "00010s", 0, 10 * S },
                /* bad */
                { "", -EBADMSG, 0 },
                { "5", -EBADMSG, 0 },      /* a unit is required */
                { "s", -EBADMSG, 0 },
                { "5 parsecs", -EBADMSG, 0 },
                { "5S", -EBADMSG, 0 },     /* units are lower case */
                { "-5s", -EBADMSG, 0 },
                { "5s-", -EBADMSG, 0 },
                { ".5s", -EBADMSG, 0 },
                { "5.s", -EBADMSG, 0 },
                { "1e3s", -EBADMSG, 0 },
                { "0x10s", -EBADMSG, 0 },
                { "1.5us", -EDOM, 0 },     /* finer than a microsecond */
                { "0.0000001s", -EDOM, 0 },
                { "99999999999999999999s", -ERANGE, 0 },
                { "999999999999d", -ERANGE, 0 },
                { "18446744073709551615us 1us", -ERANGE, 0 },
        };
        (void) state;
        for (size_t i = 0; i < ELEMENTSOF(t); i++) {
                usec_t v = 12345;
                int r = config_parse_duration(t[i].in, &v);

                if (r != t[i].rc)
                        fail_msg("'%s': rc %d, want %d", t[i].in, r, t[i].rc);
                if (r == 0 && v != t[i].v)
                        fail_msg("'%s': %llu, want %llu", t[i].in, (unsigned long long) v,
                                 (unsigned long long) t[i].v);
                if (r < 0)
                        assert_int_equal(v, 12345); /* untouched on error */
        }
}

static void test_size(void **state)
{
        static const struct {
                const char *in;
                int rc;
                uint64_t bytes;
                uint32_t permyriad;
        } t[] = {
                { "0", 0, 0, 0 },
                { "4096", 0, 4096, 0 },
                { "4096B", 0, 4096, 0 },
                { "64MiB", 0, 64ULL << 20, 0 },
                { "64M", 0, 64ULL << 20, 0 },
                { "1KiB", 0, 1024, 0 },
                { "1K", 0, 1024, 0 },
                { "1.5GiB", 0, 3ULL << 29, 0 },
                { "2TiB", 0, 2ULL << 40, 0 },
                { "1PiB", 0, 1ULL << 50, 0 },
                { "64 MiB", 0, 64ULL << 20, 0 },
                { "2%", 0, 0, 200 },
                { "0.05%", 0, 0, 5 },
                { "12.34%", 0, 0, 1234 },
                { "100%", 0, 0, 10000 },
                { "2 %", 0, 0, 200 },
                { "0%", 0, 0, 0 },
                /* bad */
                { "", -EBADMSG, 0, 0 },
                { "MiB", -EBADMSG, 0, 0 },
                { "64kB", -EBADMSG, 0, 0 },  /* ambiguous: refused */
                { "64MB", -EBADMSG, 0, 0 },
                { "64mib", -EBADMSG, 0, 0 },
                { "64 MiB x", -EBADMSG, 0, 0 },
                { "-1MiB", -EBADMSG, 0, 0 },
                { "1.5", -EDOM, 0, 0 },      /* half a byte */
                { "0.3B", -EDOM, 0, 0 },
                { "0.001%", -EDOM, 0, 0 },   /* finer than 0.01% */
                { "101%", -ERANGE, 0, 0 },
                { "16384PiB", -ERANGE, 0, 0 },
                { "2%%", -EBADMSG, 0, 0 },
        };
        (void) state;
        for (size_t i = 0; i < ELEMENTSOF(t); i++) {
                SizeSpec v = { 7, 7 };
                int r = config_parse_size(t[i].in, &v);

                if (r != t[i].rc)
                        fail_msg("'%s': rc %d, want %d", t[i].in, r, t[i].rc);
                if (r == 0 && (v.bytes != t[i].bytes || v.permyriad != t[i].permyriad))
                        fail_msg("'%s': %llu/%u", t[i].in, (unsigned long long) v.bytes, v.permyriad);
                if (r < 0)
                        assert_true(v.bytes == 7 && v.permyriad == 7);
        }
}

static void test_bytes(void **state)
{
        uint64_t b;

        (void) state;
        assert_int_equal(config_parse_bytes("64MiB", &b), 0);
        assert_int_equal(b, 64ULL << 20);
        assert_int_equal(config_parse_bytes("2%", &b), -EBADMSG);
        assert_int_equal(config_parse_bytes("x", &b), -EBADMSG);
}

static void test_ratio(void **state)
{
        static const struct {
                const char *in;
                int rc;
                uint32_t v;
        } t[] = {
                { "0.05", 0, 500 },   { "5%", 0, 500 },      { "0", 0, 0 },        { "1", 0, 10000 },
                { "1.0", 0, 10000 },  { "100%", 0, 10000 },  { "0.0001", 0, 1 },   { "0.01%", 0, 1 },
                { "12.5%", 0, 1250 }, { "0.125", 0, 1250 },  { "0%", 0, 0 },       { "0.5 %", 0, 50 },
                { "", -EBADMSG, 0 },  { "%", -EBADMSG, 0 },  { "5%x", -EBADMSG, 0 }, { "five", -EBADMSG, 0 },
                { "-0.1", -EBADMSG, 0 }, { "1.01", -ERANGE, 0 }, { "101%", -ERANGE, 0 }, { "2", -ERANGE, 0 },
                { "0.00001", -EDOM, 0 }, { "0.001%", -EDOM, 0 }, { "5 percent", -EBADMSG, 0 },
        };
        (void) state;
        for (size_t i = 0; i < ELEMENTSOF(t); i++) {
                uint32_t v = 77;
                int r = config_parse_ratio(t[i].in, &v);

                if (r != t[i].rc)
                        fail_msg("'%s': rc %d, want %d", t[i].in, r, t[i].rc);
                if (r == 0 && v != t[i].v)
                        fail_msg("'%s': %u, want %u", t[i].in, v, t[i].v);
                if (r < 0)
                        assert_int_equal(v, 77);
        }
}

static void test_rate(void **state)
{
        static const struct {
                const char *in;
                int rc;
                double v;
        } t[] = {
                { "0.5", 0, 0.5 },     { "0.5/s", 0, 0.5 },   { "2/sec", 0, 2 },     { "30/min", 0, 0.5 },
                { "3600/h", 0, 1 },    { "0", 0, 0 },         { "1 /s", 0, 1 },      { "6/m", 0, 0.1 },
                { "", -EBADMSG, 0 },   { "/s", -EBADMSG, 0 }, { "1/d", -EBADMSG, 0 }, { "inf", -EBADMSG, 0 },
                { "nan", -EBADMSG, 0 }, { "1e3", -EBADMSG, 0 }, { "-1/s", -EBADMSG, 0 }, { "0x1p3", -EBADMSG, 0 },
        };
        (void) state;
        for (size_t i = 0; i < ELEMENTSOF(t); i++) {
                double v = -1;
                int r = config_parse_rate(t[i].in, &v);

                if (r != t[i].rc)
                        fail_msg("'%s': rc %d, want %d", t[i].in, r, t[i].rc);
                if (r == 0 && (v < t[i].v - 1e-12 || v > t[i].v + 1e-12))
                        fail_msg("'%s': %g, want %g", t[i].in, v, t[i].v);
        }
}

static void test_number_and_ints(void **state)
{
        double d;
        uint64_t u;
        int64_t i;

        (void) state;
        assert_int_equal(config_parse_number("16384", &d), 0);
        assert_true(d == 16384);
        assert_int_equal(config_parse_number("0.25", &d), 0);
        assert_true(d == 0.25);
        assert_int_equal(config_parse_number("1e9", &d), -EBADMSG);
        assert_int_equal(config_parse_number("12 x", &d), -EBADMSG);

        assert_int_equal(config_parse_uint("42", &u), 0);
        assert_int_equal(u, 42);
        assert_int_equal(config_parse_uint("18446744073709551615", &u), 0);
        assert_int_equal(u, UINT64_MAX);
        assert_int_equal(config_parse_uint("18446744073709551616", &u), -ERANGE);
        assert_int_equal(config_parse_uint("-1", &u), -EBADMSG);
        assert_int_equal(config_parse_uint("1.0", &u), -EBADMSG);
        assert_int_equal(config_parse_uint("", &u), -EBADMSG);

        assert_int_equal(config_parse_int("-5", &i), 0);
        assert_int_equal(i, -5);
        assert_int_equal(config_parse_int("9223372036854775807", &i), 0);
        assert_int_equal(i, INT64_MAX);
        assert_int_equal(config_parse_int("-9223372036854775808", &i), 0);
        assert_int_equal(i, INT64_MIN);
        assert_int_equal(config_parse_int("9223372036854775808", &i), -ERANGE);
        assert_int_equal(config_parse_int("--5", &i), -EBADMSG);
}

static void test_format_roundtrip(void **state)
{
        static const usec_t durations[] = { 0, 1, 999, MS, 1500 * MS, S, 90 * S, MINU, 2 * MINU, 60 * MINU,
                                            24 * 60 * MINU, 25 * 60 * MINU, 123456789 };
        static const uint64_t sizes[] = { 0, 1, 1023, 1024, 1536, 64ULL << 20, 3ULL << 29, 1ULL << 40, 1ULL << 50,
                                          (1ULL << 50) + 1 };
        char buf[64];
        (void) state;

        for (size_t i = 0; i < ELEMENTSOF(durations); i++) {
                usec_t u;
                format_duration_exact(buf, sizeof(buf), durations[i]);
                assert_int_equal(config_parse_duration(buf, &u), 0);
                assert_int_equal(u, durations[i]);
        }
        assert_string_equal(format_duration_exact(buf, sizeof(buf), 2 * MINU), "2min");
        assert_string_equal(format_duration_exact(buf, sizeof(buf), 1500 * MS), "1500ms");
        assert_string_equal(format_duration_exact(buf, sizeof(buf), 0), "0");

        for (size_t i = 0; i < ELEMENTSOF(sizes); i++) {
                uint64_t b;
                format_bytes_exact(buf, sizeof(buf), sizes[i]);
                assert_int_equal(config_parse_bytes(buf, &b), 0);
                assert_int_equal(b, sizes[i]);
        }
        assert_string_equal(format_bytes_exact(buf, sizeof(buf), 64ULL << 20), "64MiB");
        assert_string_equal(format_bytes_exact(buf, sizeof(buf), 1536), "1536");

        for (uint32_t p = 0; p <= 10000; p++) {
                uint32_t q;
                config_format_ratio(buf, sizeof(buf), p);
                assert_int_equal(config_parse_ratio(buf, &q), 0);
                assert_int_equal(q, p);
        }
        assert_string_equal(config_format_ratio(buf, sizeof(buf), 200), "2%");
        assert_string_equal(config_format_ratio(buf, sizeof(buf), 5), "0.05%");
        assert_string_equal(config_format_ratio(buf, sizeof(buf), 1250), "12.5%");
        assert_string_equal(config_format_size(buf, sizeof(buf), (SizeSpec) { .permyriad = 200 }), "2%");
        assert_string_equal(config_format_size(buf, sizeof(buf), (SizeSpec) { .bytes = 1 << 20 }), "1MiB");

        static const double rates[] = { 0, 0.5, 0.2, 2, 1.0 / 3, 1000, 1e-7 };
        for (size_t i = 0; i < ELEMENTSOF(rates); i++) {
                double d;
                config_format_rate(buf, sizeof(buf), rates[i]);
                assert_int_equal(config_parse_rate(buf, &d), 0);
                if (rates[i] >= 1e-6)
                        assert_true(d == rates[i]);
        }
        assert_string_equal(config_format_rate(buf, sizeof(buf), 0.5), "0.5/s");
        assert_string_equal(config_format_number(buf, sizeof(buf), 16384), "16384");
}

static void test_edit_distance(void **state)
{
        (void) state;
        assert_int_equal(config_edit_distance("interval", "interval", 2), 0);
        assert_int_equal(config_edit_distance("intervall", "interval", 2), 1);
        assert_int_equal(config_edit_distance("intreval", "interval", 2), 2);
        assert_int_equal(config_edit_distance("deamon", "daemon", 2), 2);
        assert_int_equal(config_edit_distance("", "abc", 2), 3);
        assert_int_equal(config_edit_distance("policy", "daemon", 2), 3);
        assert_int_equal(config_edit_distance("kitten", "sitting", 5), 3);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_bool),
                cmocka_unit_test(test_duration),
                cmocka_unit_test(test_size),
                cmocka_unit_test(test_bytes),
                cmocka_unit_test(test_ratio),
                cmocka_unit_test(test_rate),
                cmocka_unit_test(test_number_and_ints),
                cmocka_unit_test(test_format_roundtrip),
                cmocka_unit_test(test_edit_distance),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
