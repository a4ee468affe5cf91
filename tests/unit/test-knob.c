/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The knob write path on a copy of a fixture tree: write -> read back,
 * clamping, external changes in both ownership modes, restore, errors,
 * THP file format, dry run. */

#include <errno.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "core/cleanup.h"
#include "core/log.h"
#include "knob-test-util.h"
#include "log-event-test-util.h"
#include "knobs/knob.h"

#define CP "proc/sys/vm/compaction_proactiveness"
#define WSF "proc/sys/vm/watermark_scale_factor"
#define MFK "proc/sys/vm/min_free_kbytes"
#define EXT "proc/sys/vm/extfrag_threshold"
#define THP_ENABLED "sys/kernel/mm/transparent_hugepage/enabled"
#define THP_DEFRAG "sys/kernel/mm/transparent_hugepage/defrag"
#define SAVED "run/fragd/saved"

typedef struct Ctx {
        TestTree t;
        KnobFake *fake;
        KnobRegistry *reg;
} Ctx;

static int setup_mode(void **state, const KnobOps *ops, OwnershipMode mode)
{
        Ctx *c = calloc(1, sizeof(*c));

        assert_non_null(c);
        tt_setup(&c->t);
        if (ops == &knob_ops_fake)
                c->fake = knob_fake_new(c->t.root);
        assert_int_equal(knob_registry_new(c->t.root, "/run/fragd", ops, c->fake, mode, &c->reg), 0);
        *state = c;
        return 0;
}

static int setup_real(void **state)
{
        return setup_mode(state, &knob_ops_real, OWNERSHIP_RESPECT);
}

static int setup_fake(void **state)
{
        return setup_mode(state, &knob_ops_fake, OWNERSHIP_RESPECT);
}

static int setup_reassert(void **state)
{
        return setup_mode(state, &knob_ops_real, OWNERSHIP_REASSERT);
}

static int teardown(void **state)
{
        Ctx *c = *state;

        knob_registry_free(c->reg);
        knob_fake_free(c->fake);
        tt_teardown(&c->t);
        free(c);
        return 0;
}

/* ---- pure helpers ---------------------------------------------------------- */

static void test_names(void **state)
{
        static const struct {
                const char *name;
                int rc;
                KnobKind kind;
                const char *path;
        } t[] = {
                { "vm.compaction_proactiveness", 0, KNOB_KIND_INT, "sys/vm/compaction_proactiveness" },
                { "vm.compact_memory", 0, KNOB_KIND_ONESHOT, "sys/vm/compact_memory" },
                { "kernel.task_delayacct", 0, KNOB_KIND_INT, "sys/kernel/task_delayacct" },
                { "thp.enabled", 0, KNOB_KIND_CHOICE, "kernel/mm/transparent_hugepage/enabled" },
                { "thp.defrag", 0, KNOB_KIND_CHOICE, "kernel/mm/transparent_hugepage/defrag" },
                { "thp.khugepaged.defrag", 0, KNOB_KIND_INT, "kernel/mm/transparent_hugepage/khugepaged/defrag" },
                { "thp.hugepages-2048kB.enabled", 0, KNOB_KIND_CHOICE,
                  "kernel/mm/transparent_hugepage/hugepages-2048kB/enabled" },
                { "node12.compact", 0, KNOB_KIND_ONESHOT, "devices/system/node/node12/compact" },
                { "vm.../etc/passwd", -EINVAL, 0, NULL },
                { "vm.", -EINVAL, 0, NULL },
                { "vm.a/b", -EINVAL, 0, NULL },
                { "thp.hugepages-x.enabled", -EINVAL, 0, NULL },
                { "thp.hugepages-64kB.defrag", -EINVAL, 0, NULL },
                { "thp.khugepaged.../x", -EINVAL, 0, NULL },
                { "node.compact", -EINVAL, 0, NULL },
                { "node1.reclaim", -EINVAL, 0, NULL },
                { "kernel.panic", -EINVAL, 0, NULL },
                { "", -EINVAL, 0, NULL },
        };
        for (size_t i = 0; i < ELEMENTSOF(t); i++) {
                Knob k;
                int r = knob_init(&k, NULL, t[i].name, NULL);

                assert_int_equal(r, t[i].rc);
                if (r == 0) {
                        assert_int_equal(k.kind, t[i].kind);
                        assert_string_equal(k.path, t[i].path);
                        assert_int_equal(k.dirfd, -1);
                }
        }
        assert_string_equal(knob_lever_name(LEVER_THP_DEFRAG), "thp.defrag");
        assert_string_equal(knob_lever_name(LEVER_MIN_FREE_KBYTES), "vm.min_free_kbytes");
        assert_null(knob_lever_name(_LEVER_MAX));
}

static void test_normalize(void **state)
{
        static const struct {
                KnobKind kind;
                const char *raw;
                int rc;
                const char *out;
        } t[] = {
                { KNOB_KIND_INT, "20\n", 0, "20" },
                { KNOB_KIND_INT, "  256\t256   32 0\n", 0, "256 256 32 0" },
                { KNOB_KIND_INT, "\n", -EBADMSG, NULL },
                { KNOB_KIND_INT, "1\x01", -EBADMSG, NULL },
                { KNOB_KIND_CHOICE, "always [madvise] never\n", 0, "madvise" },
                { KNOB_KIND_CHOICE, "always defer defer+madvise [madvise] never\n", 0, "madvise" },
                { KNOB_KIND_CHOICE, "[defer+madvise] never", 0, "defer+madvise" },
                { KNOB_KIND_CHOICE, "madvise\n", 0, "madvise" }, /* plain: a fixture tree */
                { KNOB_KIND_CHOICE, "always madvise never", -EBADMSG, NULL },
                { KNOB_KIND_CHOICE, "[always] [madvise]", -EBADMSG, NULL },
                { KNOB_KIND_CHOICE, "[] never", -EBADMSG, NULL },
                { KNOB_KIND_CHOICE, "[always never", -EBADMSG, NULL },
                { KNOB_KIND_CHOICE, "always] [never", -EBADMSG, NULL },
                { KNOB_KIND_CHOICE, "[a b]", -EBADMSG, NULL },
        };
        for (size_t i = 0; i < ELEMENTSOF(t); i++) {
                char out[KNOB_VALUE_MAX];
                int r = knob_value_normalize(t[i].kind, t[i].raw, out, sizeof(out));

                assert_int_equal(r, t[i].rc);
                if (r == 0)
                        assert_string_equal(out, t[i].out);
        }
        assert_true(knob_value_equal(KNOB_KIND_INT, "040", "40"));
        assert_false(knob_value_equal(KNOB_KIND_INT, "40", "41"));
        assert_false(knob_value_equal(KNOB_KIND_CHOICE, "never", "madvise"));
        assert_true(knob_error_is_permanent(-EACCES));
        assert_true(knob_error_is_permanent(-EROFS));
        assert_true(knob_error_is_permanent(-ENOENT));
        assert_true(knob_error_is_permanent(-EINVAL));
        assert_true(knob_error_is_permanent(-EPERM));
        assert_true(knob_error_is_transient(-EAGAIN));
        assert_true(knob_error_is_transient(-EBUSY));
        assert_true(knob_error_is_transient(-EINTR));
}

/* ---- write path ---------------------------------------------------------- */

