/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Per-cgroup THP: smaps candidates (synthetic fixture and edge cases),
 * THP_enabled, the collapse engine with fake syscalls (budget, cap, per-range
 * errno, EPERM), the worker thread, mechanism selection/assessment, drop-in
 * rendering. Nothing here collapses or prctl()s anything for real except the
 * harmless PR_THP_DISABLE_EXCEPT_ADVISED probe in a child. */

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "parser-test-util.h"
#include "workload/thp-cgroup.h"

#define MiB (1ULL << 20)

static void test_smaps_fixture(void **state)
{
        SmapsFilter f = SMAPS_FILTER_DEFAULT;
        SmapsRange r[8];
        SmapsSummary s;
        unsigned n;
        size_t len;
        char *buf = fixture_file("synthetic-cgroup-v2", "proc/4242/smaps", &len);

        (void) state;
        assert_int_equal(smaps_parse_candidates(buf, len, &f, r, 8, &n, &s), 0);
        assert_int_equal(s.n_vmas, 11);
        assert_int_equal(n, 3);
        assert_int_equal(s.n_candidates, 3);
        /* shared_buffers: 1 GiB shared anonymous, half resident */
        assert_int_equal(r[0].kind, SMAPS_SHMEM);
        assert_int_equal(r[0].start, 0x7f0000000000);
        assert_int_equal(r[0].end, 0x7f0040000000);
        assert_int_equal(r[0].gain, 512 * MiB);
        /* heap: unaligned start rounded up to 2 MiB, end rounded down */
        assert_int_equal(r[1].kind, SMAPS_ANON);
        assert_int_equal(r[1].vma_start, 0x55d001001000);
        assert_int_equal(r[1].start, 0x55d001200000);
        assert_int_equal(r[1].end, 0x55d005000000);
        assert_int_equal(r[1].rss, 60 * MiB);
        assert_int_equal(r[1].huge, 8 * MiB);
        assert_int_equal(r[1].gain, 52 * MiB);
        assert_false(r[1].advised);
        /* [anon:jemalloc] with MADV_HUGEPAGE */
        assert_true(r[2].advised);
        assert_int_equal(r[2].gain, 8 * MiB);
        assert_int_equal(s.skipped_huge, 1);
        assert_int_equal(s.skipped_nohugepage, 1);
        assert_int_equal(s.skipped_sparse, 1);
        assert_int_equal(s.skipped_small, 1);
        assert_int_equal(s.anon_rss, 60 * MiB + 32 * MiB + 16 * MiB + 512 * 1024 + 1 * MiB + 8 * MiB);
        assert_int_equal(s.anon_huge, 40 * MiB);
        assert_int_equal(s.shmem_rss, 512 * MiB);

        /* cap 1: only the largest is kept, the count says how many there were */
        assert_int_equal(smaps_parse_candidates(buf, len, &f, r, 1, &n, &s), 0);
        assert_int_equal(n, 1);
        assert_int_equal(r[0].gain, 512 * MiB);
        assert_int_equal(s.n_candidates, 3);
        /* stricter filter: shared_buffers (50 % resident) is now sparse */
        f.min_resident_permille = 600;
        assert_int_equal(smaps_parse_candidates(buf, len, &f, r, 8, &n, &s), 0);
        assert_int_equal(n, 2);
        free(buf);
}

