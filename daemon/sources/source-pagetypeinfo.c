/* SPDX-License-Identifier: GPL-2.0-or-later */
/* /proc/pagetypeinfo (mm/vmstat.c:pagetypeinfo_show()), printed once per
 * node with memory, so the header repeats on NUMA machines:
 *
 *   Page block order: 9
 *   Pages per block:  512
 *
 *   Free pages count per migrate type at order       0      1 ...     10
 *   Node    0, zone   Normal, type    Unmovable      1      0 ...      0
 *   Node    0, zone   Normal, type      Movable >100000 ...
 *
 *   Number of blocks type     Unmovable      Movable  Reclaimable ...
 *   Node 0, zone   Normal           40          268           12 ...
 *   [Number of mixed blocks ...]    (page_owner only; ignored)
 *
 * Migratetypes differ between kernels and configs (Reserve, CMA, Isolate,
 * vendor additions), so free-count rows are keyed by the name on the row and
 * block-count columns by the names in their header. A free-count walk stops
 * at 100000 and prints ">100000": the value is kept and the order's bit set
 * in capped[type].
 *
 * The parse makes two passes over the buffer: the first validates everything
 * while keeping only names and indexes in a small local struct, the second
 * (which cannot fail) fills *ret. So *ret is untouched on failure without a
 * 220 KiB temporary. */

#include <assert.h>
#include <errno.h>
#include <string.h>

#include "core/cleanup.h"
#include "core/parse-util.h"
#include "core/root.h"
#include "fragd/obs.h"
#include "sources/sources-internal.h"
#include "sources/sources.h"

typedef enum PtTable {
        PT_TABLE_NONE,   /* before a "Free pages count" header */
        PT_TABLE_FREE,   /* free-count rows */
        PT_TABLE_BLOCKS, /* "Number of blocks type" rows */
        PT_TABLE_MIXED,  /* "Number of mixed blocks" rows: skipped */
} PtTable;

typedef struct PtZoneKey {
        int node;
        char zone[FRAGD_NAME_MAX];
        uint32_t seen_types; /* free-count rows seen, by type index */
        bool have_blocks;
} PtZoneKey;

/* Everything a pass needs except the counts themselves. */
typedef struct PtState {
        bool have_order, have_per_block, have_orders;
        unsigned pageblock_order;
        uint64_t pages_per_block;
        unsigned n_orders;
        unsigned n_types;
        char types[FRAGD_MAX_MIGRATETYPES][FRAGD_NAME_MAX];
        unsigned n_zones;
        PtZoneKey zones[FRAGD_MAX_ZONES];
        /* the current "Number of blocks type" header: column -> type index */
        PtTable table;
        unsigned n_cols;
        unsigned cols[FRAGD_MAX_MIGRATETYPES];
} PtState;

static int pt_type_get(PtState *s, Span name)
{
        char buf[FRAGD_NAME_MAX];

        if (span_copy(name, buf, sizeof(buf)) < 0 || memchr(name.p, '\0', name.len))
                return -EBADMSG;
        for (unsigned i = 0; i < s->n_types; i++)
                if (strcmp(s->types[i], buf) == 0)
                        return (int) i;
        if (s->n_types >= FRAGD_MAX_MIGRATETYPES)
                return -E2BIG;
        memcpy(s->types[s->n_types], buf, sizeof(buf));
        return (int) s->n_types++;
}

static int pt_zone_get(PtState *s, int node, const char *zone)
{
        for (unsigned i = 0; i < s->n_zones; i++)
                if (s->zones[i].node == node && strcmp(s->zones[i].zone, zone) == 0)
                        return (int) i;
        if (s->n_zones >= FRAGD_MAX_ZONES)
                return -E2BIG;
        s->zones[s->n_zones].node = node;
        memcpy(s->zones[s->n_zones].zone, zone, FRAGD_NAME_MAX);
        return (int) s->n_zones++;
}

/* "Page block order: 9" and "Pages per block:  512"; repeated per node, so a
 * later copy must agree with the first. */
static int pt_header_value(Span rest, bool *have, uint64_t *value)
{
        Span tok, extra;
        uint64_t v;
        int r;

        if (!span_next_token(&rest, &tok) || span_next_token(&rest, &extra))
                return -EBADMSG;
        r = span_to_u64(tok, &v);
        if (r < 0)
                return r;
        if (*have && *value != v)
                return -EBADMSG;
        *have = true;
        *value = v;
        return 0;
}

