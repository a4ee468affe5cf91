/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The learned reserve across restarts, for the daemon: at the first tick
 * (before the first decide) the burst kept in <state_dir>/learned is
 * re-instated by its real age (policy_learned_restore()) or ignored with the
 * reason; afterwards the file follows PolicyState: written when the learned
 * peak changes (at most once a minute: a burst renews it every tick), removed
 * when the peak is forgotten, and brought up to date at stop. --dry-run and
 * the observe preset read it but never write it. The file's format and I/O
 * are in learned-store.c; docs/policy.md "Learned reserve". */

#include "core/format.h"
#include "core/log-event.h"
#include "service/boot-history.h"
#include "service/learned-store.h"
#include "service/manager-internal.h"

#define LEARNED_WRITE_MIN_INTERVAL_USEC (60 * USEC_PER_SEC)

typedef struct Text {
        char s[64];
} Text;

static Text dur_text(usec_t u)
{
        Text t;

        format_duration(t.s, sizeof(t.s), u);
        return t;
}

static Text bytes_text(uint64_t b)
{
        Text t;

        format_bytes(t.s, sizeof(t.s), b);
        return t;
}

/* Local time of a CLOCK_REALTIME instant: the time of day, with the date
 * when it is more than a day away. */
static Text clock_text(usec_t realtime, usec_t now_realtime)
{
        time_t tt = (time_t) (realtime / USEC_PER_SEC);
        usec_t d = realtime > now_realtime ? realtime - now_realtime : now_realtime - realtime;
        struct tm tm;
        Text t;

        if (!localtime_r(&tt, &tm) ||
            strftime(t.s, sizeof(t.s), d < 86400 * USEC_PER_SEC ? "%H:%M:%S" : "%Y-%m-%d %H:%M", &tm) == 0)
                snprintf(t.s, sizeof(t.s), "?");
        return t;
}

static void file_name(const Manager *m, char *buf, size_t size)
{
        learned_store_name(m->root, m->cfg.daemon.state_dir, buf, size);
}

static void synced(Manager *m, uint64_t bytes, usec_t usec, usec_t before)
{
        m->learned_synced_bytes = bytes;
        m->learned_synced_usec = usec;
        m->learned_synced_before_usec = before;
}

/* No burst kept from an earlier run: the first reserve from what the
 * kernel counted since boot (boot_history_read(), sized by
 * policy_learned_from_boot()). */
static void learned_from_boot(Manager *m, usec_t now)
{
        const PolicyConfig *pc = &m->cfg.policy;
        uint64_t hp = m->a->hpage_order < 32 ? (uint64_t) m->a->page_size << m->a->hpage_order : 0;
        BootFirst bf;
        char text[320];

        if (!boot_first_reserve(m->root, m->cur, pc, hp, now, &bf)) {
                if (!bf.asked)
                        return;
                if (bf.read < 0)
                        log_notice("No first reserve from the kernel's counters since boot: %s", bf.why);
                else
                        log_info("No THP burst learned yet, and none to go by since boot: %s",
                                 boot_history_explain(&bf.b, NULL, text, sizeof(text)));
                return;
        }
        policy_learned_seed(m->pstate, &bf.lr);
        log_info("No THP burst learned yet: first reserve from the kernel's counters since boot, %s; %" PRIu64
                 " direct compactions; kept ready %s (at most demand_cap of a node), then %s",
                 boot_history_explain(&bf.b, &bf.lr, text, sizeof(text)),
                 kv_get_or(&m->cur->vmstat, "compact_stall", 0), dur_text(pc->demand_hold_usec).s,
                 pc->demand_decay_usec > 0 ? "halved like a learned burst" : "dropped");
}