static void test_smaps_malformed(void **state)
{
        SmapsFilter f = SMAPS_FILTER_DEFAULT;
        SmapsRange r[2];
        unsigned n;
        static const char *const bad[] = {
                "Rss: 4 kB\n",                                  /* field before any header */
                "7f00-7e00 rw-p 00000000 00:00 0\n",            /* end < start */
                "7f00-7f10 rw 00000000 00:00 0\n",              /* perms */
                "7f00-7f10 rw-p 00000000\n",                    /* short header */
                "7f00-7f10 rw-p 00000000 00:00 0\nRss: x kB\n", /* number */
                "7f00-7f10 rw-p 00000000 00:00 0\nRss: 99999999999999999999 kB\n",
                "7f00-7f10 rw-p 00000000 00:00 0\nRss: 18014398509481984 kB\n", /* *1024 overflows */
                "7f00-7f10 rw-p 00000000 00:00 0\nnonsense\n",
                "00000000000000000-1 rw-p 0 0 0\n",             /* 17 hex digits */
        };

        (void) state;
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                int rc = smaps_parse_candidates(bad[i], strlen(bad[i]), &f, r, 2, &n, NULL);
                if (rc >= 0)
                        fail_msg("case %zu accepted", i);
        }
        /* empty and unknown fields are fine */
        assert_int_equal(smaps_parse_candidates("", 0, &f, r, 2, &n, NULL), 0);
        assert_int_equal(n, 0);
        static const char ok[] = "200000-600000 rw-p 00000000 00:00 0 \nRss: 4096 kB\nFutureField: 1 kB\n"
                                 "THPeligible:\nVmFlags: rd wr\n";
        assert_int_equal(smaps_parse_candidates(ok, strlen(ok), &f, r, 2, &n, NULL), 0);
        assert_int_equal(n, 1);
        assert_int_equal(r[0].start, 0x200000);
        assert_int_equal(r[0].end, 0x600000);
}

static void test_status_thp(void **state)
{
        size_t len;
        char *b;

        (void) state;
        b = fixture_file("synthetic-cgroup-v2", "proc/4242/status", &len);
        assert_int_equal(proc_status_thp_enabled(b, len), 1);
        free(b);
        b = fixture_file("synthetic-cgroup-v2", "proc/4243/status", &len);
        assert_int_equal(proc_status_thp_enabled(b, len), 0);
        free(b);
        b = fixture_file("synthetic-cgroup-v2", "proc/5000/status", &len);
        assert_int_equal(proc_status_thp_enabled(b, len), -ENODATA);
        free(b);
        assert_int_equal(proc_status_thp_enabled("THP_enabled:\t2\n", 15), -EBADMSG);
        assert_int_equal(proc_status_thp_enabled("THP_enabled:\n", 13), -EBADMSG);
}

/* ---- fake system for the engine ---- */

typedef struct Fake {
        const char *smaps;       /* same map for every pid */
        int32_t eperm_pid;       /* pidfd_open fails with EPERM */
        int32_t gone_pid;        /* smaps read fails with ESRCH */
        uint64_t enomem_every;   /* every Nth collapse fails with ENOMEM (0 never) */
        usec_t cpu, cost_usec;   /* fake thread clock, advanced per collapse */
        unsigned calls, opened, closed;
        uint64_t last_len;
        unsigned n_log;          /* every collapse call: pidfd and address */
        int log_fd[64];
        uint64_t log_addr[64];
} Fake;

static int fake_pidfd_open(void *u, int32_t pid)
{
        Fake *f = u;

        if (pid == f->eperm_pid)
                return -EPERM;
        f->opened++;
        return 100 + pid;
}

static int fake_collapse(void *u, int pidfd, uint64_t start, uint64_t len)
{
        Fake *f = u;

        f->calls++;
        f->cpu += f->cost_usec;
        f->last_len = len;
        if (f->n_log < 64) {
                f->log_fd[f->n_log] = pidfd;
                f->log_addr[f->n_log++] = start;
        }
        if (f->enomem_every && f->calls % f->enomem_every == 0)
                return -ENOMEM;
        return 0;
}

static int fake_read_smaps(void *u, int32_t pid, char **ret, size_t *ret_len)
{
        Fake *f = u;

        if (pid == f->gone_pid)
                return -ESRCH;
        *ret = strdup(f->smaps);
        *ret_len = strlen(f->smaps);
        return *ret ? 0 : -ENOMEM;
}

static usec_t fake_cpu(void *u)
{
        return ((Fake *) u)->cpu;
}

static void fake_close(void *u, int fd)
{
        ((Fake *) u)->closed++;
}

