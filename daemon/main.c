/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fragd: command line, one-shot report, and the daemon entry point. */

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/main-internal.h"
#include "cli/report.h"
#include "core/log.h"
#include "core/parse-util.h"
#include "core/root.h"
#include "fragd/metrics.h"
#include "fragd/obs.h"

static void help(void)
{
        printf("Usage: fragd [OPTIONS]            run the daemon in the foreground (systemd service)\n"
               "       fragd --once [OPTIONS]     one report of this host with the decisions fragd would take\n"
               "       fragd status [--format text|json]\n"
               "                                  what the running daemon owns and why\n"
               "       fragd pause                hand every knob back and observe only (root)\n"
               "       fragd resume               act again after fragd pause (root)\n"
               "       fragd --restore [--quiet-if-clean]\n"
               "                                  put back every knob a dead fragd left changed\n"
               "       fragd --check-config       validate configuration, print every value and its source\n"
               "       fragd thp-dropin UNIT MODE print a systemd drop-in that runs UNIT with THP MODE\n"
               "                                  (never or madvise); install it, then restart the unit\n"
               "\n"
               "Keeps high-order memory (large folios, THP) available on database hosts by steering\n"
               "kcompactd, kswapd and the watermarks, and restores every knob it changed on stop.\n"
               "\n"
               "Options:\n"
               "  -c, --config FILE      main configuration file (default " FRAGD_SYSCONFDIR "/fragd/fragd.conf)\n"
               "      --set SEC.KEY=VAL  override one configuration value (repeatable)\n"
               "      --root DIR         read and write every file below DIR instead of / (tests, fixtures)\n"
               "      --page-size BYTES  base page size of the tree under --root, a power of two\n"
               "                         from 4096 to 262144 (default: this machine's)\n"
               "  -n, --dry-run          decide and report, write nothing\n"
               "      --once             observe once, print the report and exit\n"
               "      --format FMT       report format: text (default), json, prom (--once);\n"
               "                         text (default), json (status)\n"
               "      --interval SEC     with --once: take two readings SEC apart to show rates\n"
               "      --verbose          with --once: add free memory by order and watermarks per zone\n"
               "      --log-level LEVEL  debug, info, notice, warning, err\n"
               "      --features         print the optional parts this build and kernel support\n"
               "      --quiet-if-clean   with --restore: print nothing when nothing is left to restore\n"
               "  -h, --help             this text\n"
               "      --version          print the version\n"
               "\n"
               "Exit status: 0 success, 1 failure, 2 usage or configuration error,\n"
               "3 missing privilege, kernel feature or (thp-dropin) system bus,\n"
               "4 (status, pause, resume) fragd is not running,\n"
               "5 (status) fragd is not running and knobs it changed are left changed.\n"
               "See fragd(8) and fragd.conf(5).\n");
}

enum {
        ARG_ROOT = 0x100,
        ARG_PAGE_SIZE,
        ARG_ONCE,
        ARG_FORMAT,
        ARG_INTERVAL,
        ARG_LOG_LEVEL,
        ARG_VERSION,
        ARG_FEATURES,
        ARG_RESTORE,
        ARG_CHECK_CONFIG,
        ARG_SET,
        ARG_QUIET_IF_CLEAN,
        ARG_VERBOSE,
};