/* "Free pages count per migrate type at order 0 1 ... N-1" */
static int pt_orders_header(PtState *s, Span rest)
{
        Span tok;
        unsigned n = 0;

        while (span_next_token(&rest, &tok)) {
                uint64_t v;
                int r = span_to_u64(tok, &v);

                if (r < 0)
                        return r;
                if (v != n)
                        return -EBADMSG; /* orders are 0, 1, 2, ... */
                if (n >= FRAGD_MAX_ORDERS)
                        return -E2BIG;
                n++;
        }
        if (n == 0 || (s->have_orders && s->n_orders != n))
                return -EBADMSG;
        s->have_orders = true;
        s->n_orders = n;
        s->table = PT_TABLE_FREE;
        return 0;
}

/* "Number of blocks type     Unmovable      Movable ..." */
static int pt_blocks_header(PtState *s, Span rest)
{
        Span tok;

        s->n_cols = 0;
        while (span_next_token(&rest, &tok)) {
                int t = pt_type_get(s, tok);

                if (t < 0)
                        return t;
                for (unsigned i = 0; i < s->n_cols; i++)
                        if (s->cols[i] == (unsigned) t)
                                return -EBADMSG; /* a column twice */
                if (s->n_cols >= FRAGD_MAX_MIGRATETYPES)
                        return -E2BIG;
                s->cols[s->n_cols++] = (unsigned) t;
        }
        if (s->n_cols == 0)
                return -EBADMSG;
        s->table = PT_TABLE_BLOCKS;
        return 0;
}

/* A cell: digits, or '>' and digits for a capped walk. */
static int pt_cell(Span tok, uint64_t *ret, bool *ret_capped)
{
        bool capped = false;
        int r;

        if (tok.len > 0 && tok.p[0] == '>') {
                capped = true;
                tok.p++;
                tok.len--;
        }
        r = span_to_u64(tok, ret);
        if (r < 0)
                return r;
        *ret_capped = capped;
        return 0;
}

/* "Node 0, zone Normal, type Movable c0 c1 ..." (prefix already consumed) */
static int pt_free_row(PtState *s, int zi, Span rest, PageTypeInfo *out)
{
        Span tok;
        unsigned n = 0;
        int t;

        if (s->table != PT_TABLE_FREE)
                return -EBADMSG;
        if (!span_next_token(&rest, &tok) || !span_eq(tok, "type"))
                return -EBADMSG;
        if (!span_next_token(&rest, &tok))
                return -EBADMSG;
        t = pt_type_get(s, tok);
        if (t < 0)
                return t;
        if (s->zones[zi].seen_types & (1u << t))
                return -EBADMSG; /* the same row twice */
        s->zones[zi].seen_types |= 1u << t;

        while (span_next_token(&rest, &tok)) {
                uint64_t v;
                bool capped;
                int r;

                if (n >= s->n_orders)
                        return -EBADMSG; /* more cells than orders */
                r = pt_cell(tok, &v, &capped);
                if (r < 0)
                        return r;
                if (out) {
                        out->zones[zi].free[t][n] = v;
                        if (capped)
                                out->zones[zi].capped[t] |= 1u << n;
                }
                n++;
        }
        if (n != s->n_orders)
                return -EBADMSG;
        return 0;
}

/* "Node 0, zone Normal 40 268 12 ..." (prefix already consumed) */
static int pt_blocks_row(PtState *s, int zi, Span rest, PageTypeInfo *out)
{
        Span tok;
        unsigned n = 0;

        if (s->table != PT_TABLE_BLOCKS)
                return -EBADMSG;
        if (s->zones[zi].have_blocks)
                return -EBADMSG;
        s->zones[zi].have_blocks = true;

        while (span_next_token(&rest, &tok)) {
                uint64_t v;
                int r;

                if (n >= s->n_cols)
                        return -EBADMSG;
                r = span_to_u64(tok, &v);
                if (r < 0)
                        return r;
                if (out)
                        out->zones[zi].blocks[s->cols[n]] = v;
                n++;
        }
        if (n != s->n_cols)
                return -EBADMSG;
        if (out)
                out->zones[zi].have_blocks = true;
        return 0;
}