/* 16 MiB anon region, 12 MiB resident, nothing huge: 8 huge pages */
static const char fake_smaps[] = "7f0000000000-7f0001000000 rw-p 00000000 00:00 0 \n"
                                 "Rss: 12288 kB\nAnonHugePages: 0 kB\nVmFlags: rd wr mr mw me ac\n";

static CollapseOps fake_ops(Fake *f)
{
        return (CollapseOps) { fake_pidfd_open, fake_collapse, fake_read_smaps, fake_cpu, fake_close, f };
}

static void test_collapse_budget_and_cap(void **state)
{
        Fake f = { .smaps = fake_smaps, .cost_usec = 1000 };
        CollapseOps ops = fake_ops(&f);
        CollapseRequest *req = calloc(1, sizeof(*req));
        CollapseResult res;

        (void) state;
        req->cgroup_index = 3;
        req->n_pids = 2;
        req->pids[0] = 10;
        req->pids[1] = 11;
        req->filter = SMAPS_FILTER_DEFAULT;
        req->max_bytes = 0;
        req->cpu_budget_usec = 100000;
        /* everything: 2 processes x 8 huge pages */
        assert_int_equal(collapse_run(&ops, req, NULL, &res), 0);
        assert_int_equal(res.cgroup_index, 3);
        assert_int_equal(res.err, 0);
        assert_int_equal(res.pids_scanned, 2);
        assert_int_equal(res.attempted_bytes, 32 * MiB);
        assert_int_equal(res.collapsed_bytes, 32 * MiB);
        assert_int_equal(res.ranges_ok, 2);
        assert_int_equal(res.cpu_usec, 16000);
        assert_int_equal(f.last_len, 2 * MiB); /* one huge page per call */
        assert_int_equal(f.opened, f.closed);
        assert_false(res.stopped_budget || res.stopped_cap);

        /* CPU budget 5 ms at 1 ms per page: 5 pages */
        f = (Fake) { .smaps = fake_smaps, .cost_usec = 1000 };
        req->cpu_budget_usec = 5000;
        assert_int_equal(collapse_run(&ops, req, NULL, &res), 0);
        assert_true(res.stopped_budget);
        assert_int_equal(f.calls, 5);
        assert_int_equal(res.collapsed_bytes, 10 * MiB);
        assert_int_equal(f.opened, f.closed);

        /* byte cap 6 MiB per tick: 3 pages */
        f = (Fake) { .smaps = fake_smaps, .cost_usec = 1000 };
        req->cpu_budget_usec = 100000;
        req->max_bytes = 6 * MiB;
        assert_int_equal(collapse_run(&ops, req, NULL, &res), 0);
        assert_true(res.stopped_cap);
        assert_int_equal(res.attempted_bytes, 6 * MiB);

        /* cancelled before start */
        bool cancel = true;
        assert_int_equal(collapse_run(&ops, req, &cancel, &res), 0);
        assert_true(res.stopped_cancel);
        assert_int_equal(res.attempted_bytes, 0);
        free(req);
}

static void test_collapse_errors(void **state)
{
        Fake f = { .smaps = fake_smaps, .cost_usec = 10, .enomem_every = 4, .gone_pid = 12 };
        CollapseOps ops = fake_ops(&f);
        CollapseRequest *req = calloc(1, sizeof(*req));
        CollapseResult res;

        (void) state;
        req->n_pids = 2;
        req->pids[0] = 10;
        req->pids[1] = 12; /* exits before we get to it */
        req->filter = SMAPS_FILTER_DEFAULT;
        req->cpu_budget_usec = 1000000;
        assert_int_equal(collapse_run(&ops, req, NULL, &res), 0);
        assert_int_equal(res.err, 0);
        assert_int_equal(res.hpages_failed, 2);
        assert_int_equal(res.collapsed_bytes, 12 * MiB);
        assert_int_equal(res.err_counts[COLLAPSE_ERR_ENOMEM], 2);
        assert_int_equal(res.err_counts[COLLAPSE_ERR_GONE], 1);
        assert_int_equal(res.ranges_failed, 1);
        assert_int_equal(res.n_failures, 1);
        assert_int_equal(res.failures[0].pid, 10);
        assert_int_equal(res.failures[0].err, -ENOMEM);
        assert_int_equal(res.failures[0].start, 0x7f0000000000);
        assert_int_equal(res.failures[0].len, 16 * MiB);

        /* no permission at all: the run says so */
        f = (Fake) { .smaps = fake_smaps, .eperm_pid = 10 };
        req->n_pids = 1;
        assert_int_equal(collapse_run(&ops, req, NULL, &res), 0);
        assert_int_equal(res.err, -EPERM);
        assert_int_equal(res.err_counts[COLLAPSE_ERR_PERM], 1);
        assert_string_equal(collapse_err_class_name(collapse_err_class(-EBUSY)), "ebusy");
        assert_int_equal(collapse_err_class(EACCES), COLLAPSE_ERR_PERM);
        assert_int_equal(collapse_err_class(-EIO), COLLAPSE_ERR_OTHER);
        free(req);
}

