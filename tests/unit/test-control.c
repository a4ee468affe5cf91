/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The control socket behind fragd pause/resume (daemon/service/control.c):
 * the request parser, the peer check, a round trip through a real socket
 * in a test tree, a peer that is not allowed (a child as nobody, when the
 * test runs as root), and what the daemon and the client do with a
 * symlink, a file, a stale socket or a live listener at the socket's name. */

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "core/log.h"
#include "knob-test-util.h"
#include "service/control.h"

#define SOCK "run/fragd/control"

typedef struct Ctx {
        TestTree t;
        sd_event *event;
        unsigned n_pause, n_resume;
} Ctx;

static int setup(void **state)
{
        Ctx *c = calloc(1, sizeof(*c));

        assert_non_null(c);
        tt_setup(&c->t);
        tt_mkdir(&c->t, "run");
        tt_mkdir(&c->t, "run/fragd");
        assert_int_equal(sd_event_new(&c->event), 0);
        *state = c;
        return 0;
}

static int teardown(void **state)
{
        Ctx *c = *state;

        sd_event_unref(c->event);
        tt_teardown(&c->t);
        free(c);
        return 0;
}

static int handler(void *userdata, ControlCommand cmd, char *reply, size_t size)
{
        Ctx *c = userdata;

        if (cmd == CONTROL_PAUSE) {
                c->n_pause++;
                snprintf(reply, size, "paused (%u)", c->n_pause);
                return 0;
        }
        c->n_resume++;
        snprintf(reply, size, "cannot resume");
        return -EIO;
}

static void test_parse(void **state)
{
        ControlCommand cmd = _CONTROL_MAX;

        (void) state;
        assert_int_equal(control_parse_request("pause\n", 6, &cmd), 0);
        assert_int_equal(cmd, CONTROL_PAUSE);
        assert_int_equal(control_parse_request("resume", 6, &cmd), 0);
        assert_int_equal(cmd, CONTROL_RESUME);
        assert_int_equal(control_parse_request("pause\n\n", 7, &cmd), -EBADMSG);
        assert_int_equal(control_parse_request("paus", 4, &cmd), -EBADMSG);
        assert_int_equal(control_parse_request("pauses\n", 7, &cmd), -EBADMSG);
        assert_int_equal(control_parse_request("PAUSE\n", 6, &cmd), -EBADMSG);
        assert_int_equal(control_parse_request("pause\0x", 7, &cmd), -EBADMSG);
        assert_int_equal(control_parse_request("", 0, &cmd), -EBADMSG);
        assert_string_equal(control_command_name(CONTROL_RESUME), "resume");
}

static void test_peer(void **state)
{
        (void) state;
        assert_true(control_peer_allowed(0, 0));
        assert_false(control_peer_allowed(65534, 0));
        assert_false(control_peer_allowed(1000, 0));
        /* a daemon run by a user (tests under --root): root and that user */
        assert_true(control_peer_allowed(1000, 1000));
        assert_true(control_peer_allowed(0, 1000));
        assert_false(control_peer_allowed(1001, 1000));
}

/* Runs the client in a child (it blocks) while this process serves; the
 * child's exit status is the client's return (negated) and its reply
 * goes through a pipe. */
static int request(Ctx *c, const char *cmd, uid_t as_uid, char *reply, size_t size)
{
        int p[2], status;
        pid_t pid;
        ssize_t n;

        assert_int_equal(pipe2(p, O_CLOEXEC), 0);
        pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
                char buf[CONTROL_REPLY_MAX];
                int r;

                close(p[0]);
                /* dumpable again after the uid change, as a process started
                 * by that user is: /proc/self/fd stays its own */
                if (as_uid != (uid_t) -1 && (setresgid(as_uid, as_uid, as_uid) < 0 ||
                                             setresuid(as_uid, as_uid, as_uid) < 0 ||
                                             prctl(PR_SET_DUMPABLE, 1, 0, 0, 0) < 0))
                        _exit(100);
                r = control_request(c->t.root, "/run/fragd", cmd, buf, sizeof(buf));
                (void) !write(p[1], buf, strlen(buf));
                _exit(-r);
        }
        close(p[1]);
        while (waitpid(pid, &status, WNOHANG) == 0)
                (void) sd_event_run(c->event, 10 * 1000);
        n = read(p[0], reply, size - 1);
        reply[n > 0 ? n : 0] = '\0';
        close(p[0]);
        assert_true(WIFEXITED(status));
        assert_int_not_equal(WEXITSTATUS(status), 100);
        return -WEXITSTATUS(status);
}

