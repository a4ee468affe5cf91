/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Per-cgroup THP: the mechanism table (which way a cgroup's THP intent is
 * applied, and whether it is in effect) and the environment it depends on.
 * The smaps parser is in smaps.c, the collapse engine in collapse.c, the
 * systemd drop-ins in thp-dropin.c. */

#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <systemd/sd-bus.h>
#include <time.h>
#include <unistd.h>

#include "core/cleanup.h"
#include "core/missing-thp.h"
#include "core/parse-util.h"
#include "fragd/macro.h"
#include "workload/thp-cgroup.h"

/* ---- mechanisms ------------------------------------------------------------------- */

const char *cgroup_thp_name(CgroupThp t)
{
        switch (t) {
        case CGROUP_THP_INHERIT:
                return "inherit";
        case CGROUP_THP_ALWAYS:
                return "always";
        case CGROUP_THP_MADVISE:
                return "madvise";
        case CGROUP_THP_NEVER:
                return "never";
        }
        return NULL;
}

const char *thp_effect_name(ThpEffect e)
{
        static const char *const n[] = {
                [THP_EFFECT_NOT_APPLICABLE] = "not-applicable", [THP_EFFECT_IN_EFFECT] = "in-effect",
                [THP_EFFECT_PARTIAL] = "partial",               [THP_EFFECT_NOT_IN_EFFECT] = "not-in-effect",
                [THP_EFFECT_UNKNOWN] = "unknown",
        };
        return (unsigned) e < ELEMENTSOF(n) ? n[e] : NULL;
}

static bool is_service_unit(const char *cgroup_path)
{
        const char *last = strrchr(cgroup_path, '/');
        size_t n;

        last = last ? last + 1 : cgroup_path;
        n = strlen(last);
        return n > 8 && strcmp(last + n - 8, ".service") == 0;
}

static bool none_applicable(const ThpEnv *env, CgroupThp thp, bool collapse, const char *p)
{
        return true;
}

static void none_assess(const ThpEnv *env, CgroupThp thp, const ThpObserved *o, ThpStatus *ret)
{
        ret->effect = THP_EFFECT_NOT_APPLICABLE;
        if (thp == CGROUP_THP_ALWAYS)
                snprintf(ret->detail, sizeof(ret->detail),
                         "thp=always without collapse: the global transparent_hugepage mode governs this cgroup");
        else
                snprintf(ret->detail, sizeof(ret->detail), "no per-cgroup THP intent: global mode governs");
}

static bool collapse_applicable(const ThpEnv *env, CgroupThp thp, bool collapse, const char *p)
{
        return thp == CGROUP_THP_ALWAYS && collapse;
}

static void collapse_assess(const ThpEnv *env, CgroupThp thp, const ThpObserved *o, ThpStatus *ret)
{
        if (!env->can_collapse) {
                ret->effect = THP_EFFECT_NOT_IN_EFFECT;
                snprintf(ret->detail, sizeof(ret->detail),
                         "collapse needs CAP_SYS_NICE (process_madvise): fragd does not have it");
        } else if (!o->present || o->n_procs == 0) {
                ret->effect = THP_EFFECT_UNKNOWN;
                snprintf(ret->detail, sizeof(ret->detail), "no processes to collapse");
        } else if (o->procs_thp_disabled > 0 && o->procs_thp_disabled == o->n_procs) {
                ret->effect = THP_EFFECT_NOT_IN_EFFECT;
                snprintf(ret->detail, sizeof(ret->detail),
                         "every member has THP disabled by prctl: MADV_COLLAPSE is refused for them");
        } else {
                ret->effect = o->collapsed_bytes_total > 0 || o->collapse_running ? THP_EFFECT_IN_EFFECT
                                                                                   : THP_EFFECT_PARTIAL;
                snprintf(ret->detail, sizeof(ret->detail),
                         "MADV_COLLAPSE in calm periods; %llu bytes collapsed so far; anon_thp %u.%u%% of anon",
                         (unsigned long long) o->collapsed_bytes_total, ret->anon_thp_permille / 10,
                         ret->anon_thp_permille % 10);
        }
}

static bool memorythp_applicable(const ThpEnv *env, CgroupThp thp, bool collapse, const char *p)
{
        return (thp == CGROUP_THP_NEVER || thp == CGROUP_THP_MADVISE) &&
               env->systemd_version >= SYSTEMD_MEMORYTHP_MIN_VERSION && is_service_unit(p);
}

