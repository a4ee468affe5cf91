/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cgroup2 root discovery (mountinfo, probing, hybrid), watched cgroups on
 * fixture trees (memory.stat THP fields, pressure), appear/vanish in a temp
 * tree, membership parsing and scanning, PSI trigger formatting. Never
 * touches the host's cgroups: temp trees only. */

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/root.h"
#include "parser-test-util.h"
#include "sources/cgroup.h"
#include "sources/psi-trigger.h"

static void test_mountinfo(void **state)
{
        char p[256];
        static const char hybrid[] =
                "31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n"
                "35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory\n"
                "41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n";
        static const char two[] =
                "50 1 0:40 / /mnt/cg\\040two rw shared:3 master:1 - cgroup2 cgroup2 rw\n"
                "51 1 0:41 / /sys/fs/cgroup rw,nosuid shared:9 - cgroup2 cgroup2 rw,nsdelegate\n";
        static const char escaped[] = "50 1 0:40 / /mnt/cg\\040two rw - cgroup2 none rw\n";

        (void) state;
        assert_int_equal(mountinfo_find_cgroup2(hybrid, strlen(hybrid), p, sizeof(p)), 0);
        assert_string_equal(p, "sys/fs/cgroup/unified");
        assert_int_equal(mountinfo_find_cgroup2(two, strlen(two), p, sizeof(p)), 0);
        assert_string_equal(p, "sys/fs/cgroup");
        assert_int_equal(mountinfo_find_cgroup2(escaped, strlen(escaped), p, sizeof(p)), 0);
        assert_string_equal(p, "mnt/cg two");
        assert_int_equal(mountinfo_find_cgroup2(hybrid, (size_t) (strchr(hybrid, '\n') - hybrid + 1), p, sizeof(p)), -ENOENT);
        assert_int_equal(mountinfo_find_cgroup2(hybrid, 70, p, sizeof(p)), -EBADMSG);
        assert_int_equal(mountinfo_find_cgroup2("", 0, p, sizeof(p)), -ENOENT);
        assert_int_equal(mountinfo_find_cgroup2("1 2 3 4\n", 8, p, sizeof(p)), -EBADMSG);
        assert_int_equal(mountinfo_find_cgroup2(two, strlen(two), p, 5), -ENAMETOOLONG);
}

static void test_root_discovery(void **state)
{
        Root *r;
        CgroupRoot cr;

        (void) state;
        /* hybrid host: no mountinfo captured, probing finds unified/ */
        r = fixture_root("host-6.18-x86_64");
        assert_int_equal(cgroup_root_open(r, &cr), 0);
        assert_string_equal(cr.path, "sys/fs/cgroup/unified");
        assert_true(cr.hybrid);
        assert_false(cr.from_mountinfo);
        assert_false(cr.memory_controller);
        assert_string_equal(cr.controllers, "hugetlb");
        cgroup_root_close(&cr);
        root_free(r);

        r = fixture_root("vm-6.1-x86_64-1node-pressure");
        assert_int_equal(cgroup_root_open(r, &cr), 0);
        assert_string_equal(cr.path, "sys/fs/cgroup");
        assert_false(cr.hybrid);
        assert_true(cr.memory_controller);
        cgroup_root_close(&cr);
        root_free(r);

        r = fixture_root("synthetic-cgroup-v2");
        assert_int_equal(cgroup_root_open(r, &cr), 0);
        assert_true(cr.from_mountinfo);
        assert_string_equal(cr.path, "sys/fs/cgroup");
        assert_true(cr.memory_controller);
        cgroup_root_close(&cr);
        root_free(r);
}

static void test_paths(void **state)
{
        (void) state;
        assert_true(cgroup_relpath_valid(""));
        assert_true(cgroup_relpath_valid("system.slice/system-postgresql.slice/postgresql@15-main.service"));
        assert_false(cgroup_relpath_valid("/system.slice"));
        assert_false(cgroup_relpath_valid("a/../b"));
        assert_false(cgroup_relpath_valid("a//b"));
        assert_false(cgroup_relpath_valid("a/"));
        assert_false(cgroup_relpath_valid("."));
        assert_false(cgroup_relpath_valid(NULL));
        assert_true(cgroup_path_contains("a/b", "a/b"));
        assert_true(cgroup_path_contains("a/b", "a/b/c.scope"));
        assert_false(cgroup_path_contains("a/b", "a/bc"));
        assert_false(cgroup_path_contains("a/b", "a"));
        assert_true(cgroup_path_contains("", "x"));
}