static void test_round_trip(void **state)
{
        Ctx *c = *state;
        _cleanup_(control_server_freep) ControlServer *s = NULL;
        char reply[CONTROL_REPLY_MAX];
        struct stat st;

        assert_int_equal(control_server_new(c->event, c->t.root, "/run/fragd", handler, c, &s), 0);
        assert_int_equal(fstatat(c->t.root->root_fd, SOCK, &st, AT_SYMLINK_NOFOLLOW), 0);
        assert_true(S_ISSOCK(st.st_mode));
        assert_int_equal(st.st_mode & 0777, 0600);
        assert_int_equal(request(c, "pause", (uid_t) -1, reply, sizeof(reply)), 0);
        assert_string_equal(reply, "paused (1)");
        assert_int_equal(c->n_pause, 1);
        assert_int_equal(request(c, "resume", (uid_t) -1, reply, sizeof(reply)), -EIO);
        assert_string_equal(reply, "cannot resume");
        /* an unknown request changes nothing */
        assert_int_equal(request(c, "stop", (uid_t) -1, reply, sizeof(reply)), -EIO);
        assert_non_null(strstr(reply, "unknown request"));
        assert_int_equal(c->n_pause + c->n_resume, 2);
        /* freed: the socket is gone, a client is told nobody listens */
        s = control_server_free(s);
        assert_false(tt_exists(&c->t, SOCK));
        assert_int_equal(request(c, "pause", (uid_t) -1, reply, sizeof(reply)), -ENOENT);
}

/* The peer check itself: the socket opened to everyone (chmod 0666), a
 * child as nobody connects and is refused by SO_PEERCRED, and nothing is
 * done. Needs root (to become nobody). */
static void test_peer_refused(void **state)
{
        Ctx *c = *state;
        _cleanup_(control_server_freep) ControlServer *s = NULL;
        char reply[CONTROL_REPLY_MAX];

        if (geteuid() != 0)
                skip();
        assert_int_equal(chmod(c->t.dir, 0755), 0);
        assert_int_equal(control_server_new(c->event, c->t.root, "/run/fragd", handler, c, &s), 0);
        /* the mode alone keeps nobody out: connect() fails */
        assert_int_equal(request(c, "pause", 65534, reply, sizeof(reply)), -EACCES);
        assert_string_equal(reply, "");
        assert_int_equal(c->n_pause, 0);
        /* past the mode, the daemon's peer check refuses */
        assert_int_equal(fchmodat(c->t.root->root_fd, SOCK, 0666, 0), 0);
        assert_int_equal(request(c, "pause", 65534, reply, sizeof(reply)), -EACCES);
        assert_string_equal(reply, "permission denied: only root may pause or resume fragd");
        assert_int_equal(c->n_pause, 0);
        /* as root the same socket works */
        assert_int_equal(request(c, "pause", (uid_t) -1, reply, sizeof(reply)), 0);
        assert_int_equal(c->n_pause, 1);
}

/* The socket belongs to another user (a socket that user's fragd, or
 * anyone, made in the runtime directory): even root does not talk to it
 * (-EPERM, which `fragd pause` turns into a message naming the owner, not
 * "only root may pause": tests/integration/test-faults.sh). Needs root (to
 * hand the socket to nobody). */
