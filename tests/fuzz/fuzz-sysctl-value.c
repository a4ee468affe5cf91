/* SPDX-License-Identifier: GPL-2.0-or-later */
/* libFuzzer target for sysctl_value_parse(); corpus in tests/corpus/sysctl-value/. */

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fragd/obs.h"
#include "sources/sources.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        int64_t v;

        (void) sysctl_value_parse((const char *) data, size, &v);
        return 0;
}
