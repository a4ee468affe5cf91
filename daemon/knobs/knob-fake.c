/* SPDX-License-Identifier: GPL-2.0-or-later */
/* knob_ops_fake: real file I/O below a test root plus injected faults
 * (errors, clamping, side effects, slow writes). For tests only; it lives in
 * libfragd so unit tests can link it. */

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/parse-util.h"
#include "knobs/knob.h"

#define FAKE_RULES_MAX 64

typedef enum FakeRuleType {
        FAKE_FAIL_READ,
        FAKE_FAIL_WRITE,
        FAKE_CLAMP,
        FAKE_SIDE_EFFECT,
        FAKE_DELAY,
} FakeRuleType;

typedef struct FakeRule {
        FakeRuleType type;
        char name[KNOB_NAME_MAX];
        int err;
        unsigned remaining; /* 0: forever */
        bool used_up;
        int64_t lo, hi;
        char victim[KNOB_NAME_MAX];
        char value[KNOB_VALUE_MAX];
        usec_t delay_usec;
} FakeRule;

typedef struct FakeCount {
        char name[KNOB_NAME_MAX];
        unsigned n;
} FakeCount;

struct KnobFake {
        pthread_mutex_t lock;
        const Root *root;
        size_t n_rules;
        FakeRule rules[FAKE_RULES_MAX];
        size_t n_counts;
        FakeCount counts[KNOB_MAX];
};

KnobFake *knob_fake_new(const Root *root)
{
        KnobFake *f = calloc(1, sizeof(*f));

        if (!f)
                return NULL;
        pthread_mutex_init(&f->lock, NULL);
        f->root = root;
        return f;
}

KnobFake *knob_fake_free(KnobFake *f)
{
        if (!f)
                return NULL;
        pthread_mutex_destroy(&f->lock);
        free(f);
        return NULL;
}

static int fake_add(KnobFake *f, const FakeRule *rule)
{
        int r = 0;

        pthread_mutex_lock(&f->lock);
        if (f->n_rules >= FAKE_RULES_MAX)
                r = -E2BIG;
        else
                f->rules[f->n_rules++] = *rule;
        pthread_mutex_unlock(&f->lock);
        return r;
}

static int fake_rule(FakeRuleType type, const char *name, FakeRule *ret)
{
        *ret = (FakeRule) { .type = type };
        if (!name || strlen(name) >= sizeof(ret->name))
                return -EINVAL;
        strcpy(ret->name, name);
        return 0;
}

/* A read or write of name fails with err, count times. */
static int fake_fail(KnobFake *f, FakeRuleType type, const char *name, int err, unsigned count)
{
        FakeRule rule;
        int r = fake_rule(type, name, &rule);

        if (r < 0)
                return r;
        rule.err = -abs(err);
        rule.remaining = count;
        return fake_add(f, &rule);
}

int knob_fake_fail_read(KnobFake *f, const char *name, int err, unsigned count)
{
        return fake_fail(f, FAKE_FAIL_READ, name, err, count);
}

int knob_fake_fail_write(KnobFake *f, const char *name, int err, unsigned count)
{
        return fake_fail(f, FAKE_FAIL_WRITE, name, err, count);
}

int knob_fake_clamp(KnobFake *f, const char *name, int64_t lo, int64_t hi)
{
        FakeRule rule;
        int r = fake_rule(FAKE_CLAMP, name, &rule);

        if (r < 0)
                return r;
        rule.lo = lo;
        rule.hi = hi;
        return fake_add(f, &rule);
}

int knob_fake_side_effect(KnobFake *f, const char *trigger, const char *victim, const char *value)
{
        FakeRule rule;
        int r = fake_rule(FAKE_SIDE_EFFECT, trigger, &rule);

        if (r < 0)
                return r;
        if (strlen(victim) >= sizeof(rule.victim) || strlen(value) >= sizeof(rule.value))
                return -EINVAL;
        strcpy(rule.victim, victim);
        strcpy(rule.value, value);
        return fake_add(f, &rule);
}

int knob_fake_write_delay(KnobFake *f, const char *name, usec_t delay_usec)
{
        FakeRule rule;
        int r = fake_rule(FAKE_DELAY, name, &rule);

        if (r < 0)
                return r;
        rule.delay_usec = delay_usec;
        return fake_add(f, &rule);
}

