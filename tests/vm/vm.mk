# tests/vm/vm.mk - fragd on real kernels under qemu (TCG). Included by the
# top Makefile. See tests/vm/README.md.
#
#   make check-vm            the whole suite (kernels 6.1, 6.12 and 7.3)
#   make vm-kernels          fetch/unpack Debian's kernels into the cache, and
#                            build the harness's 7.3 from Debian's source, the
#                            NORETRY change behind the boot switch
#                            noretry_costly=1 (series 7.3-stock and
#                            7.3-noretry; once per machine: build-kernel.sh;
#                            FRAGD_VM_NORETRY=0 skips it)
#   make vm-run SCENARIO=churn VM_ARGS='policy=tuned defrag=never' [VM_KERNEL=6.12]
#               [VM_OPTS='-m 4G -L 1G -N 2']
#   make vm-shell [VM_KERNEL=6.12]   interactive guest (poweroff -f to leave)
#   make vm-package [VM_KERNEL=6.12]   the Debian package in the systemd guest:
#                            install, enable, a knob change under load,
#                            remove, purge (scenario 'package')
#   make vm-postgres [VM_KERNEL=6.12] [VM_ARGS='policy=fragd seed=2']
#                            PostgreSQL on XFS in the systemd guest (scenario
#                            'postgres'; the image: make vm-pg-image, root)
#   make vm-lint             shellcheck + warning-free workload build
#   make check-vm VM_FRAGD=build/vm/fragd-stub   self-test of the fragd paths
#                            with a stand-in daemon (NOT fragd)
#
# Nothing here writes the host's /proc or /sys; the cache lives outside the
# tree in $(FRAGD_VM_CACHE) (default ~/.cache/fragd-vm).

VM_SRC := tests/vm
VM_OUT := $(BUILDDIR)/vm
FRAGD_VM_KERNELS ?= 6.1 6.12 7.3-stock
# the noretry comparison's kernels, built from source (tests/vm/build-kernel.sh)
FRAGD_VM_NORETRY ?= 1
VM_NORETRY_KERNELS := $(if $(filter 1,$(FRAGD_VM_NORETRY)),7.3-stock 7.3-noretry)
VM_KERNEL ?= 6.1
VM_OPTS ?= # more run.sh options, e.g. VM_OPTS='-m 4G -L 1G -N 2'
VM_WORKLOADS := $(VM_OUT)/fragmenter $(VM_OUT)/consumer
VM_PROGS := $(VM_WORKLOADS) $(VM_OUT)/fragd-stub $(VM_OUT)/holder $(VM_OUT)/ager
# the project's tools the workload scenario runs in the guest
VM_TOOLS := $(BUILDDIR)/fragd-workload-probe $(BUILDDIR)/fragd-thp-exec
# the host's programs the guest needs: mkfs.xfs for the noretry scenario
# (xfsprogs; the scenario skips without it)
VM_HOST_BINS := $(firstword $(wildcard /usr/sbin/mkfs.xfs /sbin/mkfs.xfs))
# the fragd that goes into the guests
VM_FRAGD ?= $(BUILDDIR)/fragd
VM_CFLAGS := -O2 -std=gnu17 -Wall -Wextra -Wshadow -Wformat=2 -Wmissing-prototypes \
	-Wstrict-prototypes -D_GNU_SOURCE -static
