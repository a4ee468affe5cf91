/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Instance identification, sizing classes, fleet-file matching and the
 * shipped fleet/ directory. Probes are built by hand here; reading DMI and
 * node topology from fixture roots is tested once the sources land. */

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <dirent.h>

#include "config-test-util.h"

static InstanceProbe probe_make(const char *vendor, const char *product, uint64_t gib, unsigned cpus,
                                const char *arch, unsigned page_size)
{
        InstanceProbe p = { 0 };

        if (vendor) {
                p.have_dmi = true;
                snprintf(p.dmi.sys_vendor, sizeof(p.dmi.sys_vendor), "%s", vendor);
                snprintf(p.dmi.product_name, sizeof(p.dmi.product_name), "%s", product);
        }
        /* MemTotal is a little below the installed memory */
        p.mem_total_kb = (gib << 20) - (gib << 20) / 40;
        p.n_cpus = cpus;
        snprintf(p.arch, sizeof(p.arch), "%s", arch);
        p.page_size = page_size;
        return p;
}

static void test_sizing_class(void **state)
{
        static const struct {
                uint64_t mem_kb;
                unsigned cpus;
                const char *arch;
                unsigned page;
                const char *want;
        } t[] = {
                { 125ULL << 20, 16, "arm64", 4096, "mem-128g-16c-arm64" },
                { 128ULL << 20, 16, "arm64", 4096, "mem-128g-16c-arm64" },
                { (128ULL << 20) + 1, 16, "arm64", 4096, "mem-256g-16c-arm64" },
                { 3ULL << 20, 2, "x86_64", 4096, "mem-4g-2c-x86_64" },
                { 1, 1, "x86_64", 4096, "mem-1g-1c-x86_64" },
                { 740ULL << 20, 96, "x86_64", 4096, "mem-1024g-128c-x86_64" },
                { 60ULL << 20, 0, "arm64", 65536, "mem-64g-arm64-64k" },
                { 60ULL << 20, 8, "arm64", 16384, "mem-64g-8c-arm64-16k" },
                { 60ULL << 20, 8, "", 4096, "mem-64g-8c-unknown" },
        };
        char buf[64];

        (void) state;
        for (size_t i = 0; i < ELEMENTSOF(t); i++) {
                InstanceProbe p = { .mem_total_kb = t[i].mem_kb, .n_cpus = t[i].cpus, .page_size = t[i].page };

                snprintf(p.arch, sizeof(p.arch), "%s", t[i].arch);
                assert_int_equal(instance_class(&p, buf, sizeof(buf)), 0);
                assert_string_equal(buf, t[i].want);
        }
        InstanceProbe none = { 0 };
        assert_int_equal(instance_class(&none, buf, sizeof(buf)), -ENODATA);
        assert_int_equal(instance_class(NULL, buf, sizeof(buf)), -ENODATA);
}

static void test_identify_order(void **state)
{
        InstanceProbe ec2 = probe_make("Amazon EC2", "r7g.4xlarge", 128, 16, "arm64", 4096);
        InstanceProbe ec2_nl = probe_make("Amazon EC2\n", "m7i.metal-24xl\n", 384, 96, "x86_64", 4096);
        InstanceProbe gce = probe_make("Google", "Google Compute Engine", 64, 16, "x86_64", 4096);
        InstanceProbe azure = probe_make("Microsoft Corporation", "Virtual Machine", 64, 16, "x86_64", 4096);
        InstanceProbe qemu = probe_make("QEMU", "Standard PC (i440FX + PIIX, 1996)", 4, 2, "x86_64", 4096);
        InstanceProbe xen = probe_make("Xen", "HVM domU", 8, 2, "x86_64", 4096);
        InstanceProbe ec2_odd = probe_make("Amazon EC2", "Not Specified", 8, 2, "x86_64", 4096);
        InstanceProbe nodmi = probe_make(NULL, NULL, 8, 2, "x86_64", 4096);
        InstanceInfo i;

        (void) state;
        instance_identify(&ec2, "auto", &i);
        assert_string_equal(i.name, "r7g.4xlarge");
        assert_string_equal(i.source, "dmi");
        assert_string_equal(i.class_name, "mem-128g-16c-arm64");

        instance_identify(&ec2_nl, NULL, &i);
        assert_string_equal(i.name, "m7i.metal-24xl");
        assert_string_equal(i.source, "dmi");

        /* configuration beats DMI */
        instance_identify(&ec2, "r7g.8xlarge", &i);
        assert_string_equal(i.name, "r7g.8xlarge");
        assert_string_equal(i.source, "config");
        assert_string_equal(i.class_name, "mem-128g-16c-arm64");

        /* clouds without a type in DMI fall through to the class */
        const InstanceProbe *fall[] = { &gce, &azure, &qemu, &xen, &ec2_odd, &nodmi };
        for (size_t k = 0; k < ELEMENTSOF(fall); k++) {
                instance_identify(fall[k], "auto", &i);
                assert_string_equal(i.source, "sizing");
                assert_string_equal(i.name, i.class_name);
        }
        instance_identify(&gce, "", &i);
        assert_string_equal(i.name, "mem-64g-16c-x86_64");

        /* nothing known */
        instance_identify(NULL, "auto", &i);
        assert_null(i.source);
        assert_string_equal(i.name, "");
        instance_identify(NULL, "c7g.large", &i);
        assert_string_equal(i.source, "config");
}