static void test_write_read_back(void **state)
{
        Ctx *c = *state;
        KnobInfo ki;

        assert_int_equal(knob_set(c->reg, "vm.compaction_proactiveness", "40", 1), 1);
        assert_string_equal(tt_read(&c->t, CP), "40\n");
        assert_int_equal(knob_find_info(c->reg, "vm.compaction_proactiveness", &ki), 0);
        assert_true(ki.owned);
        assert_false(ki.yielded);
        assert_string_equal(ki.original, "0");
        assert_string_equal(ki.last_written, "40");
        assert_true(ki.first_touch_usec > 0);
        assert_int_equal(ki.n_writes, 1);

        /* the journal holds it, write-ahead */
        assert_non_null(strstr(tt_read(&c->t, SAVED), "vm.compaction_proactiveness\t0\t40\t"));

        /* same value: nothing written */
        assert_int_equal(knob_set_int(c->reg, "vm.compaction_proactiveness", 40, 2), 0);
        assert_int_equal(knob_set_int(c->reg, "vm.compaction_proactiveness", 60, 3), 1);
        assert_int_equal(knob_find_info(c->reg, "vm.compaction_proactiveness", &ki), 0);
        assert_string_equal(ki.original, "0");
        assert_int_equal(ki.n_writes, 2);
        assert_non_null(strstr(tt_read(&c->t, SAVED), "vm.compaction_proactiveness\t0\t60\t"));
}

static void test_same_value_not_owned(void **state)
{
        Ctx *c = *state;
        KnobInfo ki;

        assert_int_equal(knob_set(c->reg, "vm.extfrag_threshold", "500", 1), 0);
        assert_int_equal(knob_find_info(c->reg, "vm.extfrag_threshold", &ki), 0);
        assert_false(ki.owned);
        assert_false(tt_exists(&c->t, SAVED));
}

static void test_bad_input(void **state)
{
        Ctx *c = *state;
        int64_t v;

        assert_int_equal(knob_set(c->reg, "vm.../x", "1", 1), -EINVAL);
        assert_int_equal(knob_set(c->reg, "vm.compaction_proactiveness", "1\t2", 1), -EINVAL);
        assert_int_equal(knob_set(c->reg, "vm.compaction_proactiveness", "", 1), -EINVAL);
        assert_int_equal(knob_set(c->reg, "thp.enabled", "always madvise", 1), -EINVAL);
        assert_int_equal(knob_set(c->reg, "thp.enabled", "[madvise]", 1), -EINVAL);
        assert_false(knob_is_disabled(c->reg, "vm.compaction_proactiveness"));
        assert_int_equal(knob_get_int(c->reg, "vm.watermark_scale_factor", &v), 0);
        assert_int_equal(v, 10);
}

static void test_clamp(void **state)
{
        Ctx *c = *state;
        KnobInfo ki;

        assert_int_equal(knob_fake_clamp(c->fake, "vm.watermark_scale_factor", 1, 3000), 0);
        assert_int_equal(knob_set(c->reg, "vm.watermark_scale_factor", "5000", 1), -ERANGE);
        assert_string_equal(tt_read(&c->t, WSF), "3000\n");
        assert_int_equal(knob_find_info(c->reg, "vm.watermark_scale_factor", &ki), 0);
        assert_true(ki.owned);
        assert_string_equal(ki.last_written, "3000"); /* what the kernel kept */
        assert_int_equal(ki.n_clamped, 1);
        /* the clamp is not mistaken for an external change */
        assert_int_equal(knob_check_external(c->reg, 2), 0);
        assert_int_equal(knob_set(c->reg, "vm.watermark_scale_factor", "200", 3), 1);
        assert_int_equal(knob_restore_all(c->reg, NULL), 0);
        assert_string_equal(tt_read(&c->t, WSF), "10\n");
}

static void test_external_respect(void **state)
{
        Ctx *c = *state;
        KnobInfo ki;

        assert_int_equal(knob_set(c->reg, "vm.compaction_proactiveness", "40", 1), 1);
        assert_int_equal(knob_set(c->reg, "vm.watermark_scale_factor", "100", 1), 1);
        assert_int_equal(knob_check_external(c->reg, 2), 0);

        tt_write(&c->t, CP, "55\n"); /* an operator, between ticks */
        assert_int_equal(knob_check_external(c->reg, 3), 1);
        assert_int_equal(knob_find_info(c->reg, "vm.compaction_proactiveness", &ki), 0);
        assert_true(ki.yielded);
        assert_false(ki.owned);
        assert_string_equal(ki.external, "55");
        assert_int_equal(ki.n_external, 1);
        assert_string_equal(tt_read(&c->t, CP), "55\n");
        /* yielded until restart, and no longer in the journal */
        assert_int_equal(knob_set(c->reg, "vm.compaction_proactiveness", "70", 4), -ESTALE);
        assert_string_equal(tt_read(&c->t, CP), "55\n");
        assert_null(strstr(tt_read(&c->t, SAVED), "compaction_proactiveness"));
        assert_non_null(strstr(tt_read(&c->t, SAVED), "watermark_scale_factor"));
        /* restore leaves the other party's value alone */
        assert_int_equal(knob_restore_all(c->reg, NULL), 0);
        assert_string_equal(tt_read(&c->t, CP), "55\n");
        assert_string_equal(tt_read(&c->t, WSF), "10\n");
        assert_false(tt_exists(&c->t, SAVED));
}

/* The knob events: yielded to another writer (at a tick and at stop),
 * restored at stop, each at NOTICE with fragd's and the other value */
static void test_events(void **state)
{
        static Capture cap;
        Ctx *c = *state;
        int i;

        log_set_max_level(LOG_NOTICE);
        assert_int_equal(knob_set(c->reg, "vm.compaction_proactiveness", "40", 1), 1);
        assert_int_equal(knob_set(c->reg, "vm.watermark_scale_factor", "100", 1), 1);
        assert_int_equal(knob_set(c->reg, "vm.extfrag_threshold", "700", 1), 1);
        capture_start(&cap);
        tt_write(&c->t, CP, "55\n"); /* sysctl -w by an operator, between ticks */
        assert_int_equal(knob_check_external(c->reg, 2), 1);
        assert_int_equal(cap.n, 1);
        assert_string_equal(capture_get(&cap, 0, "MESSAGE_ID"), ID_KNOB_YIELDED);
        assert_string_equal(capture_get(&cap, 0, "PRIORITY"), "5");
        assert_string_equal(capture_get(&cap, 0, "FRAGD_KNOB"), "vm.compaction_proactiveness");
        assert_string_equal(capture_get(&cap, 0, "FRAGD_FROM"), "40");
        assert_string_equal(capture_get(&cap, 0, "FRAGD_TO"), "55");
        assert_string_equal(capture_get(&cap, 0, "FRAGD_REASON"), "changed_by_another_writer");

        tt_write(&c->t, EXT, "650\n"); /* changed again after the last tick: found at stop */
        assert_int_equal(knob_restore_all(c->reg, NULL), 0);
        capture_stop();
        assert_int_equal(cap.n, 3);
        i = capture_find(&cap, ID_KNOB_RESTORED, "vm.watermark_scale_factor");
        assert_true(i >= 0);
        assert_string_equal(capture_get(&cap, i, "PRIORITY"), "5");
        assert_string_equal(capture_get(&cap, i, "FRAGD_FROM"), "100");
        assert_string_equal(capture_get(&cap, i, "FRAGD_TO"), "10");
        assert_string_equal(capture_get(&cap, i, "FRAGD_REASON"), "stop");
        i = capture_find(&cap, ID_KNOB_YIELDED, "vm.extfrag_threshold");
        assert_true(i >= 0);
        assert_string_equal(capture_get(&cap, i, "FRAGD_FROM"), "700");
        assert_string_equal(capture_get(&cap, i, "FRAGD_TO"), "650");
        assert_int_equal(capture_find(&cap, ID_KNOB_RESTORED, "vm.compaction_proactiveness"), -1);
        log_set_max_level(getenv("FRAGD_TEST_VERBOSE") ? LOG_DEBUG : LOG_WARNING);
}

