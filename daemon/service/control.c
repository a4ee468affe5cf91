/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The control socket behind `fragd pause` and `fragd resume`: protocol and
 * rules in daemon/service/control.h.
 *
 * The socket is bound and connected through /proc/self/fd/<dirfd>/control:
 * the directory is resolved once under --root (root_mkdir_p_at(),
 * root_openat()), so neither a symlink on the way nor a long --root path
 * (sun_path holds 108 bytes) matters. */

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "core/cleanup.h"
#include "core/clock.h"
#include "core/log.h"
#include "knobs/knob.h"
#include "service/control.h"

#define CONTROL_CONNS_MAX 4
#define CONTROL_CONN_TIMEOUT_USEC (2 * USEC_PER_SEC)

static const char *const command_names[_CONTROL_MAX] = {
        [CONTROL_PAUSE] = "pause",
        [CONTROL_RESUME] = "resume",
};

const char *control_command_name(ControlCommand c)
{
        return (unsigned) c < _CONTROL_MAX ? command_names[c] : NULL;
}

int control_parse_request(const char *buf, size_t len, ControlCommand *ret)
{
        if (len > 0 && buf[len - 1] == '\n')
                len--;
        for (unsigned c = 0; c < _CONTROL_MAX; c++)
                if (len == strlen(command_names[c]) && memcmp(buf, command_names[c], len) == 0) {
                        *ret = (ControlCommand) c;
                        return 0;
                }
        return -EBADMSG;
}

bool control_peer_allowed(uid_t peer_uid, uid_t daemon_uid)
{
        return peer_uid == 0 || peer_uid == daemon_uid;
}

static int sockaddr_at(int dirfd, struct sockaddr_un *ret, socklen_t *ret_len)
{
        int r;

        *ret = (struct sockaddr_un) { .sun_family = AF_UNIX };
        r = snprintf(ret->sun_path, sizeof(ret->sun_path), "/proc/self/fd/%d/" CONTROL_SOCKET_NAME, dirfd);
        if (r < 0 || (size_t) r >= sizeof(ret->sun_path))
                return -ENAMETOOLONG;
        *ret_len = (socklen_t) (offsetof(struct sockaddr_un, sun_path) + (size_t) r + 1);
        return 0;
}

/* ---- the daemon's side -------------------------------------------------------- */

typedef struct ControlConn {
        ControlServer *server;
        int fd;
        sd_event_source *io, *timeout;
        char buf[CONTROL_LINE_MAX];
        size_t len;
} ControlConn;

struct ControlServer {
        sd_event *event;
        sd_event_source *listen_source, *retry_source;
        bool accept_failing; /* said once until an accept works */
        int fd, dirfd;
        char shown[FRAGD_PATH_MAX * 2]; /* the socket's path for messages */
        ControlHandler handler;
        void *userdata;
        ControlConn *conns[CONTROL_CONNS_MAX];
};

static void conn_free(ControlConn *c)
{
        ControlServer *s = c->server;

        for (unsigned i = 0; i < CONTROL_CONNS_MAX; i++)
                if (s->conns[i] == c)
                        s->conns[i] = NULL;
        sd_event_source_disable_unref(c->io);
        sd_event_source_disable_unref(c->timeout);
        closep(&c->fd);
        free(c);
}

/* One short line to a socket that was just readable: it fits the socket's
 * buffer; what does not go out at once is dropped, never waited for. */
static void conn_reply(int fd, bool ok, const char *text)
{
        char line[CONTROL_REPLY_MAX + 8];
        int n = snprintf(line, sizeof(line), "%s %s\n", ok ? "OK" : "ERR", text);

        if (n > 0)
                (void) send(fd, line, MIN((size_t) n, sizeof(line) - 1), MSG_NOSIGNAL | MSG_DONTWAIT);
}

static int on_conn_timeout(sd_event_source *es, uint64_t usec, void *userdata)
{
        ControlConn *c = userdata;

        conn_reply(c->fd, false, "no request line within 2 s");
        conn_free(c);
        return 0;
}