static void test_match_score(void **state)
{
        InstanceProbe ec2 = probe_make("Amazon EC2", "r7g.4xlarge", 128, 16, "arm64", 4096);
        InstanceProbe gce = probe_make("Google", "Google Compute Engine", 128, 16, "arm64", 4096);
        InstanceInfo i, s;
        unsigned exact, glob_long, glob_short, cls, cls_glob;

        (void) state;
        instance_identify(&ec2, "auto", &i);
        exact = fleet_match_score(FLEET_MATCH_INSTANCE_TYPE, "r7g.4xlarge", NULL, &i);
        glob_long = fleet_match_score(FLEET_MATCH_INSTANCE_TYPE, "r7g.*", NULL, &i);
        glob_short = fleet_match_score(FLEET_MATCH_INSTANCE_TYPE, "r7*", NULL, &i);
        cls = fleet_match_score(FLEET_MATCH_CLASS, "mem-128g-16c-arm64", NULL, &i);
        cls_glob = fleet_match_score(FLEET_MATCH_CLASS, "mem-128g-*", NULL, &i);
        assert_true(exact > glob_long);
        assert_true(glob_long > glob_short);
        assert_true(glob_short > cls);
        assert_true(cls > cls_glob);
        assert_true(cls_glob > fleet_match_score(FLEET_MATCH_CLASS, "mem-*", NULL, &i));
        assert_true(fleet_match_score(FLEET_MATCH_CLASS, "mem-*", NULL, &i) > 0);

        assert_int_equal(fleet_match_score(FLEET_MATCH_INSTANCE_TYPE, "r7g.8xlarge", NULL, &i), 0);
        assert_int_equal(fleet_match_score(FLEET_MATCH_INSTANCE_TYPE, "m7g.*", NULL, &i), 0);
        assert_int_equal(fleet_match_score(FLEET_MATCH_INSTANCE_TYPE, "R7G.*", NULL, &i), 0);
        assert_int_equal(fleet_match_score(FLEET_MATCH_CLASS, "mem-*-x86_64", NULL, &i), 0);
        assert_int_equal(fleet_match_score(FLEET_MATCH_NONE, "r7g.*", NULL, &i), 0);
        assert_true(fleet_match_score(FLEET_MATCH_INSTANCE_TYPE, "r7g.[48]xlarge", NULL, &i) > 0);

        /* a sizing class is never matched as an instance type */
        instance_identify(&gce, "auto", &s);
        assert_int_equal(fleet_match_score(FLEET_MATCH_INSTANCE_TYPE, "mem-*", NULL, &s), 0);
        assert_int_equal(fleet_match_score(FLEET_MATCH_INSTANCE_TYPE, "*", NULL, &s), 0);
        assert_true(fleet_match_score(FLEET_MATCH_CLASS, "mem-128g-16c-arm64", NULL, &s) > 0);
}

static void write_fleet(TestRoot *t)
{
        tr_write(t, "etc/fragd/fleet.d/r7g.conf", "[match]\ninstance_type = r7g.*\n[policy]\nreserve_thp = 3%\n");
        tr_write(t, "etc/fragd/fleet.d/r7g-4xl.conf",
                 "[match]\ninstance_type = r7g.4xlarge\n[policy]\nreserve_thp = 4%\n");
        tr_write(t, "etc/fragd/fleet.d/class.conf",
                 "[match]\nclass = mem-128g-16c-arm64\n[policy]\nreserve_thp = 5%\n");
        tr_write(t, "etc/fragd/fleet.d/class-glob.conf",
                 "[match]\nclass = mem-*-arm64\n[policy]\nreserve_thp = 6%\n");
        tr_write(t, "etc/fragd/fleet.d/README", "not a fleet file");
}

