/* SPDX-License-Identifier: GPL-2.0-or-later */
/* /proc/buddyinfo: free blocks per order for every populated zone.
 *
 *   Node 0, zone   Normal   1389   3460 ...    925 \n
 *
 * One "%6lu " cell per order (mm/vmstat.c:frag_show_print()); the number of
 * cells is NR_PAGE_ORDERS, which depends on the architecture and config, so
 * it is counted, never assumed. Every row of one file has the same count. */

#include <errno.h>
#include <limits.h>
#include <string.h>

#include "core/cleanup.h"
#include "core/parse-util.h"
#include "core/root.h"
#include "fragd/obs.h"
#include "sources/sources-internal.h"
#include "sources/sources.h"

int buddyinfo_parse_zone_prefix(Span *line, int *ret_node, char *ret_zone, bool *ret_comma)
{
        Span tok, name;
        uint64_t node;
        bool comma = false;
        int r;

        if (!span_next_token(line, &tok) || !span_eq(tok, "Node"))
                return -EBADMSG;

        /* "0," normally; also accept "0 ," */
        if (!span_next_token(line, &tok))
                return -EBADMSG;
        if (tok.len > 0 && tok.p[tok.len - 1] == ',')
                tok.len--;
        else if (!span_next_token(line, &name) || !span_eq(name, ","))
                return -EBADMSG;
        r = span_to_u64(tok, &node);
        if (r < 0)
                return r;
        if (node > INT_MAX)
                return -ERANGE;

        if (!span_next_token(line, &tok) || !span_eq(tok, "zone"))
                return -EBADMSG;
        if (!span_next_token(line, &name))
                return -EBADMSG;
        if (name.p[name.len - 1] == ',') {
                comma = true;
                name.len--;
        }
        if (name.len == 0 || memchr(name.p, ',', name.len) || memchr(name.p, '\0', name.len))
                return -EBADMSG;
        if (span_copy(name, ret_zone, FRAGD_NAME_MAX) < 0)
                return -EBADMSG;

        *ret_node = (int) node;
        *ret_comma = comma;
        return 0;
}

/* Parses into *b, which the caller throws away on failure. */
static int buddyinfo_parse_into(const char *buf, size_t len, BuddyInfo *b)
{
        Cursor c;
        Span line;

        if (cursor_open(&c, buf, len) < 0)
                return -EINVAL;
        while (cursor_next_line(&c, &line)) {
                BuddyZone *z;
                Span tok;
                bool comma;
                int node, r;
                char zone[FRAGD_NAME_MAX];
                unsigned n = 0;

                span_skip_blanks(&line);
                if (line.len == 0)
                        continue;

                r = buddyinfo_parse_zone_prefix(&line, &node, zone, &comma);
                if (r < 0)
                        return r;
                if (comma)
                        return -EBADMSG;
                if (buddyinfo_find(b, node, zone))
                        return -EBADMSG; /* the same zone twice */
                if (b->n_zones >= FRAGD_MAX_ZONES)
                        return -E2BIG;

                z = &b->zones[b->n_zones];
                z->node = node;
                memcpy(z->zone, zone, sizeof(z->zone));
                while (span_next_token(&line, &tok)) {
                        uint64_t v;

                        r = span_to_u64(tok, &v);
                        if (r < 0)
                                return r;
                        if (n >= FRAGD_MAX_ORDERS)
                                return -E2BIG;
                        z->nr_free[n++] = v;
                }
                if (n == 0)
                        return -EBADMSG;
                if (b->n_zones > 0 && n != b->n_orders)
                        return -EBADMSG; /* rows disagree on NR_PAGE_ORDERS */
                z->n_orders = n;
                b->n_orders = n;
                b->n_zones++;
        }

        return b->n_zones > 0 ? 0 : -ENODATA;
}

int buddyinfo_parse(const char *buf, size_t len, BuddyInfo *ret)
{
        /* ~21 KiB on the stack, so *ret is untouched on failure */
        BuddyInfo b = {};
        int r;

        r = buddyinfo_parse_into(buf, len, &b);
        if (r < 0)
                return r;
        *ret = b;
        return 0;
}

int buddyinfo_read(const Root *root, BuddyInfo *ret)
{
        _cleanup_free_ char *buf = NULL;
        size_t len = 0;
        int r;

        r = read_file_alloc_at(root->proc_fd, "buddyinfo", &buf, &len);
        if (r < 0)
                return r;
        return buddyinfo_parse(buf, len, ret);
}

