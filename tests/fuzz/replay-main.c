/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Replays a fuzz corpus without libFuzzer, so `make check` runs every seed
 * under gcc (and the sanitizer build). Usage: replay-NAME DIR|FILE... */

#include <dirent.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/cleanup.h"
#include "core/root.h"
#include "fragd/macro.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(int dirfd, const char *name, unsigned *count)
{
        _cleanup_free_ char *buf = NULL;
        size_t len = 0;
        int r = read_file_alloc_at(dirfd, name, &buf, &len);

        if (r < 0) {
                fprintf(stderr, "replay: cannot read '%s': %s\n", name, strerror(-r));
                return r;
        }
        (void) LLVMFuzzerTestOneInput((const uint8_t *) buf, len);
        (*count)++;
        return 0;
}

int main(int argc, char **argv)
{
        unsigned count = 0;
        int fail = 0;

        for (int i = 1; i < argc; i++) {
                struct stat st;
                DIR *d;
                struct dirent *de;

                if (stat(argv[i], &st) < 0) {
                        fprintf(stderr, "replay: '%s': %m\n", argv[i]);
                        fail = 1;
                        continue;
                }
                if (!S_ISDIR(st.st_mode)) {
                        if (run_file(AT_FDCWD, argv[i], &count) < 0)
                                fail = 1;
                        continue;
                }
                d = opendir(argv[i]);
                if (!d) {
                        fail = 1;
                        continue;
                }
                while ((de = readdir(d)))
                        if (de->d_name[0] != '.' && run_file(dirfd(d), de->d_name, &count) < 0)
                                fail = 1;
                closedir(d);
        }
        /* also the empty input */
        (void) LLVMFuzzerTestOneInput((const uint8_t *) "", 0);
        printf("replay %s: %u inputs, %s\n", argc > 1 ? argv[1] : "-", count, fail ? "FAILED" : "ok");
        return fail;
}