static int parse_args(int argc, char **argv, FragdArgs *a)
{
        static const struct option opts[] = {
                { "config", required_argument, NULL, 'c' },
                { "set", required_argument, NULL, ARG_SET },
                { "root", required_argument, NULL, ARG_ROOT },
                { "page-size", required_argument, NULL, ARG_PAGE_SIZE },
                { "dry-run", no_argument, NULL, 'n' },
                { "once", no_argument, NULL, ARG_ONCE },
                { "format", required_argument, NULL, ARG_FORMAT },
                { "interval", required_argument, NULL, ARG_INTERVAL },
                { "verbose", no_argument, NULL, ARG_VERBOSE },
                { "log-level", required_argument, NULL, ARG_LOG_LEVEL },
                { "features", no_argument, NULL, ARG_FEATURES },
                { "restore", no_argument, NULL, ARG_RESTORE },
                { "check-config", no_argument, NULL, ARG_CHECK_CONFIG },
                { "quiet-if-clean", no_argument, NULL, ARG_QUIET_IF_CLEAN },
                { "help", no_argument, NULL, 'h' },
                { "version", no_argument, NULL, ARG_VERSION },
                {},
        };
        int c;

        a->mode = MODE_DAEMON;
        a->format = "text";
        a->root = "/";
        while ((c = getopt_long(argc, argv, "c:nh", opts, NULL)) >= 0) {
                switch (c) {
                case 'c':
                        a->config_file = optarg;
                        break;
                case ARG_SET:
                        if (a->n_sets >= ELEMENTSOF(a->sets)) {
                                fprintf(stderr, "fragd: too many --set options (at most %zu)\n", ELEMENTSOF(a->sets));
                                return -EINVAL;
                        }
                        a->sets[a->n_sets++] = optarg;
                        break;
                case ARG_ROOT:
                        a->root = optarg;
                        break;
                case ARG_PAGE_SIZE: {
                        uint64_t v;

                        /* the base page sizes Linux supports: 4 KiB (x86,
                         * arm64, ...) to 256 KiB (hexagon, powerpc 44x);
                         * checked before the cast, so 2^32 + 4096 is not
                         * taken as 4096 */
                        if (parse_u64(optarg, &v) < 0 || v < 4096 || v > 262144 || (v & (v - 1))) {
                                fprintf(stderr,
                                        "fragd: --page-size: '%s' is not a base page size: give a power of two "
                                        "from 4096 to 262144 bytes (4 KiB to 256 KiB), e.g. 4096, 16384 or 65536\n",
                                        optarg);
                                return -EINVAL;
                        }
                        a->page_size = (unsigned) v;
                        break;
                }
                case 'n':
                        a->dry_run = true;
                        break;
                case ARG_ONCE:
                        a->mode = MODE_ONCE;
                        break;
                case ARG_FORMAT:
                        if (strcmp(optarg, "text") && strcmp(optarg, "json") && strcmp(optarg, "prom")) {
                                fprintf(stderr, "fragd: --format: '%s' is not one of text, json, prom\n", optarg);
                                return -EINVAL;
                        }
                        a->format = optarg;
                        break;
                case ARG_INTERVAL: {
                        char *end;
                        double v = strtod(optarg, &end);
                        if (*end || !(v > 0 && v <= 3600)) {
                                fprintf(stderr, "fragd: --interval: '%s' is not a number of seconds in (0, 3600]\n",
                                        optarg);
                                return -EINVAL;
                        }
                        a->interval_usec = (usec_t) (v * USEC_PER_SEC);
                        break;
                }
                case ARG_VERBOSE:
                        a->verbose = true;
                        break;
                case ARG_LOG_LEVEL: {
                        int l = log_level_from_string(optarg);
                        if (l < 0) {
                                fprintf(stderr, "fragd: --log-level: '%s' is not one of debug, info, notice, "
                                                "warning, err\n", optarg);
                                return -EINVAL;
                        }
                        a->log_level = l;
                        a->log_level_set = true;
                        break;
                }
                case ARG_FEATURES:
                        a->mode = MODE_FEATURES;
                        break;
                case ARG_RESTORE:
                        a->mode = MODE_RESTORE;
                        break;
                case ARG_CHECK_CONFIG:
                        a->mode = MODE_CHECK_CONFIG;
                        break;
                case ARG_QUIET_IF_CLEAN:
                        a->quiet_if_clean = true;
                        break;
                case 'h':
                        a->mode = MODE_HELP;
                        break;
                case ARG_VERSION:
                        a->mode = MODE_VERSION;
                        break;
                default:
                        fprintf(stderr, "Try 'fragd --help'.\n");
                        return -EINVAL;
                }
        }
        if (optind < argc) {
                if (strcmp(argv[optind], "status") == 0 && optind + 1 == argc)
                        a->mode = MODE_STATUS;
                else if (strcmp(argv[optind], "pause") == 0 && optind + 1 == argc)
                        a->mode = MODE_PAUSE;
                else if (strcmp(argv[optind], "resume") == 0 && optind + 1 == argc)
                        a->mode = MODE_RESUME;
                else if (strcmp(argv[optind], "thp-dropin") == 0) {
                        if (optind + 3 != argc) {
                                fprintf(stderr, "fragd: usage: fragd thp-dropin UNIT never|madvise\n");
                                return -EINVAL;
                        }
                        a->mode = MODE_THP_DROPIN;
                        a->dropin_unit = argv[optind + 1];
                        a->dropin_mode = argv[optind + 2];
                } else {
                        fprintf(stderr, "fragd: unexpected argument '%s'. Try 'fragd --help'.\n", argv[optind]);
                        return -EINVAL;
                }
        }
        if (a->verbose && a->mode != MODE_ONCE) {
                fprintf(stderr, "fragd: --verbose only makes sense with --once\n");
                return -EINVAL;
        }
        if (a->interval_usec && a->mode != MODE_ONCE) {
                fprintf(stderr, "fragd: --interval only makes sense with --once\n");
                return -EINVAL;
        }
        if (a->mode == MODE_STATUS && strcmp(a->format, "prom") == 0) {
                fprintf(stderr, "fragd: status --format: 'prom' is not one of text, json (the daemon's metrics "
                                "are in its textfile)\n");
                return -EINVAL;
        }
        if (strcmp(a->format, "text") && a->mode != MODE_ONCE && a->mode != MODE_STATUS) {
                fprintf(stderr, "fragd: --format only makes sense with --once or status\n");
                return -EINVAL;
        }
        return 0;
}