unsigned knob_fake_n_writes(KnobFake *f, const char *name)
{
        unsigned n = 0;

        pthread_mutex_lock(&f->lock);
        for (size_t i = 0; i < f->n_counts; i++)
                if (strcmp(f->counts[i].name, name) == 0)
                        n = f->counts[i].n;
        pthread_mutex_unlock(&f->lock);
        return n;
}

static bool rule_matches(const FakeRule *rule, FakeRuleType type, const char *name)
{
        return rule->type == type && !rule->used_up && (strcmp(rule->name, "*") == 0 || strcmp(rule->name, name) == 0);
}

/* Consumes one use of the first matching fail rule; returns its error or 0. */
static int fake_take_error(KnobFake *f, FakeRuleType type, const char *name)
{
        int r = 0;

        pthread_mutex_lock(&f->lock);
        for (size_t i = 0; i < f->n_rules; i++) {
                FakeRule *rule = &f->rules[i];

                if (!rule_matches(rule, type, name))
                        continue;
                r = rule->err;
                if (rule->remaining > 0 && --rule->remaining == 0)
                        rule->used_up = true;
                break;
        }
        pthread_mutex_unlock(&f->lock);
        return r;
}

static int fake_read(const Knob *k, char *ret_buf, size_t n)
{
        KnobFake *f = k->ops_data;
        int r;

        if (f) {
                r = fake_take_error(f, FAKE_FAIL_READ, k->name);
                if (r < 0)
                        return r;
        }
        return knob_ops_real.read(k, ret_buf, n);
}

static int fake_write(const Knob *k, const char *value)
{
        KnobFake *f = k->ops_data;
        char clamped[32];
        usec_t delay = 0;
        FakeRule side[4];
        size_t n_side = 0;
        int r;

        if (!f)
                return knob_ops_real.write(k, value);

        pthread_mutex_lock(&f->lock);
        for (size_t i = 0; i < f->n_rules; i++) {
                const FakeRule *rule = &f->rules[i];

                if (rule_matches(rule, FAKE_DELAY, k->name))
                        delay = rule->delay_usec;
                if (rule_matches(rule, FAKE_CLAMP, k->name)) {
                        int64_t v;

                        if (parse_i64(value, &v) >= 0) {
                                snprintf(clamped, sizeof(clamped), "%lld",
                                         (long long) CLAMP(v, rule->lo, rule->hi));
                                value = clamped;
                        }
                }
                if (rule_matches(rule, FAKE_SIDE_EFFECT, k->name) && n_side < ELEMENTSOF(side))
                        side[n_side++] = *rule;
        }
        pthread_mutex_unlock(&f->lock);

        if (delay > 0) {
                struct timespec ts = { .tv_sec = (time_t) (delay / USEC_PER_SEC),
                                       .tv_nsec = (long) (delay % USEC_PER_SEC) * 1000 };

                while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
                        ;
        }
        r = fake_take_error(f, FAKE_FAIL_WRITE, k->name);
        if (r < 0)
                return r;
        r = knob_ops_real.write(k, value);
        if (r < 0)
                return r;

        pthread_mutex_lock(&f->lock);
        {
                FakeCount *c = NULL;

                for (size_t i = 0; i < f->n_counts; i++)
                        if (strcmp(f->counts[i].name, k->name) == 0)
                                c = &f->counts[i];
                if (!c && f->n_counts < ELEMENTSOF(f->counts)) {
                        c = &f->counts[f->n_counts++];
                        snprintf(c->name, sizeof(c->name), "%s", k->name);
                }
                if (c)
                        c->n++;
        }
        pthread_mutex_unlock(&f->lock);

        for (size_t i = 0; i < n_side; i++) {
                Knob victim;

                if (knob_init(&victim, f->root, side[i].victim, NULL) == 0)
                        (void) knob_ops_real.write(&victim, side[i].value);
        }
        return 0;
}

const KnobOps knob_ops_fake = {
        .name = "fake",
        .dry_run = false,
        .read = fake_read,
        .write = fake_write,
};
