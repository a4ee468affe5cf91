/* SPDX-License-Identifier: GPL-2.0-or-later */
/* unit_name_parse (daemon/core/unit-name.c), text_escape and
 * text_shell_quote (daemon/core/text.c), and what `fragd thp-dropin` builds
 * on them: the launcher taken off ExecStart=, umbrella units, a drop-in's
 * quoted hint (daemon/workload/thp-dropin.c). */

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/text.h"
#include "core/unit-name.h"
#include "fragd/macro.h"
#include "workload/thp-cgroup.h"

static int parse(const char *s, UnitName *u, const char **why)
{
        return unit_name_parse(s, strlen(s), u, why);
}

static void test_valid(void **state)
{
        UnitName u;

        (void) state;
        assert_int_equal(parse("postgresql.service", &u, NULL), 0);
        assert_int_equal(u.kind, UNIT_NAME_PLAIN);
        assert_string_equal(u.prefix, "postgresql");
        assert_string_equal(u.type, "service");
        assert_string_equal(u.instance, "");

        assert_int_equal(parse("postgresql@15-main.service", &u, NULL), 0);
        assert_int_equal(u.kind, UNIT_NAME_INSTANCE);
        assert_string_equal(u.prefix, "postgresql");
        assert_string_equal(u.instance, "15-main");
        assert_string_equal(u.name, "postgresql@15-main.service");

        assert_int_equal(parse("postgresql@.service", &u, NULL), 0);
        assert_int_equal(u.kind, UNIT_NAME_TEMPLATE);
        assert_int_equal(parse("system-postgresql.slice", &u, NULL), 0);
        assert_string_equal(u.type, "slice");
        assert_int_equal(parse("dev-disk-by\\x2dlabel-data.mount", &u, NULL), 0);
        assert_int_equal(parse("getty@tty1.service", &u, NULL), 0);
        /* an instance may hold '@' and '.' (systemd: VALID_CHARS_WITH_AT) */
        assert_int_equal(parse("a@b@c.d.service", &u, NULL), 0);
        assert_string_equal(u.instance, "b@c.d");
        assert_int_equal(parse("x:y_z.timer", NULL, NULL), 0);
        for (const char *const *t = (const char *const[]) { "a.service", "a.socket", "a.target", "a.device",
                                                            "a.mount", "a.automount", "a.swap", "a.timer",
                                                            "a.path", "a.slice", "a.scope", NULL };
             *t; t++)
                assert_int_equal(parse(*t, NULL, NULL), 0);
}

static void test_invalid(void **state)
{
        static const struct {
                const char *name;
                int r;
                const char *why;
        } cases[] = {
                { "", -EINVAL, "is empty" },
                { "postgresql", -EINVAL, "no unit type suffix" },
                { "x.service\n[Service]\nExecStartPre=/tmp/evil\n#", -EINVAL, "does not end in a unit type" },
                { "../../../etc/passwd.service", -EINVAL, "character systemd does not allow" },
                { "a/b.service", -EINVAL, "character systemd does not allow" },
                { "x;rm -rf /.service", -EINVAL, "character systemd does not allow" },
                { "\x1b[31mx.service", -EINVAL, "character systemd does not allow" },
                { "a b.service", -EINVAL, "character systemd does not allow" },
                { "x.conf", -EINVAL, "does not end in a unit type" },
                { "x.Service", -EINVAL, "does not end in a unit type" },
                { "x.service.", -EINVAL, "does not end in a unit type" },
                { ".service", -EINVAL, "nothing before" },
                { "@x.service", -EINVAL, "nothing before" },
                { ".hidden.service", -EINVAL, "starts with '.'" },
                { "a@b/c.service", -EINVAL, "in an instance name" },
                { "caf\xc3\xa9.service", -EINVAL, "character systemd does not allow" },
        };
        char name[300];
        const char *why;

        (void) state;
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                why = NULL;
                assert_int_equal(parse(cases[i].name, NULL, &why), cases[i].r);
                assert_non_null(why);
                if (!strstr(why, cases[i].why))
                        fail_msg("'%s': '%s', expected '%s'", cases[i].name, why, cases[i].why);
        }
        /* 255 bytes is the most: 247 + ".service" */
        memset(name, 'a', 247);
        strcpy(name + 247, ".service");
        assert_int_equal(parse(name, NULL, NULL), 0);
        memset(name, 'a', 248);
        strcpy(name + 248, ".service");
        assert_int_equal(parse(name, NULL, &why), -ENAMETOOLONG);
        assert_non_null(strstr(why, "255 bytes"));
        /* a NUL inside the buffer */
        assert_int_equal(unit_name_parse("a.service\0x", 11, NULL, &why), -EINVAL);
        assert_string_equal(why, "contains a NUL byte");
        /* only len bytes are read */
        assert_int_equal(unit_name_parse("a.serviceXYZ", 9, NULL, NULL), 0);
}

