/* SPDX-License-Identifier: GPL-2.0-or-later */
/* libFuzzer target for pagecache_hist_parse(), pagecache_format_has_order(),
 * extfrag_hist_parse(), extfrag_format_has_fields(), order_count_hist_parse(),
 * kswapd_wake_format_has_order(), alloc_fail_format_has_fields() and
 * pagecache_tasks_parse() (fragd's trace instance: the hist files, the
 * events' format files and its set_event_pid); corpus in
 * tests/corpus/pagecache/. */

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "core/root.h"
#include "fragd/obs.h"
#include "sources/sources.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        static PageCacheHist h;
        static ExtfragHist e;
        static OrderCountHist w;
        uint64_t sum = 0;
        int r;

        if (pagecache_hist_parse((const char *) data, size, &h) == 0) {
                if (h.n_orders > FRAGD_MAX_ORDERS)
                        abort();
                for (unsigned k = 0; k < FRAGD_MAX_ORDERS; k++) {
                        if (k >= h.n_orders && h.folios[k] != 0)
                                abort();
                        sum += h.folios[k];
                }
                if (sum > h.hits)
                        abort();
        }
        r = pagecache_format_has_order((const char *) data, size);
        if (r != 0 && r != -ENODATA && r != -EBADMSG)
                abort();
        /* the polluting fallbacks are some of the fallbacks */
        if (extfrag_hist_parse((const char *) data, size, &e) == 0 && (!e.valid || e.polluting > e.fallbacks))
                abort();
        r = extfrag_format_has_fields((const char *) data, size);
        if (r != 0 && r != -ENODATA && r != -EBADMSG)
                abort();
        /* the counts the rows give (kswapd woken, failed allocations) sum
         * without wrapping */
        if (order_count_hist_parse((const char *) data, size, &w) == 0) {
                sum = 0;
                if (!w.valid)
                        abort();
                for (unsigned k = 0; k < FRAGD_MAX_ORDERS; k++) {
                        if (w.counts[k] > UINT64_MAX - sum)
                                abort();
                        sum += w.counts[k];
                }
        }
        r = kswapd_wake_format_has_order((const char *) data, size);
        if (r != 0 && r != -ENODATA && r != -EBADMSG)
                abort();
        r = alloc_fail_format_has_fields((const char *) data, size);
        if (r != 0 && r != -ENODATA && r != -EBADMSG)
                abort();
        /* the task list: ids in range, as many as the text can hold */
        {
                int32_t *t = NULL;
                size_t n = 0;

                r = pagecache_tasks_parse((const char *) data, size, &t, &n);
                if (r == 0) {
                        if (n > size || (n > 0 && !t))
                                abort();
                        for (size_t i = 0; i < n; i++)
                                if (t[i] < 0)
                                        abort();
                } else if (r != -EBADMSG && r != -ERANGE && r != -ENOMEM)
                        abort();
                free(t);
        }
        return 0;
}