static void test_fleet_choice(void **state)
{
        static const struct {
                const char *vendor, *product;
                uint64_t gib;
                unsigned cpus;
                const char *arch;
                const char *want_file; /* NULL: none */
                uint32_t want_permyriad;
        } t[] = {
                { "Amazon EC2", "r7g.4xlarge", 128, 16, "arm64", "r7g-4xl.conf", 400 },  /* exact */
                { "Amazon EC2", "r7g.8xlarge", 256, 32, "arm64", "r7g.conf", 300 },      /* glob */
                { "Google", "Google Compute Engine", 128, 16, "arm64", "class.conf", 500 },
                { "Google", "Google Compute Engine", 64, 8, "arm64", "class-glob.conf", 600 },
                { "Google", "Google Compute Engine", 64, 8, "x86_64", NULL, 200 },       /* preset */
                { "Amazon EC2", "m7i.large", 8, 2, "x86_64", NULL, 200 },
                { "Amazon EC2", "c7g.xlarge", 128, 16, "arm64", "class.conf", 500 },     /* type, no file */
        };
        TestRoot *t0 = tr_new();

        (void) state;
        write_fleet(t0);
        for (size_t i = 0; i < ELEMENTSOF(t); i++) {
                InstanceProbe p = probe_make(t[i].vendor, t[i].product, t[i].gib, t[i].cpus, t[i].arch, 4096);
                TestLoad *l = tl_load_root(t0, &p, NULL, 0);
                char want[256];

                tl_dump_errors(l);
                assert_int_equal(l->r, 0);
                if (t[i].want_file) {
                        snprintf(want, sizeof(want), "/etc/fragd/fleet.d/%s", t[i].want_file);
                        assert_string_equal(l->src.instance.fleet_file, want);
                } else
                        assert_string_equal(l->src.instance.fleet_file, "");
                assert_int_equal(l->cfg.policy.reserve_thp.permyriad, t[i].want_permyriad);
                free(l);
        }

        /* instance_type from the config file picks the fleet file */
        tr_write(t0, "etc/fragd/fragd.conf", "[fleet]\ninstance_type = r7g.4xlarge\n");
        InstanceProbe g = probe_make("Google", "Google Compute Engine", 64, 8, "x86_64", 4096);
        TestLoad *l = tl_load_root(t0, &g, NULL, 0);
        assert_int_equal(l->r, 0);
        assert_string_equal(l->src.instance.source, "config");
        assert_string_equal(l->src.instance.fleet_file, "/etc/fragd/fleet.d/r7g-4xl.conf");
        assert_int_equal(l->cfg.policy.reserve_thp.permyriad, 400);
        free(l);

        /* and --set beats the file; fleet_dir moves the directory */
        static const char *const set[] = { "fleet.instance_type=r7g.2xlarge" };
        l = tl_load_root(t0, &g, set, 1);
        assert_string_equal(l->src.instance.fleet_file, "/etc/fragd/fleet.d/r7g.conf");
        free(l);
        tr_write(t0, "etc/fragd/fragd.conf", "[fleet]\ninstance_type = r7g.4xlarge\nfleet_dir = /srv/fleet\n");
        tr_write(t0, "srv/fleet/any.conf", "[match]\ninstance_type = r7g.*\n[daemon]\ndry_run = yes\n");
        l = tl_load_root(t0, &g, NULL, 0);
        assert_int_equal(l->r, 0);
        assert_string_equal(l->src.instance.fleet_file, "/srv/fleet/any.conf");
        assert_true(l->cfg.daemon.dry_run);
        free(l);
        tr_write(t0, "etc/fragd/fragd.conf", "[fleet]\nfleet_dir =\n");
        l = tl_load_root(t0, &g, NULL, 0);
        assert_int_equal(l->r, 0);
        assert_string_equal(l->src.instance.fleet_file, "");
        free(l);
        tr_free(t0);
}

