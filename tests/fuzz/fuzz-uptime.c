/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Fuzzes the /proc/uptime parser (boot_uptime_parse(), the first reserve's
 * uptime; under --root the file comes from the tree): what it accepts is a
 * positive time that printing with two decimals and parsing again keeps;
 * anything else is -EINVAL. */

#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "service/boot-history.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        char in[64], out[64];
        usec_t a = 0, b = 0;
        int r;

        if (size >= sizeof(in))
                return 0;
        memcpy(in, data, size);
        in[size] = '\0';
        r = boot_uptime_parse(in, &a);
        if (r < 0) {
                if (r != -EINVAL || a != 0)
                        abort();
                return 0;
        }
        if (a == 0 || a % 10000 != 0)
                abort();
        snprintf(out, sizeof(out), "%" PRIu64 ".%02" PRIu64 " 0.00\n", a / 1000000, a % 1000000 / 10000);
        if (boot_uptime_parse(out, &b) != 0 || a != b)
                abort();
        return 0;
}