static void test_escape_quote(void **state)
{
        char buf[128];

        (void) state;
        assert_int_equal(text_escape("a\nb\tc\\d", 7, buf, sizeof(buf)), 10);
        assert_string_equal(buf, "a\\nb\\tc\\\\d");
        assert_true(text_escape("\x1b]0;x\x07\x7f", 7, buf, sizeof(buf)) > 0);
        assert_string_equal(buf, "\\x1b]0;x\\x07\\x7f");
        assert_true(text_escape("\xc2\x9b" "1m\xff caf\xc3\xa9", 11, buf, sizeof(buf)) > 0);
        assert_string_equal(buf, "\\xc2\\x9b1m\\xff caf\xc3\xa9");
        assert_true(text_escape("a\0b", 3, buf, sizeof(buf)) > 0);
        assert_string_equal(buf, "a\\x00b");
        assert_int_equal(text_escape("\n\n\n", 3, buf, 6), -ENOBUFS);
        assert_int_equal(text_escape("abc", 3, buf, 0), -ENOBUFS);

        assert_int_equal(text_shell_quote("postgresql@15-main.service", buf, sizeof(buf)), 26);
        assert_string_equal(buf, "postgresql@15-main.service");
        assert_true(text_shell_quote("dev-x\\x2dy.mount", buf, sizeof(buf)) > 0);
        assert_string_equal(buf, "'dev-x\\x2dy.mount'");
        assert_true(text_shell_quote("x.service;rm -rf /", buf, sizeof(buf)) > 0);
        assert_string_equal(buf, "'x.service;rm -rf /'");
        assert_true(text_shell_quote("it's $(x)", buf, sizeof(buf)) > 0);
        assert_string_equal(buf, "'it'\\''s $(x)'");
        assert_true(text_shell_quote("", buf, sizeof(buf)) > 0);
        assert_string_equal(buf, "''");
        assert_int_equal(text_shell_quote("a b", buf, 5), -ENOBUFS);
}

static void test_launcher_unwrap(void **state)
{
        const char *once[] = { "/usr/local/bin/fragd-thp-exec", "--mode", "never", "--", "/usr/bin/pg", "-D", "/x" };
        const char *twice[] = { "fragd-thp-exec", "--mode", "madvise", "--fallback=never", "--", "/usr/sbin/fragd-thp-exec",
                                "--mode", "never", "--", "/usr/bin/redis-server", "/etc/redis.conf" };
        const char *dangling[] = { "/usr/bin/fragd-thp-exec", "--mode", "never", "--" };
        const char *other[] = { "/usr/bin/pg", "--", "fragd-thp-exec" };
        const char *path;
        const char *const *argv;
        size_t argc;

        (void) state;
        path = once[0], argv = once, argc = ELEMENTSOF(once);
        assert_int_equal(thp_launcher_unwrap(&path, &argv, &argc), 1);
        assert_string_equal(path, "/usr/bin/pg");
        assert_int_equal(argc, 3);
        assert_string_equal(argv[0], "/usr/bin/pg");
        assert_string_equal(argv[2], "/x");

        path = "/usr/sbin/fragd-thp-exec", argv = twice, argc = ELEMENTSOF(twice);
        assert_int_equal(thp_launcher_unwrap(&path, &argv, &argc), 2);
        assert_string_equal(path, "/usr/bin/redis-server");
        assert_int_equal(argc, 2);

        path = dangling[0], argv = dangling, argc = ELEMENTSOF(dangling);
        assert_int_equal(thp_launcher_unwrap(&path, &argv, &argc), 0);
        assert_string_equal(path, "/usr/bin/fragd-thp-exec");
        assert_int_equal(argc, 4);

        path = other[0], argv = other, argc = ELEMENTSOF(other);
        assert_int_equal(thp_launcher_unwrap(&path, &argv, &argc), 0);
        assert_int_equal(argc, 3);
}

