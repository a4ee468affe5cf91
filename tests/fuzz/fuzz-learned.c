/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Fuzzes the learned reserve's state file parser (<root>/var/lib/fragd/learned
 * is input from disk, kept across reboots): what it accepts is within the
 * documented ranges and survives format -> parse unchanged; what it refuses
 * says which line and why. */

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "service/learned-store.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        LearnedFile a, b;
        LearnedFileError err = { 0 };
        char buf[LEARNED_FILE_MAX];
        int n, r;

        r = learned_file_parse((const char *) data, size, &a, &err);
        if (r < 0) {
                if (r != -EBADMSG && r != -ENODATA && r != -EPROTONOSUPPORT && r != -ERANGE)
                        abort();
                if (!err.what[0] || memchr(err.what, '\0', sizeof(err.what)) == NULL)
                        abort();
                return 0;
        }
        if (a.page_size < 1024 || a.page_size > (1u << 20) || (a.page_size & (a.page_size - 1)) ||
            a.hpage_order < 1 || a.hpage_order > 20 || a.peak_bytes == 0 || a.peak_bytes > UINT64_MAX / 4 ||
            a.peak_realtime_usec == 0 || (a.machine_id[0] && strlen(a.machine_id) != MACHINE_ID_LEN))
                abort();
        n = learned_file_format(&a, buf, sizeof(buf));
        if (n <= 0)
                abort();
        if (learned_file_parse(buf, (size_t) n, &b, NULL) != 0 || memcmp(&a, &b, sizeof(a)) != 0)
                abort();
        return 0;
}