static void test_fleet_errors(void **state)
{
        TestRoot *t = tr_new();
        InstanceProbe p = probe_make("Amazon EC2", "r7g.4xlarge", 128, 16, "arm64", 4096);
        TestLoad *l;

        (void) state;
        /* equally specific globs: both have the literal prefix "r7g." */
        tr_write(t, "etc/fragd/fleet.d/a.conf", "[match]\ninstance_type = r7g.*\n");
        tr_write(t, "etc/fragd/fleet.d/b.conf", "[match]\ninstance_type = r7g.?xlarge\n");
        l = tl_load_root(t, &p, NULL, 0);
        assert_int_equal(l->r, -EINVAL);
        assert_non_null(tl_error(l, "/etc/fragd/fleet.d/b.conf:2: ambiguous fleet match for 'r7g.4xlarge'",
                                 "a.conf:2 are equally specific"));
        free(l);

        /* an exact match settles it */
        tr_write(t, "etc/fragd/fleet.d/c.conf", "[match]\ninstance_type = r7g.4xlarge\n");
        l = tl_load_root(t, &p, NULL, 0);
        assert_int_equal(l->r, 0);
        assert_string_equal(l->src.instance.fleet_file, "/etc/fragd/fleet.d/c.conf");
        free(l);

        /* broken files are reported whether or not they match this host */
        tr_write(t, "etc/fragd/fleet.d/d.conf", "[match]\ninstance_type = r7g.4xlarge\n");
        tr_write(t, "etc/fragd/fleet.d/e.conf", "[policy]\nreserve_thp = 3%\n");
        tr_write(t, "etc/fragd/fleet.d/f.conf", "[match]\ninstance_type = m7g.*\nclass = mem-*\n");
        tr_write(t, "etc/fragd/fleet.d/g.conf", "[match]\nclass = m7g.*\n[fleet]\nfleet_dir = /x\n");
        tr_write(t, "etc/fragd/fleet.d/h.conf", "[match]\ninstance_type = x 1\n[policy]\nreserv_thp = 1%\n");
        l = tl_load_root(t, &p, NULL, 0);
        assert_int_equal(l->r, -EINVAL);
        assert_non_null(tl_error(l, "fleet.d/d.conf:2: same [match] instance_type = r7g.4xlarge as "
                                    "/etc/fragd/fleet.d/c.conf:2",
                                 NULL));
        assert_non_null(tl_error(l, "fleet.d/e.conf: fleet file without [match]", NULL));
        assert_non_null(tl_error(l, "fleet.d/f.conf:3: a fleet file matches one thing", NULL));
        assert_non_null(tl_error(l, "fleet.d/g.conf:3: [fleet] cannot be set from a fleet file", NULL));
        assert_non_null(tl_error(l, "fleet.d/h.conf:2:", "invalid pattern 'x 1'"));
        assert_non_null(tl_error(l, "fleet.d/h.conf:4: unknown key 'reserv_thp'", "did you mean 'reserve_thp'"));
        free(l);
        tr_free(t);
}

/* A [match] glob that can never match an instance type or class name is an
 * error naming the file, the line and what is wrong. */
static void test_fleet_pattern_never_matches(void **state)
{
        static const struct {
                const char *pattern, *why;
        } bad[] = {
                { "[", "the '[' at position 1 is never closed by ']'" },
                { "r7g.[48xlarge", "the '[' at position 5 is never closed" },
                { "r7g.[]", "the '[' at position 5 is never closed" },
                { "r7g]", "']' at position 4 is outside [...]" },
                { "!r7g.*", "'!' at position 1 is outside [...]" },
                { "r7g.[*]xlarge", "'*' inside [...] at position 6 matches no name" },
                { "r[9-1]g.*", "the range '9-1' in [...] is backwards" },
        };
        static const char *const good[] = { "r7g.*", "r7g.[48]xlarge", "r7g.[!1]xlarge", "r[5-7]g.?xlarge",
                                            "[]a]", "mem-*", "Standard_E8s_v5" };
        InstanceProbe p = probe_make("Amazon EC2", "r7g.4xlarge", 128, 16, "arm64", 4096);
        char buf[160], text[256];

        (void) state;
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                TestRoot *t = tr_new();
                TestLoad *l;
                const char *why = config_match_pattern_check(bad[i].pattern, buf, sizeof(buf));

                assert_non_null(why);
                assert_non_null(strstr(why, bad[i].why));
                snprintf(text, sizeof(text), "[match]\ninstance_type = %s\n", bad[i].pattern);
                tr_write(t, "etc/fragd/fleet.d/x.conf", text);
                l = tl_load_root(t, &p, NULL, 0);
                assert_int_equal(l->r, -EINVAL);
                snprintf(text, sizeof(text), "invalid pattern '%s'", bad[i].pattern);
                assert_non_null(tl_error(l, "fleet.d/x.conf:2:", text));
                assert_non_null(tl_error(l, "fleet.d/x.conf:2:", bad[i].why));
                free(l);
                tr_free(t);
        }
        for (size_t i = 0; i < ELEMENTSOF(good); i++)
                assert_null(config_match_pattern_check(good[i], buf, sizeof(buf)));
}

