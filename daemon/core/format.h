/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* Numbers as text (daemon/core/format.c), in two kinds. For a person,
 * rounded: the --once report, the learned reserve's state file and its log
 * lines. Exact, read back to the same value: fragd.conf values
 * (config_key_format, fragd --check-config) and the Prometheus textfile.
 * Pure: no I/O, no logging. */

#include <stddef.h>
#include <stdint.h>

#include "fragd/macro.h"

/* "1.5 GiB", "512 KiB", "0 B" */
const char *format_bytes(char *buf, size_t size, uint64_t bytes);
/* An age or a span for a sentence: "45 s", "26 min", "6 h", "3 d" */
const char *format_duration(char *buf, size_t size, usec_t usec);

/* Exact: the largest binary unit that divides evenly, "64MiB", "1536" */
const char *format_bytes_exact(char *buf, size_t size, uint64_t bytes);
/* Exact: the largest unit that divides evenly, "2min", "1500ms", "0" (units
 * d h min s ms us, as fragd.conf reads them) */
const char *format_duration_exact(char *buf, size_t size, usec_t usec);
/* The first of "%.6g" ... "%.17g" that reads back (strtod) to the same
 * double: the shortest, except that a number of six digits or fewer is never
 * given an exponent. Larger ones may have one ("1e+06"); NaN and infinities
 * as printf spells them. */
const char *format_double_shortest(char *buf, size_t size, double v);
