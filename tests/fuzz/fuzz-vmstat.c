/* SPDX-License-Identifier: GPL-2.0-or-later */
/* libFuzzer target for vmstat_parse() (also cgroup memory.stat); corpus in tests/corpus/vmstat/. */

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
        uint64_t v;

        if (vmstat_parse((const char *) data, size, &l) == 0) {
                if (l.n > FRAGD_MAX_KV || l.n + l.n_skipped == 0)
                        abort();
                for (unsigned i = 0; i < l.n; i++)
                        if (strlen(l.e[i].name) >= FRAGD_KV_NAME_MAX || kv_get(&l, l.e[i].name, &v) < 0)
                                abort();
        }
        return 0;
}
