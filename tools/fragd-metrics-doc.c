/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Prints docs/metrics.md, generated from the metric family table.
 * Usage: fragd-metrics-doc > docs/metrics.md */

#include <stdio.h>
#include <string.h>

#include "output/exporter.h"

int main(int argc, char **argv)
{
        if (argc > 1) {
                fprintf(stderr, "Usage: %s > docs/metrics.md\n", argv[0]);
                return strcmp(argv[1], "--help") == 0 ? 0 : 2;
        }
        if (metrics_doc_render(stdout) < 0 || fflush(stdout) != 0) {
                fprintf(stderr, "%s: failed to write the document\n", argv[0]);
                return 1;
        }
        return 0;
}