static void test_watch_fixture(void **state)
{
        Root *r;
        CgroupRoot cr;
        CgroupWatch w, absent;
        KvList *kv = malloc(sizeof(*kv));

        (void) state;
        r = fixture_root("synthetic-cgroup-v2");
        assert_int_equal(cgroup_root_open(r, &cr), 0);
        /* no trigger: fixture files must never be written */
        cgroup_watch_init(&w, "system.slice/system-postgresql.slice/postgresql@15-main.service", NULL);
        assert_int_equal(cgroup_watch_refresh(&w, &cr, kv), CGROUP_CHANGED_APPEARED);
        assert_int_equal(w.state, CGROUP_PRESENT);
        assert_int_equal(cgroup_watch_psi_fd(&w), -1);
        assert_true(w.have_mem);
        assert_true(w.mem.have_thp);
        assert_int_equal(w.mem.anon, 1073741824);
        assert_int_equal(w.mem.anon_thp, 201326592);
        assert_int_equal(w.mem.shmem, 536870912);
        assert_int_equal(w.mem.thp_fault_alloc, 96);
        assert_int_equal(w.mem.thp_collapse_alloc, 3);
        assert_int_equal(w.mem.workingset_refault_file, 230);
        assert_true(w.have_pressure);
        assert_int_equal(w.pressure.some.total_usec, 380000);
        assert_int_equal(w.pressure.full.total_usec, 120000);
        assert_int_equal(cgroup_watch_refresh(&w, &cr, kv), CGROUP_UNCHANGED);
        assert_int_equal(w.appearances, 1);

        /* batch.slice: memory.stat without THP keys */
        CgroupWatch b;
        cgroup_watch_init(&b, "batch.slice", NULL);
        assert_int_equal(cgroup_watch_refresh(&b, &cr, kv), CGROUP_CHANGED_APPEARED);
        assert_true(b.have_mem);
        assert_false(b.mem.have_thp);
        cgroup_watch_close(&b);

        /* missing: not an error */
        cgroup_watch_init(&absent, "system.slice/mysql.service", NULL);
        assert_int_equal(cgroup_watch_refresh(&absent, &cr, kv), CGROUP_UNCHANGED);
        assert_int_equal(absent.state, CGROUP_ABSENT);
        cgroup_watch_close(&absent);

        /* invalid path */
        cgroup_watch_init(&absent, "../etc", NULL);
        assert_int_equal(cgroup_watch_refresh(&absent, &cr, kv), -EINVAL);

        cgroup_watch_close(&w);
        cgroup_root_close(&cr);
        root_free(r);

        /* the real 6.1 capture */
        r = fixture_root("vm-6.1-x86_64-1node-pressure");
        assert_int_equal(cgroup_root_open(r, &cr), 0);
        cgroup_watch_init(&w, "db.slice", NULL);
        assert_int_equal(cgroup_watch_refresh(&w, &cr, kv), CGROUP_CHANGED_APPEARED);
        assert_int_equal(w.mem.anon, 66502656);
        assert_int_equal(w.mem.anon_thp, 0);
        assert_int_equal(w.mem.pgscan_direct, 1183419);
        assert_int_equal(w.pressure.some.total_usec, 24475795);
        cgroup_watch_close(&w);
        cgroup_root_close(&cr);
        root_free(r);

        /* hybrid host: the unified root has memory.pressure but no memory.stat */
        r = fixture_root("host-6.18-x86_64");
        assert_int_equal(cgroup_root_open(r, &cr), 0);
        cgroup_watch_init(&w, "", NULL);
        assert_int_equal(cgroup_watch_refresh(&w, &cr, kv), CGROUP_CHANGED_APPEARED);
        assert_false(w.have_mem);
        assert_int_equal(w.mem_err, -ENOENT);
        assert_true(w.have_pressure);
        cgroup_watch_close(&w);
        cgroup_root_close(&cr);
        root_free(r);
        free(kv);
}