static void test_worker(void **state)
{
        Fake f = { .smaps = fake_smaps, .cost_usec = 1 };
        CollapseOps ops = fake_ops(&f);
        CollapseRequest *req = calloc(1, sizeof(*req));
        CollapseWorker *w;
        CollapseResult res;
        struct pollfd pfd;

        (void) state;
        req->cgroup_index = 7;
        req->n_pids = 1;
        req->pids[0] = 10;
        req->filter = SMAPS_FILTER_DEFAULT;
        req->cpu_budget_usec = 1000;
        assert_int_equal(collapse_worker_new(&ops, &w), 0);
        assert_int_equal(collapse_worker_result(w, &res), 0);
        assert_int_equal(collapse_worker_submit(w, req), 0);
        pfd = (struct pollfd) { .fd = collapse_worker_fd(w), .events = POLLIN };
        assert_int_equal(poll(&pfd, 1, 5000), 1);
        /* a finished result not yet taken still blocks the next submit */
        assert_int_equal(collapse_worker_submit(w, req), -EBUSY);
        assert_int_equal(collapse_worker_result(w, &res), 1);
        assert_int_equal(res.cgroup_index, 7);
        assert_int_equal(res.collapsed_bytes, 16 * MiB);
        assert_false(collapse_worker_busy(w));
        assert_int_equal(collapse_worker_result(w, &res), 0);
        assert_int_equal(collapse_worker_submit(w, req), 0);
        collapse_worker_free(w); /* cancels/joins with a run possibly pending */
        free(req);
}