static void test_external_noticed_on_set(void **state)
{
        Ctx *c = *state;

        assert_int_equal(knob_set(c->reg, "vm.compaction_proactiveness", "40", 1), 1);
        tt_write(&c->t, CP, "41\n");
        assert_int_equal(knob_set(c->reg, "vm.compaction_proactiveness", "50", 2), -ESTALE);
        assert_string_equal(tt_read(&c->t, CP), "41\n");
}

static void test_external_reassert(void **state)
{
        Ctx *c = *state;
        KnobInfo ki;

        assert_int_equal(knob_set(c->reg, "vm.compaction_proactiveness", "40", 1), 1);
        tt_write(&c->t, CP, "55\n");
        assert_int_equal(knob_check_external(c->reg, 2), 1);
        assert_string_equal(tt_read(&c->t, CP), "40\n");
        assert_int_equal(knob_find_info(c->reg, "vm.compaction_proactiveness", &ki), 0);
        assert_true(ki.owned);
        assert_false(ki.yielded);
        assert_int_equal(ki.n_external, 1);
        assert_string_equal(ki.original, "0");

        /* noticed on a write too, and overwritten */
        tt_write(&c->t, CP, "56\n");
        assert_int_equal(knob_set(c->reg, "vm.compaction_proactiveness", "45", 3), 1);
        assert_string_equal(tt_read(&c->t, CP), "45\n");

        /* someone set exactly what fragd wants next: adopted, not fought */
        tt_write(&c->t, CP, "60\n");
        assert_int_equal(knob_set(c->reg, "vm.compaction_proactiveness", "60", 4), 0);
        assert_int_equal(knob_check_external(c->reg, 5), 0);
        assert_string_equal(tt_read(&c->t, CP), "60\n");
        assert_non_null(strstr(tt_read(&c->t, SAVED), "vm.compaction_proactiveness\t0\t60\t"));

        /* REASSERT restores the original even over someone else's value */
        tt_write(&c->t, CP, "57\n");
        assert_int_equal(knob_restore_all(c->reg, NULL), 0);
        assert_string_equal(tt_read(&c->t, CP), "0\n");
}

static void test_restore_all(void **state)
{
        Ctx *c = *state;
        uint64_t before = tt_checksum(&c->t, "proc");
        unsigned n_failed = 99;
        char v[KNOB_VALUE_MAX];

        assert_int_equal(knob_set(c->reg, "vm.compaction_proactiveness", "40", 1), 1);
        assert_int_equal(knob_set(c->reg, "vm.min_free_kbytes", "120000", 1), 1);
        assert_int_equal(knob_set(c->reg, "vm.watermark_boost_factor", "15000", 1), 1);
        assert_int_equal(knob_set(c->reg, "thp.enabled", "madvise", 1), 1);
        assert_int_equal(knob_set(c->reg, "thp.defrag", "defer+madvise", 1), 1);
        assert_int_equal(knob_set(c->reg, "thp.khugepaged.defrag", "0", 1), 1);
        assert_int_equal(knob_set(c->reg, "kernel.task_delayacct", "1", 1), 1);
        assert_true(tt_checksum(&c->t, "proc") != before);
        assert_true(tt_exists(&c->t, SAVED));

        assert_int_equal(knob_restore_all(c->reg, &n_failed), 0);
        assert_int_equal(n_failed, 0);
        /* sysctls come back byte for byte */
        assert_true(tt_checksum(&c->t, "proc") == before);
        assert_int_equal(knob_get(c->reg, "thp.enabled", v, sizeof(v)), 0);
        assert_string_equal(v, "always");
        assert_int_equal(knob_get(c->reg, "thp.defrag", v, sizeof(v)), 0);
        assert_string_equal(v, "madvise");
        assert_string_equal(tt_read(&c->t, "sys/kernel/mm/transparent_hugepage/khugepaged/defrag"), "1\n");
        assert_false(tt_exists(&c->t, SAVED));
        /* nothing owned any more: a second restore is a no-op */
        assert_int_equal(knob_restore_all(c->reg, &n_failed), 0);
}

/* runtime_dir changed on SIGHUP: the journal follows, or nothing changes */
static void test_move_runtime_dir(void **state)
{
        Ctx *c = *state;
        char why[512] = "", line[64];
        unsigned n = 99;

        /* nothing owned: switched, nothing to write */
        assert_int_equal(knob_registry_move(c->reg, "/run/a", &n, why, sizeof(why)), 0);
        assert_int_equal(n, 0);
        assert_string_equal(knob_registry_runtime_dir(c->reg), "run/a");
        assert_false(tt_exists(&c->t, "run/a/saved"));

        assert_int_equal(knob_set(c->reg, "vm.compaction_proactiveness", "40", 1), 1);
        assert_int_equal(knob_set(c->reg, "vm.watermark_scale_factor", "200", 1), 1);
        tt_write(&c->t, "run/a/status", "fragd-status 1\npid 1 0\n"); /* ours: removed with the move */
        assert_int_equal(knob_registry_move(c->reg, "/run/deep/b/", &n, why, sizeof(why)), 1);
        assert_int_equal(n, 2);
        assert_string_equal(knob_registry_runtime_dir(c->reg), "run/deep/b");
        assert_false(tt_exists(&c->t, "run/a/saved"));
        assert_false(tt_exists(&c->t, "run/a/status"));
        assert_non_null(strstr(tt_read(&c->t, "run/deep/b/saved"), "vm.compaction_proactiveness\t0\t40\t"));
        assert_non_null(strstr(tt_read(&c->t, "run/deep/b/saved"), "vm.watermark_scale_factor\t10\t200\t"));
        /* the same directory spelt differently: nothing moves */
        assert_int_equal(knob_registry_move(c->reg, "/run//deep/b", &n, why, sizeof(why)), 0);
        assert_string_equal(knob_registry_runtime_dir(c->reg), "run//deep/b"); /* as configured */
        assert_true(tt_exists(&c->t, "run/deep/b/saved"));

        /* a journal there already (another fragd, or left over): refused */
        tt_mkdir(&c->t, "run/busy");
        tt_write(&c->t, "run/busy/saved", "fragd-saved 1\n");
        assert_int_equal(knob_registry_move(c->reg, "/run/busy", &n, why, sizeof(why)), -EEXIST);
        assert_non_null(strstr(why, "/run/busy/saved' already exists"));
        assert_string_equal(knob_registry_runtime_dir(c->reg), "run//deep/b");
        assert_string_equal(tt_read(&c->t, "run/busy/saved"), "fragd-saved 1\n");
        /* a journal moved aside by an earlier --restore */
        tt_mkdir(&c->t, "run/aside");
        tt_write(&c->t, "run/aside/saved.corrupt-20260101T000000Z", "x\n");
        assert_int_equal(knob_registry_move(c->reg, "/run/aside", &n, why, sizeof(why)), -EEXIST);
        assert_non_null(strstr(why, "saved.corrupt-20260101T000000Z' holds a knob journal"));
        /* the status of another running fragd (pid 1 lives, its start time) */
        tt_mkdir(&c->t, "run/other");
        snprintf(line, sizeof(line), "fragd-status 1\npid 1 %" PRIu64 "\n", pid_starttime(1));
        tt_write(&c->t, "run/other/status", line);
        assert_int_equal(knob_registry_move(c->reg, "/run/other", &n, why, sizeof(why)), -EBUSY);
        /* not a directory, or not one fragd can use */
        tt_write(&c->t, "run/file", "x");
        assert_int_equal(knob_registry_move(c->reg, "/run/file/x", &n, why, sizeof(why)), -ENOTDIR);
        assert_non_null(strstr(why, "cannot create the directory"));
        assert_int_equal(knob_registry_move(c->reg, "/", &n, why, sizeof(why)), -EINVAL);
        /* every refusal left the journal where it was, in use */
        assert_string_equal(knob_registry_runtime_dir(c->reg), "run//deep/b");
        assert_int_equal(knob_set(c->reg, "vm.compaction_proactiveness", "50", 2), 1);
        assert_non_null(strstr(tt_read(&c->t, "run/deep/b/saved"), "vm.compaction_proactiveness\t0\t50\t"));

        /* the restore empties the journal in the new place */
        assert_int_equal(knob_restore_all(c->reg, NULL), 0);
        assert_false(tt_exists(&c->t, "run/deep/b/saved"));
        assert_string_equal(tt_read(&c->t, CP), "0\n");
}