static int on_conn_io(sd_event_source *es, int fd, uint32_t revents, void *userdata)
{
        ControlConn *c = userdata;
        ControlServer *s = c->server;
        char reply[CONTROL_REPLY_MAX] = "";
        ControlCommand cmd;
        const char *nl;
        ssize_t n;
        int r;

        n = recv(fd, c->buf + c->len, sizeof(c->buf) - c->len, MSG_DONTWAIT);
        if (n < 0 && (errno == EAGAIN || errno == EINTR))
                return 0;
        if (n > 0)
                c->len += (size_t) n;
        if (n > 0 && !memchr(c->buf, '\n', c->len) && c->len < sizeof(c->buf))
                return 0; /* more to come */
        if (n > 0 && !memchr(c->buf, '\n', c->len)) {
                conn_reply(fd, false, "request line too long");
                conn_free(c);
                return 0;
        }
        nl = memchr(c->buf, '\n', c->len);
        r = c->len > 0 ? control_parse_request(c->buf, nl ? (size_t) (nl - c->buf) + 1 : c->len, &cmd) : -EBADMSG;
        if (r < 0) {
                conn_reply(fd, false, "unknown request: send \"pause\" or \"resume\"");
                conn_free(c);
                return 0;
        }
        r = s->handler(s->userdata, cmd, reply, sizeof(reply));
        conn_reply(fd, r >= 0, reply[0] ? reply : r >= 0 ? "done" : "failed");
        conn_free(c);
        return 0;
}

static int on_accept_retry(sd_event_source *es, uint64_t usec, void *userdata)
{
        ControlServer *s = userdata;

        s->retry_source = sd_event_source_disable_unref(s->retry_source);
        (void) sd_event_source_set_enabled(s->listen_source, SD_EVENT_ON);
        return 0;
}