static void test_mechanisms(void **state)
{
        ThpEnv env = { .systemd_version = 252, .kernel_except_advised = true, .can_collapse = true };
        ThpObserved o = { .present = true, .n_procs = 3, .procs_thp_disabled = 1, .procs_thp_enabled = 2,
                          .have_mem = true, .anon = 1000, .anon_thp = 250 };
        ThpStatus st;

        (void) state;
        assert_string_equal(thp_mechanism_select(&env, CGROUP_THP_NEVER, false, "system.slice/pg.service")->name,
                            "launcher");
        assert_string_equal(thp_mechanism_select(&env, CGROUP_THP_ALWAYS, true, "db.slice")->name, "collapse");
        assert_string_equal(thp_mechanism_select(&env, CGROUP_THP_ALWAYS, false, "db.slice")->name, "none");
        assert_string_equal(thp_mechanism_select(&env, CGROUP_THP_INHERIT, true, "db.slice")->name, "none");
        env.systemd_version = SYSTEMD_MEMORYTHP_MIN_VERSION;
        assert_string_equal(thp_mechanism_select(&env, CGROUP_THP_NEVER, false, "system.slice/pg.service")->name,
                            "systemd-memorythp");
        /* a slice is not a service: MemoryTHP= cannot go there */
        assert_string_equal(thp_mechanism_select(&env, CGROUP_THP_NEVER, false, "db.slice")->name, "launcher");

        thp_cgroup_status(&env, CGROUP_THP_NEVER, false, "system.slice/pg.service", &o, &st);
        assert_int_equal(st.effect, THP_EFFECT_PARTIAL);
        assert_int_equal(st.anon_thp_permille, 250);
        assert_non_null(strstr(st.detail, "1 of 3"));
        assert_non_null(strstr(st.detail, "restart"));
        o.procs_thp_disabled = 3;
        o.procs_thp_enabled = 0;
        thp_cgroup_status(&env, CGROUP_THP_NEVER, false, "system.slice/pg.service", &o, &st);
        assert_int_equal(st.effect, THP_EFFECT_IN_EFFECT);
        o.procs_thp_disabled = 0;
        o.procs_thp_enabled = 3;
        thp_cgroup_status(&env, CGROUP_THP_NEVER, false, "system.slice/pg.service", &o, &st);
        assert_int_equal(st.effect, THP_EFFECT_NOT_IN_EFFECT);
        /* madvise cannot be seen in THP_enabled */
        thp_cgroup_status(&env, CGROUP_THP_MADVISE, false, "system.slice/pg.service", &o, &st);
        assert_int_equal(st.effect, THP_EFFECT_UNKNOWN);
        env.kernel_except_advised = false;
        thp_cgroup_status(&env, CGROUP_THP_MADVISE, false, "system.slice/pg.service", &o, &st);
        assert_int_equal(st.effect, THP_EFFECT_NOT_IN_EFFECT);
        /* collapse */
        thp_cgroup_status(&env, CGROUP_THP_ALWAYS, true, "db.slice", &o, &st);
        assert_int_equal(st.effect, THP_EFFECT_PARTIAL);
        o.collapsed_bytes_total = 4 * MiB;
        thp_cgroup_status(&env, CGROUP_THP_ALWAYS, true, "db.slice", &o, &st);
        assert_int_equal(st.effect, THP_EFFECT_IN_EFFECT);
        env.can_collapse = false;
        thp_cgroup_status(&env, CGROUP_THP_ALWAYS, true, "db.slice", &o, &st);
        assert_int_equal(st.effect, THP_EFFECT_NOT_IN_EFFECT);
        assert_non_null(strstr(st.detail, "CAP_SYS_NICE"));
        thp_cgroup_status(&env, CGROUP_THP_INHERIT, false, "db.slice", &o, &st);
        assert_int_equal(st.effect, THP_EFFECT_NOT_APPLICABLE);
        assert_string_equal(thp_effect_name(THP_EFFECT_IN_EFFECT), "in-effect");
        assert_string_equal(cgroup_thp_name(CGROUP_THP_MADVISE), "madvise");
        assert_string_equal(thp_mechanism_name(THP_MECH_SYSTEMD_MEMORYTHP), "systemd-memorythp");
        assert_null(thp_mechanism_ops(_THP_MECH_MAX));
}

