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
/* Pure. Fleet [match] pattern: [A-Za-z0-9._-] plus glob characters * ? and
 * [set] / [!set] of those characters. NULL when valid, else why (in buf, or
 * a constant): a '[' never closed, a ']' or '!' outside a set, a backwards
 * range: a glob that can never match an instance type or class name. */
const char *config_match_pattern_check(const char *pattern, char *buf, size_t size);
bool config_instance_name_valid(const char *p);

/* ---- value parsers (config-values.c) --------------------------------------
 * One parser per kind of value, shared by every key. Return 0, -EBADMSG when
 * malformed, -ERANGE when too large or more precise than the unit allows.
 * Out-params are written only on success. */

/* yes/no, true/false, on/off, 1/0 (any case) */
int config_parse_bool(const char *s, bool *ret);
/* "500ms", "5s", "2min", "1h", "1h30min", "1.5s"; units us ms s min h d (and
 * usec msec sec m hour day). A bare number is an error except "0". */
int config_parse_duration(const char *s, usec_t *ret);
/* "64MiB", "64M", "1.5GiB", "4096" (bytes), "2%" or "0.05%" of node memory.
 * Units B K/KiB M/MiB G/GiB T/TiB P/PiB, all powers of 1024; "kB", "MB"
 * are rejected as ambiguous. Percent has 0.01% resolution, at most 100%. */
int config_parse_size(const char *s, SizeSpec *ret);
/* Like config_parse_size without '%'. */
int config_parse_bytes(const char *s, uint64_t *ret);
/* "0.05" or "5%" -> 500 permyriad; 0..1, resolution 0.0001 (0.01%). */
int config_parse_ratio(const char *s, uint32_t *ret_permyriad);
/* "0.5", "0.5/s", "30/min", "2/h" -> events per second. */
int config_parse_rate(const char *s, double *ret_per_sec);
/* Plain non-negative decimal: "16384", "0.25". */
int config_parse_number(const char *s, double *ret);
/* Decimal integers (core/parse-util.h's parse_u64/parse_i64: '-' for the
 * signed one only), blanks around allowed. */
int config_parse_uint(const char *s, uint64_t *ret);
int config_parse_int(const char *s, int64_t *ret);

/* Formatters produce text the parsers read back to the same value. They
 * return buf. Durations and bytes: core/format.h's format_duration_exact()
 * and format_bytes_exact(). */
char *config_format_size(char *buf, size_t size, SizeSpec s);    /* "2%" or as bytes */
char *config_format_ratio(char *buf, size_t size, uint32_t permyriad); /* "0.05%" */
char *config_format_rate(char *buf, size_t size, double per_sec); /* "0.5/s" */
char *config_format_number(char *buf, size_t size, double v);    /* "16384", "0.25" */

/* Levenshtein distance, capped: returns cap + 1 when larger. */
unsigned config_edit_distance(const char *a, const char *b, unsigned cap);

/* ---- fleet matching (fleet.c) --------------------------------------------- */

/* The sizing class: "mem-<G>g-<C>c-<arch>" plus "-<P>k" when pages are not
 * 4 KiB. G is MemTotal rounded up to a power of two GiB (MemTotal is a few
 * percent below the installed memory, so 128 GiB machines report ~125 GiB);
 * C is the online CPU count rounded up to a power of two; "-<C>c" is left
 * out when the CPU count is unknown. -ENODATA when memory is unknown. */
int instance_class(const InstanceProbe *p, char *buf, size_t size);

/* The instance type, in order: configured (anything but "auto" or ""), DMI
 * where the cloud puts a type there, else the sizing class. Pure. */
void instance_identify(const InstanceProbe *p, const char *configured, InstanceInfo *ret);

/* How specific a fleet [match] is for this instance: 0 = no match; higher
 * wins. instance_type exact > instance_type glob (longer literal prefix
 * first) > class exact > class glob > cloud alone. cloud (NULL or "": any)
 * restricts the match to that cloud and, within a band, beats the same
 * match without it. Pure. */
typedef enum FleetMatchKind {
        FLEET_MATCH_NONE,
        FLEET_MATCH_INSTANCE_TYPE,
        FLEET_MATCH_CLASS,
} FleetMatchKind;
unsigned fleet_match_score(FleetMatchKind kind, const char *pattern, const char *cloud, const InstanceInfo *inst);

/* The clouds a [match] cloud = line can name: "aws", "gce", "azure". */
bool fleet_cloud_valid(const char *name);