static int on_accept(sd_event_source *es, int fd, uint32_t revents, void *userdata)
{
        ControlServer *s = userdata;
        _cleanup_close_ int cfd = -1;
        struct ucred uc;
        socklen_t ul = sizeof(uc);
        ControlConn *c;
        unsigned slot;
        int r;

        cfd = accept4(fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (cfd < 0 && (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM)) {
                /* the connection stays queued and the socket readable: stop
                 * listening for a second instead of spinning on it */
                if (!s->retry_source) {
                        if (!s->accept_failing)
                                log_warning_errno(errno, "Control socket '%s': cannot accept a connection (%m); "
                                                  "trying again every second",
                                                  s->shown);
                        s->accept_failing = true;
                        if (sd_event_add_time_relative(s->event, &s->retry_source, CLOCK_MONOTONIC, USEC_PER_SEC, 0,
                                                       on_accept_retry, s) >= 0)
                                (void) sd_event_source_set_enabled(es, SD_EVENT_OFF);
                }
                return 0;
        }
        if (cfd < 0)
                return 0; /* EAGAIN, or a peer that went away */
        s->accept_failing = false;
        if (getsockopt(cfd, SOL_SOCKET, SO_PEERCRED, &uc, &ul) < 0 || ul != sizeof(uc)) {
                log_warning_errno(errno, "Control socket '%s': cannot tell who connected (%m): refused", s->shown);
                conn_reply(cfd, false, "cannot tell who you are");
                return 0;
        }
        if (!control_peer_allowed(uc.uid, geteuid())) {
                log_warning("Control socket '%s': refused a request from uid %u (pid %d): only root may pause "
                            "or resume fragd",
                            s->shown, (unsigned) uc.uid, (int) uc.pid);
                conn_reply(cfd, false, "permission denied: only root may pause or resume fragd");
                return 0;
        }
        for (slot = 0; slot < CONTROL_CONNS_MAX && s->conns[slot]; slot++)
                ;
        if (slot == CONTROL_CONNS_MAX) {
                conn_reply(cfd, false, "busy: too many requests at once, try again");
                return 0;
        }
        c = calloc(1, sizeof(*c));
        if (!c)
                return 0;
        c->server = s;
        c->fd = TAKE_FD(cfd);
        s->conns[slot] = c;
        r = sd_event_add_io(s->event, &c->io, c->fd, EPOLLIN | EPOLLRDHUP, on_conn_io, c);
        if (r >= 0)
                r = sd_event_add_time_relative(s->event, &c->timeout, CLOCK_MONOTONIC, CONTROL_CONN_TIMEOUT_USEC, 0,
                                               on_conn_timeout, c);
        if (r < 0) {
                log_warning_errno(r, "Control socket '%s': cannot watch a connection: %m", s->shown);
                conn_free(c);
        }
        return 0;
}

/* What is at the socket's name: 0 nothing (or a stale socket, removed),
 * -EADDRINUSE a live listener, -EEXIST anything else (left alone). */
static int clear_stale(ControlServer *s)
{
        struct sockaddr_un sa;
        socklen_t sl;
        struct stat st;
        _cleanup_close_ int probe = -1;
        int r;

        if (fstatat(s->dirfd, CONTROL_SOCKET_NAME, &st, AT_SYMLINK_NOFOLLOW) < 0)
                return errno == ENOENT ? 0 : -errno;
        if (!S_ISSOCK(st.st_mode)) {
                log_error("'%s' is %s, not fragd's control socket: left in place. 'fragd pause' and 'fragd "
                          "resume' do not work until it is removed and fragd restarted or reloaded",
                          s->shown, S_ISLNK(st.st_mode) ? "a symbolic link" : S_ISDIR(st.st_mode) ? "a directory"
                                                                                 : "a file");
                return -EEXIST;
        }
        r = sockaddr_at(s->dirfd, &sa, &sl);
        if (r < 0)
                return r;
        probe = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (probe < 0)
                return -errno;
        if (connect(probe, (struct sockaddr *) &sa, sl) == 0) {
                struct ucred uc = { .pid = 0 };
                socklen_t ul = sizeof(uc);
                char who[96] = "another process";

                if (getsockopt(probe, SOL_SOCKET, SO_PEERCRED, &uc, &ul) == 0 && uc.pid > 0)
                        snprintf(who, sizeof(who), "%s (pid %d, uid %u)",
                                 pid_is_fragd(uc.pid) ? "another fragd" : "a process that is not fragd", (int) uc.pid,
                                 (unsigned) uc.uid);
                /* the daemon holds the lock (daemon-lock.h) before it gets
                 * here: that listener is a fragd older than the lock, or
                 * not fragd at all */
                log_error("'%s': %s listens on fragd's control socket, though this fragd holds the lock of its "
                          "root: 'fragd pause' and 'fragd resume' would reach that one, not this fragd. Stop it "
                          "(a fragd of a version without the lock also changes knobs beside this one)",
                          s->shown, who);
                return -EADDRINUSE;
        }
        if (unlinkat(s->dirfd, CONTROL_SOCKET_NAME, 0) < 0 && errno != ENOENT)
                return log_error_errno(errno, "Cannot remove the stale control socket '%s': %m", s->shown);
        log_debug("Removed the stale control socket '%s' (nobody listened)", s->shown);
        return 0;
}

int control_server_new(sd_event *event, const Root *root, const char *runtime_dir, ControlHandler handler,
                       void *userdata, ControlServer **ret)
{
        _cleanup_(control_server_freep) ControlServer *s = NULL;
        char rt[FRAGD_PATH_MAX];
        struct sockaddr_un sa;
        socklen_t sl;
        mode_t old;
        int r;

        r = knob_runtime_dir_relative(runtime_dir, rt, sizeof(rt));
        if (r < 0)
                return r;
        s = calloc(1, sizeof(*s));
        if (!s)
                return -ENOMEM;
        s->fd = s->dirfd = -1;
        s->event = sd_event_ref(event);
        s->handler = handler;
        s->userdata = userdata;
        snprintf(s->shown, sizeof(s->shown), "%s/%s/" CONTROL_SOCKET_NAME, root->is_host ? "" : root->path, rt);
        r = root_mkdir_p_at(root->root_fd, rt, 0755, &s->dirfd);
        if (r < 0)
                return log_error_errno(r, "Cannot open the runtime directory for '%s': %m", s->shown);
        r = clear_stale(s);
        if (r < 0)
                return r;
        r = sockaddr_at(s->dirfd, &sa, &sl);
        if (r < 0)
                return r;
        s->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
        if (s->fd < 0)
                return log_error_errno(errno, "Cannot create the control socket: %m");
        /* created 0600: the peer check below is the gate, the mode keeps
         * everyone else from connecting at all */
        old = umask(0177);
        r = bind(s->fd, (struct sockaddr *) &sa, sl) < 0 ? -errno : 0;
        umask(old);
        if (r < 0) {
                closep(&s->fd);
                s->fd = -1;
                return log_error_errno(r, "Cannot create the control socket '%s': %m", s->shown);
        }
        if (listen(s->fd, CONTROL_CONNS_MAX) < 0)
                return log_error_errno(errno, "Cannot listen on '%s': %m", s->shown);
        r = sd_event_add_io(event, &s->listen_source, s->fd, EPOLLIN, on_accept, s);
        if (r < 0)
                return log_error_errno(r, "Cannot watch the control socket '%s': %m", s->shown);
        log_debug("Control socket '%s': 'fragd pause' and 'fragd resume' (root only)", s->shown);
        *ret = TAKE_PTR(s);
        return 0;
}

ControlServer *control_server_free(ControlServer *s)
{
        if (!s)
                return NULL;
        for (unsigned i = 0; i < CONTROL_CONNS_MAX; i++)
                if (s->conns[i])
                        conn_free(s->conns[i]);
        sd_event_source_disable_unref(s->listen_source);
        sd_event_source_disable_unref(s->retry_source);
        if (s->fd >= 0) {
                /* only the socket this process made: the name still is a
                 * socket (a replaced file is left) */
                struct stat st;

                if (fstatat(s->dirfd, CONTROL_SOCKET_NAME, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISSOCK(st.st_mode))
                        (void) unlinkat(s->dirfd, CONTROL_SOCKET_NAME, 0);
                closep(&s->fd);
        }
        closep(&s->dirfd);
        sd_event_unref(s->event);
        free(s);
        return NULL;
}

/* ---- the client's side ----------------------------------------------------- */

/* A connection to the socket behind <root>/<runtime_dir>/control, with
 * the listener checked to be root or this user (control_request()'s
 * returns). */
static int control_connect(const Root *root, const char *runtime_dir, int *ret_fd)
{
        _cleanup_close_ int dirfd = -1, fd = -1;
        char rt[FRAGD_PATH_MAX];
        struct timeval tv = { .tv_sec = 30 };
        struct sockaddr_un sa;
        struct stat st;
        struct ucred uc;
        socklen_t sl, ul = sizeof(uc);
        int r;

        r = knob_runtime_dir_relative(runtime_dir, rt, sizeof(rt));
        if (r < 0)
                return r;
        dirfd = root_openat(root->root_fd, rt, O_PATH | O_DIRECTORY | O_CLOEXEC, 0, 0);
        if (dirfd < 0)
                return dirfd;
        if (fstatat(dirfd, CONTROL_SOCKET_NAME, &st, AT_SYMLINK_NOFOLLOW) < 0)
                return -errno;
        if (!S_ISSOCK(st.st_mode))
                return -ENOTSOCK; /* a symlink is never followed */
        if (st.st_uid != 0 && st.st_uid != geteuid())
                return -EPERM;
        r = sockaddr_at(dirfd, &sa, &sl);
        if (r < 0)
                return r;
        fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0)
                return -errno;
        (void) setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
        (void) setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
        if (connect(fd, (struct sockaddr *) &sa, sl) < 0)
                return -errno;
        if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &uc, &ul) < 0)
                return -errno;
        if (uc.uid != 0 && uc.uid != geteuid())
                return -EPERM; /* not a fragd this user may talk to */
        *ret_fd = TAKE_FD(fd);
        return 0;
}

