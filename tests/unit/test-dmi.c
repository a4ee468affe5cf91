/* SPDX-License-Identifier: GPL-2.0-or-later */
/* dmi_read. */

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <string.h>

#include "fixture-root.h"
#include "fragd/obs.h"

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
        const char *names[ELEMENTSOF(dmi_fixtures)];

        for (size_t i = 0; i < ELEMENTSOF(dmi_fixtures); i++)
                names[i] = dmi_fixtures[i].tree;
        assert_int_equal(fixture_unlisted(names, ELEMENTSOF(names)), 0);
}

static void test_fixture_dmi(void **state)
{
        for (size_t i = 0; i < ELEMENTSOF(dmi_fixtures); i++) {
                const DmiFixture *f = &dmi_fixtures[i];
                Root *root = fixture_open(f->tree);
                DmiInfo d;

                assert_non_null(root);
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
        Root *root = fixture_open("synthetic-arm64-64k");
        DmiInfo d;

        assert_non_null(root);
        assert_int_equal(dmi_read(root, &d), 0);
        assert_string_equal(d.sys_vendor, "Amazon EC2");
        assert_string_equal(d.product_name, "m7g.large");
        assert_int_equal(strlen(d.product_family), sizeof(d.product_family) - 1);
        assert_memory_equal(d.product_family, "Graviton3-family-0123456789-", 28);
        assert_string_equal(d.board_asset_tag, "i-0123456789abcdef0");
        root_free(root);

        root = fixture_open("synthetic-minimal");
        assert_non_null(root);
        assert_int_equal(dmi_read(root, &d), -ENOENT);
        closep(&root->sys_fd);
        root->sys_fd = -1;
        assert_int_equal(dmi_read(root, &d), -ENOENT);
        root_free(root);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_fixtures_listed),
                cmocka_unit_test(test_fixture_dmi),
                cmocka_unit_test(test_synthetic_dmi),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
