/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fragd status, fragd --restore, fragd --features, fragd thp-dropin
 * (fragd --check-config: check-config.c). */

#include <stdio.h>
#include <string.h>

#include "cli/main-internal.h"
#include "config/config.h"
#include "core/cleanup.h"
#include "core/log.h"
#include "core/text.h"
#include "core/unit-name.h"
#include "knobs/knob.h"
#include "output/status.h"
#include "service/control.h"
#include "workload/thp-cgroup.h"

int args_root_open(const FragdArgs *a, Root **ret)
{
        int r = root_open(a->root, a->page_size, ret);

        if (r < 0)
                return log_error_errno(r, "Cannot open root directory '%s': %m", a->root);
        return 0;
}

/* The runtime directory from the configuration when it loads. When it does
 * not (a typo, a FIFO where a file should be: the loader never blocks), the
 * knobs must still come back: the runtime_dir given with --set, else the
 * default, with a warning naming the first error. */
static void runtime_dir(const Root *root, const FragdArgs *a, char *buf, size_t size)
{
        _cleanup_free_ FragdConfig *cfg = calloc(1, sizeof(*cfg));
        _cleanup_free_ ConfigErrors *errs = calloc(1, sizeof(*errs));
        ConfigLoadArgs ca = { .root = root, .config_file = a->config_file, .set = a->sets, .n_set = a->n_sets };
        ConfigLoadArgs only_set = { .config_text = "", .set = a->sets, .n_set = a->n_sets };
        int r;

        snprintf(buf, size, "%s", KNOB_DEFAULT_RUNTIME_DIR);
        if (!cfg || !errs)
                return;
        r = config_load(&ca, cfg, NULL, errs);
        if (r >= 0) {
                snprintf(buf, size, "%s", cfg->daemon.runtime_dir);
                return;
        }
        if (config_load(&only_set, cfg, NULL, NULL) >= 0)
                snprintf(buf, size, "%s", cfg->daemon.runtime_dir);
        log_warning("The configuration does not load (%s%s); using runtime_dir '%s'. If fragd ran with "
                    "another runtime_dir, fix the configuration ('fragd --check-config' lists every error) "
                    "or give --set daemon.runtime_dir=DIR",
                    errs->n ? errs->msg[0] : strerror(-r), errs->n > 1 ? ", and more" : "", buf);
}

int run_status(const FragdArgs *a)
{
        _cleanup_(root_freep) Root *root = NULL;
        char rt[FRAGD_PATH_MAX];
        int r;

        if (args_root_open(a, &root) < 0)
                return EXIT_FAILURE;
        runtime_dir(root, a, rt, sizeof(rt));
        if (strcmp(a->format, "json") == 0)
                r = status_print_json(root, rt, control_probe, stdout);
        else
                r = status_print(root, rt, control_probe, stdout);
        if (r == -ENOENT || r == -ESRCH)
                return EXIT_NOT_RUNNING;
        if (r == -EUCLEAN)
                return EXIT_KNOBS_LEFT;
        if (r == -ENODATA)
                return EXIT_FAILURE; /* running, its status file not its own: said above */
        if (r < 0) {
                log_error_errno(r, "Cannot read the status of fragd in '%s': %m", rt);
                return EXIT_FAILURE;
        }
        return 0;
}

int run_control(const FragdArgs *a)
{
        _cleanup_(root_freep) Root *root = NULL;
        const char *cmd = a->mode == MODE_PAUSE ? "pause" : "resume";
        char rt[FRAGD_PATH_MAX], rel[FRAGD_PATH_MAX], reply[CONTROL_REPLY_MAX], sock[FRAGD_PATH_MAX * 2];
        pid_t pid;
        int r;

        if (args_root_open(a, &root) < 0)
                return EXIT_FAILURE;
        runtime_dir(root, a, rt, sizeof(rt));
        if (knob_runtime_dir_relative(rt, rel, sizeof(rel)) < 0) {
                log_error("fragd %s: runtime_dir '%s' is not a directory fragd can use", cmd, rt);
                return EXIT_FAILURE;
        }
        snprintf(sock, sizeof(sock), "%s/%s/" CONTROL_SOCKET_NAME, root->is_host ? "" : root->path, rel);
        r = control_request(root, rt, cmd, reply, sizeof(reply));
        switch (r) {
        case 0:
                printf("%s\n", reply);
                return 0;
        case -ENOENT:
        case -ECONNREFUSED:
                if (status_daemon_alive(root, rel, &pid) > 0) {
                        log_error("fragd %s: fragd is running (pid %d), but its control socket '%s' %s: the daemon "
                                  "could not create it (its log says why). Restart fragd to get 'fragd pause' and "
                                  "'fragd resume' back",
                                  cmd, (int) pid, sock, r == -ENOENT ? "is missing" : "refuses connections");
                        return EXIT_FAILURE;
                }
                log_error("fragd %s: fragd is not running (nobody listens on '%s')", cmd, sock);
                return EXIT_NOT_RUNNING;
        case -EACCES:
        case -EPERM:
                log_error("fragd %s: permission denied on '%s'%s%s: only root may pause or resume fragd", cmd, sock,
                          reply[0] ? ": " : "", reply);
                return EXIT_PRECONDITION;
        case -ENOTSOCK:
                log_error("fragd %s: '%s' is not a socket (a symbolic link or a file put there?): not used. Remove "
                          "it, then restart fragd",
                          cmd, sock);
                return EXIT_FAILURE;
        case -EIO:
                log_error("fragd %s: %s", cmd, reply[0] ? reply : "no answer from fragd");
                return EXIT_FAILURE;
        default:
                log_error_errno(r, "fragd %s: cannot reach fragd through '%s': %m", cmd, sock);
                return EXIT_FAILURE;
        }
}