/* runtime_dir changed on SIGHUP to a path whose parent is a symlink out of
 * the tree: nothing is created outside it (resolved inside the root, or
 * refused), and the journal stays usable */
static void test_move_runtime_dir_symlink_out(void **state)
{
        Ctx *c = *state;
        char outside[] = "/tmp/fragd-test-out.XXXXXX", link[256], probe[320], why[512] = "";
        unsigned n = 99;
        struct stat st;
        int r;

        assert_non_null(mkdtemp(outside));
        assert_int_equal(knob_set(c->reg, "vm.compaction_proactiveness", "40", 1), 1);
        snprintf(link, sizeof(link), "%s/run/out", c->t.dir);
        assert_int_equal(symlink(outside, link), 0);
        r = knob_registry_move(c->reg, "/run/out/fragd", &n, why, sizeof(why));
        snprintf(probe, sizeof(probe), "%s/fragd", outside);
        assert_int_equal(lstat(probe, &st), -1); /* before root_mkdir_p_at(): created outside */
        assert_int_equal(errno, ENOENT);
        if (r < 0) {
                /* refused: the journal stays where it was */
                assert_non_null(strstr(why, "cannot create the directory"));
                assert_string_equal(knob_registry_runtime_dir(c->reg), "run/fragd");
                assert_true(tt_exists(&c->t, SAVED));
        }
        assert_int_equal(knob_restore_all(c->reg, NULL), 0);
        assert_string_equal(tt_read(&c->t, CP), "0\n");
        assert_int_equal(lstat(probe, &st), -1);
        assert_int_equal(rmdir(outside), 0); /* still empty */
}

/* a dry run writes no journal: a "saved" in its runtime_dir is an earlier
 * fragd's, neither moved nor removed when runtime_dir changes */
static void test_move_dry_run(void **state)
{
        _cleanup_(knob_registry_freep) KnobRegistry *reg = NULL;
        char why[512] = "";
        unsigned n = 99;
        TestTree t;

        tt_setup(&t);
        tt_mkdir(&t, "run");
        tt_mkdir(&t, "run/fragd");
        tt_write(&t, SAVED, "fragd-saved 1\nvm.compaction_proactiveness\t0\t40\t1\n");
        assert_int_equal(knob_registry_new(t.root, NULL, &knob_ops_dryrun, NULL, OWNERSHIP_RESPECT, &reg), 0);
        assert_int_equal(knob_set(reg, "vm.compaction_proactiveness", "40", 1), 1);
        assert_int_equal(knob_registry_move(reg, "/run/b", &n, why, sizeof(why)), 0);
        assert_int_equal(n, 0);
        assert_string_equal(knob_registry_runtime_dir(reg), "run/b");
        assert_string_equal(tt_read(&t, SAVED), "fragd-saved 1\nvm.compaction_proactiveness\t0\t40\t1\n");
        assert_false(tt_exists(&t, "run/b/saved"));
        reg = knob_registry_free(reg);
        tt_teardown(&t);
}

static void test_restore_failure_kept(void **state)
{
        Ctx *c = *state;
        unsigned n_failed = 0;
        KnobInfo ki;

        assert_int_equal(knob_set(c->reg, "vm.compaction_proactiveness", "40", 1), 1);
        assert_int_equal(knob_set(c->reg, "vm.watermark_scale_factor", "100", 1), 1);
        assert_int_equal(knob_fake_fail_write(c->fake, "vm.compaction_proactiveness", EBUSY, 1), 0);
        assert_int_equal(knob_restore_all(c->reg, &n_failed), -EBUSY);
        assert_int_equal(n_failed, 1);
        assert_string_equal(tt_read(&c->t, WSF), "10\n");
        assert_non_null(strstr(tt_read(&c->t, SAVED), "vm.compaction_proactiveness\t0\t40"));
        assert_null(strstr(tt_read(&c->t, SAVED), "watermark_scale_factor"));
        assert_int_equal(knob_find_info(c->reg, "vm.compaction_proactiveness", &ki), 0);
        assert_true(ki.owned);
        /* the next attempt succeeds and removes the journal */
        assert_int_equal(knob_restore_all(c->reg, &n_failed), 0);
        assert_int_equal(n_failed, 0);
        assert_string_equal(tt_read(&c->t, CP), "0\n");
        assert_false(tt_exists(&c->t, SAVED));
}

/* The stop message says what is back and what was left, to whom. */
static void test_restore_summary(void **state)
{
        Ctx *c = *state;
        unsigned n_failed;
        char *sum = NULL;

        assert_int_equal(knob_set(c->reg, "vm.compaction_proactiveness", "40", 1), 1);
        assert_int_equal(knob_set(c->reg, "vm.watermark_scale_factor", "100", 1), 1);
        assert_int_equal(knob_set(c->reg, "vm.extfrag_threshold", "600", 1), 1);
        assert_int_equal(knob_set(c->reg, "thp.defrag", "defer", 1), 1);
        /* yielded while running: another writer set 30, then 35 */
        tt_write(&c->t, WSF, "30\n");
        assert_int_equal(knob_check_external(c->reg, 2), 1);
        tt_write(&c->t, WSF, "35\n");
        /* the knob file vanished */
        assert_int_equal(unlinkat(c->t.root->root_fd, EXT, 0), 0);
        /* changed by someone else just before the stop */
        tt_write(&c->t, THP_DEFRAG, "always defer defer+madvise [never] madvise\n");

        assert_int_equal(knob_restore_all(c->reg, &n_failed), 0);
        assert_int_equal(knob_restore_summary(c->reg, &sum), 1);
        print_message("    %s\n", sum);
        assert_null(strstr(sum, "Every knob"));
        assert_non_null(strstr(sum, "Back at their original values: vm.compaction_proactiveness=0."));
        assert_non_null(strstr(sum, "vm.watermark_scale_factor to another writer (current value 35, fragd's "
                                    "original 10)"));
        assert_non_null(strstr(sum, "vm.extfrag_threshold: the knob file is gone (fragd's original 500)"));
        assert_non_null(strstr(sum, "thp.defrag to another writer (current value never, fragd's original madvise)"));
        free(sum);
}

