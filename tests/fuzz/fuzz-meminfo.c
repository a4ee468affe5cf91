/* SPDX-License-Identifier: GPL-2.0-or-later */
/* libFuzzer target for meminfo_parse(); corpus in tests/corpus/meminfo/. */

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/root.h"
#include "fragd/obs.h"
#include "sources/sources.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        static KvList l;
        uint64_t total, v;

        if (meminfo_parse((const char *) data, size, &l) == 0) {
                if (l.n > FRAGD_MAX_KV || kv_get(&l, "MemTotal", &total) < 0)
                        abort();
                if (kv_get(&l, "MemFree", &v) == 0 && v > total)
                        abort();
        }
        return 0;
}
