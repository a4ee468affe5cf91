/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* The daemon: sd-event loop wiring sources -> measures -> policy ->
 * actuators -> outputs (daemon/service/manager.c). The only place these parts meet. */

#include "cli/main-internal.h"

typedef struct Manager Manager;

/* Checks preconditions, loads configuration, opens the knob registry (which
 * restores a dead fragd's journal first) and sets up the event loop.
 * Returns an exit code on failure through *ret_exit. */
int manager_new(const FragdArgs *args, Manager **ret, int *ret_exit);
Manager *manager_free(Manager *m);
/* Runs until SIGTERM/SIGINT, then restores every knob. Returns the exit code. */
int manager_run(Manager *m);
