/* SPDX-License-Identifier: GPL-2.0-or-later */
/* libFuzzer target for sysctl_value_parse() (a knob's file),
 * lever_value_parse() (a lever's value as text: a knob journal's original
 * value) and the whole-string decimal parsers under them, parse_u64() and
 * parse_i64(); corpus in tests/corpus/sysctl-value/. */

#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/parse-util.h"
#include "fragd/obs.h"
#include "knobs/lever.h"
#include "sources/sources.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        char text[128];
        int64_t v;

        (void) sysctl_value_parse((const char *) data, size, &v);

        /* lever_value_parse takes a C string: the input up to its first NUL */
        size_t n = size < sizeof(text) - 1 ? size : sizeof(text) - 1;
        memcpy(text, data, n);
        text[n] = '\0';
        {
                uint64_t u, u2;
                int64_t i, i2;
                char back[32];
                int ru = parse_u64(text, &u), ri = parse_i64(text, &i);

                /* what parses prints back to a number that parses the same */
                if (ru == 0) {
                        snprintf(back, sizeof(back), "%" PRIu64, u);
                        if (parse_u64(back, &u2) != 0 || u2 != u)
                                abort();
                }
                if (ri == 0) {
                        snprintf(back, sizeof(back), "%" PRId64, i);
                        if (parse_i64(back, &i2) != 0 || i2 != i)
                                abort();
                        /* a number lever's text is parse_i64's */
                        if (lever_value_parse(LEVER_MIN_FREE_KBYTES, text, &v) != 0 || v != i)
                                abort();
                }
                /* both read a non-negative number the same */
                if (ru == 0 && u <= INT64_MAX && (ri != 0 || (uint64_t) i != u))
                        abort();
        }
        for (int l = 0; l < _LEVER_MAX; l++) {
                char again[LEVER_VALUE_MAX];
                int64_t back;

                if (lever_value_parse((Lever) l, text, &v) < 0)
                        continue;
                /* what parses formats back to text that parses to the same value */
                lever_value_format((Lever) l, v, again, sizeof(again));
                if (lever_value_parse((Lever) l, again, &back) < 0 || back != v)
                        abort();
        }
        return 0;
}
