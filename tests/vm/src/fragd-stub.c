/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fragd-stub - NOT fragd. A stand-in that honours the daemon contract the VM
 * scenarios check, so the harness's fragd paths (start, SIGTERM, restore,
 * crash recovery, systemd notify/reload) can be exercised before the real
 * daemon exists: make check-vm VM_FRAGD=build/vm/fragd-stub.
 *
 *   fragd-stub --version | --features
 *   fragd-stub [-c FILE] [--root DIR] [--dry-run] [--interval SEC]
 *
 * Daemon mode: restores knobs left in /run/fragd/saved by a killed instance,
 * saves the originals of the knobs it steers there (tmp + rename), sets
 * compaction_proactiveness=STUB_PROACTIVENESS and watermark_scale_factor=200
 * (a static "tuned" policy), re-asserts them every interval, reports
 * READY=1/STATUS= through $NOTIFY_SOCKET, logs SIGHUP, and on SIGTERM or
 * SIGINT restores every knob and exits 0.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#define SAVED_DIR "/run/fragd"
#define SAVED SAVED_DIR "/saved"

static const char *const knobs[] = { "/proc/sys/vm/compaction_proactiveness",
                                     "/proc/sys/vm/watermark_scale_factor" };
static const char *const targets[] = { "60", "200" };
#define NKNOBS 2

static volatile sig_atomic_t got_term, got_hup;

static void on_signal(int sig)
{
        if (sig == SIGHUP)
                got_hup = 1;
        else
                got_term = 1;
}

static int knob_read(const char *path, char *buf, size_t n)
{
        FILE *f = fopen(path, "re");
        int ok = f && fgets(buf, (int)n, f);

        if (f)
                fclose(f);
        if (!ok)
                return -1;
        buf[strcspn(buf, "\n")] = 0;
        return 0;
}

static int knob_write(const char *path, const char *val)
{
        char back[64];
        FILE *f = fopen(path, "we");

        if (!f)
                return -1;
        fprintf(f, "%s\n", val);
        if (fclose(f) != 0 || knob_read(path, back, sizeof(back)) < 0 || strcmp(back, val) != 0) {
                fprintf(stderr, "fragd-stub: %s: wrote %s, reads back otherwise\n", path, val);
                return -1;
        }
        return 0;
}

static void notify(const char *msg)
{
        const char *sock = getenv("NOTIFY_SOCKET");
        struct sockaddr_un sa = { .sun_family = AF_UNIX };
        int fd;

        if (!sock || (sock[0] != '/' && sock[0] != '@') || strlen(sock) >= sizeof(sa.sun_path))
                return;
        strcpy(sa.sun_path, sock);
        if (sa.sun_path[0] == '@')
                sa.sun_path[0] = 0;
        fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        if (fd < 0)
                return;
        (void)sendto(fd, msg, strlen(msg), 0, (struct sockaddr *)&sa,
                     (socklen_t)(offsetof(struct sockaddr_un, sun_path) + strlen(sock)));
        close(fd);
}

/* restore what /run/fragd/saved holds ("path value" lines), then remove it */
static int restore_saved(void)
{
        char path[256], val[64];
        int bad = 0;
        FILE *f = fopen(SAVED, "re");

        if (!f)
                return 0;
        while (fscanf(f, "%255s %63s", path, val) == 2) {
                if (knob_write(path, val) < 0)
                        bad = 1;
                else
                        fprintf(stderr, "fragd-stub: restored %s=%s\n", path, val);
        }
        fclose(f);
        if (!bad)
                unlink(SAVED);
        return bad ? -1 : 0;
}

static int save_originals(char orig[NKNOBS][64])
{
        FILE *f;
        int i;

        mkdir(SAVED_DIR, 0755);
        f = fopen(SAVED ".tmp", "we");
        if (!f)
                return -1;
        for (i = 0; i < NKNOBS; i++)
                fprintf(f, "%s %s\n", knobs[i], orig[i]);
        if (fflush(f) != 0 || fsync(fileno(f)) != 0) {
                fclose(f);
                return -1;
        }
        fclose(f);
        return rename(SAVED ".tmp", SAVED);
}

int main(int argc, char **argv)
{
        static const struct option lo[] = {
                { "version", 0, NULL, 'V' }, { "features", 0, NULL, 'F' },
                { "config", 1, NULL, 'c' },  { "root", 1, NULL, 'r' },
                { "dry-run", 0, NULL, 'n' }, { "interval", 1, NULL, 'i' },
                { 0 }
        };
        struct sigaction sa = { .sa_handler = on_signal };
        char orig[NKNOBS][64], status[256];
        int c, i, dry = 0;
        long interval = 5;

        while ((c = getopt_long(argc, argv, "c:", lo, NULL)) != -1) {
                switch (c) {
                case 'V': printf("fragd-stub 0 (VM harness self-test, not fragd)\n"); return 0;
                case 'F': printf("daemon\n"); return 0;
                case 'c': case 'r': break;
                case 'n': dry = 1; break;
                case 'i': interval = strtol(optarg, NULL, 10); break;
                default: return 64;
                }
        }
        if (interval < 1)
                interval = 1;
        /* it writes /proc/sys: never on a host, only in the test guest */
        {
                char cmdline[4096] = "";
                FILE *f = fopen("/proc/cmdline", "re");

                if (f) {
                        if (!fgets(cmdline, sizeof(cmdline), f))
                                cmdline[0] = 0;
                        fclose(f);
                }
                if (!strstr(cmdline, "fvm.scenario=")) {
                        fprintf(stderr, "fragd-stub: refusing to run outside the fragd test VM\n");
                        return 1;
                }
        }
        sigaction(SIGTERM, &sa, NULL);
        sigaction(SIGINT, &sa, NULL);
        sigaction(SIGHUP, &sa, NULL);

        if (!dry && restore_saved() < 0)
                fprintf(stderr, "fragd-stub: could not restore all saved knobs\n");
        for (i = 0; i < NKNOBS; i++)
                if (knob_read(knobs[i], orig[i], sizeof(orig[i])) < 0) {
                        fprintf(stderr, "fragd-stub: cannot read %s: %s\n", knobs[i], strerror(errno));
                        return 1;
                }
        if (!dry && save_originals(orig) < 0) {
                fprintf(stderr, "fragd-stub: cannot save originals in " SAVED "\n");
                return 1;
        }
        snprintf(status, sizeof(status), "READY=1\nSTATUS=stub: compaction_proactiveness %s->%s, watermark_scale_factor %s->%s%s",
                 orig[0], targets[0], orig[1], targets[1], dry ? " (dry run)" : "");
        while (!got_term) {
                for (i = 0; i < NKNOBS && !dry; i++)
                        (void)knob_write(knobs[i], targets[i]);
                notify(status);
                if (got_hup) {
                        got_hup = 0;
                        fprintf(stderr, "fragd-stub: SIGHUP, nothing to reload\n");
                }
                for (i = 0; i < interval * 10 && !got_term && !got_hup; i++)
                        usleep(100000);
        }
        for (i = 0; i < NKNOBS && !dry; i++)
                (void)knob_write(knobs[i], orig[i]);
        if (!dry)
                unlink(SAVED);
        fprintf(stderr, "fragd-stub: restored, exiting\n");
        return 0;
}
