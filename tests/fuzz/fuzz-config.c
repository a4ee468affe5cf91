/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Fuzzes the configuration loader: the input is a fragd.conf, parsed by
 * inih through the loader's line reader and handler (no files, no root),
 * then its first line is tried once more as a --set argument. A valid
 * result is printed and parsed back, which must give the same values. */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        static FragdConfig cfg, again;
        static ConfigSources src;
        static ConfigErrors errs;
        char set[256];
        const char *sets[1] = { set };
        const char *nl;
        size_t n;

        if (size > 64 * 1024)
                return 0;

        /* the first line as a --set argument, the whole input as a file */
        nl = memchr(data, '\n', size);
        n = nl ? (size_t) ((const uint8_t *) nl - data) : size;
        n = n < sizeof(set) - 1 ? n : sizeof(set) - 1;
        memcpy(set, data, n);
        set[n] = '\0';

        ConfigLoadArgs a = {
                .config_text = (const char *) data,
                .config_text_len = size,
                .set = sets,
                .n_set = 1,
        };
        if (config_load(&a, &cfg, &src, &errs) < 0)
                return 0;

        /* valid: what --check-config prints must load to the same values */
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);

        if (!f)
                return 0;
        config_print(f, &cfg, &src);
        fclose(f);
        ConfigLoadArgs b = { .config_text = buf, .config_text_len = len };
        if (config_load(&b, &again, NULL, &errs) < 0) {
                config_errors_print(stderr, &errs);
                fprintf(stderr, "%s", buf);
                abort();
        }
        if (memcmp(&cfg, &again, sizeof(cfg)) != 0) {
                fprintf(stderr, "printed configuration reads back differently:\n%s", buf);
                abort();
        }
        free(buf);
        return 0;
}