static void test_dropin(void **state)
{
        char buf[4096], line[512];
        const char *argv[] = { "postgres", "-D", "/var/lib/postgresql/16/main", "-c", "x=a b%$\"\\" };
        const char *cmds[2];
        ThpMechanism m;
        unsigned v;

        (void) state;
        assert_int_equal(systemd_version_parse("systemd 252 (252.39-1~deb12u2)\n+PAM\n", 36, &v), 0);
        assert_int_equal(v, 252);
        assert_int_equal(systemd_version_parse("udev 12\n", 8, &v), -EBADMSG);
        assert_int_equal(systemd_version_parse("systemd x\n", 10, &v), -EBADMSG);

        assert_true(exec_command_render("/usr/lib/postgresql/16/bin/postgres", argv, 5, true, line,
                                        sizeof(line)) > 0);
        assert_string_equal(line, "-/usr/lib/postgresql/16/bin/postgres -D /var/lib/postgresql/16/main -c "
                                  "\"x=a b%%$$\\\"\\\\\"");
        cmds[0] = strdup(line);
        assert_int_equal(exec_command_render("/bin/x", argv, 5, false, line, 10), -ENOBUFS);

        cmds[1] = "/usr/bin/true";
        assert_true(thp_dropin_render("postgresql@16-main.service", CGROUP_THP_NEVER, 252, "/usr/sbin/fragd-thp-exec",
                                      cmds, 2, buf, sizeof(buf), &m) > 0);
        assert_int_equal(m, THP_MECH_LAUNCHER);
        assert_non_null(strstr(buf, "[Service]\nExecStart=\nExecStart=-/usr/sbin/fragd-thp-exec --mode never -- "
                                    "/usr/lib/postgresql/16/bin/postgres -D"));
        assert_non_null(strstr(buf, "ExecStart=/usr/sbin/fragd-thp-exec --mode never -- /usr/bin/true\n"));
        assert_non_null(strstr(buf, "keep their\n# current THP mode until restarted"));
        assert_null(strstr(buf, "\nMemoryTHP="));

        assert_true(thp_dropin_render("postgresql@16-main.service", CGROUP_THP_MADVISE, 260, "/x", NULL, 0, buf,
                                      sizeof(buf), &m) > 0);
        assert_int_equal(m, THP_MECH_SYSTEMD_MEMORYTHP);
        assert_non_null(strstr(buf, "[Service]\nMemoryTHP=madvise\n"));
        assert_true(thp_dropin_render("a.service", CGROUP_THP_NEVER, 259, "/x", NULL, 0, buf, sizeof(buf), &m) > 0);
        assert_non_null(strstr(buf, "MemoryTHP=disable\n"));
        free((char *) cmds[0]);

        assert_int_equal(thp_dropin_render("a.service", CGROUP_THP_NEVER, 252, "/x", NULL, 0, buf, sizeof(buf), &m),
                         -ENODATA);
        assert_int_equal(thp_dropin_render("a.service", CGROUP_THP_ALWAYS, 260, "/x", NULL, 0, buf, sizeof(buf), &m),
                         -EINVAL);
        assert_int_equal(thp_dropin_render("a.service", CGROUP_THP_NEVER, 260, "/x", NULL, 0, buf, 20, &m), -ENOBUFS);

        assert_int_equal(cgroup_unit_name("system.slice/system-postgresql.slice/postgresql@16-main.service", line,
                                          sizeof(line)),
                         0);
        assert_string_equal(line, "postgresql@16-main.service");
        assert_int_equal(cgroup_unit_name("system.slice/a.b.c", line, sizeof(line)), -EINVAL);
        assert_int_equal(cgroup_unit_name("db", line, sizeof(line)), -EINVAL);
        assert_int_equal(cgroup_unit_name("a.slice", line, 4), -ENAMETOOLONG);
}

static void test_env_probe(void **state)
{
        ThpEnv env;

        (void) state;
        /* harmless: the probe runs in a child; only prints what it found */
        thp_env_detect(&env, "/usr/sbin/fragd-thp-exec");
        printf("  systemd %u, PR_THP_DISABLE_EXCEPT_ADVISED %s, CAP_SYS_NICE %s\n", env.systemd_version,
               env.kernel_except_advised ? "yes" : "no", env.can_collapse ? "yes" : "no");
        assert_string_equal(env.launcher_path, "/usr/sbin/fragd-thp-exec");
}

static void __attribute__((noinline)) stack_poison(void)
{
        /* what an unset local in the next call's frame reads: all ones (an
         * exit status of 0xffffffff is no exit) */
        volatile unsigned char junk[8192];

        for (size_t i = 0; i < sizeof(junk); i++)
                junk[i] = 0xff;
}

/* The probes' children give the same answers when fragd was started with
 * SIGCHLD ignored (a disposition that survives exec; the kernel then reaps
 * the child itself and waitpid() says ECHILD): the exit status read before
 * was never set, and PR_THP_DISABLE_EXCEPT_ADVISED read as unsupported on
 * a kernel that has it. */
