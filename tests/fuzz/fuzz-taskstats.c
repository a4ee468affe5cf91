/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Fuzzes taskstats_parse_reply (genetlink body) and taskstats_parse_stats. */

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "workload/taskstats.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        TaskstatsReply rep;
        TaskstatsRecord rec;

        if (taskstats_parse_reply(data, size, &rep) == 0) {
                if (rep.n < 1 || rep.n > 2)
                        __builtin_trap();
                for (unsigned i = 0; i < rep.n; i++)
                        if (strlen(rep.rec[i].comm) > TASKSTATS_COMM_MAX || rep.rec[i].version == 15)
                                __builtin_trap();
        }
        (void) taskstats_parse_stats(data, size, &rec);
        return 0;
}
