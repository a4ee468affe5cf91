/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* Logging for daemon/ code only. Writes "<N>message" prefixes to stderr when
 * stderr is the journal stream systemd connected (journald reads the level),
 * plain text otherwise.
 * policy/ and parsers never log: they return codes and reasons. */

#include <stdbool.h>
#include <syslog.h>

#include "fragd/macro.h"

void log_set_max_level(int level);       /* LOG_DEBUG .. LOG_ERR */
int log_get_max_level(void);
int log_level_from_string(const char *s); /* "debug", "info", ... or -EINVAL */
void log_set_prefix(bool on);            /* force "<N>" prefixes on/off */
void log_set_prefix_auto(void);          /* decide again at the next message (the default) */
/* Whether $JOURNAL_STREAM (env, "DEV:INODE" in decimal) names the file open
 * on fd: only then is fd connected to journald and "<N>" prefixes belong
 * there. The first message decides with env = $JOURNAL_STREAM, fd = stderr. */
bool log_journal_stream_matches(const char *env, int fd);

/* Returns -abs(err) so callers can write: return log_errno(LOG_ERR, r, "...: %m");
 * %m in format prints strerror(err). */
int log_internal(int level, int err, const char *file, int line, const char *fmt, ...) _printf_(5, 6);

#define log_full_errno(level, err, ...) log_internal((level), (err), __FILE__, __LINE__, __VA_ARGS__)
#define log_errno(level, err, ...) log_full_errno(level, err, __VA_ARGS__)
#define log_debug(...) log_internal(LOG_DEBUG, 0, __FILE__, __LINE__, __VA_ARGS__)
#define log_info(...) log_internal(LOG_INFO, 0, __FILE__, __LINE__, __VA_ARGS__)
#define log_notice(...) log_internal(LOG_NOTICE, 0, __FILE__, __LINE__, __VA_ARGS__)
#define log_warning(...) log_internal(LOG_WARNING, 0, __FILE__, __LINE__, __VA_ARGS__)
#define log_error(...) log_internal(LOG_ERR, 0, __FILE__, __LINE__, __VA_ARGS__)
#define log_warning_errno(err, ...) log_internal(LOG_WARNING, (err), __FILE__, __LINE__, __VA_ARGS__)
#define log_error_errno(err, ...) log_internal(LOG_ERR, (err), __FILE__, __LINE__, __VA_ARGS__)
#define log_debug_errno(err, ...) log_internal(LOG_DEBUG, (err), __FILE__, __LINE__, __VA_ARGS__)
