/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fragd-thp-exec: set this process's THP mode with prctl(PR_SET_THP_DISABLE),
 * check it with PR_GET_THP_DISABLE, then exec the command. The mode is kept
 * across execve() and inherited by children, so a service started through
 * this launcher runs with it. See docs/fragd-thp-exec.1. */

#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "core/missing-thp.h"

enum {
        EXIT_PRCTL = 2,   /* the kernel refused the mode */
        EXIT_VERIFY = 3,  /* PR_GET_THP_DISABLE disagrees after setting */
        EXIT_USAGE = 64,
        EXIT_EXEC = 126,
        EXIT_NOTFOUND = 127,
};

typedef enum Mode { MODE_NONE, MODE_NEVER, MODE_MADVISE, MODE_INHERIT } Mode;

static void help(FILE *f)
{
        fprintf(f,
                "Usage: fragd-thp-exec --mode never|madvise|inherit [--fallback=never] [--quiet]\n"
                "                      -- COMMAND [ARG...]\n"
                "\n"
                "Sets the transparent huge page mode of this process with prctl(2), checks it,\n"
                "and executes COMMAND, which keeps the mode (and passes it to its children).\n"
                "\n"
                "  --mode never     no THP at all, MADV_COLLAPSE included (PR_SET_THP_DISABLE)\n"
                "  --mode madvise   THP only where the program asks with MADV_HUGEPAGE or\n"
                "                   MADV_COLLAPSE (PR_THP_DISABLE_EXCEPT_ADVISED, Linux 6.18+)\n"
                "  --mode inherit   clear both flags: the system-wide mode applies\n"
                "  --fallback=never when the kernel has no madvise mode, use never instead of failing\n"
                "  -q, --quiet      no notice on stderr when falling back\n"
                "  -h, --help       this text;  --version\n"
                "\n"
                "Only the command started here is affected. Processes that are already running\n"
                "keep their current THP mode until they are restarted through this launcher.\n"
                "\n"
                "Exit status: the command's own, or 2 the kernel refused the mode, 3 the mode\n"
                "did not read back, 64 usage error, 126 COMMAND could not be executed,\n"
                "127 COMMAND not found.\n");
}

static int set_mode(Mode m)
{
        switch (m) {
        case MODE_NEVER:
                return prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0);
        case MODE_MADVISE:
                return prctl(PR_SET_THP_DISABLE, 1, PR_THP_DISABLE_EXCEPT_ADVISED, 0, 0);
        case MODE_INHERIT:
                return prctl(PR_SET_THP_DISABLE, 0, 0, 0, 0);
        default:
                errno = EINVAL;
                return -1;
        }
}

static int expected(Mode m)
{
        return m == MODE_NEVER ? 1 : m == MODE_MADVISE ? (1 | PR_THP_DISABLE_EXCEPT_ADVISED) : 0;
}

static const char *mode_name(Mode m)
{
        return m == MODE_NEVER ? "never" : m == MODE_MADVISE ? "madvise" : "inherit";
}

int main(int argc, char **argv)
{
        static const struct option opts[] = {
                { "mode", required_argument, NULL, 'm' },
                { "fallback", required_argument, NULL, 'f' },
                { "quiet", no_argument, NULL, 'q' },
                { "help", no_argument, NULL, 'h' },
                { "version", no_argument, NULL, 'V' },
                {},
        };
        Mode mode = MODE_NONE;
        bool fallback_never = false, quiet = false;
        int c, got;

        while ((c = getopt_long(argc, argv, "+m:qh", opts, NULL)) >= 0) {
                switch (c) {
                case 'm':
                        if (strcmp(optarg, "never") == 0)
                                mode = MODE_NEVER;
                        else if (strcmp(optarg, "madvise") == 0)
                                mode = MODE_MADVISE;
                        else if (strcmp(optarg, "inherit") == 0)
                                mode = MODE_INHERIT;
                        else {
                                fprintf(stderr, "fragd-thp-exec: unknown mode '%s' (never, madvise, inherit)\n",
                                        optarg);
                                return EXIT_USAGE;
                        }
                        break;
                case 'f':
                        if (strcmp(optarg, "never") != 0) {
                                fprintf(stderr, "fragd-thp-exec: --fallback only accepts 'never'\n");
                                return EXIT_USAGE;
                        }
                        fallback_never = true;
                        break;
                case 'q':
                        quiet = true;
                        break;
                case 'h':
                        help(stdout);
                        return 0;
                case 'V':
                        printf("fragd-thp-exec %s\n", FRAGD_VERSION);
                        return 0;
                default:
                        help(stderr);
                        return EXIT_USAGE;
                }
        }
        if (mode == MODE_NONE || optind >= argc) {
                fprintf(stderr, "fragd-thp-exec: %s\n", mode == MODE_NONE ? "--mode is required" : "no command given");
                help(stderr);
                return EXIT_USAGE;
        }

        if (set_mode(mode) < 0) {
                int e = errno;

                if (mode == MODE_MADVISE && e == EINVAL) {
                        if (!fallback_never) {
                                fprintf(stderr,
                                        "fragd-thp-exec: this kernel has no PR_THP_DISABLE_EXCEPT_ADVISED "
                                        "(madvise mode needs Linux 6.18+); not starting '%s'. "
                                        "Use --fallback=never to disable THP completely instead.\n",
                                        argv[optind]);
                                return EXIT_PRCTL;
                        }
                        if (!quiet)
                                fprintf(stderr,
                                        "fragd-thp-exec: no madvise mode in this kernel (needs Linux 6.18+), "
                                        "falling back to never\n");
                        mode = MODE_NEVER;
                        if (set_mode(mode) < 0) {
                                fprintf(stderr, "fragd-thp-exec: prctl(PR_SET_THP_DISABLE) failed: %s\n",
                                        strerror(errno));
                                return EXIT_PRCTL;
                        }
                } else {
                        fprintf(stderr, "fragd-thp-exec: prctl(PR_SET_THP_DISABLE) for mode %s failed: %s\n",
                                mode_name(mode), strerror(e));
                        return EXIT_PRCTL;
                }
        }
        got = prctl(PR_GET_THP_DISABLE, 0, 0, 0, 0);
        if (got != expected(mode)) {
                fprintf(stderr, "fragd-thp-exec: mode %s did not take: PR_GET_THP_DISABLE returned %d, expected %d\n",
                        mode_name(mode), got, expected(mode));
                return EXIT_VERIFY;
        }
        execvp(argv[optind], argv + optind);
        fprintf(stderr, "fragd-thp-exec: cannot execute '%s': %s\n", argv[optind], strerror(errno));
        return errno == ENOENT ? EXIT_NOTFOUND : EXIT_EXEC;
}
