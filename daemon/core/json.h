/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* A minimal streaming JSON writer: keeps comma state per nesting level,
 * escapes strings, prints non-finite numbers as null. */

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define JSON_MAX_DEPTH 32

typedef struct JsonWriter {
        FILE *f;
        unsigned depth;
        bool first[JSON_MAX_DEPTH];
        bool after_key;
        bool pretty;
} JsonWriter;

void json_init(JsonWriter *w, FILE *f, bool pretty);
void json_obj_begin(JsonWriter *w);
void json_obj_end(JsonWriter *w);
void json_arr_begin(JsonWriter *w);
void json_arr_end(JsonWriter *w);
void json_key(JsonWriter *w, const char *key);
void json_str(JsonWriter *w, const char *s);  /* NULL prints null */
void json_u64(JsonWriter *w, uint64_t v);
void json_i64(JsonWriter *w, int64_t v);
void json_num(JsonWriter *w, double v);       /* %.6g; NaN/inf print null */
void json_bool(JsonWriter *w, bool v);
void json_null(JsonWriter *w);
void json_raw(JsonWriter *w, const char *json); /* one complete JSON value, written as is */
void json_end(JsonWriter *w); /* final newline */
/* s as a JSON string, quotes included, for writers that print JSON by hand:
 * control characters escaped, bytes that are not UTF-8 as \ufffd. */
void json_put_string(FILE *f, const char *s);
