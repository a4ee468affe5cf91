/* SPDX-License-Identifier: GPL-2.0-or-later */
/* DMI identity from /sys/class/dmi/id: which machine (or cloud instance
 * type) this is. Only for labels; nothing depends on the values. */

#include <errno.h>
#include <fcntl.h>
#include <string.h>

#include "core/cleanup.h"
#include "core/root.h"
#include "core/text.h"
#include "fragd/macro.h"
#include "fragd/obs.h"
#include "sources/sources.h"

/* Reads one attribute into field: a NUL, a control character (C0, DEL,
 * C1) or a byte that is not UTF-8 becomes '?' (text_scrub(): the name is
 * printed by --once and fragd status), trailing whitespace goes, overlong
 * values are cut. Missing or unreadable: "". */
static void dmi_attr_read(int dirfd, const char *name, char *field, size_t size)
{
        char buf[512];
        size_t n;
        int r;

        field[0] = '\0';
        r = read_file_at(dirfd, name, buf, sizeof(buf));
        if (r < 0)
                return;
        n = MIN((size_t) r, size - 1);
        while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' ' || buf[n - 1] == '\t' ||
                         buf[n - 1] == '\r' || buf[n - 1] == '\0'))
                n--;
        for (size_t i = 0; i < n; i++)
                if (buf[i] == '\0')
                        buf[i] = '?';
        text_scrub(field, size, buf, n, NULL);
}

int dmi_read(const Root *root, DmiInfo *ret)
{
        _cleanup_close_ int fd = -1;
        DmiInfo d;

        if (root->sys_fd < 0)
                return -ENOENT;
        /* a symlink to devices/virtual/dmi/id on a real system: follow it */
        fd = root_openat(root->sys_fd, "class/dmi/id", O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0, 0);
        if (fd < 0)
                return negative_errno();
        dmi_attr_read(fd, "sys_vendor", d.sys_vendor, sizeof(d.sys_vendor));
        dmi_attr_read(fd, "product_name", d.product_name, sizeof(d.product_name));
        dmi_attr_read(fd, "product_family", d.product_family, sizeof(d.product_family));
        dmi_attr_read(fd, "board_asset_tag", d.board_asset_tag, sizeof(d.board_asset_tag));
        dmi_attr_read(fd, "chassis_asset_tag", d.chassis_asset_tag, sizeof(d.chassis_asset_tag));
        *ret = d;
        return 0;
}