/* The shipped fleet/ directory: loads cleanly, and picks what its README
 * promises. */
static void test_shipped_fleet_dir(void **state)
{
        static const struct {
                const char *product;
                uint64_t gib;
                unsigned cpus;
                const char *arch;
                unsigned page;
                const char *want;
        } t[] = {
                { "r7g.4xlarge", 128, 16, "arm64", 4096, "r7g.conf" },
                { "r7g.16xlarge", 512, 64, "arm64", 4096, "r7g.16xlarge.conf" },
                { "r7i.48xlarge", 1536, 192, "x86_64", 4096, "r7i.conf" },
                { "r6i.2xlarge", 64, 8, "x86_64", 4096, "r6i.conf" },
                { "m7g.4xlarge", 64, 16, "arm64", 4096, "m7g.conf" },
                { "m7i.8xlarge", 128, 32, "x86_64", 4096, "m7i.conf" },
                { "x2idn.32xlarge", 2048, 128, "x86_64", 4096, "x2idn.conf" },
                { "r7g.4xlarge", 128, 16, "arm64", 65536, "r7g.conf" }, /* a type file beats the class */
                { "Virtual Machine", 128, 16, "arm64", 65536, "arm64-64k.conf" },
                { "c7i.large", 4, 2, "x86_64", 4096, NULL },
        };
        TestRoot *root = tr_new();
        char dir[512];
        unsigned copied = 0;
        DIR *d;
        struct dirent *de;

        (void) state;
        /* copy the repo's fleet/ where the package puts it */
        snprintf(dir, sizeof(dir), "%s/fleet", srcdir());
        d = opendir(dir);
        assert_non_null(d);
        while ((de = readdir(d))) {
                char path[1024], rel[512], *buf = NULL;
                size_t len = 0;
                int dfd = dirfd(d);

                if (!strstr(de->d_name, ".conf"))
                        continue;
                snprintf(path, sizeof(path), "%s", de->d_name);
                assert_int_equal(read_file_alloc_at(dfd, path, &buf, &len), 0);
                snprintf(rel, sizeof(rel), "usr/share/fragd/fleet/%s", de->d_name);
                tr_write(root, rel, buf);
                free(buf);
                copied++;
        }
        closedir(d);
        assert_true(copied >= 8);

        for (size_t i = 0; i < ELEMENTSOF(t); i++) {
                bool ec2 = strchr(t[i].product, '.') != NULL;
                InstanceProbe p = probe_make(ec2 ? "Amazon EC2" : "Microsoft Corporation", t[i].product,
                                             t[i].gib, t[i].cpus, t[i].arch, t[i].page);
                ConfigLoadArgs a = { .root = root->root, .probe = &p, .vendor_fleet_dir = "/usr/share/fragd/fleet" };
                TestLoad *l = tl_load(&a);
                const char *base;

                tl_dump_errors(l);
                assert_int_equal(l->r, 0);
                base = strrchr(l->src.instance.fleet_file, '/');
                if (t[i].want) {
                        if (!base || strcmp(base + 1, t[i].want) != 0)
                                fail_msg("%s: got '%s', want %s", t[i].product, l->src.instance.fleet_file,
                                         t[i].want);
                } else
                        assert_string_equal(l->src.instance.fleet_file, "");
                if (t[i].page == 65536 && !ec2)
                        assert_int_equal(l->cfg.policy.order_thp, 5);
                free(l);
        }
        tr_free(root);
}

/* Vendor files in the package's directory, the admin's in fleet.d: a
 * same-named admin file replaces the vendor's, an empty one or a link to
 * /dev/null masks it, other names from both count. */
