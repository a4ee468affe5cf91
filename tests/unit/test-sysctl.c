/* SPDX-License-Identifier: GPL-2.0-or-later */
/* vm_knob_name / vm_knob_from_name / sysctl_value_parse / vm_sysctls_read. */

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "core/cleanup.h"
#include "parser-test-util.h"
#include "fragd/obs.h"
#include "fragd/policy.h"
#include "sources/sources.h"

/* ---- fixtures ------------------------------------------------------------ */

/* From `cat proc/sys/vm/<knob>` per tree (-1: file absent; defrag_mode is
 * 6.15+ so only the 6.18 host has it). Column order is VmKnob order:
 * min_free_kbytes watermark_scale_factor watermark_boost_factor
 * compaction_proactiveness extfrag_threshold defrag_mode
 * percpu_pagelist_high_fraction compact_unevictable_allowed zone_reclaim_mode */
typedef struct SysctlFixture {
        const char *tree;
        int64_t v[_VM_KNOB_MAX];
} SysctlFixture;

static const SysctlFixture sysctl_fixtures[] = {
        { "host-6.18-x86_64", { 67584, 10, 15000, 20, 500, 0, 0, 1, 0 } },
        { "vm-6.1-x86_64-1node-pressure", { 45056, 10, 15000, 20, 500, -1, 0, 1, 0 } },
        { "vm-6.1-x86_64-2node-compacted", { 90112, 10, 0, 0, 500, -1, 0, 1, 0 } },
        { "vm-6.1-x86_64-2node-fragmented", { 90112, 10, 0, 0, 500, -1, 0, 1, 0 } },
        { "vm-6.1-x86_64-2node-fresh", { 90112, 10, 15000, 20, 500, -1, 0, 1, 0 } },
};

static void test_fixtures_listed(void **state)
{
        assert_fixtures_listed(sysctl_fixtures, tree);
}

static void test_fixture_sysctls(void **state)
{
        for (size_t i = 0; i < ELEMENTSOF(sysctl_fixtures); i++) {
                const SysctlFixture *f = &sysctl_fixtures[i];
                Root *root = fixture_root(f->tree);
                VmSysctls vm;

                assert_int_equal(vm_sysctls_read(root, &vm), 0);
                for (unsigned k = 0; k < _VM_KNOB_MAX; k++) {
                        if (f->v[k] < 0) {
                                if (vm.present[k])
                                        fail_msg("%s: %s present", f->tree, vm_knob_name(k));
                                continue;
                        }
                        if (!vm.present[k] || vm.value[k] != f->v[k])
                                fail_msg("%s: %s = %lld (present %d), expected %lld", f->tree,
                                         vm_knob_name(k), (long long) vm.value[k], vm.present[k],
                                         (long long) f->v[k]);
                }
                root_free(root);
        }
}

/* synthetic-minimal: see its README */
static void test_synthetic_sysctls(void **state)
{
        Root *root = fixture_root("synthetic-minimal");
        VmSysctls vm;

        assert_int_equal(vm_sysctls_read(root, &vm), 0);
        assert_true(vm.present[VM_MIN_FREE_KBYTES]);
        assert_int_equal(vm.value[VM_MIN_FREE_KBYTES], 16384);
        assert_true(vm.present[VM_EXTFRAG_THRESHOLD]); /* no newline */
        assert_int_equal(vm.value[VM_EXTFRAG_THRESHOLD], 500);
        assert_true(vm.present[VM_ZONE_RECLAIM_MODE]); /* blanks around */
        assert_int_equal(vm.value[VM_ZONE_RECLAIM_MODE], 0);
        assert_false(vm.present[VM_WATERMARK_SCALE_FACTOR]); /* "abc" */
        assert_false(vm.present[VM_DEFRAG_MODE]);
        assert_false(vm.present[VM_COMPACTION_PROACTIVENESS]);
        root_free(root);

        root = fixture_root("synthetic-arm64-64k");
        assert_int_equal(vm_sysctls_read(root, &vm), 0);
        assert_true(vm.present[VM_DEFRAG_MODE]);
        assert_int_equal(vm.value[VM_DEFRAG_MODE], 1);
        closep(&root->proc_fd);
        root->proc_fd = -1;
        vm.value[0] = 4242;
        assert_int_equal(vm_sysctls_read(root, &vm), -ENOENT);
        assert_int_equal(vm.value[0], 4242);
        root_free(root);

        /* a vector sysctl read as one value */
        root = fixture_root("synthetic-minimal");
        assert_int_equal(sysctl_read_at(root->proc_fd, "sys/vm/lowmem_reserve_ratio", &vm.value[0]), -EBADMSG);
        root_free(root);
}

