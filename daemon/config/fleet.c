/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Instance identification and fleet-file matching. Pure: works on an
 * InstanceProbe (filled by config-probe.c or by a test); the fleet directory
 * itself is read by config.c, which owns the INI parsing. */

#include <ctype.h>
#include <fnmatch.h>
#include <stdio.h>
#include <string.h>

#include "config/config-internal.h"
#include "sources/sources.h"

/* DMI strings as the kernel prints them can carry trailing blanks. */
static void trimmed(const char *in, char *out, size_t size)
{
        size_t len;

        while (*in == ' ' || *in == '\t')
                in++;
        snprintf(out, size, "%s", in);
        len = strlen(out);
        while (len > 0 && isspace((unsigned char) out[len - 1]))
                out[--len] = '\0';
}

/* Where a cloud writes the instance type into DMI. Returns true and the
 * type in buf when it does.
 *
 *  - Amazon EC2, Nitro (every current family): sys_vendor "Amazon EC2",
 *    product_name is the instance type ("r7g.4xlarge", "m7i.metal-24xl").
 *    Older Xen-based instances say "Xen" / "HVM domU" and carry no type:
 *    they fall through to the sizing class.
 *  - Google Compute Engine: sys_vendor "Google", product_name "Google
 *    Compute Engine". The machine type is only in the metadata server, which
 *    fragd does not query: falls through (the cloud is still known, see
 *    dmi_cloud()).
 *  - Microsoft Azure: sys_vendor "Microsoft Corporation", product_name
 *    "Virtual Machine". The VM size is only in IMDS: falls through (the
 *    cloud is still known).
 *  - Others seen (QEMU/KVM "Standard PC (...)", OpenStack "OpenStack Nova",
 *    Alibaba "Alibaba Cloud ECS", DigitalOcean "Droplet", Hetzner
 *    "vServer") carry no type: fall through.
 * Set instance_type= in [fleet] where DMI has no type and the sizing class
 * is not specific enough. */
static bool dmi_instance_type(const DmiInfo *dmi, char *buf, size_t size)
{
        char vendor[sizeof(dmi->sys_vendor)], product[sizeof(dmi->product_name)];

        trimmed(dmi->sys_vendor, vendor, sizeof(vendor));
        trimmed(dmi->product_name, product, sizeof(product));

        if (strcmp(vendor, "Amazon EC2") == 0) {
                /* "family.size": refuse anything else rather than match
                 * fleet files against a marketing string */
                const char *dot = strchr(product, '.');

                if (!dot || dot == product || !dot[1] || !config_instance_name_valid(product))
                        return false;
                snprintf(buf, size, "%s", product);
                return true;
        }
        return false;
}

/* Which cloud the machine says it runs on, from DMI alone (no metadata
 * server). Only markers the clouds document as theirs:
 *  - "aws": sys_vendor "Amazon EC2" (Nitro). Xen-based EC2 says "Xen" and is
 *    not recognised.
 *  - "gce": sys_vendor "Google" and product_name "Google Compute Engine".
 *  - "azure": chassis_asset_tag 7783-7084-3265-9085-8269-3286-77, which
 *    Azure sets on every VM; sys_vendor "Microsoft Corporation" and
 *    product_name "Virtual Machine" alone are any Hyper-V guest.
 * NULL otherwise. */
static const char *dmi_cloud(const DmiInfo *dmi)
{
        char vendor[sizeof(dmi->sys_vendor)], product[sizeof(dmi->product_name)];
        char tag[sizeof(dmi->chassis_asset_tag)];

        trimmed(dmi->sys_vendor, vendor, sizeof(vendor));
        trimmed(dmi->product_name, product, sizeof(product));
        trimmed(dmi->chassis_asset_tag, tag, sizeof(tag));
        if (strcmp(vendor, "Amazon EC2") == 0)
                return "aws";
        if (strcmp(vendor, "Google") == 0 && strcmp(product, "Google Compute Engine") == 0)
                return "gce";
        if (strcmp(tag, "7783-7084-3265-9085-8269-3286-77") == 0)
                return "azure";
        return NULL;
}

