/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fake-systemd1 SPEC: answers the few org.freedesktop.systemd1 calls that
 * `fragd thp-dropin` makes, on the bus DBUS_SYSTEM_BUS_ADDRESS names (a
 * private dbus-daemon of the test, never the host's): per unit its
 * LoadState, ConsistsOf (Unit), Type and ExecStart (Service), and the
 * manager's ListUnitsByPatterns. SPEC has one unit a line, fields split by
 * '|':
 *   NAME|LOADSTATE|TYPE|CONSISTSOF,...|ARGV0 ARG...;ARGV0 ARG...
 * (ExecStart commands split by ';', arguments by ' '). A unit not in SPEC
 * is "not-found". Prints "ready" on stdout once the name is owned. */

#include <errno.h>
#include <fnmatch.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-bus.h>

#define MAX_UNITS 32

typedef struct FakeUnit {
        char *name, *load_state, *type, *consists, *exec;
} FakeUnit;

static FakeUnit units[MAX_UNITS];
static size_t n_units;

static FakeUnit *unit_find(const char *name)
{
        for (size_t i = 0; i < n_units; i++)
                if (strcmp(units[i].name, name) == 0)
                        return &units[i];
        return NULL;
}

static int load_spec(const char *path)
{
        char line[4096];
        FILE *f = fopen(path, "re");

        if (!f)
                return -errno;
        while (n_units < MAX_UNITS && fgets(line, sizeof(line), f)) {
                char *fields[5], *p = line;
                size_t n = 0;

                line[strcspn(line, "\n")] = '\0';
                if (!line[0] || line[0] == '#')
                        continue;
                while (n < 5 && (fields[n] = strsep(&p, "|")))
                        n++;
                if (n != 5) {
                        fclose(f);
                        return -EBADMSG;
                }
                units[n_units++] = (FakeUnit) { strdup(fields[0]), strdup(fields[1]), strdup(fields[2]),
                                                strdup(fields[3]), strdup(fields[4]) };
        }
        fclose(f);
        return 0;
}

static FakeUnit *unit_of_path(const char *path)
{
        char *name = NULL;
        FakeUnit *u;

        if (sd_bus_path_decode(path, "/org/freedesktop/systemd1/unit", &name) <= 0)
                return NULL;
        u = unit_find(name);
        free(name);
        return u;
}

static int find_unit(sd_bus *bus, const char *path, const char *interface, void *userdata, void **found,
                     sd_bus_error *error)
{
        char *name = NULL;
        FakeUnit *u;

        if (sd_bus_path_decode(path, "/org/freedesktop/systemd1/unit", &name) <= 0)
                return 0;
        free(name);
        u = unit_of_path(path);
        /* every name has a Unit object (systemd loads on demand); only a
         * loaded unit has the Service interface */
        if (strcmp(interface, "org.freedesktop.systemd1.Service") == 0 &&
            (!u || strcmp(u->load_state, "loaded") != 0))
                return 0;
        *found = u;
        return 1;
}

static int get_load_state(sd_bus *bus, const char *path, const char *interface, const char *property,
                          sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
        FakeUnit *u = userdata;

        return sd_bus_message_append(reply, "s", u ? u->load_state : "not-found");
}

static int get_consists_of(sd_bus *bus, const char *path, const char *interface, const char *property,
                           sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
        FakeUnit *u = userdata;
        char *list, *p, *s;
        int r;

        r = sd_bus_message_open_container(reply, 'a', "s");
        if (r < 0 || !u || strcmp(u->consists, "-") == 0)
                return r < 0 ? r : sd_bus_message_close_container(reply);
        list = p = strdup(u->consists);
        while (r >= 0 && (s = strsep(&p, ",")))
                if (*s)
                        r = sd_bus_message_append(reply, "s", s);
        free(list);
        return r < 0 ? r : sd_bus_message_close_container(reply);
}

static int get_type(sd_bus *bus, const char *path, const char *interface, const char *property,
                    sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
        FakeUnit *u = userdata;

        return sd_bus_message_append(reply, "s", u->type);
}

static int append_command(sd_bus_message *reply, char *cmd)
{
        char *argv[64], *p = cmd, *a;
        size_t argc = 0;
        bool ignore = cmd[0] == '-';
        int r;

        if (ignore)
                p++;
        while (argc < 63 && (a = strsep(&p, " ")))
                if (*a)
                        argv[argc++] = a;
        argv[argc] = NULL;
        if (argc == 0)
                return 0;
        r = sd_bus_message_open_container(reply, 'r', "sasbttttuii");
        if (r >= 0)
                r = sd_bus_message_append(reply, "s", argv[0]);
        if (r >= 0)
                r = sd_bus_message_append_strv(reply, argv);
        if (r >= 0)
                r = sd_bus_message_append(reply, "bttttuii", ignore, (uint64_t) 0, (uint64_t) 0, (uint64_t) 0,
                                          (uint64_t) 0, (uint32_t) 0, (int32_t) 0, (int32_t) 0);
        return r < 0 ? r : sd_bus_message_close_container(reply);
}

static int get_exec_start(sd_bus *bus, const char *path, const char *interface, const char *property,
                          sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
        FakeUnit *u = userdata;
        char *list, *p, *cmd;
        int r;

        r = sd_bus_message_open_container(reply, 'a', "(sasbttttuii)");
        list = p = strdup(u->exec);
        while (r >= 0 && (cmd = strsep(&p, ";")))
                r = append_command(reply, cmd);
        free(list);
        return r < 0 ? r : sd_bus_message_close_container(reply);
}

static int list_units_by_patterns(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
        sd_bus_message *reply = NULL;
        char **states = NULL, **patterns = NULL;
        int r;

        r = sd_bus_message_read_strv(m, &states);
        if (r >= 0)
                r = sd_bus_message_read_strv(m, &patterns);
        if (r >= 0)
                r = sd_bus_message_new_method_return(m, &reply);
        if (r >= 0)
                r = sd_bus_message_open_container(reply, 'a', "(ssssssouso)");
        for (size_t i = 0; r >= 0 && i < n_units; i++) {
                bool match = !patterns || !patterns[0];

                for (char **p = patterns; p && *p; p++)
                        match = match || fnmatch(*p, units[i].name, 0) == 0;
                if (match)
                        r = sd_bus_message_append(reply, "(ssssssouso)", units[i].name, "", units[i].load_state,
                                                  "active", "running", "", "/", (uint32_t) 0, "", "/");
        }
        if (r >= 0)
                r = sd_bus_message_close_container(reply);
        if (r >= 0)
                r = sd_bus_send(NULL, reply, NULL);
        for (char **p = states; p && *p; p++)
                free(*p);
        for (char **p = patterns; p && *p; p++)
                free(*p);
        free(states);
        free(patterns);
        sd_bus_message_unref(reply);
        return r;
}

static const sd_bus_vtable unit_vtable[] = {
        SD_BUS_VTABLE_START(0),
        SD_BUS_PROPERTY("LoadState", "s", get_load_state, 0, 0),
        SD_BUS_PROPERTY("ConsistsOf", "as", get_consists_of, 0, 0),
        SD_BUS_VTABLE_END,
};

static const sd_bus_vtable service_vtable[] = {
        SD_BUS_VTABLE_START(0),
        SD_BUS_PROPERTY("Type", "s", get_type, 0, 0),
        SD_BUS_PROPERTY("ExecStart", "a(sasbttttuii)", get_exec_start, 0, 0),
        SD_BUS_VTABLE_END,
};

static const sd_bus_vtable manager_vtable[] = {
        SD_BUS_VTABLE_START(0),
        SD_BUS_METHOD("ListUnitsByPatterns", "asas", "a(ssssssouso)", list_units_by_patterns, 0),
        SD_BUS_VTABLE_END,
};

int main(int argc, char **argv)
{
        sd_bus *bus = NULL;
        int r;

        if (argc != 2) {
                fprintf(stderr, "usage: fake-systemd1 SPEC\n");
                return 64;
        }
        r = load_spec(argv[1]);
        if (r < 0) {
                fprintf(stderr, "fake-systemd1: cannot read '%s': %s\n", argv[1], strerror(-r));
                return 1;
        }
        r = sd_bus_open_system(&bus);
        if (r >= 0)
                r = sd_bus_add_fallback_vtable(bus, NULL, "/org/freedesktop/systemd1/unit",
                                               "org.freedesktop.systemd1.Unit", unit_vtable, find_unit, NULL);
        if (r >= 0)
                r = sd_bus_add_fallback_vtable(bus, NULL, "/org/freedesktop/systemd1/unit",
                                               "org.freedesktop.systemd1.Service", service_vtable, find_unit, NULL);
        if (r >= 0)
                r = sd_bus_add_object_vtable(bus, NULL, "/org/freedesktop/systemd1", "org.freedesktop.systemd1.Manager",
                                             manager_vtable, NULL);
        if (r >= 0)
                r = sd_bus_request_name(bus, "org.freedesktop.systemd1", 0);
        if (r < 0) {
                fprintf(stderr, "fake-systemd1: %s\n", strerror(-r));
                return 1;
        }
        printf("ready\n");
        fflush(stdout);
        for (;;) {
                r = sd_bus_process(bus, NULL);
                if (r < 0)
                        break;
                if (r == 0 && sd_bus_wait(bus, UINT64_MAX) < 0)
                        break;
        }
        sd_bus_flush_close_unref(bus);
        return 0;
}
