/* SPDX-License-Identifier: GPL-2.0-or-later */
/* libFuzzer target for thp_mode_parse(); corpus in tests/corpus/thp-mode/. */

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fragd/obs.h"
#include "sources/sources.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        char out[THP_MODE_MAX];

        if (thp_mode_parse((const char *) data, size, out, sizeof(out)) == 0) {
                size_t n = strlen(out);

                if (n == 0 || n >= sizeof(out) || strchr(out, 0x5b) || strchr(out, 0x5d))
                        abort();
        }
        return 0;
}
