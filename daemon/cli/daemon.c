/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fragd (the daemon mode): the command line's arguments to the service's
 * ManagerArgs, and the service's failure to an exit code. */

#include <stdlib.h>
#include "core/cleanup.h"
#include "cli/main-internal.h"
#include "service/manager.h"

int run_daemon(const FragdArgs *a)
{
        _cleanup_(manager_freep) Manager *m = NULL;
        ManagerArgs ma = {
                .config_file = a->config_file,
                .sets = a->sets,
                .n_sets = a->n_sets,
                .root = a->root,
                .page_size = a->page_size,
                .dry_run = a->dry_run,
                .log_level_set = a->log_level_set,
        };
        ManagerFailure why;
        int r;

        r = manager_new(&ma, &m, &why);
        if (r < 0)
                return why == MANAGER_FAILED_CONFIG ? EXIT_USAGE :
                       why == MANAGER_FAILED_PRECONDITION ? EXIT_PRECONDITION : EXIT_FAILURE;
        return manager_run(m) < 0 ? EXIT_FAILURE : 0;
}