static void test_restore_summary_all_back(void **state)
{
        Ctx *c = *state;
        char *sum = NULL;

        assert_int_equal(knob_restore_summary(c->reg, &sum), 0);
        assert_string_equal(sum, "fragd changed no knob");
        free(sum);
        assert_int_equal(knob_set(c->reg, "vm.compaction_proactiveness", "40", 1), 1);
        assert_int_equal(knob_set(c->reg, "thp.defrag", "defer", 1), 1);
        assert_int_equal(knob_restore_all(c->reg, NULL), 0);
        assert_int_equal(knob_restore_summary(c->reg, &sum), 0);
        assert_string_equal(sum, "Every knob fragd changed is back at its original value: "
                                 "vm.compaction_proactiveness=0, thp.defrag=madvise");
        free(sum);
}

/* issue 11 item 10: a kick at 90 with bounds 20..80 writes nothing */
static void test_rewrite_within_bounds(void **state)
{
        Ctx *c = *state;

        tt_write(&c->t, CP, "90\n");
        assert_int_equal(knob_rewrite_within(c->reg, "vm.compaction_proactiveness", 20, 80, 1), -EDOM);
        assert_int_equal(knob_fake_n_writes(c->fake, "vm.compaction_proactiveness"), 0);
        assert_false(tt_exists(&c->t, SAVED));
        tt_write(&c->t, CP, "19\n");
        assert_int_equal(knob_rewrite_within(c->reg, "vm.compaction_proactiveness", 20, 80, 2), -EDOM);
        assert_int_equal(knob_fake_n_writes(c->fake, "vm.compaction_proactiveness"), 0);
        tt_write(&c->t, CP, "80\n");
        assert_int_equal(knob_rewrite_within(c->reg, "vm.compaction_proactiveness", 20, 80, 3), 1);
        assert_int_equal(knob_fake_n_writes(c->fake, "vm.compaction_proactiveness"), 1);
        assert_string_equal(tt_read(&c->t, CP), "80\n");
        /* owned now; someone sets 90 (REASSERT would carry on): still nothing written */
        tt_write(&c->t, CP, "90\n");
        knob_registry_set_ownership(c->reg, OWNERSHIP_REASSERT);
        assert_int_equal(knob_rewrite_within(c->reg, "vm.compaction_proactiveness", 20, 80, 4), -EDOM);
        assert_int_equal(knob_fake_n_writes(c->fake, "vm.compaction_proactiveness"), 1);
        /* a choice knob has no integer bounds */
        assert_int_equal(knob_rewrite_within(c->reg, "thp.defrag", 0, 1, 5), -EINVAL);
}

static void test_thp_format(void **state)
{
        Ctx *c = *state;
        char v[KNOB_VALUE_MAX];
        KnobInfo ki;

        assert_int_equal(knob_get(c->reg, "thp.enabled", v, sizeof(v)), 0);
        assert_string_equal(v, "always"); /* "[always] madvise never" */
        assert_int_equal(knob_set(c->reg, "thp.enabled", "madvise", 1), 1);
        /* a plain file in the test tree: the plain word reads back */
        assert_string_equal(tt_read(&c->t, THP_ENABLED), "madvise\n");
        assert_int_equal(knob_find_info(c->reg, "thp.enabled", &ki), 0);
        assert_string_equal(ki.original, "always");
        /* the kernel form reads back as the same value: no external change */
        tt_write(&c->t, THP_ENABLED, "always [madvise] never\n");
        assert_int_equal(knob_check_external(c->reg, 2), 0);
        assert_int_equal(knob_set(c->reg, "thp.enabled", "madvise", 3), 0);
        /* another word in brackets is an external change */
        tt_write(&c->t, THP_ENABLED, "always madvise [never]\n");
        assert_int_equal(knob_check_external(c->reg, 4), 1);
        assert_int_equal(knob_find_info(c->reg, "thp.enabled", &ki), 0);
        assert_true(ki.yielded);
        assert_string_equal(ki.external, "never");
}

static void test_thp_garbage_is_transient(void **state)
{
        Ctx *c = *state;

        tt_write(&c->t, THP_DEFRAG, "always madvise\n"); /* no brackets, two words */
        assert_int_equal(knob_set(c->reg, "thp.defrag", "defer", 1), -EBADMSG);
        assert_false(knob_is_disabled(c->reg, "thp.defrag"));
        tt_write(&c->t, THP_DEFRAG, "always [madvise]\n");
        assert_int_equal(knob_set(c->reg, "thp.defrag", "defer", 2), 1);
}

static void test_min_free_recomputed_by_thp_write(void **state)
{
        Ctx *c = *state;
        KnobInfo ki;

        /* the kernel raises min_free_kbytes on every THP enabled write */
        assert_int_equal(knob_fake_side_effect(c->fake, "thp.enabled", "vm.min_free_kbytes", "67584"), 0);
        assert_int_equal(knob_set(c->reg, "vm.min_free_kbytes", "45056", 1), 1);
        assert_int_equal(knob_set(c->reg, "thp.enabled", "madvise", 2), 1);
        /* fragd's own doing: re-asserted, not yielded */
        assert_string_equal(tt_read(&c->t, MFK), "45056\n");
        assert_int_equal(knob_find_info(c->reg, "vm.min_free_kbytes", &ki), 0);
        assert_true(ki.owned);
        assert_false(ki.yielded);
        assert_int_equal(ki.n_external, 0);
        assert_int_equal(knob_check_external(c->reg, 3), 0);

        /* restore: thp first (recomputes), min_free last and forced */
        assert_int_equal(knob_restore_all(c->reg, NULL), 0);
        assert_string_equal(tt_read(&c->t, MFK), "90112\n");
        assert_string_equal(tt_read(&c->t, THP_ENABLED), "always\n");
}

