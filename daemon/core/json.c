/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <math.h>
#include <inttypes.h>

#include "core/json.h"
#include "core/text.h"

void json_init(JsonWriter *w, FILE *f, bool pretty)
{
        *w = (JsonWriter) { .f = f, .pretty = pretty };
        w->first[0] = true;
}

static void indent(JsonWriter *w)
{
        if (!w->pretty)
                return;
        fputc('\n', w->f);
        for (unsigned i = 0; i < w->depth; i++)
                fputs("  ", w->f);
}

/* before any value or key at the current level */
static void sep(JsonWriter *w)
{
        if (w->after_key) {
                w->after_key = false;
                return;
        }
        if (!w->first[w->depth])
                fputc(',', w->f);
        w->first[w->depth] = false;
        if (w->depth > 0)
                indent(w);
}

static void open(JsonWriter *w, char c)
{
        sep(w);
        fputc(c, w->f);
        if (w->depth + 1 < JSON_MAX_DEPTH)
                w->depth++;
        w->first[w->depth] = true;
}

static void close_(JsonWriter *w, char c)
{
        bool empty = w->first[w->depth];

        if (w->depth > 0)
                w->depth--;
        if (!empty)
                indent(w);
        fputc(c, w->f);
}

void json_obj_begin(JsonWriter *w) { open(w, '{'); }
void json_obj_end(JsonWriter *w) { close_(w, '}'); }
void json_arr_begin(JsonWriter *w) { open(w, '['); }
void json_arr_end(JsonWriter *w) { close_(w, ']'); }

/* JSON text is UTF-8 (RFC 8259): control characters are escaped, and a byte
 * that does not start a well-formed UTF-8 sequence becomes U+FFFD, so a
 * stray Latin-1 name never makes the whole report unreadable. */
void json_put_string(FILE *f, const char *s)
{
        fputc('"', f);
        for (const unsigned char *p = (const unsigned char *) s; *p; p++) {
                switch (*p) {
                case '"': fputs("\\\"", f); break;
                case '\\': fputs("\\\\", f); break;
                case '\n': fputs("\\n", f); break;
                case '\t': fputs("\\t", f); break;
                case '\r': fputs("\\r", f); break;
                default:
                        if (*p < 0x20 || *p == 0x7F)
                                fprintf(f, "\\u%04x", *p);
                        else if (*p < 0x80)
                                fputc(*p, f);
                        else {
                                size_t n = utf8_sequence_len((const char *) p, NULL);

                                if (n == 0)
                                        fputs("\\ufffd", f);
                                else {
                                        fwrite(p, 1, n, f);
                                        p += n - 1;
                                }
                        }
                }
        }
        fputc('"', f);
}

void json_key(JsonWriter *w, const char *key)
{
        sep(w);
        json_put_string(w->f, key);
        fputs(w->pretty ? ": " : ":", w->f);
        w->after_key = true;
}

void json_str(JsonWriter *w, const char *s)
{
        sep(w);
        if (s)
                json_put_string(w->f, s);
        else
                fputs("null", w->f);
}

void json_u64(JsonWriter *w, uint64_t v) { sep(w); fprintf(w->f, "%" PRIu64, v); }
void json_i64(JsonWriter *w, int64_t v) { sep(w); fprintf(w->f, "%" PRId64, v); }
void json_bool(JsonWriter *w, bool v) { sep(w); fputs(v ? "true" : "false", w->f); }
void json_null(JsonWriter *w) { sep(w); fputs("null", w->f); }
void json_raw(JsonWriter *w, const char *json) { sep(w); fputs(json, w->f); }

void json_num(JsonWriter *w, double v)
{
        sep(w);
        if (!isfinite(v))
                fputs("null", w->f);
        else
                fprintf(w->f, "%.6g", v);
}

void json_end(JsonWriter *w)
{
        fputc('\n', w->f);
}