static void test_placeholder(void **state)
{
        char buf[1024];
        UnitName u;
        const char *truth[] = { "/bin/true" }, *both[] = { "/usr/bin/true", "/bin/false" };
        const char *real[] = { "/bin/true", "/usr/bin/pg_ctlcluster" };
        const char *inst[] = { "postgresql@15-main.service", "postgresql@16-main.service" };

        (void) state;
        assert_true(unit_exec_is_placeholder("oneshot", truth, 1));
        assert_true(unit_exec_is_placeholder("simple", both, 2));
        assert_false(unit_exec_is_placeholder("oneshot", real, 2));
        assert_true(unit_exec_is_placeholder("oneshot", NULL, 0));
        assert_false(unit_exec_is_placeholder("simple", NULL, 0));
        assert_false(unit_exec_is_placeholder(NULL, NULL, 0));

        assert_int_equal(parse("postgresql.service", &u, NULL), 0);
        assert_true(thp_dropin_umbrella_explain(&u, "never", "oneshot", truth, 1, inst, 2, buf, sizeof(buf)) > 0);
        assert_string_equal(buf, "postgresql.service runs no workload (Type=oneshot, ExecStart=/bin/true): a THP "
                                 "mode for it reaches no process that matters. It stands for its instance units; "
                                 "make the drop-in for each: 'fragd thp-dropin postgresql@15-main.service never', "
                                 "'fragd thp-dropin postgresql@16-main.service never'");
        assert_true(thp_dropin_umbrella_explain(&u, "madvise", "oneshot", NULL, 0, NULL, 0, buf, sizeof(buf)) > 0);
        assert_non_null(strstr(buf, "ExecStart=none)"));
        assert_non_null(strstr(buf, "systemctl list-units 'postgresql@*.service'"));
        assert_non_null(strstr(buf, "'fragd thp-dropin postgresql@15-main.service madvise'"));
        assert_int_equal(thp_dropin_umbrella_explain(&u, "never", "oneshot", truth, 1, inst, 2, buf, 40), -ENOBUFS);
        {
                const char *odd[] = { "/opt/\x1b[31m/true" };

                assert_true(thp_dropin_umbrella_explain(&u, "never", "oneshot", odd, 1, NULL, 0, buf, sizeof(buf)) > 0);
                assert_non_null(strstr(buf, "ExecStart=/opt/\\x1b[31m/true)"));
        }
}

/* the drop-in's comments: only a name systemd accepts; the hint quoted */
static void test_dropin_hint(void **state)
{
        char buf[4096];
        const char *cmd[] = { "/usr/bin/x" };

        (void) state;
        assert_int_equal(thp_dropin_render("x.service\n[Service]\nExecStartPre=/tmp/evil\n#.service", CGROUP_THP_NEVER,
                                           260, "/x", NULL, 0, buf, sizeof(buf), NULL),
                         -EINVAL);
        assert_int_equal(thp_dropin_render("../../etc/passwd.service", CGROUP_THP_NEVER, 260, "/x", NULL, 0, buf,
                                           sizeof(buf), NULL),
                         -EINVAL);
        assert_true(thp_dropin_render("back\\x2dslash.service", CGROUP_THP_NEVER, 252, "/x", cmd, 1, buf,
                                      sizeof(buf), NULL) > 0);
        assert_non_null(strstr(buf, "\n#   systemctl daemon-reload && systemctl restart 'back\\x2dslash.service'\n"));
        assert_non_null(strstr(buf, "# Install as '/etc/systemd/system/back\\x2dslash.service.d/50-fragd-thp.conf'"));
        assert_true(thp_dropin_render("postgresql@15-main.service", CGROUP_THP_NEVER, 252, "/x", cmd, 1, buf,
                                      sizeof(buf), NULL) > 0);
        assert_non_null(strstr(buf, "systemctl restart postgresql@15-main.service\n"));
        assert_non_null(strstr(buf, "# Install as /etc/systemd/system/postgresql@15-main.service.d/50-fragd-thp.conf,"));
}

/* control characters from systemd's ExecStart= stay escaped in the drop-in */
static void test_exec_render_control(void **state)
{
        const char *argv[] = { "x", "a\x1b[31mb", "c\x7f" };
        char line[256];

        (void) state;
        assert_true(exec_command_render("/bin/x", argv, 3, false, line, sizeof(line)) > 0);
        assert_string_equal(line, "/bin/x \"a\\x1b[31mb\" \"c\\x7f\"");
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_valid),
                cmocka_unit_test(test_invalid),
                cmocka_unit_test(test_escape_quote),
                cmocka_unit_test(test_launcher_unwrap),
                cmocka_unit_test(test_placeholder),
                cmocka_unit_test(test_dropin_hint),
                cmocka_unit_test(test_exec_render_control),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