static void test_vendor_and_admin(void **state)
{
        InstanceProbe p = probe_make("Amazon EC2", "r7g.4xlarge", 128, 16, "arm64", 4096);
        TestRoot *t = tr_new();
        ConfigLoadArgs a = { .root = t->root, .probe = &p, .vendor_fleet_dir = "/usr/share/fragd/fleet" };
        TestLoad *l;
        char buf[FRAGD_PATH_MAX + 32], path[256];

        (void) state;
        tr_write(t, "usr/share/fragd/fleet/x.conf", "[match]\ninstance_type = r7g.*\n[policy]\nreserve_thp = 3%\n");
        tr_write(t, "usr/share/fragd/fleet/z.conf", "[match]\nclass = mem-*\n[policy]\nreserve_thp = 1%\n");
        l = tl_load(&a);
        tl_dump_errors(l);
        assert_int_equal(l->r, 0);
        assert_string_equal(l->src.instance.fleet_file, "/usr/share/fragd/fleet/x.conf");
        assert_string_equal(tl_source(l, "policy", "reserve_thp", 0, buf, sizeof(buf)),
                            "fleet /usr/share/fragd/fleet/x.conf:4");
        free(l);

        /* the admin's x.conf replaces the vendor's: the vendor's is not read,
         * so its [match] does not clash */
        tr_write(t, "etc/fragd/fleet.d/x.conf", "[match]\ninstance_type = r7g.*\n[policy]\nreserve_thp = 4%\n");
        tr_write(t, "etc/fragd/fleet.d/y.conf", "[match]\ninstance_type = r7g.4xlarge\n[daemon]\ndry_run = yes\n");
        l = tl_load(&a);
        tl_dump_errors(l);
        assert_int_equal(l->r, 0);
        assert_string_equal(l->src.instance.fleet_file, "/etc/fragd/fleet.d/y.conf");
        assert_true(l->cfg.daemon.dry_run);
        for (unsigned i = 0; i < l->src.n_files; i++)
                assert_null(strstr(l->src.files[i], "/usr/share/fragd/fleet/x.conf"));
        free(l);
        tr_unlink(t, "etc/fragd/fleet.d/y.conf");
        l = tl_load(&a);
        assert_int_equal(l->r, 0);
        assert_string_equal(l->src.instance.fleet_file, "/etc/fragd/fleet.d/x.conf");
        assert_int_equal(l->cfg.policy.reserve_thp.permyriad, 400);
        free(l);

        /* masked: an empty file, or a symbolic link to /dev/null (which
         * under --root does not even exist) */
        tr_write(t, "etc/fragd/fleet.d/x.conf", "");
        l = tl_load(&a);
        tl_dump_errors(l);
        assert_int_equal(l->r, 0);
        assert_string_equal(l->src.instance.fleet_file, "/usr/share/fragd/fleet/z.conf");
        free(l);
        tr_unlink(t, "etc/fragd/fleet.d/x.conf");
        snprintf(path, sizeof(path), "%s/etc/fragd/fleet.d/x.conf", t->dir);
        assert_int_equal(symlink("/dev/null", path), 0);
        l = tl_load(&a);
        tl_dump_errors(l);
        assert_int_equal(l->r, 0);
        assert_string_equal(l->src.instance.fleet_file, "/usr/share/fragd/fleet/z.conf");
        free(l);

        /* fleet_dir = (empty): no fleet files at all */
        static const char *const none[] = { "fleet.fleet_dir=" };
        a.set = none;
        a.n_set = 1;
        l = tl_load(&a);
        assert_int_equal(l->r, 0);
        assert_string_equal(l->src.instance.fleet_file, "");
        free(l);
        tr_free(t);
}

