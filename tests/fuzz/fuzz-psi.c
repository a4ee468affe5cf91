/* SPDX-License-Identifier: GPL-2.0-or-later */
/* libFuzzer target for psi_parse(); corpus in tests/corpus/psi/. */

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fragd/obs.h"
#include "sources/sources.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        PsiStats p;

        if (psi_parse((const char *) data, size, &p) == 0) {
                if (!p.some.present && !p.full.present)
                        abort();
                if (p.some.avg10_permyriad > 10000 || p.some.avg60_permyriad > 10000 ||
                    p.some.avg300_permyriad > 10000 || p.full.avg10_permyriad > 10000 ||
                    p.full.avg60_permyriad > 10000 || p.full.avg300_permyriad > 10000)
                        abort();
        }
        return 0;
}
