/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Fuzzes smaps_parse_candidates, proc_status_thp_enabled and
 * systemd_version_parse (`systemctl --version`). */

#include <stddef.h>
#include <stdint.h>

#include "workload/thp-cgroup.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        SmapsFilter f = SMAPS_FILTER_DEFAULT;
        SmapsRange r[4];
        SmapsSummary s;
        unsigned n;

        if (smaps_parse_candidates((const char *) data, size, &f, r, 4, &n, &s) == 0) {
                if (n > 4 || n > s.n_candidates)
                        __builtin_trap();
                for (unsigned i = 0; i < n; i++) {
                        if (r[i].start % f.hpage_size || r[i].end % f.hpage_size || r[i].end <= r[i].start ||
                            r[i].start < r[i].vma_start || r[i].end > r[i].vma_end || r[i].gain > r[i].rss)
                                __builtin_trap();
                        if (i > 0 && r[i].gain > r[i - 1].gain)
                                __builtin_trap();
                }
        }
        (void) proc_status_thp_enabled((const char *) data, size);
        {
                unsigned v;

                if (systemd_version_parse((const char *) data, size, &v) == 0 && (v == 0 || v > 100000))
                        __builtin_trap();
        }
        return 0;
}