void manager_learned_restore(Manager *m, usec_t now)
{
        const PolicyConfig *pc = &m->cfg.policy;
        const LearnedRestore *lr;
        LearnedLoad l;
        char name[FRAGD_PATH_MAX * 2], why[320], peak[32];
        usec_t now_rt = now_realtime_usec();

        if (m->learned_restored)
                return;
        m->learned_restored = true;
        (void) machine_id_read(m->root, m->machine_id);
        file_name(m, name, sizeof(name));
        (void) learned_store_load(m->root, m->cfg.daemon.state_dir, pc, m->a->page_size, m->a->hpage_order,
                                  m->machine_id, observation_mem_bytes(m->cur), now, now_rt, &l);
        if (l.capped_from_bytes)
                log_warning("The learned reserve file '%s' says a %s burst, more than this host's %s of "
                            "memory: taken as %s (the file was written from a counter that jumped?)",
                            name, bytes_text(l.capped_from_bytes).s, bytes_text(observation_mem_bytes(m->cur)).s,
                            bytes_text(l.file.peak_bytes).s);
        (void) learned_load_explain(&l, why, sizeof(why));
        if (l.future_usec > 0)
                log_notice("The learned reserve file '%s' has its burst %s in the future (was the clock set "
                           "back?); counting it as seen just now",
                           name, dur_text(l.future_usec).s);
        switch (l.result) {
        case LEARNED_LOAD_NOT_KEPT:
                log_debug("state_dir is empty: the learned reserve is not kept across restarts");
                goto boot;
        case LEARNED_LOAD_NONE:
                log_debug("No learned reserve from a previous run in '%s'", name);
                goto boot;
        case LEARNED_LOAD_OTHER_VERSION:
                if (l.newer) {
                        /* a rollback: the newer fragd wants it back */
                        m->learned_file_kept = true;
                        log_notice("The learned reserve file '%s' %s: a newer fragd wrote it; leaving it as it "
                                   "is (this run's learned reserve is not kept across restarts)",
                                   name, why);
                        goto boot;
                }
                /* fall through */
        case LEARNED_LOAD_NOT_APPLICABLE:
                log_notice("The learned reserve file '%s' %s; ignoring it", name, why);
                goto boot;
        case LEARNED_LOAD_MALFORMED:
        case LEARNED_LOAD_TOO_LARGE:
                log_warning("The learned reserve file '%s' %s; ignoring it", name, why);
                goto boot;
        case LEARNED_LOAD_UNREADABLE:
                log_warning_errno(l.error, "Cannot read the learned reserve file '%s': %m; ignoring it", name);
                goto boot;
        case LEARNED_LOAD_LEARNING_OFF:
                log_info("Learned reserve from the previous run (%s burst seen %s ago) not used: "
                         "demand_learning is off",
                         bytes_text(l.file.peak_bytes).s, dur_text(l.age_usec).s);
                goto boot;
        case LEARNED_LOAD_DECAYED:
                log_info("Learned reserve from the previous run: the %s burst seen %s ago has decayed to "
                         "nothing; dropped",
                         bytes_text(l.file.peak_bytes).s, dur_text(l.age_usec).s);
                goto boot;
        case LEARNED_LOAD_OK:
        default:
                break;
        }
        lr = &l.restore;
        policy_learned_seed(m->pstate, lr);
        synced(m, lr->peak_bytes, lr->peak_usec, lr->peak_before_usec); /* what the file says */
        m->learned_event_bytes = lr->peak_bytes;
        m->learned_event_usec = now;
        snprintf(peak, sizeof(peak), "%" PRIu64, lr->peak_bytes);
        if (lr->hold_left_usec > 0)
                log_event(LOG_INFO, LOG_EVENT_LEARNED_RESERVE, NULL, LOG_EVENT_NO_NODE, "0", peak, "previous_run",
                          "Learned reserve from the previous run: %s burst seen %s ago, kept ready until %s "
                          "(%s from now), then %s%s",
                          bytes_text(lr->peak_bytes).s, dur_text(l.age_usec).s,
                          clock_text(now_rt + lr->hold_left_usec, now_rt).s, dur_text(lr->hold_left_usec).s,
                          pc->demand_decay_usec > 0 ? "halved every " : "dropped",
                          pc->demand_decay_usec > 0 ? dur_text(pc->demand_decay_usec).s : "");
        else
                log_event(LOG_INFO, LOG_EVENT_LEARNED_RESERVE, NULL, LOG_EVENT_NO_NODE, "0", peak, "previous_run",
                          "Learned reserve from the previous run: %s burst seen %s ago, decayed to %s kept ready "
                          "now, halved every %s",
                          bytes_text(lr->peak_bytes).s, dur_text(l.age_usec).s, bytes_text(lr->need_bytes).s,
                          dur_text(pc->demand_decay_usec).s);
        return;
boot:
        learned_from_boot(m, now);
}

/* The learned_reserve event: the learned burst changed since the last one
 * told (learned, renewed larger, replaced after decay, forgotten). A growing
 * burst renews it every tick: at most once a minute while it is kept. */
