/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* systemd unit names as systemd.unit(5) defines them, checked before a name
 * from the command line goes into a file path, a drop-in or a printed
 * command (daemon/core/unit-name.c). Pure: no I/O, no logging. */

#include <stddef.h>

/* The longest unit name systemd takes, in bytes (UNIT_NAME_MAX - 1). */
#define UNIT_NAME_LEN_MAX 255

typedef enum UnitNameKind {
        UNIT_NAME_PLAIN,    /* postgresql.service */
        UNIT_NAME_TEMPLATE, /* postgresql@.service */
        UNIT_NAME_INSTANCE, /* postgresql@15-main.service */
} UnitNameKind;

typedef struct UnitName {
        char name[UNIT_NAME_LEN_MAX + 1];   /* the whole name */
        char prefix[UNIT_NAME_LEN_MAX + 1]; /* before '@' (or before the suffix) */
        char instance[UNIT_NAME_LEN_MAX + 1]; /* after '@', before the suffix; "" unless INSTANCE */
        const char *type;                   /* the suffix without '.': "service", "scope", ... (static) */
        UnitNameKind kind;
} UnitName;

/* Pure. Parses len bytes of buf as one unit name: at most
 * UNIT_NAME_LEN_MAX bytes, no NUL; a prefix of [A-Za-z0-9:_.\-] not starting
 * with '.'; optionally '@' and an instance of [A-Za-z0-9:_.\-@] (empty: a
 * template); '.' and a unit type systemd knows (service, socket, target,
 * device, mount, automount, swap, timer, path, slice, scope). 0 and *ret, or
 * -EINVAL (-ENAMETOOLONG when too long) with *ret_why (may be NULL) a short
 * static phrase saying what is wrong: "has no unit type suffix (.service,
 * .scope, ...)", "contains a character systemd does not allow in unit
 * names" and so on. */
int unit_name_parse(const char *buf, size_t len, UnitName *ret, const char **ret_why);

/* The instance units of a template's prefix as a glob: "postgresql" and
 * "service" -> "postgresql@*.service". -ENOBUFS when it does not fit. */
int unit_name_instance_glob(const char *prefix, const char *type, char *buf, size_t size);
