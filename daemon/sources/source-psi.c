/* SPDX-License-Identifier: GPL-2.0-or-later */
/* PSI: /proc/pressure/<resource> and cgroup <resource>.pressure.
 *
 *   some avg10=0.00 avg60=0.00 avg300=0.00 total=0
 *   full avg10=0.00 avg60=0.00 avg300=0.00 total=0
 *
 * Parsed by key name, in any order; unknown key=value fields and unknown line
 * kinds are ignored. "full" is optional (older kernels print it only for
 * memory and io; irq prints only "full"), but at least one line is needed. */

#include <errno.h>
#include <fcntl.h>
#include <string.h>

#include "core/cleanup.h"
#include "core/parse-util.h"
#include "core/root.h"
#include "fragd/macro.h"
#include "fragd/obs.h"
#include "sources/sources.h"

#define PSI_AVG_MAX_PERMYRIAD 10000u /* 100.00 % */

/* "12.34" -> 1234. Up to two decimals are significant; further digits are
 * checked and truncated; "12" and "12.3" are accepted. No floats. */
static int psi_avg_parse(Span s, uint32_t *ret)
{
        uint64_t ipart = 0, frac = 0;
        size_t i = 0, nfrac = 0;

        if (s.len == 0)
                return -EBADMSG;
        for (; i < s.len && s.p[i] != '.'; i++) {
                if (s.p[i] < '0' || s.p[i] > '9')
                        return -EBADMSG;
                if (ipart > PSI_AVG_MAX_PERMYRIAD) /* saturate: already out of range */
                        continue;
                ipart = ipart * 10 + (uint64_t) (s.p[i] - '0');
        }
        if (i == 0)
                return -EBADMSG; /* ".5" */
        if (i < s.len) {
                i++; /* '.' */
                if (i == s.len)
                        return -EBADMSG; /* "5." */
                for (; i < s.len; i++, nfrac++) {
                        if (s.p[i] < '0' || s.p[i] > '9')
                                return -EBADMSG;
                        if (nfrac < 2)
                                frac = frac * 10 + (uint64_t) (s.p[i] - '0');
                }
                if (nfrac == 1)
                        frac *= 10;
        }
        if (ipart > PSI_AVG_MAX_PERMYRIAD / 100)
                return -ERANGE;
        ipart = ipart * 100 + frac;
        if (ipart > PSI_AVG_MAX_PERMYRIAD)
                return -ERANGE;
        *ret = (uint32_t) ipart;
        return 0;
}

enum {
        PSI_HAVE_AVG10 = 1u << 0,
        PSI_HAVE_AVG60 = 1u << 1,
        PSI_HAVE_AVG300 = 1u << 2,
        PSI_HAVE_TOTAL = 1u << 3,
        PSI_HAVE_ALL = (1u << 4) - 1,
};

static int psi_line_parse(Span line, PsiLine *ret)
{
        PsiLine l = { .present = true };
        unsigned have = 0;
        Span tok;

        while (span_next_token(&line, &tok)) {
                const char *eq = memchr(tok.p, '=', tok.len);
                Span key, val;
                unsigned bit;
                int r;

                if (!eq)
                        return -EBADMSG; /* every field is key=value */
                key = (Span) { tok.p, (size_t) (eq - tok.p) };
                val = (Span) { eq + 1, tok.len - key.len - 1 };
                if (span_eq(key, "avg10")) {
                        bit = PSI_HAVE_AVG10;
                        r = psi_avg_parse(val, &l.avg10_permyriad);
                } else if (span_eq(key, "avg60")) {
                        bit = PSI_HAVE_AVG60;
                        r = psi_avg_parse(val, &l.avg60_permyriad);
                } else if (span_eq(key, "avg300")) {
                        bit = PSI_HAVE_AVG300;
                        r = psi_avg_parse(val, &l.avg300_permyriad);
                } else if (span_eq(key, "total")) {
                        bit = PSI_HAVE_TOTAL;
                        r = span_to_u64(val, &l.total_usec);
                } else {
                        if (key.len == 0)
                                return -EBADMSG; /* "=5" */
                        continue;                /* a newer kernel's field */
                }
                if (r < 0)
                        return r;
                if (have & bit)
                        return -EBADMSG; /* duplicate key */
                have |= bit;
        }
        if (have != PSI_HAVE_ALL)
                return -ENODATA;
        *ret = l;
        return 0;
}

int psi_parse(const char *buf, size_t len, PsiStats *ret)
{
        PsiStats tmp = {};
        Cursor c;
        Span line;

        if (cursor_open(&c, buf, len) < 0)
                return -EINVAL;
        while (cursor_next_line(&c, &line)) {
                PsiLine *l;
                Span kind;
                int r;

                if (!span_next_token(&line, &kind))
                        continue; /* blank line */
                if (span_eq(kind, "some"))
                        l = &tmp.some;
                else if (span_eq(kind, "full"))
                        l = &tmp.full;
                else
                        continue; /* unknown line kind: ignore */
                if (l->present)
                        return -EBADMSG; /* two "some" lines */
                r = psi_line_parse(line, l);
                if (r < 0)
                        return r;
        }
        if (!tmp.some.present && !tmp.full.present)
                return -ENODATA;
        *ret = tmp;
        return 0;
}

static bool psi_resource_valid(const char *resource)
{
        size_t n;

        if (!resource)
                return false;
        n = strlen(resource);
        return n > 0 && n < 32 && !strchr(resource, '/') && resource[0] != '.';
}

static int psi_read_at(int dirfd, const char *path, PsiStats *ret)
{
        char buf[1024];
        int r;

        r = read_file_at(dirfd, path, buf, sizeof(buf));
        if (r < 0)
                return r;
        return psi_parse(buf, (size_t) r, ret);
}

int psi_read(const Root *root, const char *resource, PsiStats *ret)
{
        _cleanup_close_ int dfd = -1;
        int r;

        if (!psi_resource_valid(resource))
                return -EINVAL;
        if (root->proc_fd < 0)
                return -ENOENT;
        /* CONFIG_PSI=n, or psi=0 at boot: no /proc/pressure at all. */
        dfd = root_openat(root->proc_fd, "pressure", O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0, 0);
        if (dfd < 0)
                return errno == ENOENT ? -EOPNOTSUPP : negative_errno();
        r = psi_read_at(dfd, resource, ret);
        /* A resource this kernel does not track (irq without
         * CONFIG_IRQ_TIME_ACCOUNTING). */
        return r == -ENOENT ? -EOPNOTSUPP : r;
}

int psi_read_cgroup(const Root *root, const char *cgroup, const char *resource, PsiStats *ret)
{
        char file[48], path[4096];
        int r;

        if (!psi_resource_valid(resource))
                return -EINVAL;
        (void) snprintf(file, sizeof(file), "%s.pressure", resource);
        r = cgroup_file_path(cgroup, file, path, sizeof(path));
        if (r < 0)
                return r;
        /* Per-cgroup PSI off (cgroup.pressure 0, or psi disabled): the file
         * exists but reads fail with EOPNOTSUPP, passed through as is. */
        return psi_read_at(root->sys_fd, path, ret);
}
