/* SPDX-License-Identifier: GPL-2.0-or-later */
/* libFuzzer target for zoneinfo_parse(); replayed under gcc by fuzz-main.c. */

#include <assert.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fragd/obs.h"
#include "sources/observe.h"
#include "sources/sources.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        static ZoneInfo z, copy;
        int r;

        /* the parser must not touch *ret on failure */
        memset(&z, 0x5a, sizeof(z));
        copy = z;
        r = zoneinfo_parse((const char *) data, size, &z);
        if (r < 0) {
                assert(r == -EBADMSG || r == -ENODATA || r == -ERANGE || r == -E2BIG);
                assert(memcmp(&z, &copy, sizeof(z)) == 0);
                return 0;
        }

        assert(z.n_zones >= 1 && z.n_zones <= FRAGD_MAX_ZONES);
        assert(z.n_nodes >= 1 && z.n_nodes <= FRAGD_MAX_NODES);
        for (unsigned i = 0; i < z.n_zones; i++) {
                const ZoneInfoZone *zz = &z.zones[i];

                assert(memchr(zz->zone, '\0', sizeof(zz->zone)));
                assert(zoneinfo_find(&z, zz->node, zz->zone) == zz);
                /* every zone's node is listed */
                assert(zoneinfo_find_node(&z, zz->node));
                assert(zz->min <= zz->low && zz->low <= zz->high);
                assert(zz->present <= zz->spanned);
                assert(!(zz->have & ZONE_HAVE_MANAGED) || zz->managed <= zz->present);
        }
        for (unsigned i = 0; i < z.n_nodes; i++)
                assert(zoneinfo_find_node(&z, z.nodes[i].node) == &z.nodes[i]);
        (void) zoneinfo_find(&z, 0, "Normal");

        /* the plausibility check (against a 4 GiB MemTotal): a rejection
         * always says why */
        {
                static Observation o;

                memset(&o, 0, sizeof(o));
                o.page_size = 4096;
                o.have = OBS_MASK(OBS_ZONEINFO) | OBS_MASK(OBS_MEMINFO);
                o.zoneinfo = z;
                o.meminfo.n = 1;
                strcpy(o.meminfo.e[0].name, "MemTotal");
                o.meminfo.e[0].value = 4194304;
                observation_check(&o);
                assert(!(o.rejected & OBS_MASK(OBS_ZONEINFO)) ||
                       (o.n_problems > 0 && !(o.have & OBS_MASK(OBS_ZONEINFO))));
        }
        return 0;
}