int run_restore(const FragdArgs *a)
{
        _cleanup_(root_freep) Root *root = NULL;
        KnobRestoreStats st = {};
        char rt[FRAGD_PATH_MAX], rel[FRAGD_PATH_MAX], aside[FRAGD_PATH_MAX + 48];
        const char *prefix;
        int r, ra;

        if (args_root_open(a, &root) < 0)
                return EXIT_FAILURE;
        prefix = root->is_host ? "" : root->path;
        runtime_dir(root, a, rt, sizeof(rt));
        r = knob_restore_from_journal(root, rt, a->dry_run ? &knob_ops_dryrun : NULL, OWNERSHIP_RESPECT, &st);
        if (r == -EBUSY) {
                log_error("A running fragd owns %s/saved: stop it (it restores on stop) instead", rt);
                return EXIT_FAILURE;
        }
        if (r == -ELOOP) {
                log_error("Nothing restored: %s/saved is a symbolic link (see above)", rt);
                return EXIT_FAILURE;
        }
        if (r < 0 && r != -EBADMSG) {
                log_error_errno(r, "Cannot restore from %s/saved: %m", rt);
                return EXIT_FAILURE;
        }
        if (r == 0 && st.n_entries == 0) {
                /* nothing in 'saved'; a journal moved aside earlier is still trouble */
                if (knob_runtime_dir_relative(rt, rel, sizeof(rel)) >= 0 &&
                    (ra = knob_journal_find_aside(root->root_fd, rel, aside, sizeof(aside))) > 0) {
                        log_error("Nothing left in %s/saved, but '%s/%s' holds a journal fragd could not fully "
                                  "read: the knobs it names may still have fragd's values. Put them back by hand "
                                  "(the file is text: name, original, last written), then remove it",
                                  rt, prefix, aside);
                        return EXIT_FAILURE;
                }
                if (!a->quiet_if_clean)
                        printf("Nothing to restore: no knob left changed by fragd.\n");
                return 0;
        }
        printf("Restored %u knob(s), %u already at their original, %u changed by someone else since "
               "(left alone), %u gone, %u failed%s.\n",
               st.n_restored, st.n_unchanged, st.n_left, st.n_gone, st.n_failed,
               st.n_failed ? " (kept for the next try)" : "");
        if (st.corrupt) {
                if (st.aside[0])
                        printf("The journal %s/saved could not be fully read (%u line(s) not used): it is kept as "
                               "'%s/%s'. The knobs listed above were NOT restored: put them back by hand, then "
                               "remove that file.\n",
                               rt, st.n_invalid, prefix, st.aside);
                else
                        printf("The journal %s/saved could not be fully read (%u line(s) not used); the knobs "
                               "listed above would NOT be restored.\n",
                               rt, st.n_invalid);
        }
        return st.n_failed || st.corrupt ? EXIT_FAILURE : 0;
}

int run_features(const FragdArgs *a)
{
        (void) a;
        printf("once\ndaemon\nstatus\nstatus-json\npause\nrestore\ncheck-config\nprom\n");
        return 0;
}

int run_thp_dropin(const FragdArgs *a)
{
        const char *unit = a->dropin_unit, *mode = a->dropin_mode;
        /* what the operator typed goes back to the terminal escaped: a unit
         * name systemd refuses may hold anything */
        char u[4 * UNIT_NAME_LEN_MAX + 64], m[64], why[2048];
        int r;

        if (unit_name_parse(unit, strlen(unit), NULL, NULL) >= 0)
                snprintf(u, sizeof(u), "%s", unit); /* as systemd shows it: a '\\' is part of it */
        else if (text_escape(unit, strlen(unit), u, sizeof(u)) < 0)
                snprintf(u, sizeof(u), "(a name of %zu bytes)", strlen(unit));
        if (text_escape(mode, strlen(mode), m, sizeof(m)) < 0)
                snprintf(m, sizeof(m), "(%zu bytes)", strlen(mode));
        if (strcmp(mode, "never") != 0 && strcmp(mode, "madvise") != 0) {
                log_error("thp-dropin: MODE '%s' is not one of never, madvise (always and inherit need no "
                          "drop-in: 'always' is [cgroup] thp=always with collapse=yes)", m);
                return EXIT_USAGE;
        }
        r = thp_dropin_print(unit, mode, NULL, stdout, why, sizeof(why));
        if (r == -EINVAL) {
                log_error("thp-dropin: '%s' %s", u, why[0] ? why : "cannot take a drop-in");
                return EXIT_USAGE;
        }
        if (r == -ENOTCONN) {
                log_error("Cannot ask systemd for %s's ExecStart (no system bus): run on the host where the unit "
                          "is installed", u);
                return EXIT_PRECONDITION;
        }
        if (r == -ENODATA) {
                if (why[0])
                        log_error("thp-dropin: %s: %s", u, why);
                else
                        log_error("systemd knows no ExecStart= for %s (not installed, or not a service): nothing "
                                  "to wrap", u);
                return EXIT_FAILURE;
        }
        if (r == -ENOEXEC) {
                log_error("thp-dropin: %s", why);
                return EXIT_FAILURE;
        }
        if (r < 0) {
                log_error_errno(r, "Cannot make the drop-in for %s: %m", u);
                return EXIT_FAILURE;
        }
        return fflush(stdout) == 0 ? 0 : EXIT_FAILURE;
}
