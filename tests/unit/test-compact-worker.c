/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The compaction worker: off-thread writes, one-slot queue (-EBUSY),
 * completion through the eventfd, errors, dry run, shutdown while busy. */

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "core/log.h"
#include "knob-test-util.h"
#include "knobs/compact-worker.h"
#include "knobs/knob.h"

#define NODE0 "sys/devices/system/node/node0/compact"
#define NODE1 "sys/devices/system/node/node1/compact"

typedef struct Ctx {
        TestTree t;
        KnobFake *fake;
        KnobRegistry *reg;
        CompactWorker *w;
} Ctx;

static int setup_ops(void **state, const KnobOps *ops)
{
        Ctx *c = calloc(1, sizeof(*c));

        assert_non_null(c);
        tt_setup(&c->t);
        if (ops == &knob_ops_fake)
                c->fake = knob_fake_new(c->t.root);
        assert_int_equal(knob_registry_new(c->t.root, NULL, ops, c->fake, OWNERSHIP_RESPECT, &c->reg), 0);
        assert_int_equal(compact_worker_new(c->reg, &c->w), 0);
        *state = c;
        return 0;
}

static int setup_fake(void **state)
{
        return setup_ops(state, &knob_ops_fake);
}

static int setup_dryrun(void **state)
{
        return setup_ops(state, &knob_ops_dryrun);
}

static int teardown(void **state)
{
        Ctx *c = *state;

        compact_worker_free(c->w);
        knob_registry_free(c->reg);
        knob_fake_free(c->fake);
        tt_teardown(&c->t);
        free(c);
        return 0;
}

/* What the event loop does: wait for the eventfd, then ask. */
static void wait_result(Ctx *c, CompactResult *ret)
{
        struct pollfd p = { .fd = compact_worker_fd(c->w), .events = POLLIN };

        assert_int_equal(poll(&p, 1, 10000), 1);
        assert_int_equal(compact_worker_result(c->w, ret), 0);
}

static void test_compact_node(void **state)
{
        Ctx *c = *state;
        CompactResult res;
        struct pollfd p = { .fd = compact_worker_fd(c->w), .events = POLLIN };

        assert_int_equal(compact_worker_result(c->w, &res), -EAGAIN);
        assert_int_equal(compact_worker_submit(c->w, 0), 0);
        wait_result(c, &res);
        assert_int_equal(res.node, 0);
        assert_string_equal(res.knob, "node0.compact");
        assert_int_equal(res.error, 0);
        assert_int_equal(res.seq, 1);
        assert_string_equal(tt_read(&c->t, NODE0), "1\n");
        assert_false(compact_worker_busy(c->w));
        /* consumed: the fd is quiet again, no second result */
        assert_int_equal(poll(&p, 1, 0), 0);
        assert_int_equal(compact_worker_result(c->w, &res), -EAGAIN);

        assert_int_equal(compact_worker_submit(c->w, COMPACT_ALL_NODES), 0);
        wait_result(c, &res);
        assert_int_equal(res.node, COMPACT_ALL_NODES);
        assert_string_equal(res.knob, "vm.compact_memory");
        assert_int_equal(res.seq, 2);
        assert_string_equal(tt_read(&c->t, "proc/sys/vm/compact_memory"), "1\n");
        assert_int_equal(compact_worker_submit(c->w, -2), -EINVAL);
}

static void test_busy(void **state)
{
        Ctx *c = *state;
        CompactResult res;

        assert_int_equal(knob_fake_write_delay(c->fake, "node0.compact", 200 * USEC_PER_MSEC), 0);
        assert_int_equal(compact_worker_submit(c->w, 0), 0);
        assert_true(compact_worker_busy(c->w));
        /* never two at once */
        assert_int_equal(compact_worker_submit(c->w, 1), -EBUSY);
        assert_int_equal(compact_worker_submit(c->w, 0), -EBUSY);
        wait_result(c, &res);
        assert_int_equal(res.node, 0);
        assert_true(res.duration_usec >= 150 * USEC_PER_MSEC);
        assert_int_equal(knob_fake_n_writes(c->fake, "node0.compact"), 1);
        assert_int_equal(knob_fake_n_writes(c->fake, "node1.compact"), 0);
        assert_string_equal(tt_read(&c->t, NODE1), "");
        /* free again */
        assert_int_equal(compact_worker_submit(c->w, 1), 0);
        wait_result(c, &res);
        assert_int_equal(res.node, 1);
}

static void test_errors(void **state)
{
        Ctx *c = *state;
        CompactResult res;

        /* no such node */
        assert_int_equal(compact_worker_submit(c->w, 5), 0);
        wait_result(c, &res);
        assert_int_equal(res.error, -ENOENT);
        assert_int_equal(knob_note_result(c->reg, res.knob, res.error, 1), -ENOENT);
        assert_true(knob_is_disabled(c->reg, "node5.compact"));
        assert_int_equal(compact_worker_submit(c->w, 5), -ECANCELED);

        /* interrupted: transient */
        assert_int_equal(knob_fake_fail_write(c->fake, "node1.compact", EINTR, 1), 0);
        assert_int_equal(compact_worker_submit(c->w, 1), 0);
        wait_result(c, &res);
        assert_int_equal(res.error, -EINTR);
        assert_int_equal(knob_note_result(c->reg, res.knob, res.error, 2), -EINTR);
        assert_false(knob_is_disabled(c->reg, "node1.compact"));
}

static usec_t mono(void)
{
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (usec_t) ts.tv_sec * USEC_PER_SEC + (usec_t) ts.tv_nsec / 1000;
}

static void test_submit_does_not_block(void **state)
{
        Ctx *c = *state;
        usec_t t0;

        /* a slow compaction (300 ms) does not block the caller (the event loop) */
        assert_int_equal(knob_fake_write_delay(c->fake, "*", 300 * USEC_PER_MSEC), 0);
        t0 = mono();
        assert_int_equal(compact_worker_submit(c->w, 0), 0);
        assert_true(mono() - t0 < 250 * USEC_PER_MSEC);
        /* wait until the worker runs the job (however loaded the machine),
         * then free while it runs: free waits for the job (compaction cannot
         * be interrupted), then joins; the write has landed when it returns */
        for (int i = 0; i < 5000 && !compact_worker_running(c->w); i++)
                usleep(1000);
        assert_true(compact_worker_running(c->w));
        c->w = compact_worker_free(c->w);
        assert_string_equal(tt_read(&c->t, NODE0), "1\n");
}

static void test_dry_run(void **state)
{
        Ctx *c = *state;
        CompactResult res;
        uint64_t sys = tt_checksum(&c->t, "sys");

        assert_int_equal(compact_worker_submit(c->w, 1), 0);
        wait_result(c, &res);
        assert_int_equal(res.error, 0);
        assert_true(tt_checksum(&c->t, "sys") == sys);
        assert_string_equal(tt_read(&c->t, NODE1), "");
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_compact_node, setup_fake, teardown),
                cmocka_unit_test_setup_teardown(test_busy, setup_fake, teardown),
                cmocka_unit_test_setup_teardown(test_errors, setup_fake, teardown),
                cmocka_unit_test_setup_teardown(test_submit_does_not_block, setup_fake, teardown),
                cmocka_unit_test_setup_teardown(test_dry_run, setup_dryrun, teardown),
        };

        log_set_max_level(getenv("FRAGD_TEST_VERBOSE") ? LOG_DEBUG : LOG_WARNING);
        return cmocka_run_group_tests(tests, NULL, NULL);
}
