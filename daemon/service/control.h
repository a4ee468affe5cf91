/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* The control socket: `fragd pause` and `fragd resume` talk to the running
 * daemon through <root>/<runtime_dir>/control (daemon/service/control.c;
 * why a socket and not D-Bus: docs/design.md "Pause and resume").
 *
 * A stream socket, mode 0600, created by the daemon with its runtime_dir
 * resolved under --root. One request per connection: a line "pause" or
 * "resume"; one reply line, "OK <text>" or "ERR <text>", then the daemon
 * closes. The daemon answers only a peer whose SO_PEERCRED uid is 0 or its
 * own (a test daemon under --root run by a user); everyone else gets "ERR"
 * and nothing changes. At start a stale socket (nobody listening) is
 * replaced; a symlink, or any other file at that name, is left in place
 * and named, and pause/resume are unavailable until it is removed. */

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include <systemd/sd-event.h>

#include "core/root.h"
#include "fragd/macro.h"

#define CONTROL_SOCKET_NAME "control"
#define CONTROL_LINE_MAX 64
#define CONTROL_REPLY_MAX 1024

typedef enum ControlCommand {
        CONTROL_PAUSE,
        CONTROL_RESUME,
        _CONTROL_MAX,
} ControlCommand;

/* Pure: a request line ("pause\n", "resume\n"; the newline may be missing
 * at the end of the data). -EBADMSG for anything else. */
int control_parse_request(const char *buf, size_t len, ControlCommand *ret);
const char *control_command_name(ControlCommand c);
/* Pure: whether a peer with this uid may pause or resume a daemon running
 * with daemon_uid: root, or the daemon's own user. */
bool control_peer_allowed(uid_t peer_uid, uid_t daemon_uid);

/* The daemon's side. handler gets an allowed request and writes its reply
 * text (without "OK "/"ERR "); it returns >= 0 for OK, < 0 for ERR. */
typedef int (*ControlHandler)(void *userdata, ControlCommand cmd, char *reply, size_t size);
typedef struct ControlServer ControlServer;

/* Creates the socket in runtime_dir (relative to root, created if missing)
 * and listens on it with event. -EEXIST: something that is not a socket
 * is at that name (logged); -EADDRINUSE: another process listens there. */
int control_server_new(sd_event *event, const Root *root, const char *runtime_dir, ControlHandler handler,
                       void *userdata, ControlServer **ret);
/* Stops listening, drops open connections, removes the socket it made. */
ControlServer *control_server_free(ControlServer *s);
DEFINE_TRIVIAL_CLEANUP_FUNC(ControlServer *, control_server_free);

/* The client's side (the CLI): sends cmd ("pause", "resume") to the daemon
 * behind <root>/<runtime_dir>/control, the reply text in reply. Returns 0
 * on "OK"; -ENOENT or -ECONNREFUSED when no daemon listens; -EACCES when
 * this user may not connect or the daemon said no; -ENOTSOCK when the name
 * is not a socket (never followed); -EPERM when the socket or its listener
 * belongs to a user that is neither root nor this one; -EIO for "ERR" or a
 * reply that is not one. */
int control_request(const Root *root, const char *runtime_dir, const char *cmd, char *reply, size_t size);