static void test_foreign_socket(void **state)
{
        Ctx *c = *state;
        _cleanup_(control_server_freep) ControlServer *s = NULL;
        char reply[CONTROL_REPLY_MAX];

        if (geteuid() != 0)
                skip();
        assert_int_equal(control_server_new(c->event, c->t.root, "/run/fragd", handler, c, &s), 0);
        assert_int_equal(fchownat(c->t.root->root_fd, SOCK, 65534, 65534, AT_SYMLINK_NOFOLLOW), 0);
        assert_int_equal(request(c, "pause", (uid_t) -1, reply, sizeof(reply)), -EPERM);
        assert_int_equal(c->n_pause, 0);
}

/* The server's answer to a peer it refuses, seen on the wire: a child as
 * nobody talks to the socket directly (past the client's own checks). */
static void test_peer_refused_wire(void **state)
{
        Ctx *c = *state;
        _cleanup_(control_server_freep) ControlServer *s = NULL;
        int p[2], status;
        char buf[256];
        ssize_t n;
        pid_t pid;

        if (geteuid() != 0)
                skip();
        assert_int_equal(chmod(c->t.dir, 0755), 0);
        assert_int_equal(control_server_new(c->event, c->t.root, "/run/fragd", handler, c, &s), 0);
        assert_int_equal(fchmodat(c->t.root->root_fd, SOCK, 0666, 0), 0);
        assert_int_equal(pipe2(p, O_CLOEXEC), 0);
        pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
                struct sockaddr_un sa = { .sun_family = AF_UNIX };
                char got[256];
                int fd;

                close(p[0]);
                snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/%s", c->t.dir, SOCK);
                if (setresgid(65534, 65534, 65534) < 0 || setresuid(65534, 65534, 65534) < 0)
                        _exit(100);
                if (prctl(PR_SET_DUMPABLE, 1, 0, 0, 0) < 0)
                        _exit(100);
                fd = socket(AF_UNIX, SOCK_STREAM, 0);
                if (fd < 0 || connect(fd, (struct sockaddr *) &sa, sizeof(sa)) < 0)
                        _exit(101);
                (void) send(fd, "pause\n", 6, MSG_NOSIGNAL);
                n = read(fd, got, sizeof(got) - 1);
                if (n > 0)
                        (void) !write(p[1], got, (size_t) n);
                _exit(0);
        }
        close(p[1]);
        while (waitpid(pid, &status, WNOHANG) == 0)
                (void) sd_event_run(c->event, 10 * 1000);
        assert_true(WIFEXITED(status));
        assert_int_equal(WEXITSTATUS(status), 0);
        n = read(p[0], buf, sizeof(buf) - 1);
        close(p[0]);
        buf[n > 0 ? n : 0] = '\0';
        assert_string_equal(buf, "ERR permission denied: only root may pause or resume fragd\n");
        assert_int_equal(c->n_pause, 0);
}

static void test_symlink_at_socket(void **state)
{
        Ctx *c = *state;
        ControlServer *s = NULL;
        char reply[CONTROL_REPLY_MAX], target[64];
        ssize_t n;

        /* a symlink to a socket elsewhere: the daemon leaves it and says so */
        assert_int_equal(symlinkat("/tmp/elsewhere.sock", c->t.root->root_fd, SOCK), 0);
        assert_int_equal(control_server_new(c->event, c->t.root, "/run/fragd", handler, c, &s), -EEXIST);
        assert_null(s);
        n = readlinkat(c->t.root->root_fd, SOCK, target, sizeof(target) - 1);
        assert_true(n > 0);
        target[n] = '\0';
        assert_string_equal(target, "/tmp/elsewhere.sock");
        /* the client never follows it */
        assert_int_equal(request(c, "pause", (uid_t) -1, reply, sizeof(reply)), -ENOTSOCK);
        /* a regular file the same */
        assert_int_equal(unlinkat(c->t.root->root_fd, SOCK, 0), 0);
        tt_write(&c->t, SOCK, "not a socket\n");
        assert_int_equal(control_server_new(c->event, c->t.root, "/run/fragd", handler, c, &s), -EEXIST);
        assert_string_equal(tt_read(&c->t, SOCK), "not a socket\n");
        assert_int_equal(request(c, "pause", (uid_t) -1, reply, sizeof(reply)), -ENOTSOCK);
}