VM_GUEST := $(VM_SRC)/guest/init $(VM_SRC)/guest/lib.sh $(VM_SRC)/guest/bounds.conf \
	$(sort $(wildcard $(VM_SRC)/guest/scenarios/*.sh))
VM_SYSD := $(VM_SRC)/guest/systemd-runner $(VM_SRC)/guest/fragd-vmtest.service \
	$(VM_SRC)/guest/fragd.service $(wildcard systemd/fragd.service.in)
# modules the systemd guest's boot stage loads before switch_root
VM_ROOT_MODULES := virtio_pci virtio_blk ext4
# the config a fragd guest runs with: the project's own when it exists
VM_FRAGD_CONF ?= $(firstword $(wildcard fragd.conf $(VM_SRC)/guest/fragd.conf))

.PHONY: check-vm vm-progs vm-kernels vm-initramfs vm-initramfs-pagecache vm-rootfs vm-run vm-shell vm-lint \
	vm-package vm-package-image vm-pg-image vm-postgres

$(VM_OUT)/%: $(VM_SRC)/src/%.c $(VM_SRC)/src/vmstat.h
	@mkdir -p $(dir $@)
	$(CC) $(VM_CFLAGS) -o $@ $<

vm-progs: $(VM_PROGS)

vm-kernels:
	$(VM_SRC)/get-kernel.sh $(sort $(FRAGD_VM_KERNELS) $(VM_NORETRY_KERNELS))

# the guest's fragd is always called fragd; copied again when VM_FRAGD names
# another binary (the .src stamp changes) or the binary changes
ifneq ($(filter check-vm vm-%,$(MAKECMDGOALS)),)
$(shell mkdir -p $(VM_OUT)/guest && { [ "$$(cat $(VM_OUT)/guest/fragd.src 2>/dev/null)" = "$(VM_FRAGD)" ] || \
	echo "$(VM_FRAGD)" >$(VM_OUT)/guest/fragd.src; })
endif
$(VM_OUT)/guest/fragd: $(VM_FRAGD) $(VM_OUT)/guest/fragd.src
	cp $< $@

$(VM_OUT)/initramfs.cpio.gz: $(VM_WORKLOADS) $(VM_TOOLS) $(VM_OUT)/guest/fragd $(VM_GUEST) $(VM_SRC)/mkinitramfs.sh $(VM_FRAGD_CONF) $(VM_HOST_BINS)
	$(VM_SRC)/mkinitramfs.sh -o $@ $(if $(VM_FRAGD_CONF),-C $(VM_FRAGD_CONF)) \
		$(VM_WORKLOADS) $(VM_TOOLS) $(VM_OUT)/guest/fragd $(VM_HOST_BINS)

vm-initramfs: $(VM_OUT)/initramfs.cpio.gz

# the page-cache scenario's initramfs per kernel: the same files plus the
# brd and xfs modules of that kernel and mkfs.xfs (xfsprogs on the host)
VM_PAGECACHE_MODULES := brd xfs
$(VM_OUT)/initramfs-pagecache-%.cpio.gz: $(VM_WORKLOADS) $(VM_TOOLS) $(VM_OUT)/guest/fragd $(VM_GUEST) \
		$(VM_SRC)/mkinitramfs.sh $(VM_FRAGD_CONF)
	@command -v mkfs.xfs >/dev/null || { echo "$@: needs mkfs.xfs on the host (apt-get install xfsprogs)"; exit 1; }
	$(VM_SRC)/get-kernel.sh $*
	$(VM_SRC)/mkinitramfs.sh -o $@ $(if $(VM_FRAGD_CONF),-C $(VM_FRAGD_CONF)) \
		-K $(or $(FRAGD_VM_CACHE),$(HOME)/.cache/fragd-vm)/kernel/$*/root -M "$(VM_PAGECACHE_MODULES)" \
		$(VM_WORKLOADS) $(VM_TOOLS) $(VM_OUT)/guest/fragd $$(command -v mkfs.xfs)

vm-initramfs-pagecache: $(FRAGD_VM_KERNELS:%=$(VM_OUT)/initramfs-pagecache-%.cpio.gz)

# systemd guest: boot-stage initramfs per kernel (modules), one ext4 image
$(VM_OUT)/initramfs-root-%.cpio.gz: $(VM_SRC)/mkinitramfs.sh $(VM_SRC)/guest/init
	$(VM_SRC)/get-kernel.sh $*
	$(VM_SRC)/mkinitramfs.sh -o $@ -K $(or $(FRAGD_VM_CACHE),$(HOME)/.cache/fragd-vm)/kernel/$*/root \
		-M "$(VM_ROOT_MODULES)"

$(VM_OUT)/rootfs.img: $(VM_OUT)/guest/fragd $(VM_GUEST) $(VM_SYSD) $(VM_SRC)/mkrootfs.sh $(VM_FRAGD_CONF) \
		$(VM_WORKLOADS) $(wildcard systemd/fragd.catalog)
	$(VM_SRC)/mkrootfs.sh -o $@ -f $(VM_OUT)/guest/fragd $(if $(VM_FRAGD_CONF),-C $(VM_FRAGD_CONF)) \
		$(VM_WORKLOADS:%=-w %)

vm-rootfs: $(VM_OUT)/rootfs.img $(FRAGD_VM_KERNELS:%=$(VM_OUT)/initramfs-root-%.cpio.gz)

# the package guest: the same systemd guest without fragd, with the .deb that
# `make deb` builds from HEAD (commit first), the fragmenter, and the .debs of
# the libraries the guest lacks (mkrootfs.sh -p fetches them). Rebuilt every
# time: the package is built from HEAD, which make cannot see change.
VM_PKG := $(VM_OUT)/pkg
vm-package-image: $(VM_OUT)/fragmenter $(VM_SRC)/mkrootfs.sh $(VM_GUEST) $(VM_SYSD)
	$(MAKE) --no-print-directory deb DISTDIR=$(VM_OUT)/dist
	rm -rf $(VM_PKG) && mkdir -p $(VM_PKG)
	cp $(VM_OUT)/dist/deb/fragd_*.deb $(VM_OUT)/fragmenter $(VM_PKG)/
	$(VM_SRC)/mkrootfs.sh -o $(VM_OUT)/rootfs-pkg.img -p $(VM_PKG)

vm-package: vm-package-image $(VM_OUT)/initramfs-root-$(VM_KERNEL).cpio.gz
	BUILDDIR=$(BUILDDIR) $(VM_SRC)/run.sh -v -k $(VM_KERNEL) -m 2G -L 512M -T 240 \
		-i $(VM_OUT)/initramfs-root-$(VM_KERNEL).cpio.gz -d $(VM_OUT)/rootfs-pkg.img package

# the postgres guest (scenario 'postgres', issue 13): the systemd guest with
# Debian's PostgreSQL 15, xfsprogs and dbus (fragd thp-dropin asks systemd
# over the system bus) debootstrapped into a base of its own (cached apart
# from the plain one), fragd, the fragmenter and fragd's workload tools; its
# boot stage loads xfs as well. guest/pg-image.sh makes the cluster again
# with 64 MiB WAL segments (see there). run.sh -D gives it the blank XFS data disk.
# -K: the packed base with that cluster is cached by its inputs' hash
# (rootfs/image-<base>-<hash>.img); a build copies it and writes fragd, the
# tools and the scenarios in with debugfs (seconds, not a minute).
VM_PG_PACKAGES := postgresql-15,xfsprogs,dbus
VM_PG_BINS := $(VM_OUT)/fragmenter $(VM_OUT)/holder $(VM_OUT)/ager $(BUILDDIR)/fragd-thp-exec $(BUILDDIR)/fragd-workload-probe
$(VM_OUT)/rootfs-pg.img: $(VM_OUT)/guest/fragd $(VM_PG_BINS) $(VM_GUEST) $(VM_SYSD) $(VM_SRC)/mkrootfs.sh \
		$(VM_SRC)/guest/pg-image.sh $(VM_FRAGD_CONF)
	$(VM_SRC)/mkrootfs.sh -o $@ -f $(VM_OUT)/guest/fragd $(if $(VM_FRAGD_CONF),-C $(VM_FRAGD_CONF)) \
		-e $(VM_PG_PACKAGES) -s 3G $(VM_PG_BINS:%=-b %) -x $(VM_SRC)/guest/pg-image.sh -K

$(VM_OUT)/initramfs-xfsroot-%.cpio.gz: $(VM_SRC)/mkinitramfs.sh $(VM_SRC)/guest/init
	$(VM_SRC)/get-kernel.sh $*
	$(VM_SRC)/mkinitramfs.sh -o $@ -K $(or $(FRAGD_VM_CACHE),$(HOME)/.cache/fragd-vm)/kernel/$*/root \
		-M "$(VM_ROOT_MODULES) xfs"

vm-pg-image: $(VM_OUT)/rootfs-pg.img $(FRAGD_VM_KERNELS:%=$(VM_OUT)/initramfs-xfsroot-%.cpio.gz)

vm-postgres: vm-pg-image $(VM_OUT)/initramfs-xfsroot-$(VM_KERNEL).cpio.gz
	BUILDDIR=$(BUILDDIR) $(VM_SRC)/run.sh -v -k $(VM_KERNEL) -m 2G -L 512M -T 600 -D 4G \
		-i $(VM_OUT)/initramfs-xfsroot-$(VM_KERNEL).cpio.gz -d $(VM_OUT)/rootfs-pg.img postgres $(VM_ARGS)

# the systemd guest is debootstrapped, which needs root; as another user the
# suite says SKIP for the service run instead (run make check-vm as root)
VM_IS_ROOT := $(filter 0,$(shell id -u))
# the page-cache scenario needs mkfs.xfs on the host; without it the suite says SKIP
VM_HAVE_XFS := $(shell command -v mkfs.xfs 2>/dev/null)
check-vm: vm-kernels vm-initramfs $(if $(VM_HAVE_XFS),vm-initramfs-pagecache) \
		$(if $(VM_IS_ROOT),vm-rootfs vm-package-image vm-pg-image)
	BUILDDIR=$(BUILDDIR) FRAGD=$(VM_OUT)/guest/fragd FRAGD_VM_KERNELS="$(FRAGD_VM_KERNELS)" \
		FRAGD_VM_NORETRY=$(FRAGD_VM_NORETRY) $(VM_SRC)/suite.sh

vm-run: vm-initramfs
	@test -n "$(SCENARIO)" || { echo "usage: make vm-run SCENARIO=NAME [VM_ARGS='k=v ...'] [VM_KERNEL=6.12]"; exit 2; }
	$(VM_SRC)/get-kernel.sh $(VM_KERNEL)
	BUILDDIR=$(BUILDDIR) $(VM_SRC)/run.sh -v -k $(VM_KERNEL) $(VM_OPTS) $(SCENARIO) $(VM_ARGS)

vm-shell: vm-initramfs
	$(VM_SRC)/get-kernel.sh $(VM_KERNEL)
	BUILDDIR=$(BUILDDIR) $(VM_SRC)/run.sh -I -k $(VM_KERNEL) $(VM_OPTS) shell

vm-lint: $(VM_PROGS)
	shellcheck -x $(VM_SRC)/*.sh $(VM_SRC)/guest/systemd-runner $(VM_SRC)/guest/pg-image.sh \
		tests/lib/jobs.sh tests/integration/run.sh
	shellcheck -x -s sh $(VM_SRC)/guest/init $(VM_SRC)/guest/lib.sh $(VM_SRC)/guest/scenarios/*.sh
