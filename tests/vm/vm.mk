# tests/vm/vm.mk - fragd on real kernels under qemu (TCG). Included by the
# top Makefile. See tests/vm/README.md.
#
#   make check-vm            the whole suite (kernels 6.1 and 6.12)
#   make vm-kernels          fetch/unpack the kernels into the cache
#   make vm-run SCENARIO=churn VM_ARGS='policy=tuned defrag=never' [VM_KERNEL=6.12]
#   make vm-shell [VM_KERNEL=6.12]   interactive guest (poweroff -f to leave)
#   make vm-lint             shellcheck + warning-free workload build
#
# Nothing here writes the host's /proc or /sys; the cache lives outside the
# tree in $(FRAGD_VM_CACHE) (default ~/.cache/fragd-vm).

VM_SRC := tests/vm
VM_OUT := $(BUILDDIR)/vm
FRAGD_VM_KERNELS ?= 6.1 6.12
VM_KERNEL ?= 6.1
VM_MEM ?= -m 2G -L 512M
VM_PROGS := $(VM_OUT)/fragmenter $(VM_OUT)/consumer
VM_CFLAGS := -O2 -std=gnu17 -Wall -Wextra -Wshadow -Wformat=2 -Wmissing-prototypes \
	-Wstrict-prototypes -D_GNU_SOURCE -static
VM_GUEST := $(VM_SRC)/guest/init $(VM_SRC)/guest/lib.sh $(VM_SRC)/guest/bounds.conf \
	$(sort $(wildcard $(VM_SRC)/guest/scenarios/*.sh))
# the config a fragd guest runs with: the project's own when it exists
VM_FRAGD_CONF ?= $(firstword $(wildcard fragd.conf $(VM_SRC)/guest/fragd.conf))

.PHONY: check-vm vm-progs vm-kernels vm-initramfs vm-run vm-shell vm-lint

$(VM_OUT)/%: $(VM_SRC)/src/%.c $(VM_SRC)/src/vmstat.h
	@mkdir -p $(dir $@)
	$(CC) $(VM_CFLAGS) -o $@ $<

vm-progs: $(VM_PROGS)

vm-kernels:
	$(VM_SRC)/get-kernel.sh $(FRAGD_VM_KERNELS)

$(VM_OUT)/initramfs.cpio.gz: $(VM_PROGS) $(BUILDDIR)/fragd $(VM_GUEST) $(VM_SRC)/mkinitramfs.sh $(VM_FRAGD_CONF)
	$(VM_SRC)/mkinitramfs.sh -o $@ $(if $(VM_FRAGD_CONF),-C $(VM_FRAGD_CONF)) \
		$(VM_PROGS) $(BUILDDIR)/fragd

vm-initramfs: $(VM_OUT)/initramfs.cpio.gz

check-vm: vm-kernels vm-initramfs
	BUILDDIR=$(BUILDDIR) FRAGD_VM_KERNELS="$(FRAGD_VM_KERNELS)" $(VM_SRC)/suite.sh

vm-run: vm-initramfs
	@test -n "$(SCENARIO)" || { echo "usage: make vm-run SCENARIO=NAME [VM_ARGS='k=v ...'] [VM_KERNEL=6.12]"; exit 2; }
	$(VM_SRC)/get-kernel.sh $(VM_KERNEL)
	BUILDDIR=$(BUILDDIR) $(VM_SRC)/run.sh -v -k $(VM_KERNEL) $(VM_MEM) $(SCENARIO) $(VM_ARGS)

vm-shell: vm-initramfs
	$(VM_SRC)/get-kernel.sh $(VM_KERNEL)
	BUILDDIR=$(BUILDDIR) $(VM_SRC)/run.sh -I -k $(VM_KERNEL) $(VM_MEM) shell

vm-lint: $(VM_PROGS)
	shellcheck -x $(VM_SRC)/*.sh
	shellcheck -x -s sh $(VM_SRC)/guest/init $(VM_SRC)/guest/lib.sh $(VM_SRC)/guest/scenarios/*.sh