static void bind_at(Ctx *c, int fd)
{
        struct sockaddr_un sa = { .sun_family = AF_UNIX };

        snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/%s", c->t.dir, SOCK);
        assert_int_equal(bind(fd, (struct sockaddr *) &sa, sizeof(sa)), 0);
}

static void test_stale_and_live(void **state)
{
        Ctx *c = *state;
        ControlServer *s = NULL;
        char reply[CONTROL_REPLY_MAX];
        int fd;

        /* nothing there: the probe says nobody listens */
        assert_int_equal(control_probe(c->t.root, "/run/fragd"), 0);
        /* stale: a socket nobody listens on (a daemon killed with -9) */
        fd = socket(AF_UNIX, SOCK_STREAM, 0);
        assert_true(fd >= 0);
        bind_at(c, fd);
        close(fd);
        assert_int_equal(request(c, "pause", (uid_t) -1, reply, sizeof(reply)), -ECONNREFUSED);
        assert_int_equal(control_probe(c->t.root, "/run/fragd"), 0);
        assert_int_equal(control_server_new(c->event, c->t.root, "/run/fragd", handler, c, &s), 0);
        /* a listener: the probe sees it without sending a request */
        assert_int_equal(control_probe(c->t.root, "/run/fragd"), 1);
        assert_int_equal(c->n_pause, 0);
        assert_int_equal(request(c, "pause", (uid_t) -1, reply, sizeof(reply)), 0);
        s = control_server_free(s);
        assert_int_equal(control_probe(c->t.root, "/run/fragd"), 0);

        /* live: another process listens there; left alone */
        fd = socket(AF_UNIX, SOCK_STREAM, 0);
        assert_true(fd >= 0);
        bind_at(c, fd);
        assert_int_equal(listen(fd, 1), 0);
        assert_int_equal(control_server_new(c->event, c->t.root, "/run/fragd", handler, c, &s), -EADDRINUSE);
        assert_true(tt_exists(&c->t, SOCK));
        close(fd);
}

/* a client that connects and says nothing does not hold the daemon: it is
 * dropped after the timeout, and others are served meanwhile */
static void test_silent_client(void **state)
{
        Ctx *c = *state;
        _cleanup_(control_server_freep) ControlServer *s = NULL;
        struct sockaddr_un sa = { .sun_family = AF_UNIX };
        char reply[CONTROL_REPLY_MAX], got[128];
        int fd;
        ssize_t n;

        assert_int_equal(control_server_new(c->event, c->t.root, "/run/fragd", handler, c, &s), 0);
        snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/%s", c->t.dir, SOCK);
        fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        assert_true(fd >= 0);
        assert_int_equal(connect(fd, (struct sockaddr *) &sa, sizeof(sa)), 0);
        assert_int_equal(request(c, "pause", (uid_t) -1, reply, sizeof(reply)), 0);
        for (int i = 0; i < 300; i++)
                (void) sd_event_run(c->event, 10 * 1000);
        n = read(fd, got, sizeof(got) - 1);
        assert_true(n > 0);
        got[n] = '\0';
        assert_string_equal(got, "ERR no request line within 2 s\n");
        close(fd);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_parse),
                cmocka_unit_test(test_peer),
                cmocka_unit_test_setup_teardown(test_round_trip, setup, teardown),
                cmocka_unit_test_setup_teardown(test_peer_refused, setup, teardown),
                cmocka_unit_test_setup_teardown(test_peer_refused_wire, setup, teardown),
                cmocka_unit_test_setup_teardown(test_foreign_socket, setup, teardown),
                cmocka_unit_test_setup_teardown(test_symlink_at_socket, setup, teardown),
                cmocka_unit_test_setup_teardown(test_stale_and_live, setup, teardown),
                cmocka_unit_test_setup_teardown(test_silent_client, setup, teardown),
        };

        log_set_max_level(getenv("FRAGD_TEST_VERBOSE") ? LOG_DEBUG : LOG_CRIT);
        return cmocka_run_group_tests(tests, NULL, NULL);
}
