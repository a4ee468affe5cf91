/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fragd --check-config: load the configuration, then print every effective
 * value with its source, or every error. A command-line mode over
 * config_load() and the printers of daemon/config/. */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/main-internal.h"
#include "config/config.h"
#include "core/log.h"

int check_config_main(const ConfigLoadArgs *args, FILE *out, FILE *err)
{
        _cleanup_free_ FragdConfig *c = malloc(sizeof(*c));
        _cleanup_free_ ConfigSources *s = malloc(sizeof(*s));
        _cleanup_free_ ConfigErrors *e = calloc(1, sizeof(*e));
        int r;

        if (!c || !s || !e)
                return -ENOMEM;
        r = config_load(args, c, s, e);
        config_warnings_print(err, e);
        if (r == -EINVAL) {
                fprintf(err, "fragd: configuration has %u error%s:\n", e->n + e->n_dropped,
                        e->n + e->n_dropped == 1 ? "" : "s");
                config_errors_print(err, e);
                return r;
        }
        if (r < 0) {
                fprintf(err, "fragd: cannot load the configuration: %s\n", strerror(-r));
                return r;
        }
        config_print(out, c, s);
        return 0;
}

int run_check_config(const FragdArgs *a)
{
        _cleanup_(root_freep) Root *root = NULL;
        InstanceProbe probe = {};
        ConfigLoadArgs ca;
        int r;

        if (args_root_open(a, &root) < 0)
                return EXIT_FAILURE;
        (void) instance_probe(root, NULL, &probe);
        ca = (ConfigLoadArgs) {
                .root = root, .config_file = a->config_file, .set = a->sets, .n_set = a->n_sets, .probe = &probe,
        };
        r = check_config_main(&ca, stdout, stderr);
        if (r == -EINVAL)
                return EXIT_USAGE;
        return r < 0 ? EXIT_FAILURE : 0;
}
