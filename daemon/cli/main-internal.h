/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* Shared between main.c and the mode implementations in daemon/cli/
 * (daemon.c, once.c, modes.c). */

#include <stdbool.h>
#include <stdio.h>

#include "core/clock.h"
#include "core/root.h"
#include "fragd/macro.h"

enum {
        EXIT_USAGE = 2,        /* bad command line or configuration */
        EXIT_PRECONDITION = 3, /* not root, kernel feature missing */
        EXIT_NOT_RUNNING = 4,  /* fragd status: no daemon */
        EXIT_KNOBS_LEFT = 5,   /* fragd status: no daemon, knobs left changed (fragd --restore) */
};

typedef enum Mode {
        MODE_DAEMON,
        MODE_ONCE,
        MODE_STATUS,
        MODE_RESTORE,
        MODE_CHECK_CONFIG,
        MODE_FEATURES,
        MODE_THP_DROPIN,
        MODE_PAUSE,
        MODE_RESUME,
        MODE_HELP,
        MODE_VERSION,
} Mode;

typedef struct FragdArgs {
        Mode mode;
        const char *config_file; /* NULL: the default */
        const char *sets[64];    /* --set SEC.KEY=VAL */
        unsigned n_sets;
        const char *root;
        unsigned page_size;
        bool dry_run;
        const char *format;
        usec_t interval_usec;
        bool verbose;        /* --once: the per-zone tables too */
        int log_level;
        bool log_level_set;
        bool quiet_if_clean; /* --restore: say nothing when there is nothing to do */
        const char *dropin_unit, *dropin_mode; /* thp-dropin UNIT MODE */
} FragdArgs;

/* root_open() of --root and --page-size; says why it failed (cli/modes.c) */
int args_root_open(const FragdArgs *a, Root **ret);

int run_once(const FragdArgs *a);
int run_status(const FragdArgs *a);
int run_control(const FragdArgs *a); /* fragd pause, fragd resume */
int run_restore(const FragdArgs *a);
int run_check_config(const FragdArgs *a);
/* fragd --check-config's work (cli/check-config.c): load, print every value
 * (to out) or every error (to err). Returns 0 when valid, -EINVAL when not
 * (exit 2: configuration error), or another -errno (exit 1). */
struct ConfigLoadArgs;
int check_config_main(const struct ConfigLoadArgs *args, FILE *out, FILE *err);
int run_features(const FragdArgs *a);
int run_thp_dropin(const FragdArgs *a);
int run_daemon(const FragdArgs *a); /* cli/daemon.c */