int control_probe(const Root *root, const char *runtime_dir)
{
        _cleanup_close_ int fd = -1;
        int r = control_connect(root, runtime_dir, &fd);

        if (r == -ENOENT || r == -ECONNREFUSED)
                return 0;
        return r < 0 ? r : 1; /* closed without a request: the daemon drops it */
}

int control_request(const Root *root, const char *runtime_dir, const char *cmd, char *reply, size_t size)
{
        _cleanup_close_ int fd = -1;
        char line[CONTROL_REPLY_MAX + 8];
        size_t len = 0;
        int r;

        if (size > 0)
                reply[0] = '\0';
        r = control_connect(root, runtime_dir, &fd);
        if (r < 0)
                return r;
        snprintf(line, sizeof(line), "%s\n", cmd);
        /* a daemon that refuses this peer answers and closes at once: the
         * send may fail then, its answer is still there to read */
        if (send(fd, line, strlen(line), MSG_NOSIGNAL) < 0 && errno != EPIPE && errno != ECONNRESET)
                return -errno;
        while (len < sizeof(line) - 1) {
                ssize_t n = recv(fd, line + len, sizeof(line) - 1 - len, 0);

                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0)
                        return errno == EAGAIN ? -ETIMEDOUT : -errno;
                if (n == 0)
                        break;
                len += (size_t) n;
                if (memchr(line, '\n', len))
                        break;
        }
        line[len] = '\0';
        line[strcspn(line, "\n")] = '\0';
        if (strncmp(line, "OK ", 3) == 0) {
                snprintf(reply, size, "%s", line + 3);
                return 0;
        }
        if (strncmp(line, "ERR ", 4) == 0) {
                snprintf(reply, size, "%s", line + 4);
                return strstr(line, "permission denied") ? -EACCES : -EIO;
        }
        snprintf(reply, size, "no answer from fragd");
        return -EIO;
}
