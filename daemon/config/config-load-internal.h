/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* The loader's state, shared by config.c (layers, pass two: the one that
 * orchestrates), config-parse.c (pass one), config-validate.c (rules between
 * keys) and config-source.c (errors, sources). Private to daemon/config/. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config/config-internal.h"

typedef struct Assignment {
        const ConfigKey *key; /* NULL: a [cgroup] declaration without keys yet */
        int lever;            /* knob keys */
        char *cgroup;         /* cgroup keys and declarations */
        char *value;
        ConfigSource src;
} Assignment;

typedef struct AssignList {
        Assignment *v;
        size_t n, cap;
} AssignList;

typedef struct FleetFile {
        uint16_t file;
        FleetMatchKind kind;
        char pattern[CONFIG_INSTANCE_TYPE_MAX];
        unsigned line; /* of the match key */
        char cloud[8]; /* [match] cloud = ..., "" when any */
        unsigned cloud_line;
        AssignList list;
} FleetFile;

typedef struct Loader {
        const ConfigLoadArgs *args;
        ConfigSources *src;
        ConfigErrors *errs;
        unsigned n_errors;
        bool oom;
        FragdConfig scratch; /* values are validated by applying them here */

        /* the file (or --set) being read */
        AssignList *out;
        ConfigOrigin origin;
        uint16_t file;
        FleetFile *fleet; /* parsing a fleet file */
        const char *set_arg;
        /* reader state */
        const char *pos, *end;
        unsigned line;
        int max_line;
        /* the current section */
        bool in_section, section_ok;
        SectionKind kind;
        int lever;
        char cgroup[FRAGD_PATH_MAX];
        char header[FRAGD_PATH_MAX + 32]; /* for messages: [knob "x"] */
        /* the keys the file being read has set so far (0: not yet; else
         * the line), by slot, and its cgroups in slot order: a key set twice
         * in one file is warned about (config-parse.c) */
        uint32_t seen_line[CONFIG_MAX_SLOTS];
        char seen_cgroup[FRAGD_MAX_CGROUPS][FRAGD_PATH_MAX];
        unsigned n_seen_cgroups;
} Loader;

static inline const char *config_file_name(const ConfigSources *s, uint16_t f)
{
        return f < s->n_files ? s->files[f] : "?";
}

static inline ConfigSource config_here(const Loader *l)
{
        return (ConfigSource) { .origin = l->origin, .file = l->file, .line = l->line };
}

/* config-source.c: records an error at src ("path:line: ", "command line:
 * --set 'x': "). */
void config_error_at(Loader *l, ConfigSource src, const char *set_arg, const char *fmt, ...) _printf_(4, 5);
#define error_here(l, ...) config_error_at((l), config_here(l), (l)->set_arg, __VA_ARGS__)
/* A warning at src: the load still succeeds. */
void config_warning_at(Loader *l, ConfigSource src, const char *set_arg, const char *fmt, ...) _printf_(4, 5);
#define warning_here(l, ...) config_warning_at((l), config_here(l), (l)->set_arg, __VA_ARGS__)

/* config-parse.c: pass one */
void config_list_free(AssignList *list);
/* Parses a file's text into l->out (l->origin, l->file set by the caller). */
void config_parse_buffer(Loader *l, const char *buf, size_t len);
/* The --set arguments into list. */
void config_load_set(Loader *l, AssignList *list);

/* config-validate.c */
void config_validate(Loader *l, const FragdConfig *c, const ConfigSources *s);

/* config-source.c: "preset database", "path:line", ... for key k */
const char *config_slot_source(const ConfigSources *s, const ConfigKey *k, int sub, char *buf, size_t size);
