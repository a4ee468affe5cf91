/* SPDX-License-Identifier: GPL-2.0-or-later */
/* libFuzzer target for cpulist_parse() and node_memtotal_parse(); corpus in tests/corpus/cpulist/. */

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
        int ids[FRAGD_MAX_NODES];
        unsigned n, n_count;
        uint64_t kb;

        if (cpulist_parse((const char *) data, size, ids, FRAGD_MAX_NODES, &n) == 0) {
                if (n > FRAGD_MAX_NODES)
                        abort();
                for (unsigned i = 1; i < n; i++)
                        if (ids[i] <= ids[i - 1])
                                abort();
                if (cpulist_parse((const char *) data, size, NULL, 0, &n_count) < 0 || n_count != n)
                        abort();
        }
        (void) node_memtotal_parse((const char *) data, size, 0, &kb);
        return 0;
}
