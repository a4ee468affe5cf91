/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* The daemon: sd-event loop wiring sources -> measures -> policy ->
 * actuators -> outputs (daemon/service/manager.c). The only place these
 * parts meet. The command line (cli/) fills ManagerArgs; the service knows
 * nothing of it. */

#include <stdbool.h>

#include "core/cleanup.h"
#include "fragd/macro.h"

typedef struct Manager Manager;

/* What the daemon takes from its command line. */
typedef struct ManagerArgs {
        const char *config_file; /* NULL: the default */
        const char *const *sets; /* SEC.KEY=VAL overrides */
        unsigned n_sets;
        const char *root;        /* --root */
        unsigned page_size;      /* 0: the host's */
        bool dry_run;
        bool log_level_set;      /* the command line set the log level: the configuration's is ignored */
} ManagerArgs;

/* Why manager_new() failed, for the caller's exit code. */
typedef enum ManagerFailure {
        MANAGER_FAILED,              /* anything else */
        MANAGER_FAILED_CONFIG,       /* invalid configuration */
        MANAGER_FAILED_PRECONDITION, /* not root, kernel feature missing */
} ManagerFailure;

/* Checks preconditions, loads configuration, opens the knob registry (which
 * restores a dead fragd's journal first) and sets up the event loop. On
 * failure, why in *ret_why. */
int manager_new(const ManagerArgs *args, Manager **ret, ManagerFailure *ret_why);
Manager *manager_free(Manager *m);
DEFINE_TRIVIAL_CLEANUP_FUNC(Manager *, manager_free);
/* Runs until SIGTERM/SIGINT, then restores every knob. 0, or -EIO when the
 * loop failed or a knob could not be restored. */
int manager_run(Manager *m);