/* [match] cloud = ...: alone, or narrowing an instance_type or class. */
static void test_cloud_match(void **state)
{
        InstanceProbe gce = probe_make("Google", "Google Compute Engine", 64, 16, "x86_64", 4096);
        InstanceProbe azure = probe_make("Microsoft Corporation", "Virtual Machine", 64, 16, "x86_64", 4096);
        InstanceProbe hyperv = azure;
        InstanceProbe ec2 = probe_make("Amazon EC2", "r7g.4xlarge", 128, 16, "arm64", 4096);
        InstanceInfo i;
        TestRoot *t = tr_new();
        TestLoad *l;

        (void) state;
        snprintf(azure.dmi.chassis_asset_tag, sizeof(azure.dmi.chassis_asset_tag),
                 "7783-7084-3265-9085-8269-3286-77\n");
        instance_identify(&gce, "auto", &i);
        assert_string_equal(i.cloud, "gce");
        assert_string_equal(i.source, "sizing");
        instance_identify(&azure, "auto", &i);
        assert_string_equal(i.cloud, "azure");
        instance_identify(&hyperv, "auto", &i);
        assert_null(i.cloud);
        instance_identify(&ec2, "r7g.8xlarge", &i);
        assert_string_equal(i.cloud, "aws");

        instance_identify(&gce, "auto", &i);
        assert_true(fleet_match_score(FLEET_MATCH_NONE, "", "gce", &i) > 0);
        assert_int_equal(fleet_match_score(FLEET_MATCH_NONE, "", "azure", &i), 0);
        assert_true(fleet_match_score(FLEET_MATCH_CLASS, "mem-64g-*", "gce", &i) >
                    fleet_match_score(FLEET_MATCH_CLASS, "mem-64g-*", NULL, &i));
        assert_true(fleet_match_score(FLEET_MATCH_CLASS, "mem-64g-*", NULL, &i) >
                    fleet_match_score(FLEET_MATCH_NONE, "", "gce", &i));
        assert_int_equal(fleet_match_score(FLEET_MATCH_CLASS, "mem-64g-*", "aws", &i), 0);

        tr_write(t, "etc/fragd/fleet.d/gce.conf", "[match]\ncloud = gce\n[policy]\nreserve_thp = 1%\n");
        tr_write(t, "etc/fragd/fleet.d/gce-64.conf",
                 "[match]\ncloud = gce\nclass = mem-64g-*\n[policy]\nreserve_thp = 2%\n");
        tr_write(t, "etc/fragd/fleet.d/any-64.conf", "[match]\nclass = mem-64g-*\n[policy]\nreserve_thp = 3%\n");
        tr_write(t, "etc/fragd/fleet.d/azure.conf", "[match]\ncloud = azure\n[policy]\nreserve_thp = 4%\n");
        l = tl_load_root(t, &gce, NULL, 0);
        tl_dump_errors(l);
        assert_int_equal(l->r, 0);
        assert_string_equal(l->src.instance.fleet_file, "/etc/fragd/fleet.d/gce-64.conf");
        assert_string_equal(l->src.instance.fleet_match, "cloud = gce, class = mem-64g-*");
        free(l);
        l = tl_load_root(t, &azure, NULL, 0);
        assert_int_equal(l->r, 0);
        assert_string_equal(l->src.instance.fleet_file, "/etc/fragd/fleet.d/any-64.conf");
        free(l);
        tr_unlink(t, "etc/fragd/fleet.d/any-64.conf");
        l = tl_load_root(t, &azure, NULL, 0);
        assert_int_equal(l->r, 0);
        assert_string_equal(l->src.instance.fleet_file, "/etc/fragd/fleet.d/azure.conf");
        assert_string_equal(l->src.instance.fleet_match, "cloud = azure");
        free(l);
        l = tl_load_root(t, &hyperv, NULL, 0);
        assert_int_equal(l->r, 0);
        assert_string_equal(l->src.instance.fleet_file, "");
        free(l);

        tr_write(t, "etc/fragd/fleet.d/bad.conf", "[match]\ncloud = oracle\n");
        tr_write(t, "etc/fragd/fleet.d/dup.conf", "[match]\ncloud = azure\n");
        l = tl_load_root(t, &azure, NULL, 0);
        assert_int_equal(l->r, -EINVAL);
        assert_non_null(tl_error(l, "bad.conf:2: [match] cloud = oracle: not aws, gce or azure", NULL));
        assert_non_null(tl_error(l, "same [match] cloud = azure as", NULL));
        free(l);
        tr_free(t);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_sizing_class),
                cmocka_unit_test(test_identify_order),
                cmocka_unit_test(test_match_score),
                cmocka_unit_test(test_fleet_choice),
                cmocka_unit_test(test_fleet_errors),
                cmocka_unit_test(test_fleet_pattern_never_matches),
                cmocka_unit_test(test_shipped_fleet_dir),
                cmocka_unit_test(test_vendor_and_admin),
                cmocka_unit_test(test_cloud_match),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
