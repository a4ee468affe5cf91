/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* The daemon's two clocks (daemon/core/clock.c). policy/ never reads a clock:
 * time comes in as `now`. */

#include "fragd/macro.h"

usec_t now_monotonic_usec(void);
usec_t now_realtime_usec(void);
/* CPU time of the calling thread (CLOCK_THREAD_CPUTIME_ID), 0 if unreadable:
 * the debug log's per-tick and per-source costs */
usec_t thread_cpu_usec(void);