static void test_permanent_error(void **state)
{
        Ctx *c = *state;
        KnobInfo ki;

        assert_int_equal(knob_fake_fail_write(c->fake, "vm.extfrag_threshold", EACCES, 0), 0);
        assert_int_equal(knob_set(c->reg, "vm.extfrag_threshold", "700", 1), -EACCES);
        assert_true(knob_is_disabled(c->reg, "vm.extfrag_threshold"));
        assert_int_equal(knob_find_info(c->reg, "vm.extfrag_threshold", &ki), 0);
        assert_true(ki.disabled);
        assert_int_equal(ki.disabled_error, -EACCES);
        assert_false(ki.owned); /* nothing was changed */
        assert_int_equal(knob_set(c->reg, "vm.extfrag_threshold", "700", 2), -ECANCELED);
        assert_string_equal(tt_read(&c->t, EXT), "500\n");
        assert_false(tt_exists(&c->t, SAVED));
        /* fragd keeps running: other knobs work */
        assert_int_equal(knob_set(c->reg, "vm.compaction_proactiveness", "30", 3), 1);

        /* EROFS on a knob that was already owned: disabled, still restored */
        assert_int_equal(knob_fake_fail_write(c->fake, "vm.compaction_proactiveness", EROFS, 1), 0);
        assert_int_equal(knob_set(c->reg, "vm.compaction_proactiveness", "50", 4), -EROFS);
        assert_true(knob_is_disabled(c->reg, "vm.compaction_proactiveness"));
        assert_string_equal(tt_read(&c->t, CP), "30\n");
        assert_int_equal(knob_restore_all(c->reg, NULL), 0);
        assert_string_equal(tt_read(&c->t, CP), "0\n");
}

static void test_missing_knob_disabled(void **state)
{
        Ctx *c = *state;

        /* 6.1 has no defrag_mode (6.15+) */
        assert_int_equal(knob_set(c->reg, "vm.defrag_mode", "1", 1), -ENOENT);
        assert_true(knob_is_disabled(c->reg, "vm.defrag_mode"));
        assert_int_equal(knob_set(c->reg, "vm.defrag_mode", "1", 2), -ECANCELED);
        assert_false(tt_exists(&c->t, "proc/sys/vm/defrag_mode"));
        /* a permanent read error as well */
        assert_int_equal(knob_fake_fail_read(c->fake, "thp.defrag", EACCES, 1), 0);
        assert_int_equal(knob_set(c->reg, "thp.defrag", "defer", 3), -EACCES);
        assert_true(knob_is_disabled(c->reg, "thp.defrag"));
}

static void test_transient_retry(void **state)
{
        Ctx *c = *state;
        KnobInfo ki;

        assert_int_equal(knob_fake_fail_write(c->fake, "vm.watermark_scale_factor", EBUSY, 1), 0);
        assert_int_equal(knob_fake_fail_read(c->fake, "vm.watermark_scale_factor", EAGAIN, 1), 0);
        assert_int_equal(knob_set(c->reg, "vm.watermark_scale_factor", "150", 1), -EAGAIN);
        assert_int_equal(knob_set(c->reg, "vm.watermark_scale_factor", "150", 2), -EBUSY);
        assert_false(knob_is_disabled(c->reg, "vm.watermark_scale_factor"));
        /* a failed first write takes no ownership and leaves no journal */
        assert_int_equal(knob_find_info(c->reg, "vm.watermark_scale_factor", &ki), 0);
        assert_false(ki.owned);
        assert_int_equal(ki.n_errors, 2);
        assert_false(tt_exists(&c->t, SAVED));
        assert_string_equal(tt_read(&c->t, WSF), "10\n");
        /* next tick */
        assert_int_equal(knob_set(c->reg, "vm.watermark_scale_factor", "150", 3), 1);
        assert_string_equal(tt_read(&c->t, WSF), "150\n");

        /* a failed later write keeps fragd's previous value as last_written */
        assert_int_equal(knob_fake_fail_write(c->fake, "vm.watermark_scale_factor", EINTR, 1), 0);
        assert_int_equal(knob_set(c->reg, "vm.watermark_scale_factor", "300", 4), -EINTR);
        assert_int_equal(knob_check_external(c->reg, 5), 0);
        assert_non_null(strstr(tt_read(&c->t, SAVED), "vm.watermark_scale_factor\t10\t150\t"));
}

static unsigned count_substr(const char *s, const char *needle)
{
        unsigned n = 0;

        for (const char *p = s; (p = strstr(p, needle)); p++)
                n++;
        return n;
}

