/* SPDX-License-Identifier: GPL-2.0-or-later */
/* instance_probe() against fixture roots: DMI and node topology read under
 * the Root. PENDING: needs dmi_read(), nodes_read() and meminfo_read() from
 * daemon/sources/source-dmi.c / source-nodes.c (another branch). Once they are on
 * main: git mv daemon/pending/config-probe.c daemon/ and this file to
 * tests/unit/. */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "config-test-util.h"

static Root *fixture(const char *name)
{
        char path[512];
        Root *r = NULL;

        snprintf(path, sizeof(path), "%s/tests/fixtures/%s", srcdir(), name);
        if (root_open(path, 4096, &r) < 0)
                abort();
        return r;
}

static void test_probe_ec2(void **state)
{
        Root *r = fixture("synthetic-config-dmi-ec2-r7g");
        InstanceProbe p;
        InstanceInfo i;

        (void) state;
        assert_int_equal(instance_probe(r, "aarch64", &p), 0);
        assert_true(p.have_dmi);
        assert_string_equal(p.arch, "arm64");
        assert_int_equal(p.n_cpus, 16);
        assert_int_equal(p.mem_total_kb, 130140160);
        instance_identify(&p, "auto", &i);
        assert_string_equal(i.name, "r7g.4xlarge");
        assert_string_equal(i.source, "dmi");
        assert_string_equal(i.class_name, "mem-128g-16c-arm64");

        /* the whole load against the fixture's /etc tree */
        ConfigLoadArgs a = { .root = r, .probe = &p };
        TestLoad *l = tl_load(&a);
        tl_dump_errors(l);
        assert_int_equal(l->r, 0);
        assert_string_equal(l->src.instance.fleet_file, "/etc/fragd/fleet.d/r7g.conf");
        assert_int_equal(l->cfg.n_cgroups, 1);
        free(l);
        root_free(r);
}

static void test_probe_no_type_in_dmi(void **state)
{
        static const struct {
                const char *fixture, *want;
        } t[] = {
                { "synthetic-config-dmi-gce", "mem-64g-16c-x86_64" },
                { "synthetic-config-dmi-azure", "mem-64g-16c-x86_64" },
                { "synthetic-config-dmi-none", "mem-32g-8c-x86_64" },
                { "vm-6.1-x86_64-2node-fresh", NULL }, /* QEMU: class from the real capture */
        };

        (void) state;
        for (size_t k = 0; k < ELEMENTSOF(t); k++) {
                Root *r = fixture(t[k].fixture);
                InstanceProbe p;
                InstanceInfo i;

                assert_int_equal(instance_probe(r, "x86_64", &p), 0);
                instance_identify(&p, "auto", &i);
                assert_string_equal(i.source, "sizing");
                if (t[k].want)
                        assert_string_equal(i.name, t[k].want);
                else
                        assert_true(strncmp(i.name, "mem-4g-", 7) == 0);
                root_free(r);
        }
}

/* 64 KiB pages: the class says so, and the shipped 64K class file loses to
 * an instance-type file (m7g.* here) but wins on its own. */
static void test_probe_arm64_64k(void **state)
{
        char path[512];
        Root *r = NULL;
        InstanceProbe p;
        InstanceInfo i;

        (void) state;
        snprintf(path, sizeof(path), "%s/tests/fixtures/synthetic-arm64-64k", srcdir());
        assert_int_equal(root_open(path, 65536, &r), 0);
        assert_int_equal(instance_probe(r, "aarch64", &p), 0);
        assert_int_equal(p.page_size, 65536);
        assert_int_equal(p.mem_total_kb, 50331648); /* 32 + 16 GiB on nodes 0 and 2 */
        instance_identify(&p, "auto", &i);
        assert_string_equal(i.name, "m7g.large"); /* "Amazon EC2   ": trailing blanks */
        assert_string_equal(i.source, "dmi");
        assert_true(strncmp(i.class_name, "mem-64g-", 8) == 0);
        assert_true(strstr(i.class_name, "-arm64-64k") != NULL);
        assert_true(fleet_match_score(FLEET_MATCH_CLASS, "mem-*-arm64-64k", NULL, &i) > 0);

        root_free(r);
}

/* Detection from the fixture trees: the cloud from DMI, the architecture
 * from the tree (not this host's). */
static void test_probe_fixtures(void **state)
{
        static const struct {
                const char *fixture;
                const char *cloud;
                const char *arch;
                const char *arch_source;
        } t[] = {
                { "synthetic-config-dmi-ec2-r7g", "aws", "arm64", "the root's proc/sys/kernel/arch" },
                { "synthetic-config-dmi-gce", "gce", "x86_64", "the root's proc/cpuinfo" },
                { "synthetic-config-dmi-azure", "azure", "x86_64", "the root's proc/sys/kernel/arch" },
                { "synthetic-config-dmi-none", NULL, NULL, "this host (uname)" },
                { "synthetic-arm64-64k", "aws", "arm64", "the root's proc/sys/kernel/arch" },
        };

        (void) state;
        for (size_t k = 0; k < ELEMENTSOF(t); k++) {
                char dir[512];
                Root *root = NULL;
                InstanceProbe p;
                InstanceInfo i;

                snprintf(dir, sizeof(dir), "%s/tests/fixtures/%s", srcdir(), t[k].fixture);
                assert_int_equal(root_open(dir, 0, &root), 0);
                assert_int_equal(instance_probe(root, NULL, &p), 0);
                instance_identify(&p, "auto", &i);
                if (t[k].cloud)
                        assert_string_equal(i.cloud, t[k].cloud);
                else
                        assert_null(i.cloud);
                if (t[k].arch)
                        assert_string_equal(p.arch, t[k].arch);
                assert_true(strncmp(p.arch_source, t[k].arch_source, strlen(t[k].arch_source)) == 0);
                root_free(root);
        }
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_probe_fixtures),
                cmocka_unit_test(test_probe_ec2),
                cmocka_unit_test(test_probe_no_type_in_dmi),
                cmocka_unit_test(test_probe_arm64_64k),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
