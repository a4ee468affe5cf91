/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* Numbers for a person (daemon/core/format.c): the --once report, the learned
 * reserve's state file and its log lines. Pure: no I/O, no logging. */

#include <stddef.h>
#include <stdint.h>

#include "fragd/macro.h"

/* "1.5 GiB", "512 KiB", "0 B" */
const char *format_bytes(char *buf, size_t size, uint64_t bytes);
/* An age or a span for a sentence: "45 s", "26 min", "6 h", "3 d" */
const char *format_duration(char *buf, size_t size, usec_t usec);
