/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Fuzzes unit_name_parse (a unit name from the command line: `fragd
 * thp-dropin UNIT MODE`) and what prints it: text_escape (a refused name on
 * the terminal), text_shell_quote (the restart hint) and thp_dropin_render
 * (the drop-in's comments). Corpus in tests/corpus/unit-name/. */

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/text.h"
#include "core/unit-name.h"
#include "workload/thp-cgroup.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* a drop-in is comments, [Service] and the one setting: nothing a name
 * could add */
static void check_dropin(const char *buf)
{
        for (const char *l = buf; *l;) {
                const char *nl = strchr(l, '\n');
                size_t n = nl ? (size_t) (nl - l) : strlen(l);

                if (!(n > 0 && l[0] == '#') && !(n == 9 && memcmp(l, "[Service]", 9) == 0) &&
                    !(n == 17 && memcmp(l, "MemoryTHP=disable", 17) == 0))
                        __builtin_trap();
                for (size_t i = 0; i < n; i++)
                        if ((unsigned char) l[i] < 0x20)
                                __builtin_trap();
                l += n + (nl ? 1 : 0);
        }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        const char *s = (const char *) data;
        static char esc[4 * 4096 + 1], quoted[4 * 4096 + 3], dropin[16384];
        const char *why = NULL;
        UnitName u;
        int r, n;

        if (size > 4096)
                return 0;
        n = text_escape(s, size, esc, sizeof(esc));
        if (n < 0 || (size_t) n != strlen(esc))
                __builtin_trap();
        for (const char *p = esc; *p; p++)
                if ((unsigned char) *p < 0x20 || *p == 0x7F)
                        __builtin_trap();
        if (!utf8_valid(esc) || !text_printable(esc, NULL))
                __builtin_trap();

        r = unit_name_parse(s, size, &u, &why);
        if (r < 0) {
                if ((r != -EINVAL && r != -ENAMETOOLONG) || !why || !*why)
                        __builtin_trap();
                return 0;
        }
        if (size > UNIT_NAME_LEN_MAX || strlen(u.name) != size || memcmp(u.name, s, size) != 0 || !u.prefix[0] ||
            u.prefix[0] == '.' || strchr(u.name, '/') || strchr(u.prefix, '@') ||
            (u.kind == UNIT_NAME_INSTANCE) != (u.instance[0] != '\0'))
                __builtin_trap();
        if (unit_name_parse(u.name, strlen(u.name), NULL, NULL) != 0)
                __builtin_trap();
        /* the hint: one shell word, quoted exactly when it holds a backslash */
        n = text_shell_quote(u.name, quoted, sizeof(quoted));
        if (n < 0 || (quoted[0] == '\'') != (strchr(u.name, '\\') != NULL))
                __builtin_trap();
        r = thp_dropin_render(u.name, CGROUP_THP_NEVER, 260, "/x", NULL, 0, dropin, sizeof(dropin), NULL);
        if (r <= 0)
                __builtin_trap();
        check_dropin(dropin);
        return 0;
}
