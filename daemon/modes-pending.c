/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Modes whose modules are not merged yet. Each says so plainly. */

#include <stdio.h>

#include "fragd/main-internal.h"

static int pending(const char *what)
{
        fprintf(stderr, "fragd: %s is not available in this build yet\n", what);
        return 1;
}

int run_status(const FragdArgs *a) { (void) a; return pending("'fragd status'"); }
int run_restore(const FragdArgs *a) { (void) a; return pending("--restore"); }
int run_check_config(const FragdArgs *a) { (void) a; return pending("--check-config"); }
int run_daemon(const FragdArgs *a) { (void) a; return pending("the daemon mode"); }
