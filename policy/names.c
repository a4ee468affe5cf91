/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Names of levers, presets and THP defrag modes, as written in fragd.conf,
 * metrics labels and logs. Pure: no I/O. */

#include <errno.h>
#include <string.h>

#include "fragd/policy-config.h"

static const char *const lever_names[_LEVER_MAX] = {
        [LEVER_COMPACTION_PROACTIVENESS] = "compaction_proactiveness",
        [LEVER_WATERMARK_SCALE_FACTOR] = "watermark_scale_factor",
        [LEVER_MIN_FREE_KBYTES] = "min_free_kbytes",
        [LEVER_WATERMARK_BOOST_FACTOR] = "watermark_boost_factor",
        [LEVER_EXTFRAG_THRESHOLD] = "extfrag_threshold",
        [LEVER_THP_DEFRAG] = "thp_defrag",
        [LEVER_DEFRAG_MODE] = "defrag_mode",
};

static const char *const preset_names[_PRESET_MAX] = {
        [PRESET_DATABASE] = "database",
        [PRESET_THROUGHPUT] = "throughput",
        [PRESET_THP_MAX] = "thp-max",
        [PRESET_OBSERVE] = "observe",
};

/* As the kernel spells them in transparent_hugepage/defrag. */
static const char *const thp_defrag_names[_THP_DEFRAG_MAX] = {
        [THP_DEFRAG_NEVER] = "never",
        [THP_DEFRAG_DEFER] = "defer",
        [THP_DEFRAG_DEFER_MADVISE] = "defer+madvise",
        [THP_DEFRAG_MADVISE] = "madvise",
        [THP_DEFRAG_ALWAYS] = "always",
};

static int lookup(const char *const *names, int n, const char *name)
{
        if (!name)
                return -ENOENT;
        for (int i = 0; i < n; i++)
                if (names[i] && strcmp(names[i], name) == 0)
                        return i;
        return -ENOENT;
}

const char *lever_name(Lever l)
{
        if ((unsigned) l >= _LEVER_MAX)
                return NULL;
        return lever_names[l];
}

int lever_from_name(const char *name)
{
        return lookup(lever_names, _LEVER_MAX, name);
}

const char *preset_name(Preset p)
{
        if ((unsigned) p >= _PRESET_MAX)
                return NULL;
        return preset_names[p];
}

int preset_from_name(const char *name)
{
        return lookup(preset_names, _PRESET_MAX, name);
}

const char *thp_defrag_name(ThpDefragMode m)
{
        if ((unsigned) m >= _THP_DEFRAG_MAX)
                return NULL;
        return thp_defrag_names[m];
}

int thp_defrag_from_name(const char *name)
{
        return lookup(thp_defrag_names, _THP_DEFRAG_MAX, name);
}