static void learned_event(Manager *m, usec_t now)
{
        uint64_t peak = m->pstate->learned_peak_bytes, was = m->learned_event_bytes;
        char from[32], to[32];

        if (peak == was || (peak > 0 && m->learned_event_usec > 0 &&
                            now - m->learned_event_usec < LEARNED_WRITE_MIN_INTERVAL_USEC))
                return;
        m->learned_event_bytes = peak;
        m->learned_event_usec = now;
        if (m->pstate->learned_from_boot) {
                /* the seed was logged at start (learned_from_boot()): no
                 * burst was learned */
                m->learned_event_boot = true;
                return;
        }
        snprintf(from, sizeof(from), "%" PRIu64, was);
        snprintf(to, sizeof(to), "%" PRIu64, peak);
        if (peak == 0)
                log_event(LOG_INFO, LOG_EVENT_LEARNED_RESERVE, NULL, LOG_EVENT_NO_NODE, from, to,
                          "forgotten", "Learned reserve forgotten: the %s %s has decayed", bytes_text(was).s,
                          m->learned_event_boot ? "first reserve from boot history" : "THP burst");
        else
                log_event(LOG_INFO, LOG_EVENT_LEARNED_RESERVE, NULL, LOG_EVENT_NO_NODE, from, to,
                          peak > was ? "burst_learned" : "burst_replaced",
                          "Learned reserve: a %s THP burst to keep ready for (was %s)", bytes_text(peak).s,
                          was ? bytes_text(was).s : "none");
        m->learned_event_boot = false;
}

void manager_learned_sync(Manager *m, usec_t now, bool stopping)
{
        const PolicyState *s = m->pstate;
        char name[FRAGD_PATH_MAX * 2];
        /* a seed from boot history is no burst fragd saw: not kept (the
         * next start takes it again from the counters) */
        bool keep = s->learned_peak_bytes > 0 && s->learned_peak_usec > 0 && !s->learned_from_boot;
        int r;

        /* before the first tick nothing was read: a stop then must not
         * replace the previous run's file with an empty state */
        if (!m->learned_restored)
                return;
        if (!stopping)
                learned_event(m, now);
        if (m->dry_run || !m->cfg.daemon.state_dir[0] || m->learned_file_kept)
                return;
        if (!stopping && s->learned_peak_bytes == m->learned_synced_bytes &&
            s->learned_peak_usec == m->learned_synced_usec &&
            s->learned_peak_before_usec == m->learned_synced_before_usec)
                return;
        if (keep && !stopping && m->learned_write_usec > 0 &&
            now - m->learned_write_usec < LEARNED_WRITE_MIN_INTERVAL_USEC)
                return; /* a burst renews the peak every tick: once a minute, and at stop */

        if (keep) {
                usec_t now_rt = now_realtime_usec(), age = policy_learned_age(s, now);
                LearnedFile f = {
                        .page_size = m->a->page_size,
                        .hpage_order = m->a->hpage_order,
                        .peak_bytes = s->learned_peak_bytes,
                        .peak_realtime_usec = now_rt > age ? now_rt - age : 1,
                };

                memcpy(f.machine_id, m->machine_id, sizeof(f.machine_id));
                r = learned_store_write(m->root, m->cfg.daemon.state_dir, &f);
        } else
                r = learned_store_remove(m->root, m->cfg.daemon.state_dir);
        m->learned_write_usec = now;
        if (r < 0) {
                file_name(m, name, sizeof(name));
                if (!m->learned_write_failing || stopping)
                        log_warning_errno(r, "Cannot %s the learned reserve file '%s': %m; the learned reserve "
                                          "is not kept across restarts, ignoring",
                                          keep ? "write" : "remove", name);
                m->learned_write_failing = true;
                return;
        }
        if (m->learned_write_failing) {
                file_name(m, name, sizeof(name));
                log_info("The learned reserve file '%s' is written again", name);
        }
        m->learned_write_failing = false;
        synced(m, s->learned_peak_bytes, s->learned_peak_usec, s->learned_peak_before_usec);
        if (keep)
                log_debug("Learned reserve saved: %s burst seen %s ago", bytes_text(s->learned_peak_bytes).s,
                          dur_text(policy_learned_age(s, now)).s);
        else
                log_debug("Learned reserve forgotten: state file removed");
}

bool manager_learned_status(const Manager *m, usec_t now, char *buf, size_t size)
{
        const PolicyState *s = m->pstate;
        const PolicyEval *e = &m->d->eval;
        usec_t age = policy_learned_age(s, now);

        if (e->learned_need_bytes == 0 || s->learned_peak_usec == 0)
                return false;
        snprintf(buf, size, "Learned reserve: %s kept ready for THP bursts (%s burst seen %s ago; %s %s)",
                 bytes_text(e->learned_need_bytes).s, bytes_text(s->learned_peak_bytes).s, dur_text(age).s,
                 age <= m->cfg.policy.demand_hold_usec ? "held" : "halved every",
                 dur_text(age <= m->cfg.policy.demand_hold_usec ? m->cfg.policy.demand_hold_usec
                                                                : m->cfg.policy.demand_decay_usec).s);
        return true;
}
