/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Fuzzes the knob journal parser (<root>/run/fragd/saved is input from disk)
 * and checks that what it accepts survives format -> parse unchanged. */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "knobs/knob.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        Journal *a = calloc(1, sizeof(*a)), *b = calloc(1, sizeof(*b));
        char *buf = NULL;
        size_t len = 0;

        if (!a || !b)
                abort();
        if (knob_journal_parse((const char *) data, size, a) == 0) {
                if (a->n > KNOB_MAX)
                        abort();
                for (unsigned i = 0; i < a->n; i++)
                        if (!knob_value_valid(a->e[i].original) || !knob_value_valid(a->e[i].last_written))
                                abort();
                if (knob_journal_format(a, &buf, &len) != 0)
                        abort();
                if (knob_journal_parse(buf, len, b) != 0)
                        abort();
                if (b->n != a->n || b->n_invalid != 0 || memcmp(a->e, b->e, a->n * sizeof(a->e[0])) != 0)
                        abort();
                if (a->pid > 0 && (b->pid != a->pid || b->starttime != a->starttime))
                        abort();
                free(buf);
        }
        free(a);
        free(b);
        return 0;
}
