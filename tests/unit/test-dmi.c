/* SPDX-License-Identifier: GPL-2.0-or-later */
/* dmi_read. */

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>

#include "core/cleanup.h"
#include "parser-test-util.h"
#include "fragd/obs.h"
#include "sources/sources.h"

/* From `cat sys/class/dmi/id/{sys_vendor,product_name}` (the guests have
 * only those two; the host has no DMI at all: ls sys/class -> missing). */
typedef struct DmiFixture {
        const char *tree;
        int rc;
        const char *vendor, *product;
} DmiFixture;

static const DmiFixture dmi_fixtures[] = {
        { "host-6.18-x86_64", -ENOENT, NULL, NULL },
        { "vm-6.1-x86_64-1node-pressure", 0, "QEMU", "Standard PC (i440FX + PIIX, 1996)" },
        { "vm-6.1-x86_64-2node-compacted", 0, "QEMU", "Standard PC (i440FX + PIIX, 1996)" },
        { "vm-6.1-x86_64-2node-fragmented", 0, "QEMU", "Standard PC (i440FX + PIIX, 1996)" },
        { "vm-6.1-x86_64-2node-fresh", 0, "QEMU", "Standard PC (i440FX + PIIX, 1996)" },
};

static void test_fixtures_listed(void **state)
{
        assert_fixtures_listed(dmi_fixtures, tree);
}

static void test_fixture_dmi(void **state)
{
        for (size_t i = 0; i < ELEMENTSOF(dmi_fixtures); i++) {
                const DmiFixture *f = &dmi_fixtures[i];
                Root *root = fixture_root(f->tree);
                DmiInfo d;

                memset(&d, 'x', sizeof(d));
                assert_int_equal(dmi_read(root, &d), f->rc);
                if (f->rc < 0) {
                        assert_int_equal(d.sys_vendor[0], 'x'); /* untouched */
                        root_free(root);
                        continue;
                }
                assert_string_equal(d.sys_vendor, f->vendor);
                assert_string_equal(d.product_name, f->product);
                assert_string_equal(d.product_family, ""); /* not captured */
                assert_string_equal(d.board_asset_tag, "");
                root_free(root);
        }
}

/* synthetic-arm64-64k: "Amazon EC2   \n" trimmed, 80-char product_family cut
 * to 63 (sizeof - 1), board_asset_tag holds an instance id. */
static void test_synthetic_dmi(void **state)
{
        Root *root = fixture_root("synthetic-arm64-64k");
        DmiInfo d;

        assert_int_equal(dmi_read(root, &d), 0);
        assert_string_equal(d.sys_vendor, "Amazon EC2");
        assert_string_equal(d.product_name, "m7g.large");
        assert_int_equal(strlen(d.product_family), sizeof(d.product_family) - 1);
        assert_memory_equal(d.product_family, "Graviton3-family-0123456789-", 28);
        assert_string_equal(d.board_asset_tag, "i-0123456789abcdef0");
        root_free(root);

        root = fixture_root("synthetic-minimal");
        assert_int_equal(dmi_read(root, &d), -ENOENT);
        closep(&root->sys_fd);
        root->sys_fd = -1;
        assert_int_equal(dmi_read(root, &d), -ENOENT);
        root_free(root);
}

static void write_at(int dfd, const char *path, const char *data, size_t len)
{
        int fd = openat(dfd, path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

        assert_true(fd >= 0);
        assert_int_equal(write(fd, data, len), (ssize_t) len);
        close(fd);
}

/* Control characters (C1 too), a byte that is not UTF-8 and an embedded
 * NUL are shown as '?'; only trailing whitespace goes; an empty file gives
 * "". Built in a temporary tree. */
static void test_dmi_sanitize(void **state)
{
        char tmpl[] = "/tmp/fragd-test-dmi-XXXXXX";
        const char *dir = mkdtemp(tmpl);
        Root *root = NULL;
        DmiInfo d;
        int dfd;

        assert_non_null(dir);
        dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        assert_true(dfd >= 0);
        assert_int_equal(mkdirat(dfd, "sys", 0755), 0);
        assert_int_equal(mkdirat(dfd, "sys/class", 0755), 0);
        assert_int_equal(mkdirat(dfd, "sys/class/dmi", 0755), 0);
        assert_int_equal(mkdirat(dfd, "sys/class/dmi/id", 0755), 0);
        write_at(dfd, "sys/class/dmi/id/sys_vendor", " Ac\x01me\tCo \r\n", strlen(" Ac\x01me\tCo \r\n"));
        write_at(dfd, "sys/class/dmi/id/product_name", "a\0b\n", 4);
        write_at(dfd, "sys/class/dmi/id/product_family", "", 0);
        write_at(dfd, "sys/class/dmi/id/board_asset_tag", "i-0\x9b" "1m\xc2\x9b" "2J caf\xc3\xa9\xff\n", 18);
        assert_int_equal(root_open(dir, 4096, &root), 0);
        assert_int_equal(dmi_read(root, &d), 0);
        assert_string_equal(d.sys_vendor, " Ac?me?Co");
        assert_string_equal(d.product_name, "a?b");
        assert_string_equal(d.product_family, "");
        assert_string_equal(d.board_asset_tag, "i-0?1m?2J caf\xc3\xa9?");
        root_free(root);

        (void) unlinkat(dfd, "sys/class/dmi/id/sys_vendor", 0);
        (void) unlinkat(dfd, "sys/class/dmi/id/product_name", 0);
        (void) unlinkat(dfd, "sys/class/dmi/id/product_family", 0);
        (void) unlinkat(dfd, "sys/class/dmi/id/board_asset_tag", 0);
        (void) unlinkat(dfd, "sys/class/dmi/id", AT_REMOVEDIR);
        (void) unlinkat(dfd, "sys/class/dmi", AT_REMOVEDIR);
        (void) unlinkat(dfd, "sys/class", AT_REMOVEDIR);
        (void) unlinkat(dfd, "sys", AT_REMOVEDIR);
        close(dfd);
        (void) rmdir(dir);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_fixtures_listed),
                cmocka_unit_test(test_fixture_dmi),
                cmocka_unit_test(test_synthetic_dmi),
                cmocka_unit_test(test_dmi_sanitize),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
