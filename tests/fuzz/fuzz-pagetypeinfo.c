/* SPDX-License-Identifier: GPL-2.0-or-later */
/* libFuzzer target for pagetypeinfo_parse(); replayed under gcc by fuzz-main.c. */

#include <assert.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fragd/obs.h"
#include "sources/sources.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        static PageTypeInfo p, copy;
        int r;

        /* the parser must not touch *ret on failure */
        memset(&p, 0x5a, sizeof(p));
        copy = p;
        r = pagetypeinfo_parse((const char *) data, size, &p);
        if (r < 0) {
                assert(r == -EBADMSG || r == -ENODATA || r == -ERANGE || r == -E2BIG);
                assert(memcmp(&p, &copy, sizeof(p)) == 0);
                return 0;
        }

        assert(p.n_zones >= 1 && p.n_zones <= FRAGD_MAX_ZONES);
        assert(p.n_orders >= 1 && p.n_orders <= FRAGD_MAX_ORDERS);
        assert(p.n_types <= FRAGD_MAX_MIGRATETYPES);
        assert(p.pageblock_order < 64 && p.pages_per_block == UINT64_C(1) << p.pageblock_order);
        for (unsigned t = 0; t < p.n_types; t++) {
                assert(memchr(p.types[t], '\0', sizeof(p.types[t])));
                assert(pagetypeinfo_type_index(&p, p.types[t]) == (int) t);
        }
        for (unsigned i = 0; i < p.n_zones; i++) {
                const PageTypeZone *z = &p.zones[i];

                assert(pagetypeinfo_find(&p, z->node, z->zone) == z);
                for (unsigned t = 0; t < FRAGD_MAX_MIGRATETYPES; t++) {
                        /* capped bits only for real orders and types */
                        assert((z->capped[t] >> p.n_orders) == 0);
                        if (t >= p.n_types)
                                assert(z->capped[t] == 0 && z->blocks[t] == 0);
                }
        }
        (void) pagetypeinfo_type_index(&p, "Movable");
        (void) pagetypeinfo_find(&p, 0, "Normal");
        return 0;
}
