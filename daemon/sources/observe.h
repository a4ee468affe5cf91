/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* One observation (daemon/sources/observe.c): every requested source's
 * reader into its slot of the Observation, the checks across sources, and
 * what a missing source means. */

#include <stdbool.h>
#include <stdint.h>

#include "core/root.h"
#include "fragd/macro.h"
#include "fragd/obs.h"

const char *obs_source_name(ObsSource s); /* "buddyinfo" */

/* Reads the sources in mask into o (others untouched), records per-source
 * errors in o->err and sets o->have. Returns 0 when buddyinfo was read (the
 * one source fragd cannot work without), else its error. A reader that fails
 * leaves its slot as it was, with the have bit cleared. With buddyinfo not
 * in mask, returns 0 if o already holds a good buddyinfo, else its last
 * error, else -ENODATA. o must be zeroed before its first use. */
int observation_read(const Root *root, unsigned mask, usec_t now_usec, Observation *o);

/* With timing on (the daemon at debug level), observation_read() keeps
 * each source's CPU time (this thread's) of its last read; a source not
 * read then has 0. Off by default: no clock call per source. */
void observation_timing(bool on);
usec_t observation_source_cpu_usec(ObsSource s);

/* Pure; observation_read() calls it after reading. Checks what no kernel
 * can print, across sources, and rejects the source that says it:
 *   - a node id of FRAGD_MAX_NUMNODES or more (buddyinfo, zoneinfo,
 *     pagetypeinfo);
 *   - a buddyinfo zone whose free pages overflow 64 bits, exceed
 *     FRAGD_MAX_PHYS_BYTES or the zone's present pages (zoneinfo; without
 *     it, a node's free pages against its sysfs MemTotal), or all zones'
 *     free pages MemTotal (meminfo);
 *   - a buddyinfo with fewer orders than pagetypeinfo (rows cut short);
 *   - a zoneinfo without a zone that buddyinfo shows free pages in (cut
 *     short);
 *   - a zoneinfo zone spanning more than FRAGD_MAX_PHYS_BYTES, or managing
 *     more than MemTotal (meminfo, else the node's MemTotal from sysfs),
 *     with 1/8 slack for memory hot-plugged between the two reads.
 * And notes, without rejecting, a populated zoneinfo zone or a node with
 * memory (sysfs) that buddyinfo does not list (a truncated file): those
 * zones are not assessed. Clears rejected and problems first. The sysfs
 * node sizes are used only when read_mask has OBS_NODES (read with the
 * rest): the daemon reads them once, and memory onlined later (lazily, or
 * hot-plugged) would make them too small. */
void observation_check(Observation *o);

/* What the daemon keeps of the reading before the next one replaces it:
 * what assess() and the exporter compare across two readings (the time,
 * the counters, and buddyinfo for the blocks gained). */
void observation_keep_counters(Observation *dst, const Observation *src);

/* Sources whose absence makes decisions degraded, and what each one's
 * absence disables ("reserve targets and watermarks: not measured"). A
 * source counts as missing when it was asked for and not read, or read and
 * rejected; a kernel without the feature (PSI, THP, or tracefs with the
 * page-cache event and its order field: -EOPNOTSUPP) and
 * pagetypeinfo (root only, read rarely) do not count. OBS_DEGRADED_REQUIRED
 * are those without which no target can be measured: fragd --once exits 3. */
#define OBS_DEGRADED_REQUIRED (OBS_MASK(OBS_BUDDYINFO) | OBS_MASK(OBS_ZONEINFO))
unsigned observation_missing(const Observation *o, unsigned mask);
const char *obs_source_impact(ObsSource s);
/* "zoneinfo unreadable (No such file or directory)", "zoneinfo rejected as
 * implausible", "zoneinfo not read": why a source is missing, for messages. */
const char *obs_source_missing_why(const Observation *o, ObsSource s, char *buf, size_t size);