/* What a mode printed reached standard output whole, or it fails: a drop-in
 * from thp-dropin redirected to a full disk, or a --check-config listing,
 * must not end cut with exit status 0. A mode that failed already keeps its
 * status and its own message (--once names the report it could not write). */
static int stdout_checked(int r)
{
        /* the flush's own errno, else EIO: an earlier write's error is gone,
         * and errno may be left from anything since */
        int err = fflush(stdout) != 0 ? errno : 0;

        if (err == 0 && !ferror(stdout))
                return r;
        if (r == 0) {
                log_error_errno(err > 0 ? -err : -EIO, "Cannot write to standard output: %m");
                return EXIT_FAILURE;
        }
        return r;
}

/* Started with standard input, output or error closed (a careless
 * redirection, a supervisor that closes them), the first files fragd opens
 * would take descriptors 0-2, and a log line or a report would be written
 * into them. Each closed one is opened on /dev/null first: input and error
 * as usual, output read-only, so that what a mode prints still fails
 * (EBADF) and stdout_checked() says so, as on a closed descriptor. */
static int stdio_guard(void)
{
        for (int fd = 0; fd <= 2; fd++) {
                int n;

                if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF)
                        continue;
                /* the lowest free descriptor: fd itself (0..fd-1 are open) */
                n = open("/dev/null", fd == 2 ? O_WRONLY | O_NOCTTY : O_RDONLY | O_NOCTTY);
                if (n < 0)
                        return -errno;
                if (n != fd) {
                        close(n);
                        return -EBADF;
                }
        }
        return 0;
}

int main(int argc, char **argv)
{
        FragdArgs args = {};
        int r;

        /* nothing to tell it on: fds 0-2 may be the ones missing */
        if (stdio_guard() < 0)
                return EXIT_FAILURE;

        r = parse_args(argc, argv, &args);
        if (r < 0)
                return EXIT_USAGE;
        if (args.log_level_set)
                log_set_max_level(args.log_level);

        r = EXIT_FAILURE; /* a mode not handled below (-Wswitch names it) */
        switch (args.mode) {
        case MODE_HELP:
                help();
                r = 0;
                break;
        case MODE_VERSION:
                printf("fragd %s\n", FRAGD_VERSION);
                r = 0;
                break;
        case MODE_FEATURES:
                r = run_features(&args);
                break;
        case MODE_ONCE:
                r = run_once(&args);
                break;
        case MODE_STATUS:
                r = run_status(&args);
                break;
        case MODE_RESTORE:
                r = run_restore(&args);
                break;
        case MODE_CHECK_CONFIG:
                r = run_check_config(&args);
                break;
        case MODE_THP_DROPIN:
                r = run_thp_dropin(&args);
                break;
        case MODE_PAUSE:
        case MODE_RESUME:
                r = run_control(&args);
                break;
        case MODE_DAEMON:
                return run_daemon(&args);
        }
        return stdout_checked(r);
}