static bool launcher_applicable(const ThpEnv *env, CgroupThp thp, bool collapse, const char *p)
{
        return thp == CGROUP_THP_NEVER || thp == CGROUP_THP_MADVISE;
}

/* Both drop-in mechanisms act through prctl at exec: judge by the members. */
static void prctl_assess(const ThpEnv *env, CgroupThp thp, const ThpObserved *o, ThpStatus *ret)
{
        unsigned known = o->procs_thp_disabled + o->procs_thp_enabled;

        if (thp == CGROUP_THP_MADVISE && !env->kernel_except_advised) {
                ret->effect = THP_EFFECT_NOT_IN_EFFECT;
                snprintf(ret->detail, sizeof(ret->detail),
                         "thp=madvise needs PR_THP_DISABLE_EXCEPT_ADVISED (Linux 6.18+); this kernel refuses it");
                return;
        }
        if (!o->present || o->n_procs == 0 || known == 0) {
                ret->effect = THP_EFFECT_UNKNOWN;
                snprintf(ret->detail, sizeof(ret->detail), "%s",
                         o->n_procs == 0 ? "no members to check"
                                         : "members show no THP_enabled line: cannot check");
                return;
        }
        if (thp == CGROUP_THP_MADVISE) {
                /* THP_enabled shows only the "completely" flag: except-advised reads 1 */
                ret->effect = THP_EFFECT_UNKNOWN;
                snprintf(ret->detail, sizeof(ret->detail),
                         "except-advised mode is invisible in /proc/PID/status (THP_enabled stays 1); "
                         "anon_thp is %u.%u%% of anon",
                         ret->anon_thp_permille / 10, ret->anon_thp_permille % 10);
                return;
        }
        if (o->procs_thp_disabled == known)
                ret->effect = THP_EFFECT_IN_EFFECT;
        else if (o->procs_thp_disabled > 0)
                ret->effect = THP_EFFECT_PARTIAL;
        else
                ret->effect = THP_EFFECT_NOT_IN_EFFECT;
        snprintf(ret->detail, sizeof(ret->detail),
                 "%u of %u members run with THP disabled%s", o->procs_thp_disabled, known,
                 ret->effect == THP_EFFECT_IN_EFFECT ? ""
                                                     : "; processes started before the drop-in keep their mode until the unit restarts");
}

static const ThpMechanismOps mech_ops[_THP_MECH_MAX] = {
        [THP_MECH_NONE] = { THP_MECH_NONE, "none", none_applicable, none_assess },
        [THP_MECH_COLLAPSE] = { THP_MECH_COLLAPSE, "collapse", collapse_applicable, collapse_assess },
        [THP_MECH_LAUNCHER] = { THP_MECH_LAUNCHER, "launcher", launcher_applicable, prctl_assess },
        [THP_MECH_SYSTEMD_MEMORYTHP] = { THP_MECH_SYSTEMD_MEMORYTHP, "systemd-memorythp", memorythp_applicable,
                                         prctl_assess },
};

const ThpMechanismOps *thp_mechanism_ops(ThpMechanism m)
{
        return (unsigned) m < _THP_MECH_MAX ? &mech_ops[m] : NULL;
}

const char *thp_mechanism_name(ThpMechanism m)
{
        return (unsigned) m < _THP_MECH_MAX ? mech_ops[m].name : NULL;
}

const ThpMechanismOps *thp_mechanism_select(const ThpEnv *env, CgroupThp thp, bool collapse, const char *cgroup_path)
{
        static const ThpMechanism order[] = { THP_MECH_SYSTEMD_MEMORYTHP, THP_MECH_LAUNCHER, THP_MECH_COLLAPSE };

        for (size_t i = 0; i < ELEMENTSOF(order); i++)
                if (mech_ops[order[i]].applicable(env, thp, collapse, cgroup_path))
                        return &mech_ops[order[i]];
        return &mech_ops[THP_MECH_NONE];
}

void thp_cgroup_status(const ThpEnv *env, CgroupThp thp, bool collapse, const char *cgroup_path,
                       const ThpObserved *obs, ThpStatus *ret)
{
        const ThpMechanismOps *m = thp_mechanism_select(env, thp, collapse, cgroup_path);
        ThpStatus st = { .mechanism = m->id, .mechanism_name = m->name, .intent = thp };

        if (obs->have_mem && obs->anon > 0) {
                unsigned __int128 pm = (unsigned __int128) obs->anon_thp * 1000 / obs->anon;

                st.anon_thp_permille = pm > 1000 ? 1000 : (uint32_t) pm;
        }
        m->assess(env, thp, obs, &st);
        *ret = st;
}

