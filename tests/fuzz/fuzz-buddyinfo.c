/* SPDX-License-Identifier: GPL-2.0-or-later */
/* libFuzzer target for buddyinfo_parse(); replayed under gcc by fuzz-main.c. */

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
        static BuddyInfo b, copy;
        int r;

        /* the parser must not touch *ret on failure */
        memset(&b, 0x5a, sizeof(b));
        copy = b;
        r = buddyinfo_parse((const char *) data, size, &b);
        if (r < 0) {
                assert(r == -EBADMSG || r == -ENODATA || r == -ERANGE || r == -E2BIG);
                assert(memcmp(&b, &copy, sizeof(b)) == 0);
                return 0;
        }

        assert(b.n_zones >= 1 && b.n_zones <= FRAGD_MAX_ZONES);
        assert(b.n_orders >= 1 && b.n_orders <= FRAGD_MAX_ORDERS);
        for (unsigned i = 0; i < b.n_zones; i++) {
                const BuddyZone *z = &b.zones[i];

                assert(z->n_orders == b.n_orders);
                assert(memchr(z->zone, '\0', sizeof(z->zone)));
                /* every zone is found, and it is the first with its key */
                assert(buddyinfo_find(&b, z->node, z->zone) == z);
        }
        (void) buddyinfo_find(&b, 0, "Normal");

        /* the plausibility check on what parsed: a rejection always says why */
        {
                static Observation o;

                memset(&o, 0, sizeof(o));
                o.page_size = 4096;
                o.have = OBS_MASK(OBS_BUDDYINFO);
                o.buddy = b;
                observation_check(&o);
                assert(!(o.rejected & OBS_MASK(OBS_BUDDYINFO)) || (o.n_problems > 0 && !(o.have & 1u)));
        }
        return 0;
}
