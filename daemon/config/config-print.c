/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Printing a loaded configuration: the error list, the detected instance,
 * and the effective configuration with the source of every value (what
 * fragd --check-config prints, cli/check-config.c). Formatting only: it
 * never loads. */

#include <stdio.h>
#include <string.h>

#include "config/config-load-internal.h"
#include "core/cleanup.h"
#include "core/log.h"

/* ---- output ---- */

static void print_list(FILE *f, const char *prefix, const char (*msg)[CONFIG_ERROR_MAX], unsigned n,
                       unsigned dropped, const char *what)
{
        for (unsigned i = 0; i < n; i++)
                fprintf(f, "%s%s\n", prefix, msg[i]);
        if (dropped)
                fprintf(f, "%s... and %u more %s\n", prefix, dropped, what);
}

void config_errors_print(FILE *f, const ConfigErrors *errs)
{
        if (errs)
                print_list(f, "", errs->msg, errs->n, errs->n_dropped, "errors");
}

void config_warnings_print(FILE *f, const ConfigErrors *errs)
{
        if (errs)
                print_list(f, "warning: ", errs->warning, errs->n_warnings, errs->n_warnings_dropped, "warnings");
}

void config_warnings_log(const ConfigErrors *errs)
{
        if (!errs)
                return;
        for (unsigned i = 0; i < errs->n_warnings; i++)
                log_warning("Configuration: %s", errs->warning[i]);
        if (errs->n_warnings_dropped)
                log_warning("Configuration: ... and %u more warnings", errs->n_warnings_dropped);
}

static void print_key(FILE *f, const ConfigKey *k, const FragdConfig *c, const ConfigSources *s, int sub)
{
        char v[FRAGD_PATH_MAX], line[FRAGD_PATH_MAX + 64], where[FRAGD_PATH_MAX + 32];

        config_key_format(k, c, sub, v, sizeof(v));
        snprintf(line, sizeof(line), "%s = %s", k->name, v);
        fprintf(f, "%-40s ; %s\n", line, config_slot_source(s, k, sub, where, sizeof(where)));
}

static void print_section(FILE *f, SectionKind sec, const FragdConfig *c, const ConfigSources *s, int sub)
{
        size_t n;
        const ConfigKey *keys = config_keys(sec, &n);

        for (size_t i = 0; i < n; i++)
                print_key(f, &keys[i], c, s, sub);
}

void config_print(FILE *f, const FragdConfig *c, const ConfigSources *s)
{
        const InstanceInfo *i = &s->instance;
        char where[FRAGD_PATH_MAX + 32];

        fprintf(f, "; fragd effective configuration\n");
        fprintf(f, "; instance type: %s (%s), sizing class: %s\n", i->name[0] ? i->name : "unknown",
                i->source ? i->source : "not detected", i->class_name[0] ? i->class_name : "unknown");
        fprintf(f, "; cloud (from DMI): %s\n", i->cloud ? i->cloud : "none recognised");
        fprintf(f, "; architecture (for the sizing class) from %s\n", i->arch_source ? i->arch_source : "nowhere");
        if (s->fleet_dirs[1][0])
                fprintf(f, "; fleet files: %s, overridden by name from %s\n", s->fleet_dirs[0], s->fleet_dirs[1]);
        if (i->fleet_file[0])
                fprintf(f, "; fleet file: %s ([match] %s)\n", i->fleet_file, i->fleet_match);
        else
                fprintf(f, "; fleet file: none\n");
        /* one per line: printed lines stay under the INI line limit */
        if (s->n_files == 0)
                fprintf(f, "; files read: none\n");
        for (unsigned j = 0; j < s->n_files; j++)
                fprintf(f, "; file read: %s\n", s->files[j]);

        fprintf(f, "\n[daemon]\n");
        print_section(f, SECTION_DAEMON, c, s, 0);
        fprintf(f, "\n[policy]\n");
        print_section(f, SECTION_POLICY, c, s, 0);
        for (int lv = 0; lv < _LEVER_MAX; lv++) {
                fprintf(f, "\n[knob \"%s\"]\n", lever_name(lv));
                print_section(f, SECTION_KNOB, c, s, lv);
        }
        for (unsigned g = 0; g < c->n_cgroups; g++) {
                fprintf(f, "\n[cgroup \"%s\"]%*s ; %s\n", c->cgroups[g].path,
                        (int) MAX(0, 30 - (int) strlen(c->cgroups[g].path)), "",
                        config_source_format(s, s->cgroup[g], where, sizeof(where)));
                print_section(f, SECTION_CGROUP, c, s, (int) g);
        }
        fprintf(f, "\n[fleet]\n");
        print_section(f, SECTION_FLEET, c, s, 0);
}
