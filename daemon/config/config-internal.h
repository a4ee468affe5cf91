/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* The key table (daemon/config/config-table.c), shared by loading (config.c,
 * config-parse.c, config-validate.c, config-source.c: see
 * config-load-internal.h), printing (config-print.c) and fleet.c. Not a
 * public interface. */

#include <stddef.h>

#include "config/config.h"

typedef enum SectionKind {
        SECTION_DAEMON,
        SECTION_POLICY,
        SECTION_KNOB,   /* [knob "<lever>"] */
        SECTION_CGROUP, /* [cgroup "<path>"] */
        SECTION_FLEET,
        SECTION_MATCH,  /* fleet files only */
        _SECTION_MAX,
} SectionKind;

typedef enum ValueType {
        VT_BOOL,
        VT_DURATION,    /* usec_t or uint32_t usec */
        VT_SIZE,        /* SizeSpec; min/max bound the share in permyriad */
        VT_BYTES,       /* uint64_t */
        VT_RATIO,       /* uint32_t permyriad */
        VT_RATE,        /* double, per second */
        VT_NUMBER,      /* double */
        VT_UINT,        /* unsigned */
        VT_PATH,        /* char[FRAGD_PATH_MAX], absolute; "" when empty_ok */
        VT_INSTANCE,    /* char[128]: "auto" or a name */
        VT_PRESET,
        VT_LOG_LEVEL,
        VT_OWNERSHIP,
        VT_CGROUP_THP,
        VT_LEVER_VALUE, /* int64_t in the lever's unit: min, max */
        VT_LEVER_STEP,  /* int64_t: step_up, step_down */
        VT_MATCH,       /* [match] pattern: not stored in FragdConfig */
} ValueType;

typedef struct ConfigKey {
        SectionKind section;
        const char *name;
        ValueType type;
        size_t offset; /* in FragdConfig; LeverConfig for knob keys; CgroupConfig for cgroup keys */
        size_t size;
        int64_t min, max; /* storage units (usec, permyriad, bytes); unused for lever keys */
        bool zero_ok;     /* 0 (or "") allowed below min: "off"/"never" */
        const char *help; /* one line: shown by --check-config on errors */
} ConfigKey;

#define CONFIG_INSTANCE_TYPE_MAX 128

int config_section_from_name(const char *name); /* SectionKind or -ENOENT */
const char *config_section_name(SectionKind s);
bool config_section_has_sub(SectionKind s);
const ConfigKey *config_keys(SectionKind s, size_t *ret_n);
const ConfigKey *config_key_find(SectionKind s, const char *name);
/* The closest name within edit distance 2, or NULL. */
const char *config_suggest(const char *name, const char *const *candidates, size_t n);
const char *config_key_suggest(SectionKind s, const char *name);
const char *config_section_suggest(const char *name);
const char *config_lever_suggest(const char *name);

/* Index into ConfigSources.slot: one per key, per lever, per cgroup. */
unsigned config_key_slot(const ConfigKey *k, int sub);

/* Parses value and stores it into c (sub = lever for knob keys, cgroup
 * index for cgroup keys). On error writes a message naming what is allowed
 * into err and returns -EBADMSG, -ERANGE or -EDOM; c is untouched. */
int config_key_apply(const ConfigKey *k, FragdConfig *c, int sub, const char *value, char *err, size_t errsize);
char *config_key_format(const ConfigKey *k, const FragdConfig *c, int sub, char *buf, size_t size);

/* Validates a cgroup path (relative to the cgroup2 root; a leading '/' is
 * dropped) into ret. -EINVAL with a message. */
int config_cgroup_path(const char *path, char *ret, size_t size, char *err, size_t errsize);
/* Fleet [match] pattern: [A-Za-z0-9._-] plus glob characters. */
bool config_match_pattern_valid(const char *p);
bool config_instance_name_valid(const char *p);
