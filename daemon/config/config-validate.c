/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The rules between keys of a loaded configuration (min below max, order_thp
 * not below order_large, PSI threshold below its window). Each message names
 * where both values came from. Values on their own are checked as they are
 * parsed (config-table.c, config-values.c). Split from config.c. */

#include "config/config-load-internal.h"

/* Rules between keys; each message names where both values came from. */
void config_validate(Loader *l, const FragdConfig *c, const ConfigSources *s)
{
        ConfigSource none = { .origin = CONFIG_ORIGIN_DEFAULT };
        char a[64], b[64], sa[FRAGD_PATH_MAX + 16], sb[FRAGD_PATH_MAX + 16];

        for (int lv = 0; lv < _LEVER_MAX; lv++) {
                const LeverConfig *lc = &c->policy.lever[lv];
                const ConfigKey *kmin = config_key_find(SECTION_KNOB, "min");
                const ConfigKey *kmax = config_key_find(SECTION_KNOB, "max");

                if (lv == LEVER_MIN_FREE_KBYTES && (c->policy.min_free_max_permyriad > 0 || lc->max == 0))
                        continue; /* max is a share of memory or "the kernel's value": checked at run time */
                if (lc->min > lc->max)
                        config_error_at(l, none, NULL, "[knob \"%s\"] min = %s (%s) is above max = %s (%s)",
                                 lever_name(lv), config_key_format(kmin, c, lv, a, sizeof(a)),
                                 config_slot_source(s, kmin, lv, sa, sizeof(sa)),
                                 config_key_format(kmax, c, lv, b, sizeof(b)),
                                 config_slot_source(s, kmax, lv, sb, sizeof(sb)));
        }
        if (c->policy.order_thp != 0 && c->policy.order_thp < c->policy.order_large) {
                const ConfigKey *kt = config_key_find(SECTION_POLICY, "order_thp");
                const ConfigKey *kl = config_key_find(SECTION_POLICY, "order_large");

                config_error_at(l, none, NULL, "[policy] order_thp = %u (%s) is below order_large = %u (%s)",
                         c->policy.order_thp, config_slot_source(s, kt, 0, sa, sizeof(sa)), c->policy.order_large,
                         config_slot_source(s, kl, 0, sb, sizeof(sb)));
        }
        if (c->daemon.psi_trigger_threshold_usec >= c->daemon.psi_trigger_window_usec) {
                const ConfigKey *kt = config_key_find(SECTION_DAEMON, "psi_trigger_threshold");
                const ConfigKey *kw = config_key_find(SECTION_DAEMON, "psi_trigger_window");

                config_error_at(l, none, NULL, "[daemon] psi_trigger_threshold = %s (%s) must be below "
                                        "psi_trigger_window = %s (%s)",
                         config_key_format(kt, c, 0, a, sizeof(a)), config_slot_source(s, kt, 0, sa, sizeof(sa)),
                         config_key_format(kw, c, 0, b, sizeof(b)), config_slot_source(s, kw, 0, sb, sizeof(sb)));
        }
        for (unsigned i = 0; i < c->n_cgroups; i++) {
                const CgroupConfig *cg = &c->cgroups[i];
                const ConfigKey *kt = config_key_find(SECTION_CGROUP, "psi_trigger_threshold");
                const ConfigKey *kw = config_key_find(SECTION_CGROUP, "psi_trigger_window");

                if (cg->psi_trigger_threshold_usec >= cg->psi_trigger_window_usec)
                        config_error_at(l, none, NULL, "[cgroup \"%s\"] psi_trigger_threshold = %s (%s) must be below "
                                                "psi_trigger_window = %s (%s)",
                                 cg->path, config_key_format(kt, c, (int) i, a, sizeof(a)),
                                 config_slot_source(s, kt, (int) i, sa, sizeof(sa)),
                                 config_key_format(kw, c, (int) i, b, sizeof(b)),
                                 config_slot_source(s, kw, (int) i, sb, sizeof(sb)));
        }
}
