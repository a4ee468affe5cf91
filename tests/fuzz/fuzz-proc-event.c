/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Fuzzes proc_event_decode (one proc connector datagram). */

#include <stddef.h>
#include <stdint.h>

#include "workload/proc-events.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        ProcEvent e;

        if (proc_event_decode(data, size, &e) == 0 && e.type != PROC_EV_NONE && (e.pid <= 0 || e.tgid <= 0))
                __builtin_trap();
        return 0;
}