static int pt_node_row(PtState *s, Span line, PageTypeInfo *out)
{
        char zone[FRAGD_NAME_MAX];
        bool comma;
        int node, zi, r;

        if (s->table == PT_TABLE_MIXED)
                return 0;
        if (s->table == PT_TABLE_NONE)
                return -EBADMSG;
        r = buddyinfo_parse_zone_prefix(&line, &node, zone, &comma);
        if (r < 0)
                return r;
        /* free-count rows have "zone Normal, type", block rows no comma */
        if (comma != (s->table == PT_TABLE_FREE))
                return -EBADMSG;
        zi = pt_zone_get(s, node, zone);
        if (zi < 0)
                return zi;
        if (comma)
                return pt_free_row(s, zi, line, out);
        return pt_blocks_row(s, zi, line, out);
}

/* One pass. out == NULL: validate only. */
static int pt_pass(const char *buf, size_t len, PtState *s, PageTypeInfo *out)
{
        Cursor c;
        Span line;
        int r;

        if (cursor_open(&c, buf, len) < 0)
                return -EINVAL;
        while (cursor_next_line(&c, &line)) {
                Span rest;

                span_skip_blanks(&line);
                if (line.len == 0)
                        continue;
                rest = line;

                if (span_startswith(line, "Node")) {
                        r = pt_node_row(s, line, out);
                } else if (span_startswith(line, "Page block order:")) {
                        uint64_t v = s->pageblock_order;

                        rest.p += strlen("Page block order:");
                        rest.len -= strlen("Page block order:");
                        r = pt_header_value(rest, &s->have_order, &v);
                        if (r >= 0 && v >= 64)
                                r = -ERANGE;
                        s->pageblock_order = (unsigned) v;
                        s->table = PT_TABLE_NONE;
                } else if (span_startswith(line, "Pages per block:")) {
                        rest.p += strlen("Pages per block:");
                        rest.len -= strlen("Pages per block:");
                        r = pt_header_value(rest, &s->have_per_block, &s->pages_per_block);
                        s->table = PT_TABLE_NONE;
                } else if (span_startswith(line, "Free pages count per migrate type at order")) {
                        rest.p += strlen("Free pages count per migrate type at order");
                        rest.len -= strlen("Free pages count per migrate type at order");
                        r = pt_orders_header(s, rest);
                } else if (span_startswith(line, "Number of blocks type")) {
                        rest.p += strlen("Number of blocks type");
                        rest.len -= strlen("Number of blocks type");
                        r = pt_blocks_header(s, rest);
                } else if (span_startswith(line, "Number of mixed blocks")) {
                        s->table = PT_TABLE_MIXED;
                        r = 0;
                } else {
                        /* an unknown line ends whatever table we were in */
                        s->table = PT_TABLE_NONE;
                        r = 0;
                }
                if (r < 0)
                        return r;
        }

        if (!s->have_order || !s->have_orders || s->n_zones == 0)
                return -ENODATA;
        if (s->have_per_block && s->pages_per_block != UINT64_C(1) << s->pageblock_order)
                return -EBADMSG;
        return 0;
}

int pagetypeinfo_parse(const char *buf, size_t len, PageTypeInfo *ret)
{
        PtState s = {};
        int r;

        r = pt_pass(buf, len, &s, NULL);
        if (r < 0)
                return r;

        memset(ret, 0, sizeof(*ret));
        s = (PtState) {};
        r = pt_pass(buf, len, &s, ret);
        assert(r == 0); /* same input, same result */

        ret->pageblock_order = s.pageblock_order;
        ret->pages_per_block = UINT64_C(1) << s.pageblock_order;
        ret->n_orders = s.n_orders;
        ret->n_types = s.n_types;
        memcpy(ret->types, s.types, sizeof(ret->types));
        ret->n_zones = s.n_zones;
        for (unsigned i = 0; i < s.n_zones; i++) {
                ret->zones[i].node = s.zones[i].node;
                memcpy(ret->zones[i].zone, s.zones[i].zone, sizeof(ret->zones[i].zone));
        }
        return r;
}

int pagetypeinfo_read(const Root *root, PageTypeInfo *ret)
{
        _cleanup_free_ char *buf = NULL;
        size_t len = 0;
        int r;

        /* mode 0400 since 5.4: -EACCES for non-root is passed on as is */
        r = read_file_alloc_at(root->proc_fd, "pagetypeinfo", &buf, &len);
        if (r < 0)
                return r;
        return pagetypeinfo_parse(buf, len, ret);
}