static void test_many_failures_rate_limited(void **state)
{
        Ctx *c = *state;
        char logpath[128], buf[8192];
        int saved, fd;
        ssize_t n;
        KnobInfo ki;

        /* capture stderr (the log) */
        snprintf(logpath, sizeof(logpath), "%s/log", c->t.dir);
        fd = open(logpath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        assert_true(fd >= 0);
        fflush(stderr);
        saved = dup(STDERR_FILENO);
        assert_int_equal(dup2(fd, STDERR_FILENO), STDERR_FILENO);

        assert_int_equal(knob_fake_fail_write(c->fake, "vm.watermark_scale_factor", EBUSY, 0), 0);
        for (unsigned i = 1; i <= 50; i++)
                assert_int_equal(knob_set(c->reg, "vm.watermark_scale_factor", "150", i * USEC_PER_SEC), -EBUSY);
        /* past the interval: one more line, with the count */
        assert_int_equal(knob_set(c->reg, "vm.watermark_scale_factor", "150", 400 * USEC_PER_SEC), -EBUSY);

        fflush(stderr);
        assert_int_equal(dup2(saved, STDERR_FILENO), STDERR_FILENO);
        close(saved);
        close(fd);
        fd = open(logpath, O_RDONLY | O_CLOEXEC);
        n = read(fd, buf, sizeof(buf) - 1);
        close(fd);
        assert_true(n > 0);
        buf[n] = '\0';
        assert_int_equal(count_substr(buf, "Knob vm.watermark_scale_factor: write failed"), 2);
        assert_int_equal(count_substr(buf, "(49 similar messages suppressed)"), 1);

        assert_int_equal(knob_find_info(c->reg, "vm.watermark_scale_factor", &ki), 0);
        assert_int_equal(ki.n_errors, 51);
        assert_false(ki.disabled);
}

static void test_journal_unwritable_no_write(void **state)
{
        Ctx *c = *state;

        /* <root>/run is a file: the journal cannot be written, so no knob is */
        tt_write(&c->t, "run", "not a directory\n");
        assert_true(knob_set(c->reg, "vm.compaction_proactiveness", "40", 1) < 0);
        assert_string_equal(tt_read(&c->t, CP), "0\n");
        assert_false(knob_is_disabled(c->reg, "vm.compaction_proactiveness"));
}

static void test_oneshot(void **state)
{
        Ctx *c = *state;
        KnobInfo ki;

        /* compaction blocks: only through the worker (test-compact-worker) */
        assert_int_equal(knob_set(c->reg, "node1.compact", "1", 1), -EOPNOTSUPP);
        assert_string_equal(tt_read(&c->t, "sys/devices/system/node/node1/compact"), "");
        assert_false(knob_is_disabled(c->reg, "node1.compact"));
        assert_int_equal(knob_get(c->reg, "vm.compact_memory", (char[8]) { 0 }, 8), -EOPNOTSUPP);
        /* its results are classified like any write */
        assert_int_equal(knob_note_result(c->reg, "node7.compact", -ENOENT, 2), -ENOENT);
        assert_true(knob_is_disabled(c->reg, "node7.compact"));
        assert_int_equal(knob_note_result(c->reg, "vm.compact_memory", -EBUSY, 3), -EBUSY);
        assert_false(knob_is_disabled(c->reg, "vm.compact_memory"));
        assert_int_equal(knob_note_result(c->reg, "vm.compact_memory", -EPERM, 3), -EPERM);
        assert_true(knob_is_disabled(c->reg, "vm.compact_memory"));
        assert_int_equal(knob_find_info(c->reg, "vm.compact_memory", &ki), 0);
        assert_false(ki.owned);
        assert_int_equal(ki.n_errors, 2);
        assert_false(tt_exists(&c->t, SAVED));
}

static void test_dry_run(void **state)
{
        static Capture cap;
        TestTree t;
        _cleanup_(knob_registry_freep) KnobRegistry *reg = NULL;
        uint64_t proc, sys;
        char v[KNOB_VALUE_MAX];
        const char *name, *value;
        unsigned n_writes;
        KnobDryrun *d;

        tt_setup(&t);
        proc = tt_checksum(&t, "proc");
        sys = tt_checksum(&t, "sys");
        assert_int_equal(knob_registry_new(t.root, NULL, &knob_ops_dryrun, NULL, OWNERSHIP_RESPECT, &reg), 0);
        /* the same write path: read, write, read back */
        assert_int_equal(knob_set(reg, "vm.compaction_proactiveness", "40", 1), 1);
        assert_int_equal(knob_set(reg, "thp.enabled", "madvise", 1), 1);
        assert_int_equal(knob_set(reg, "vm.watermark_scale_factor", "10", 1), 0);
        assert_int_equal(knob_get(reg, "vm.compaction_proactiveness", v, sizeof(v)), 0);
        assert_string_equal(v, "40"); /* what a real run would read */
        assert_int_equal(knob_check_external(reg, 2), 0);
        assert_int_equal(knob_set(reg, "vm.compaction_proactiveness", "50", 3), 1);

        d = knob_registry_ops_data(reg);
        assert_int_equal(knob_dryrun_count(d), 2);
        assert_int_equal(knob_dryrun_get(d, 0, &name, &value, &n_writes), 0);
        assert_string_equal(name, "vm.compaction_proactiveness");
        assert_string_equal(value, "50");
        assert_int_equal(n_writes, 2);

        /* a dry run restores nothing real: the text, no knob_restored event */
        log_set_max_level(LOG_NOTICE);
        capture_start(&cap);
        assert_int_equal(knob_restore_all(reg, NULL), 0);
        capture_stop();
        log_set_max_level(getenv("FRAGD_TEST_VERBOSE") ? LOG_DEBUG : LOG_WARNING);
        assert_int_equal(cap.n, 0);
        assert_int_equal(knob_get(reg, "vm.compaction_proactiveness", v, sizeof(v)), 0);
        assert_string_equal(v, "0");
        /* nothing was written: not the knobs, not the journal */
        assert_true(tt_checksum(&t, "proc") == proc);
        assert_true(tt_checksum(&t, "sys") == sys);
        assert_false(tt_exists(&t, "run"));
        reg = knob_registry_free(reg);
        tt_teardown(&t);
}

/* ---- rewrite: the same value again (kcompactd kick) ------------------------- */

static int stat_saved(const Ctx *c, struct stat *ret)
{
        char path[512];

        snprintf(path, sizeof(path), "%s/%s", c->t.dir, SAVED);
        return stat(path, ret);
}

static void test_rewrite_takes_ownership(void **state)
{
        Ctx *c = *state;
        struct stat st0, st1;
        KnobInfo ki;

        tt_write(&c->t, CP, "20\n");
        /* knob_set does nothing for the same value; knob_rewrite writes it */
        assert_int_equal(knob_set(c->reg, "vm.compaction_proactiveness", "20", 1), 0);
        assert_int_equal(knob_fake_n_writes(c->fake, "vm.compaction_proactiveness"), 0);
        assert_int_equal(knob_rewrite(c->reg, "vm.compaction_proactiveness", 2), 1);
        assert_int_equal(knob_fake_n_writes(c->fake, "vm.compaction_proactiveness"), 1);
        assert_string_equal(tt_read(&c->t, CP), "20\n");
        assert_int_equal(knob_find_info(c->reg, "vm.compaction_proactiveness", &ki), 0);
        assert_true(ki.owned);
        assert_string_equal(ki.original, "20");
        assert_string_equal(ki.last_written, "20");
        assert_int_equal(ki.n_writes, 1);
        assert_non_null(strstr(tt_read(&c->t, SAVED), "vm.compaction_proactiveness\t20\t20\t"));

        /* again: the write counter grows, the value does not change, and
         * the journal (tmp + rename: a new inode per write) is left alone */
        assert_int_equal(stat_saved(c, &st0), 0);
        assert_int_equal(knob_rewrite(c->reg, "vm.compaction_proactiveness", 3), 1);
        assert_int_equal(knob_rewrite(c->reg, "vm.compaction_proactiveness", 4), 1);
        assert_int_equal(stat_saved(c, &st1), 0);
        assert_true(st0.st_ino == st1.st_ino);
        assert_int_equal(knob_fake_n_writes(c->fake, "vm.compaction_proactiveness"), 3);
        assert_int_equal(knob_find_info(c->reg, "vm.compaction_proactiveness", &ki), 0);
        assert_int_equal(ki.n_writes, 3);
        assert_string_equal(tt_read(&c->t, CP), "20\n");

        /* after a move, a rewrite writes the moved value; restore the original */
        assert_int_equal(knob_set(c->reg, "vm.compaction_proactiveness", "40", 5), 1);
        assert_int_equal(knob_rewrite(c->reg, "vm.compaction_proactiveness", 6), 1);
        assert_string_equal(tt_read(&c->t, CP), "40\n");
        assert_int_equal(knob_fake_n_writes(c->fake, "vm.compaction_proactiveness"), 5);
        assert_int_equal(knob_restore_all(c->reg, NULL), 0);
        assert_string_equal(tt_read(&c->t, CP), "20\n");
        assert_false(tt_exists(&c->t, SAVED));
}

static void test_rewrite_restore_is_noop(void **state)
{
        Ctx *c = *state;

        tt_write(&c->t, CP, "20\n");
        assert_int_equal(knob_rewrite(c->reg, "vm.compaction_proactiveness", 1), 1);
        assert_int_equal(knob_restore_all(c->reg, NULL), 0);
        assert_string_equal(tt_read(&c->t, CP), "20\n");
        assert_false(tt_exists(&c->t, SAVED));
}

static void test_rewrite_respects_external(void **state)
{
        Ctx *c = *state;
        KnobInfo ki;

        tt_write(&c->t, CP, "20\n");
        assert_int_equal(knob_rewrite(c->reg, "vm.compaction_proactiveness", 1), 1);
        tt_write(&c->t, CP, "55\n"); /* an operator */
        assert_int_equal(knob_rewrite(c->reg, "vm.compaction_proactiveness", 2), -ESTALE);
        assert_int_equal(knob_fake_n_writes(c->fake, "vm.compaction_proactiveness"), 1);
        assert_string_equal(tt_read(&c->t, CP), "55\n");
        assert_int_equal(knob_find_info(c->reg, "vm.compaction_proactiveness", &ki), 0);
        assert_true(ki.yielded);
        assert_int_equal(knob_rewrite(c->reg, "vm.compaction_proactiveness", 3), -ESTALE);
}

static void test_rewrite_reassert(void **state)
{
        Ctx *c = *state;
        KnobInfo ki;

        tt_write(&c->t, CP, "20\n");
        assert_int_equal(knob_rewrite(c->reg, "vm.compaction_proactiveness", 1), 1);
        tt_write(&c->t, CP, "55\n");
        /* reassert: the live value is now fragd's, and rewritten */
        assert_int_equal(knob_rewrite(c->reg, "vm.compaction_proactiveness", 2), 1);
        assert_string_equal(tt_read(&c->t, CP), "55\n");
        assert_int_equal(knob_find_info(c->reg, "vm.compaction_proactiveness", &ki), 0);
        assert_int_equal(ki.n_external, 1);
        assert_string_equal(ki.original, "20");
        assert_string_equal(ki.last_written, "55");
        assert_non_null(strstr(tt_read(&c->t, SAVED), "vm.compaction_proactiveness\t20\t55\t"));
}

static void test_rewrite_errors(void **state)
{
        Ctx *c = *state;
        KnobInfo ki;

        tt_write(&c->t, CP, "20\n");
        assert_int_equal(knob_rewrite(c->reg, "vm.../x", 1), -EINVAL);
        assert_int_equal(knob_rewrite(c->reg, "node0.compact", 1), -EOPNOTSUPP);
        /* a failed first write leaves the knob unowned and out of the journal */
        assert_int_equal(knob_fake_fail_write(c->fake, "vm.compaction_proactiveness", EBUSY, 1), 0);
        assert_int_equal(knob_rewrite(c->reg, "vm.compaction_proactiveness", 1), -EBUSY);
        assert_int_equal(knob_find_info(c->reg, "vm.compaction_proactiveness", &ki), 0);
        assert_false(ki.owned);
        assert_null(strstr(tt_read(&c->t, SAVED), "compaction_proactiveness"));
        assert_int_equal(knob_rewrite(c->reg, "vm.compaction_proactiveness", 2), 1);
        /* a failed later rewrite keeps the ownership */
        assert_int_equal(knob_fake_fail_write(c->fake, "vm.compaction_proactiveness", EBUSY, 1), 0);
        assert_int_equal(knob_rewrite(c->reg, "vm.compaction_proactiveness", 3), -EBUSY);
        assert_int_equal(knob_find_info(c->reg, "vm.compaction_proactiveness", &ki), 0);
        assert_true(ki.owned);
        assert_string_equal(ki.original, "20");
        assert_non_null(strstr(tt_read(&c->t, SAVED), "vm.compaction_proactiveness\t20\t20\t"));
        /* a permanent error disables it */
        assert_int_equal(knob_fake_fail_write(c->fake, "vm.compaction_proactiveness", EROFS, 1), 0);
        assert_int_equal(knob_rewrite(c->reg, "vm.compaction_proactiveness", 4), -EROFS);
        assert_int_equal(knob_rewrite(c->reg, "vm.compaction_proactiveness", 5), -ECANCELED);
}

static void test_rewrite_dry_run(void **state)
{
        TestTree t;
        _cleanup_(knob_registry_freep) KnobRegistry *reg = NULL;
        uint64_t proc;
        const char *name, *value;
        unsigned n_writes;
        KnobDryrun *d;

        tt_setup(&t);
        tt_write(&t, CP, "20\n");
        proc = tt_checksum(&t, "proc");
        assert_int_equal(knob_registry_new(t.root, NULL, &knob_ops_dryrun, NULL, OWNERSHIP_RESPECT, &reg), 0);
        assert_int_equal(knob_rewrite(reg, "vm.compaction_proactiveness", 1), 1);
        assert_int_equal(knob_rewrite(reg, "vm.compaction_proactiveness", 2), 1);
        d = knob_registry_ops_data(reg);
        assert_int_equal(knob_dryrun_count(d), 1);
        assert_int_equal(knob_dryrun_get(d, 0, &name, &value, &n_writes), 0);
        assert_string_equal(name, "vm.compaction_proactiveness");
        assert_string_equal(value, "20");
        assert_int_equal(n_writes, 2);
        assert_true(tt_checksum(&t, "proc") == proc);
        assert_false(tt_exists(&t, "run"));
        reg = knob_registry_free(reg);
        tt_teardown(&t);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_names),
                cmocka_unit_test(test_normalize),
                cmocka_unit_test_setup_teardown(test_write_read_back, setup_real, teardown),
                cmocka_unit_test_setup_teardown(test_same_value_not_owned, setup_real, teardown),
                cmocka_unit_test_setup_teardown(test_bad_input, setup_real, teardown),
                cmocka_unit_test_setup_teardown(test_clamp, setup_fake, teardown),
                cmocka_unit_test_setup_teardown(test_external_respect, setup_real, teardown),
                cmocka_unit_test_setup_teardown(test_events, setup_real, teardown),
                cmocka_unit_test_setup_teardown(test_external_noticed_on_set, setup_real, teardown),
                cmocka_unit_test_setup_teardown(test_external_reassert, setup_reassert, teardown),
                cmocka_unit_test_setup_teardown(test_restore_all, setup_real, teardown),
                cmocka_unit_test_setup_teardown(test_restore_failure_kept, setup_fake, teardown),
                cmocka_unit_test_setup_teardown(test_rewrite_within_bounds, setup_fake, teardown),
                cmocka_unit_test_setup_teardown(test_restore_summary, setup_fake, teardown),
                cmocka_unit_test_setup_teardown(test_restore_summary_all_back, setup_fake, teardown),
                cmocka_unit_test_setup_teardown(test_thp_format, setup_real, teardown),
                cmocka_unit_test_setup_teardown(test_thp_garbage_is_transient, setup_real, teardown),
                cmocka_unit_test_setup_teardown(test_min_free_recomputed_by_thp_write, setup_fake, teardown),
                cmocka_unit_test_setup_teardown(test_permanent_error, setup_fake, teardown),
                cmocka_unit_test_setup_teardown(test_missing_knob_disabled, setup_fake, teardown),
                cmocka_unit_test_setup_teardown(test_transient_retry, setup_fake, teardown),
                cmocka_unit_test_setup_teardown(test_many_failures_rate_limited, setup_fake, teardown),
                cmocka_unit_test_setup_teardown(test_journal_unwritable_no_write, setup_real, teardown),
                cmocka_unit_test_setup_teardown(test_oneshot, setup_fake, teardown),
                cmocka_unit_test(test_dry_run),
                cmocka_unit_test_setup_teardown(test_rewrite_takes_ownership, setup_fake, teardown),
                cmocka_unit_test_setup_teardown(test_rewrite_restore_is_noop, setup_real, teardown),
                cmocka_unit_test_setup_teardown(test_rewrite_respects_external, setup_fake, teardown),
                cmocka_unit_test_setup_teardown(test_rewrite_reassert, setup_reassert, teardown),
                cmocka_unit_test_setup_teardown(test_rewrite_errors, setup_fake, teardown),
                cmocka_unit_test(test_rewrite_dry_run),
                cmocka_unit_test_setup_teardown(test_move_runtime_dir, setup_real, teardown),
                cmocka_unit_test_setup_teardown(test_move_runtime_dir_symlink_out, setup_real, teardown),
                cmocka_unit_test(test_move_dry_run),
        };

        log_set_max_level(getenv("FRAGD_TEST_VERBOSE") ? LOG_DEBUG : LOG_WARNING);
        return cmocka_run_group_tests(tests, NULL, NULL);
}
