/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
        if (argc > 1 && strcmp(argv[1], "--version") == 0) {
                printf("fragd %s\n", FRAGD_VERSION);
                return 0;
        }
        fprintf(stderr, "fragd: not yet\n");
        return 1;
}