/* ---- environment ------------------------------------------------------------------ */

int systemd_version_parse(const char *buf, size_t len, unsigned *ret)
{
        Cursor c = cursor_make(buf, len);
        Span line, tok;
        uint64_t v;

        if (!cursor_next_line(&c, &line) || !span_next_token(&line, &tok) || !span_eq(tok, "systemd") ||
            !span_next_token(&line, &tok))
                return -EBADMSG;
        if (span_to_u64(tok, &v) < 0 || v == 0 || v > 100000)
                return -EBADMSG;
        *ret = (unsigned) v;
        return 0;
}

/* Waits for the child pid: true with its status, false when there is none
 * to wait for (ECHILD: SIGCHLD is ignored, so the kernel reaped it). */
static bool child_reap(pid_t pid, int *ret_status)
{
        int status = 0;
        pid_t r;

        while ((r = waitpid(pid, &status, 0)) < 0 && errno == EINTR)
                ;
        if (ret_status)
                *ret_status = status;
        return r == pid;
}

int systemd_version_detect(unsigned *ret)
{
        int pipefd[2];
        pid_t pid;
        char buf[512];
        size_t len = 0;
        int status;

        if (pipe2(pipefd, O_CLOEXEC) < 0)
                return negative_errno();
        pid = fork();
        if (pid < 0) {
                int r = negative_errno();
                close(pipefd[0]);
                close(pipefd[1]);
                return r;
        }
        if (pid == 0) {
                int devnull = open("/dev/null", O_RDWR);

                (void) dup2(pipefd[1], STDOUT_FILENO);
                if (devnull >= 0) {
                        (void) dup2(devnull, STDIN_FILENO);
                        (void) dup2(devnull, STDERR_FILENO);
                }
                execlp("systemctl", "systemctl", "--version", (char *) NULL);
                _exit(127);
        }
        close(pipefd[1]);
        for (;;) {
                ssize_t n = read(pipefd[0], buf + len, sizeof(buf) - 1 - len);

                if (n < 0 && errno == EINTR)
                        continue;
                if (n <= 0)
                        break;
                len += (size_t) n;
                if (len >= sizeof(buf) - 1)
                        break;
        }
        close(pipefd[0]);
        /* the answer is what came down the pipe: an exit status is known only
         * when it could be waited for (a SIGCHLD ignored by whoever started
         * fragd makes the kernel reap the child, and waitpid() say ECHILD) */
        if (child_reap(pid, &status) && WIFEXITED(status) && WEXITSTATUS(status) == 127)
                return -ENOENT;
        if (len == 0)
                return -ENOENT; /* nothing ran, or it printed nothing */
        return systemd_version_parse(buf, len, ret);
}

bool thp_except_advised_supported(void)
{
        int pipefd[2];
        char ok = 0;
        pid_t pid;

        /* the child says so down a pipe, not by its exit status, which is
         * lost when SIGCHLD is ignored (child_reap()) */
        if (pipe2(pipefd, O_CLOEXEC) < 0)
                return false;
        pid = fork();
        if (pid < 0) {
                close(pipefd[0]);
                close(pipefd[1]);
                return false;
        }
        if (pid == 0) {
                char yes = 1;

                if (prctl(PR_SET_THP_DISABLE, 1, PR_THP_DISABLE_EXCEPT_ADVISED, 0, 0) == 0)
                        (void) !write(pipefd[1], &yes, 1);
                _exit(0);
        }
        close(pipefd[1]);
        while (read(pipefd[0], &ok, 1) < 0 && errno == EINTR)
                ;
        close(pipefd[0]);
        (void) child_reap(pid, NULL);
        return ok == 1;
}

void thp_env_detect(ThpEnv *env, const char *launcher_path)
{
        memset(env, 0, sizeof(*env));
        if (systemd_version_detect(&env->systemd_version) < 0)
                env->systemd_version = 0;
        env->kernel_except_advised = thp_except_advised_supported();
        env->can_collapse = collapse_capable();
        snprintf(env->launcher_path, sizeof(env->launcher_path), "%s",
                 launcher_path ? launcher_path : "/usr/local/bin/fragd-thp-exec");
}