static void test_env_probe_sigchld_ignored(void **state)
{
        struct sigaction ign = { .sa_handler = SIG_IGN }, old;
        unsigned v_dfl = 0, v_ign = 0;
        int r_dfl, r_ign;
        bool ea_dfl, ea_ign;

        (void) state;
        r_dfl = systemd_version_detect(&v_dfl);
        ea_dfl = thp_except_advised_supported();
        assert_int_equal(sigaction(SIGCHLD, &ign, &old), 0);
        stack_poison();
        r_ign = systemd_version_detect(&v_ign);
        stack_poison();
        ea_ign = thp_except_advised_supported();
        assert_int_equal(sigaction(SIGCHLD, &old, NULL), 0);
        printf("  SIGCHLD default: systemd %d/%u, except-advised %d; ignored: %d/%u, %d\n", r_dfl, v_dfl, ea_dfl,
               r_ign, v_ign, ea_ign);
        assert_int_equal(r_ign, r_dfl);
        assert_int_equal(v_ign, v_dfl);
        assert_int_equal(ea_ign, ea_dfl);
}

/* A region larger than the per-run cap is covered run after run: each run
 * resumes where the last stopped (the kernel reports already-huge ranges as
 * collapsed, so starting over would never get further), and after the last
 * page the next run starts over. */
static void test_collapse_resumes(void **state)
{
        Fake f = { .smaps = fake_smaps, .cost_usec = 1000 };
        CollapseOps ops = fake_ops(&f);
        CollapseRequest *req = calloc(1, sizeof(*req));
        CollapseResult res;
        uint64_t seen[2][8] = { { 0 } };

        (void) state;
        assert_non_null(req);
        req->n_pids = 2;
        req->pids[0] = 10;
        req->pids[1] = 11;
        req->filter = SMAPS_FILTER_DEFAULT;
        req->cpu_budget_usec = 100000;
        req->max_bytes = 6 * MiB; /* 3 huge pages per run; 16 to do in all */
        for (int run = 0; run < 6; run++) {
                unsigned before = f.n_log;

                assert_int_equal(collapse_run(&ops, req, NULL, &res), 0);
                for (unsigned i = before; i < f.n_log; i++) {
                        unsigned p = (unsigned) (f.log_fd[i] - 110), page =
                                (unsigned) ((f.log_addr[i] - 0x7f0000000000ULL) / (2 * MiB));
                        assert_true(p < 2 && page < 8);
                        seen[p][page]++;
                }
                req->resume_pid = res.next_pid;
                req->resume_addr = res.next_addr;
        }
        /* 6 runs x 3 pages = 18 attempts: all 16 pages once, then the first
         * two again after the wrap-around */
        assert_int_equal(f.n_log, 18);
        for (unsigned p = 0; p < 2; p++)
                for (unsigned page = 0; page < 8; page++)
                        assert_int_equal(seen[p][page], (p == 0 && page < 2) ? 2 : 1);
        /* the 6th run went through pid 10's first pages again after the wrap */
        assert_int_equal(res.next_pid, 10);
        assert_int_equal(res.next_addr, 0x7f0000000000ULL + 2 * 2 * MiB);
        /* a resume pid that is gone: start from the first pid */
        f = (Fake) { .smaps = fake_smaps, .cost_usec = 1000 };
        req->resume_pid = 99;
        req->resume_addr = 0x7f0000800000ULL;
        assert_int_equal(collapse_run(&ops, req, NULL, &res), 0);
        assert_int_equal(f.log_fd[0], 110);
        assert_int_equal(f.log_addr[0], 0x7f0000000000ULL);
        free(req);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_smaps_fixture),   cmocka_unit_test(test_smaps_malformed),
                cmocka_unit_test(test_status_thp),      cmocka_unit_test(test_collapse_budget_and_cap),
                cmocka_unit_test(test_collapse_resumes),
                cmocka_unit_test(test_collapse_errors), cmocka_unit_test(test_worker),
                cmocka_unit_test(test_mechanisms),      cmocka_unit_test(test_dropin),
                cmocka_unit_test(test_env_probe),       cmocka_unit_test(test_env_probe_sigchld_ignored),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
