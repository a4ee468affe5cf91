/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Fuzzes the knob journal parser (<root>/run/fragd/saved is input from disk)
 * and checks that what it accepts survives format -> parse unchanged; and
 * the salvage of a journal the parser refused (what the operator is told
 * of the knobs a broken file held). */

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
        /* the salvage takes no entry and believes no owner; what it reports
         * of each line is NUL-terminated in its field */
        knob_journal_salvage((const char *) data, size, "fuzz", a);
        if (a->n != 0 || a->pid != 0 || a->starttime != 0 || a->n_bad > KNOB_MAX || a->n_bad > a->n_invalid)
                abort();
        for (unsigned i = 0; i < a->n_bad; i++) {
                const JournalBad *x = &a->bad[i];

                if (x->line == 0 || strnlen(x->name, sizeof(x->name)) == sizeof(x->name) ||
                    strnlen(x->original, sizeof(x->original)) == sizeof(x->original) ||
                    strnlen(x->why, sizeof(x->why)) == sizeof(x->why))
                        abort();
        }
        free(a);
        free(b);
        return 0;
}