bool fleet_cloud_valid(const char *name)
{
        return name && (strcmp(name, "aws") == 0 || strcmp(name, "gce") == 0 || strcmp(name, "azure") == 0);
}

static uint64_t round_up_pow2(uint64_t v)
{
        uint64_t p = 1;

        while (p < v && p < (1ULL << 62))
                p <<= 1;
        return p;
}

int instance_class(const InstanceProbe *p, char *buf, size_t size)
{
        char cpus[24] = "", pages[16] = "";
        uint64_t gib;

        if (!p || p->mem_total_kb == 0)
                return -ENODATA;
        /* round up: MemTotal excludes firmware and kernel reservations, so a
         * 128 GiB machine reports ~125 GiB; rounding up maps it back */
        gib = round_up_pow2((p->mem_total_kb + (1ULL << 20) - 1) >> 20);
        if (p->n_cpus > 0)
                snprintf(cpus, sizeof(cpus), "-%lluc", (unsigned long long) round_up_pow2(p->n_cpus));
        if (p->page_size != 0 && p->page_size != 4096)
                snprintf(pages, sizeof(pages), "-%uk", p->page_size / 1024);
        snprintf(buf, size, "mem-%llug%s-%s%s", (unsigned long long) gib, cpus, p->arch[0] ? p->arch : "unknown",
                 pages);
        return 0;
}

void instance_identify(const InstanceProbe *p, const char *configured, InstanceInfo *ret)
{
        InstanceInfo i = { 0 };

        if (p) {
                (void) instance_class(p, i.class_name, sizeof(i.class_name));
                i.arch_source = p->arch_source;
                if (p->have_dmi)
                        i.cloud = dmi_cloud(&p->dmi);
        }

        if (configured && configured[0] && strcmp(configured, "auto") != 0) {
                snprintf(i.name, sizeof(i.name), "%s", configured);
                i.source = "config";
        } else if (p && p->have_dmi && dmi_instance_type(&p->dmi, i.name, sizeof(i.name)))
                i.source = "dmi";
        else if (i.class_name[0]) {
                snprintf(i.name, sizeof(i.name), "%s", i.class_name);
                i.source = "sizing";
        }
        *ret = i;
}

/* Score bands; twice the literal prefix (< CONFIG_INSTANCE_TYPE_MAX) orders
 * globs within a band, and a cloud = line adds one: of two otherwise equal
 * matches the one that names the cloud wins. */
#define SCORE_TYPE_EXACT 40000u
#define SCORE_TYPE_GLOB 30000u
#define SCORE_CLASS_EXACT 20000u
#define SCORE_CLASS_GLOB 10000u
#define SCORE_CLOUD 1u

unsigned fleet_match_score(FleetMatchKind kind, const char *pattern, const char *cloud, const InstanceInfo *inst)
{
        const char *subject;
        unsigned bonus = 0;
        size_t prefix;

        if (!inst)
                return 0;
        if (cloud && cloud[0]) {
                if (!inst->cloud || strcmp(cloud, inst->cloud) != 0)
                        return 0;
                if (kind == FLEET_MATCH_NONE)
                        return SCORE_CLOUD; /* [match] cloud = gce alone */
                bonus = SCORE_CLOUD;
        }
        if (!pattern)
                return 0;
        if (kind == FLEET_MATCH_INSTANCE_TYPE)
                /* a sizing class is not an instance type */
                subject = inst->source && strcmp(inst->source, "sizing") != 0 ? inst->name : "";
        else if (kind == FLEET_MATCH_CLASS)
                subject = inst->class_name;
        else
                return 0;
        if (!subject[0])
                return 0;

        prefix = strcspn(pattern, "*?[");
        if (pattern[prefix] == '\0')
                return strcmp(pattern, subject) == 0
                               ? (kind == FLEET_MATCH_INSTANCE_TYPE ? SCORE_TYPE_EXACT : SCORE_CLASS_EXACT) + bonus
                               : 0;
        if (fnmatch(pattern, subject, 0) != 0)
                return 0;
        return (kind == FLEET_MATCH_INSTANCE_TYPE ? SCORE_TYPE_GLOB : SCORE_CLASS_GLOB) +
               2 * (unsigned) MIN(prefix, (size_t) 999) + bonus;
}
