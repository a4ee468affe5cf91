/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* Shared by the parsers of daemon/sources/ only. */

#include <stdbool.h>

#include "core/parse-util.h"

/* Shared by the buddyinfo, zoneinfo and pagetypeinfo parsers: consumes
 * "Node N, zone NAME" from the front of *line (a struct Span from
 * parse-util.h). NAME is copied into ret_zone (FRAGD_NAME_MAX bytes);
 * *ret_comma tells whether it ended in ',' (pagetypeinfo's free-count rows).
 * Returns 0, -EBADMSG, or -ERANGE for a node id above INT_MAX. */
int buddyinfo_parse_zone_prefix(Span *line, int *ret_node, char *ret_zone, bool *ret_comma);