static void mkfile(int dfd, const char *p, const char *c)
{
        int fd = openat(dfd, p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

        assert_true(fd >= 0);
        assert_int_equal(write(fd, c, strlen(c)), (ssize_t) strlen(c));
        close(fd);
}

/* Temp tree: the cgroup appears, its trigger is written with the NUL, it
 * vanishes (and is released), reappears with a new inode. */
static void test_watch_lifecycle(void **state)
{
        char tmp[] = "/tmp/fragd-test-cgroup-XXXXXX";
        char cmd[256], buf[64];
        Root *r;
        CgroupRoot cr;
        CgroupWatch w;
        PsiTriggerSpec spec = { .threshold_usec = 150000, .window_usec = 1000000 };
        KvList *kv = malloc(sizeof(*kv));
        int dfd, n;

        (void) state;
        assert_non_null(mkdtemp(tmp));
        assert_int_equal(root_open(tmp, 4096, &r), 0);
        dfd = r->root_fd;
        assert_int_equal(mkdirat(dfd, "sys", 0755), 0);
        assert_int_equal(mkdirat(dfd, "sys/fs", 0755), 0);
        assert_int_equal(mkdirat(dfd, "sys/fs/cgroup", 0755), 0);
        mkfile(dfd, "sys/fs/cgroup/cgroup.controllers", "memory\n");
        assert_int_equal(cgroup_root_open(r, &cr), 0);

        cgroup_watch_init(&w, "db.slice", &spec);
        assert_int_equal(cgroup_watch_refresh(&w, &cr, kv), CGROUP_UNCHANGED);
        assert_int_equal(mkdirat(dfd, "sys/fs/cgroup/db.slice", 0755), 0);
        mkfile(dfd, "sys/fs/cgroup/db.slice/memory.pressure", "");
        mkfile(dfd, "sys/fs/cgroup/db.slice/memory.stat", "anon 1\nanon_thp 0\n");
        assert_int_equal(cgroup_watch_refresh(&w, &cr, kv), CGROUP_CHANGED_APPEARED);
        assert_true(cgroup_watch_psi_fd(&w) >= 0);
        assert_int_equal(w.psi_err, 0);
        /* what was written: the trigger and its terminating NUL */
        n = read_file_at(w.dir_fd, "memory.pressure", buf, sizeof(buf));
        if (psi_trigger_privileged()) {
                assert_int_equal(n, 20);
                assert_memory_equal(buf, "some 150000 1000000\0", 20);
        } else {
                assert_int_equal(n, 20);
                assert_memory_equal(buf, "some 300000 2000000\0", 20);
        }
        assert_int_equal(cgroup_watch_psi_event(&w, EPOLLPRI), 1);
        assert_int_equal(w.psi_events, 1);
        assert_int_equal(cgroup_watch_psi_event(&w, 0), 0);

        /* rearm: a new fd, the old closed */
        assert_true(cgroup_watch_rearm(&w) >= 0);

        /* vanish */
        snprintf(cmd, sizeof(cmd), "rm -rf '%s/sys/fs/cgroup/db.slice'", tmp);
        assert_int_equal(system(cmd), 0);
        assert_int_equal(cgroup_watch_refresh(&w, &cr, kv), CGROUP_CHANGED_VANISHED);
        assert_int_equal(w.state, CGROUP_ABSENT);
        assert_true(cgroup_watch_psi_fd(&w) >= 0); /* left for the caller */
        cgroup_watch_release_psi(&w);
        assert_int_equal(cgroup_watch_psi_fd(&w), -1);
        assert_int_equal(cgroup_watch_refresh(&w, &cr, kv), CGROUP_UNCHANGED);

        /* reappears */
        assert_int_equal(mkdirat(dfd, "sys/fs/cgroup/db.slice", 0755), 0);
        mkfile(dfd, "sys/fs/cgroup/db.slice/memory.pressure", "");
        assert_int_equal(cgroup_watch_refresh(&w, &cr, kv), CGROUP_CHANGED_APPEARED);
        assert_int_equal(w.appearances, 2);
        assert_false(w.have_mem); /* no memory.stat this time */
        /* EPOLLERR: gone */
        assert_int_equal(cgroup_watch_psi_event(&w, EPOLLERR | EPOLLPRI), -ENODEV);
        assert_int_equal(w.state, CGROUP_ABSENT);
        cgroup_watch_close(&w);

        cgroup_root_close(&cr);
        root_free(r);
        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
        assert_int_equal(system(cmd), 0);
        free(kv);
}

static void test_membership(void **state)
{
        int32_t pids[4];
        size_t n;
        char p[256];
        Root *r;
        CgroupRoot cr;
        int32_t *all = NULL;

        (void) state;
        assert_int_equal(cgroup_procs_parse("1\n22\n333\n", 9, pids, 4, &n), 0);
        assert_int_equal(n, 3);
        assert_int_equal(pids[2], 333);
        assert_int_equal(cgroup_procs_parse("1\n2\n3\n4\n5\n", 10, pids, 4, &n), -E2BIG);
        assert_int_equal(n, 4);
        assert_int_equal(cgroup_procs_parse("1\nx\n", 4, pids, 4, &n), -EBADMSG);
        assert_int_equal(cgroup_procs_parse("0\n", 2, pids, 4, &n), -ERANGE);
        assert_int_equal(cgroup_procs_parse("", 0, pids, 4, &n), 0);
        assert_int_equal(n, 0);

        assert_int_equal(proc_pid_cgroup_parse("0::/system.slice/a.service\n", 27, p, sizeof(p)), 0);
        assert_string_equal(p, "system.slice/a.service");
        static const char hyb[] = "9:name=systemd:/\n4:memory:/x\n0::/\n";
        assert_int_equal(proc_pid_cgroup_parse(hyb, strlen(hyb), p, sizeof(p)), 0);
        assert_string_equal(p, "");
        assert_int_equal(proc_pid_cgroup_parse("4:memory:/x\n", 12, p, sizeof(p)), -ENODATA);

        r = fixture_root("synthetic-cgroup-v2");
        assert_int_equal(proc_pid_cgroup_read(r, 4250, p, sizeof(p)), 0);
        assert_string_equal(p, "system.slice/system-postgresql.slice/postgresql@15-main.service/walwriter.scope");
        assert_int_equal(proc_pid_cgroup_read(r, 99999, p, sizeof(p)), -ESRCH);
        assert_int_equal(cgroup_root_open(r, &cr), 0);
        assert_int_equal(cgroup_scan_pids(&cr, "system.slice/system-postgresql.slice/postgresql@15-main.service", &all, &n), 0);
        assert_int_equal(n, 3); /* 4242, 4243 and the walwriter.scope child's 4250 */
        {
                int sum = 0;
                for (size_t i = 0; i < n; i++)
                        sum += all[i];
                assert_int_equal(sum, 4242 + 4243 + 4250);
        }
        free(all);
        /* the threads: 4244 is a thread of 4242 */
        assert_int_equal(cgroup_scan_threads(&cr, "system.slice/system-postgresql.slice/postgresql@15-main.service", &all,
                                             &n),
                         0);
        assert_int_equal(n, 4);
        {
                int sum = 0;
                for (size_t i = 0; i < n; i++)
                        sum += all[i];
                assert_int_equal(sum, 4242 + 4243 + 4244 + 4250);
        }
        free(all);
        assert_int_equal(cgroup_scan_threads(&cr, "nope.slice", &all, &n), -ENOENT);
        assert_int_equal(cgroup_scan_pids(&cr, "nope.slice", &all, &n), -ENOENT);
        assert_int_equal(cgroup_scan_pids(&cr, "/abs", &all, &n), -EINVAL);
        cgroup_root_close(&cr);
        root_free(r);
}

static void test_psi_trigger_spec(void **state)
{
        PsiTriggerSpec in = { .threshold_usec = 150000, .window_usec = 1000000 }, out;
        char buf[64];

        (void) state;
        assert_int_equal(psi_trigger_adjust(&in, true, &out), 0);
        assert_int_equal(out.window_usec, 1000000);
        assert_int_equal(psi_trigger_format(&out, buf, sizeof(buf)), 20);
        assert_string_equal(buf, "some 150000 1000000");
        /* unprivileged: window to a multiple of 2 s, same stall share */
        assert_int_equal(psi_trigger_adjust(&in, false, &out), 0);
        assert_int_equal(out.window_usec, 2000000);
        assert_int_equal(out.threshold_usec, 300000);
        in.window_usec = 4000000;
        assert_int_equal(psi_trigger_adjust(&in, false, &out), 0);
        assert_int_equal(out.window_usec, 4000000);
        in.window_usec = 9500000;
        in.threshold_usec = 9000000;
        assert_int_equal(psi_trigger_adjust(&in, false, &out), 0);
        assert_int_equal(out.window_usec, 10000000);
        in = (PsiTriggerSpec) { .full = true, .threshold_usec = 1, .window_usec = 20000000 };
        assert_int_equal(psi_trigger_adjust(&in, true, &out), -EINVAL);
        in.window_usec = 0;
        assert_int_equal(psi_trigger_adjust(&in, true, &out), -EINVAL);
        in = (PsiTriggerSpec) { .full = true, .threshold_usec = 5, .window_usec = 4 };
        assert_int_equal(psi_trigger_adjust(&in, true, &out), -EINVAL);
        in.threshold_usec = 4;
        assert_int_equal(psi_trigger_format(&in, buf, 8), -ENOBUFS);
        assert_int_equal(psi_trigger_format(&in, buf, sizeof(buf)), 9);
        assert_string_equal(buf, "full 4 4");
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_mountinfo),       cmocka_unit_test(test_root_discovery),
                cmocka_unit_test(test_paths),           cmocka_unit_test(test_watch_fixture),
                cmocka_unit_test(test_watch_lifecycle), cmocka_unit_test(test_membership),
                cmocka_unit_test(test_psi_trigger_spec),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