static void test_knob_names(void **state)
{
        static const char *const names[] = {
                "min_free_kbytes", "watermark_scale_factor", "watermark_boost_factor",
                "compaction_proactiveness", "extfrag_threshold", "defrag_mode",
                "percpu_pagelist_high_fraction", "compact_unevictable_allowed", "zone_reclaim_mode",
        };

        assert_int_equal(ELEMENTSOF(names), _VM_KNOB_MAX);
        for (unsigned k = 0; k < _VM_KNOB_MAX; k++) {
                assert_string_equal(vm_knob_name(k), names[k]);
                assert_int_equal(vm_knob_from_name(names[k]), (int) k);
        }
        assert_null(vm_knob_name(_VM_KNOB_MAX));
        assert_null(vm_knob_name((VmKnob) -1));
        assert_int_equal(vm_knob_from_name("swappiness"), -ENOENT);
        assert_int_equal(vm_knob_from_name("min_free_kbyte"), -ENOENT);
        assert_int_equal(vm_knob_from_name(""), -ENOENT);
        assert_int_equal(vm_knob_from_name(NULL), -ENOENT);
}

/* ---- sysctl_value_parse table -------------------------------------------- */

typedef struct ValueCase {
        const char *input;
        int rc;
        int64_t value;
} ValueCase;

static const ValueCase value_cases[] = {
        { "67584\n", 0, 67584 },
        { "0\n", 0, 0 },
        { "500", 0, 500 },               /* no trailing newline */
        { "  12 \n\n", 0, 12 },          /* blanks */
        { "\t7\r\n", 0, 7 },
        { "-1\n", 0, -1 },
        { "9223372036854775807\n", 0, INT64_MAX },
        { "-9223372036854775808\n", 0, INT64_MIN },
        { "9223372036854775808\n", -ERANGE, 0 },
        { "-9223372036854775809\n", -ERANGE, 0 },
        { "99999999999999999999999\n", -ERANGE, 0 },
        { "", -ENODATA, 0 },
        { "\n", -ENODATA, 0 },
        { "   \n \n", -ENODATA, 0 },
        { "abc\n", -EBADMSG, 0 },
        { "12abc\n", -EBADMSG, 0 },
        { "1.5\n", -EBADMSG, 0 },
        { "+5\n", -EBADMSG, 0 },
        { "-\n", -EBADMSG, 0 },
        { "0x10\n", -EBADMSG, 0 },
        { "256\t256\t32\t0\t0\n", -EBADMSG, 0 }, /* vector sysctl */
        { "1\n2\n", -EBADMSG, 0 },                /* extra line */
};

static void test_value_table(void **state)
{
        for (size_t i = 0; i < ELEMENTSOF(value_cases); i++) {
                const ValueCase *c = &value_cases[i];
                int64_t v = 31337;
                int r = sysctl_value_parse(c->input, strlen(c->input), &v);

                if (r != c->rc)
                        fail_msg("case '%s': rc %d, expected %d", c->input, r, c->rc);
                assert_int_equal(v, r < 0 ? 31337 : c->value);
        }
}

static void test_value_len_bound(void **state)
{
        int64_t v;

        assert_int_equal(sysctl_value_parse("1234", 2, &v), 0);
        assert_int_equal(v, 12);
        assert_int_equal(sysctl_value_parse("1\0002", 3, &v), -EBADMSG);
        assert_int_equal(sysctl_value_parse(NULL, 0, &v), -ENODATA);
}

/* The one table of kernel limits covers every vm lever (config validation
 * derives the lever bounds from it) and answers -ENOENT for others. */
static void test_kernel_ranges(void **state)
{
        int64_t lo, hi;
        char name[64];

        for (int l = 0; l < _LEVER_MAX; l++) {
                if (l == LEVER_THP_DEFRAG)
                        continue;
                snprintf(name, sizeof(name), "vm.%s", lever_name((Lever) l));
                assert_int_equal(sysctl_kernel_range(name, &lo, &hi), 0);
                assert_true(lo <= hi);
        }
        assert_int_equal(sysctl_kernel_range("vm.watermark_scale_factor", &lo, &hi), 0);
        assert_int_equal(lo, 1);
        assert_int_equal(hi, 3000);
        assert_int_equal(sysctl_kernel_range("vm.no_such_knob", &lo, &hi), -ENOENT);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_fixtures_listed),
                cmocka_unit_test(test_kernel_ranges),
                cmocka_unit_test(test_fixture_sysctls),
                cmocka_unit_test(test_synthetic_sysctls),
                cmocka_unit_test(test_knob_names),
                cmocka_unit_test(test_value_table),
                cmocka_unit_test(test_value_len_bound),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
