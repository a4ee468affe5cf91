/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Fuzzes what `fragd status` reads: the status file in runtime_dir
 * (status_json_render(), and text_scrub() that the text report passes the
 * whole file through), and the control socket's request line
 * (control_parse_request()), and the owner check every writer makes before
 * it takes the file over (knob_status_owner(): 0 or -EBADMSG, and no owner
 * named when the file is refused), and the record beside the lock
 * (daemon_lock_record_parse(): 0 with a pid, a runtime_dir and a
 * journal_dir fragd can use, which format back into a record that parses
 * the same; or -EBADMSG). The JSON is one object whatever the input: it
 * starts with '{', ends with "}\n", its quotes balance outside escapes, and
 * no byte below 0x20 but the newline is written raw. The scrubbed text is
 * valid UTF-8 without a control character but tab and newline, no longer
 * than the input, and the same whether scrubbed in place or not. */

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/text.h"
#include "knobs/knob.h"
#include "output/status.h"
#include "service/control.h"
#include "service/daemon-lock.h"

static void check_scrub(const uint8_t *data, size_t size, char *in)
{
        char *out = malloc(size + 1);
        size_t n, m;

        if (!out)
                return;
        /* data is not NUL-terminated: nothing past size may be read */
        n = text_scrub(out, size + 1, (const char *) data, size, "\t\n");
        if (n > size || strlen(out) != n || !utf8_valid(out))
                abort();
        for (const unsigned char *p = (const unsigned char *) out; *p; p++)
                if ((*p < 0x20 && *p != '\t' && *p != '\n') || *p == 0x7f || (p[0] == 0xc2 && p[1] <= 0x9f))
                        abort();
        m = text_scrub(in, size + 1, in, size, "\t\n");
        if (m != n || memcmp(in, out, n + 1) != 0)
                abort();
        free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        static const char *const states[] = { "running", "paused", "stopped", "crashed" };
        char *out = NULL, *in;
        size_t len = 0;
        bool quoted = false;
        ControlCommand cmd;
        FILE *f;

        (void) control_parse_request((const char *) data, size, &cmd);
        {
                uint64_t pid = 1, starttime = 1;
                int r = knob_status_owner((const char *) data, size, &pid, &starttime);

                if ((r != 0 && r != -EBADMSG) || (r < 0 && (pid != 0 || starttime != 0)))
                        abort();
        }
        {
                LockRecord rec, again;
                char text[DAEMON_LOCK_RECORD_MAX];
                int r = daemon_lock_record_parse((const char *) data, size, &rec), n;

                if (r != 0 && r != -EBADMSG)
                        abort();
                if (r == 0) {
                        if (!rec.valid || rec.pid <= 0 || !rec.runtime_dir[0] || !rec.journal_dir[0])
                                abort();
                        n = daemon_lock_record_format(&rec, text, sizeof(text));
                        if (n < 0 || daemon_lock_record_parse(text, (size_t) n, &again) != 0 ||
                            rec.pid != again.pid || rec.starttime != again.starttime ||
                            rec.started_usec != again.started_usec || strcmp(rec.mode, again.mode) != 0 ||
                            strcmp(rec.runtime_dir, again.runtime_dir) != 0 ||
                            strcmp(rec.state_dir, again.state_dir) != 0 ||
                            strcmp(rec.journal_dir, again.journal_dir) != 0)
                                abort();
                }
        }
        in = malloc(size + 1);
        if (!in)
                return 0;
        memcpy(in, data, size);
        in[size] = '\0';
        f = open_memstream(&out, &len);
        if (!f)
                abort();
        status_json_render(in, size, states[size % 4], size & 1, NULL, size & 2 ? "a problem" : NULL, f);
        fclose(f);
        check_scrub(data, size, in);
        if (len < 3 || out[0] != '{' || strcmp(out + len - 2, "}\n") != 0)
                abort();
        for (size_t i = 0; i < len; i++) {
                unsigned char c = (unsigned char) out[i];

                if (c < 0x20 && c != '\n')
                        abort();
                if (quoted && c == '\n')
                        abort();
                if (c == '\\' && quoted)
                        i++;
                else if (c == '"')
                        quoted = !quoted;
        }
        if (quoted)
                abort();
        free(out);
        free(in);
        return 0;
}
