# fragd - see README.md. Targets: all check check-unit check-integration
# check-package check-vm fuzz mutate bench install uninstall dist deb clean.
#   make mutate     mutation testing of policy/ against its pure tests
#                   (tools/mutate.py, docs/policy.md "Mutation testing");
#                   slow, not part of check. MUTATE_ARGS="--files policy/X.c"
#                   narrows it; MUTATE_SAMPLE=P runs a stable P % sample
#                   (default 20, seed 1; 100 for every mutant).
#
# Sources are found by directory, so a module is added by adding its files:
#   policy/*.c              -> libpolicy.a (pure: links nothing else)
#   daemon/*/*.c            -> libfragd.a (daemon/main.c: the fragd binary)
#   tests/unit/policy/test-*.c  link libpolicy.a only (enforces purity)
# policy/ and its tests compile with -Iinclude alone (PURE_CPPFLAGS): no
# daemon header and no library's headers can reach them.
#   tests/unit/test-*.c         link libfragd.a + libpolicy.a
#   tests/fuzz/fuzz-*.c         one fuzzer per parser; corpus in tests/corpus/<name>/,
#                           replayed under gcc by tests/fuzz/replay-main.c

# The release this tree is (or prepares): CHANGELOG.md, debian/changelog and
# the man pages' .TH carry the same (make check-package checks it).
VERSION := 0.1.0
# The version the binaries report (fragd --version, fragd_build_info):
# `git describe` of the newest v* tag in a git checkout (0.1.0, or
# 0.1.0-3-gabc1234[-dirty] after it), else the .version file a `make dist`
# tarball carries, else VERSION (a checkout without any tag yet).
GIT_VERSION := $(if $(wildcard .git),$(shell git describe --tags --dirty --match 'v[0-9]*' 2>/dev/null | sed 's/^v//'))
BUILD_VERSION := $(or $(GIT_VERSION),$(shell cat .version 2>/dev/null),$(VERSION))
PREFIX ?= /usr/local
SBINDIR ?= $(PREFIX)/sbin
BINDIR ?= $(PREFIX)/bin
MANDIR ?= $(PREFIX)/share/man
DATADIR ?= $(PREFIX)/share
SYSCONFDIR ?= /etc
PKG_CONFIG ?= pkg-config
DEPS := libsystemd libnl-3.0 libnl-genl-3.0 inih
# everything make install writes below PREFIX (default /usr/local, the
# administrator's own tree, which neither dpkg nor the distribution's
# packages touch); the unit included: systemd reads
# /usr/local/lib/systemd/system too (systemd.unit(5)). PREFIX=/usr uses the
# distribution's unit directory (pkg-config systemd). The configuration is
# in /etc whatever the PREFIX, as systemd's and Debian's own local installs
# do (install.mk).
UNITDIR ?= $(if $(filter /usr,$(PREFIX)),$(or $(shell $(PKG_CONFIG) --variable=systemdsystemunitdir systemd \
	2>/dev/null),/usr/lib/systemd/system),$(PREFIX)/lib/systemd/system)
DOCDIR ?= $(DATADIR)/doc/fragd

SANITIZE ?=
BUILDDIR ?= $(if $(SANITIZE),build-san-$(notdir $(CC)),build)

CFLAGS ?= -O2 -g
CFLAGS += -std=gnu17 -Wall -Wextra -Wshadow -Wformat=2 -Wmissing-prototypes \
	-Wstrict-prototypes -Wno-unused-parameter -fstack-protector-strong -pthread
ifeq ($(WERROR),1)
CFLAGS += -Werror
endif
ifneq ($(SANITIZE),)
CFLAGS += -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
LDFLAGS += -fsanitize=address,undefined
endif
CPPFLAGS += -Iinclude -Idaemon -D_GNU_SOURCE -DFRAGD_VERSION='"$(BUILD_VERSION)"' \
	-DFRAGD_SYSCONFDIR='"$(SYSCONFDIR)"' -DFRAGD_DATADIR='"$(DATADIR)"' -MMD -MP $(shell $(PKG_CONFIG) --cflags $(DEPS))
LDLIBS += $(shell $(PKG_CONFIG) --libs $(DEPS)) -lm -pthread
CMOCKA_LIBS := $(shell $(PKG_CONFIG) --libs cmocka 2>/dev/null)
CMOCKA_CFLAGS := $(shell $(PKG_CONFIG) --cflags cmocka 2>/dev/null)
PURE_CPPFLAGS := -Iinclude -D_GNU_SOURCE -MMD -MP
# Each .d names its object both relative to the tree and absolute: a build
# made with BUILDDIR=/abs/path and one made with BUILDDIR=build then both see
# the header dependencies (with one form only, the other kind of make call
# ignored them and linked objects compiled against old structs).
DEPTARGETS = -MT '$(patsubst $(CURDIR)/%,%,$(abspath $@))' -MT '$(abspath $@)'

POLICY_SRC := $(sort $(wildcard policy/*.c))
DAEMON_SRC := $(sort $(wildcard daemon/*/*.c))
POLICY_OBJ := $(POLICY_SRC:%.c=$(BUILDDIR)/%.o)
DAEMON_OBJ := $(DAEMON_SRC:%.c=$(BUILDDIR)/%.o)
PURE_TESTS := $(patsubst tests/unit/policy/%.c,$(BUILDDIR)/tests/%,$(sort $(wildcard tests/unit/policy/test-*.c)))
UNIT_TESTS := $(patsubst tests/unit/%.c,$(BUILDDIR)/tests/%,$(sort $(wildcard tests/unit/test-*.c)))
FUZZ_NAMES := $(patsubst tests/fuzz/fuzz-%.c,%,$(sort $(wildcard tests/fuzz/fuzz-*.c)))
FUZZ_REPLAY := $(FUZZ_NAMES:%=$(BUILDDIR)/tests/replay-%)
TOOLS_SRC := $(sort $(wildcard tools/*.c))
TOOLS := $(TOOLS_SRC:tools/%.c=$(BUILDDIR)/%)

all: $(BUILDDIR)/fragd $(TOOLS)

# the objects that use FRAGD_VERSION are rebuilt when it changes (a new
# commit or tag): $(BUILDDIR)/version is rewritten only then
ifeq ($(filter clean,$(MAKECMDGOALS)),)
$(shell mkdir -p $(BUILDDIR) && { [ "$$(cat $(BUILDDIR)/version 2>/dev/null)" = "$(BUILD_VERSION)" ] || \
	echo "$(BUILD_VERSION)" >$(BUILDDIR)/version; })
endif
$(BUILDDIR)/version:
	@mkdir -p $(dir $@)
	echo "$(BUILD_VERSION)" >$@
$(patsubst %.c,$(BUILDDIR)/%.o,$(shell grep -l FRAGD_VERSION daemon/main.c $(DAEMON_SRC) $(TOOLS_SRC) 2>/dev/null)): \
	$(BUILDDIR)/version

$(BUILDDIR)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(DEPTARGETS) $(CFLAGS) -c -o $@ $<

$(BUILDDIR)/policy/%.o: policy/%.c
	@mkdir -p $(dir $@)
	$(CC) $(PURE_CPPFLAGS) $(DEPTARGETS) $(CFLAGS) -c -o $@ $<

$(BUILDDIR)/tests/unit/policy/%.o: tests/unit/policy/%.c
	@mkdir -p $(dir $@)
	$(CC) $(PURE_CPPFLAGS) $(DEPTARGETS) $(CMOCKA_CFLAGS) $(CFLAGS) -c -o $@ $<

$(BUILDDIR)/libpolicy.a: $(POLICY_OBJ)
	@rm -f $@
	$(AR) rcs $@ $^

$(BUILDDIR)/libfragd.a: $(DAEMON_OBJ)
	@rm -f $@
	$(AR) rcs $@ $^

$(BUILDDIR)/fragd: $(BUILDDIR)/daemon/main.o $(BUILDDIR)/libfragd.a $(BUILDDIR)/libpolicy.a
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILDDIR)/%: $(BUILDDIR)/tools/%.o $(BUILDDIR)/libfragd.a $(BUILDDIR)/libpolicy.a
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# pure tests: libpolicy.a and cmocka, nothing else
$(BUILDDIR)/tests/test-%: $(BUILDDIR)/tests/unit/policy/test-%.o $(BUILDDIR)/libpolicy.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(CMOCKA_LIBS) -lm

$(BUILDDIR)/tests/test-%: $(BUILDDIR)/tests/unit/test-%.o $(BUILDDIR)/libfragd.a $(BUILDDIR)/libpolicy.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(CMOCKA_LIBS) $(LDLIBS)

# test helpers: programs the integration tests run beside fragd
HELPERS := $(patsubst tests/helpers/%.c,$(BUILDDIR)/tests/%,$(sort $(wildcard tests/helpers/*.c)))
$(BUILDDIR)/tests/%: $(BUILDDIR)/tests/helpers/%.o
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILDDIR)/tests/replay-%: $(BUILDDIR)/tests/fuzz/fuzz-%.o $(BUILDDIR)/tests/fuzz/replay-main.o $(BUILDDIR)/libfragd.a $(BUILDDIR)/libpolicy.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

.PHONY: all test check check-unit check-integration check-robust check-sanitize check-vm fuzz bench \
	install uninstall clean test-programs test-programs-build

# The test programs build on every core even under a plain `make check`
# (a serial build was a quarter of CI's time outside the VM suite); the
# check-* recipes still run the tests one at a time. A caller's own -j
# (a jobserver in MAKEFLAGS) is kept as it is.
NPROC := $(shell nproc 2>/dev/null || echo 1)
test-programs:
	@$(MAKE) --no-print-directory $(if $(findstring --jobserver,$(MAKEFLAGS)),,-j$(NPROC)) test-programs-build

test-programs-build: $(PURE_TESTS) $(UNIT_TESTS) $(FUZZ_REPLAY) $(HELPERS) $(BUILDDIR)/fragd $(TOOLS)

# Unit tests, corpus replay, integration tests; then all of it again under
# ASan+UBSan. Never writes the host's /proc or /sys.
check: check-unit check-integration check-sanitize check-package

check-unit: test-programs
	@fail=0; for t in $(PURE_TESTS) $(UNIT_TESTS); do \
		echo "== $$t"; FRAGD_SRCDIR=$(CURDIR) $$t || fail=1; done; \
	for n in $(FUZZ_NAMES); do \
		$(BUILDDIR)/tests/replay-$$n tests/corpus/$$n || fail=1; done; \
	exit $$fail

# two at a time (FRAGD_TEST_JOBS): their time is mostly the daemon's ticks
check-integration: test-programs
	@FRAGD=$(CURDIR)/$(BUILDDIR)/fragd BUILDDIR=$(CURDIR)/$(BUILDDIR) FRAGD_SRCDIR=$(CURDIR) \
		bash tests/integration/run.sh $(sort $(wildcard tests/integration/test-*.sh))

# The bad-input generator (tests/robust/robust.py) and the daemon fault
# matrix alone. Both are tests/integration/test-*.sh, so check-integration
# (and with it check and check-sanitize) runs them under every build.
ROBUST_TESTS := tests/integration/test-robust.sh tests/integration/test-faults.sh
check-robust: test-programs
	@fail=0; for t in $(ROBUST_TESTS); do \
		echo "== $$t"; FRAGD=$(CURDIR)/$(BUILDDIR)/fragd BUILDDIR=$(CURDIR)/$(BUILDDIR) \
		FRAGD_SRCDIR=$(CURDIR) bash $$t || fail=1; done; exit $$fail

# ASan+UBSan with gcc, and with clang when it is installed
check-sanitize:
	$(MAKE) SANITIZE=1 check-unit check-integration
	@if command -v clang >/dev/null; then $(MAKE) SANITIZE=1 CC=clang check-unit; \
	else echo "check-sanitize: clang not installed, gcc build only"; fi

# The whole suite: what the README's second command and CI run; each part's
# wall time is printed as it passes (CI must stay under 35 min with the VM
# cache warm, under 60 on a fresh machine). It first installs the test stack
# (scripts/install-deps.sh --test: apt-get, through sudo when not root, and
# only for what is missing; nothing when all is there).
# INSTALL_DEPS=no skips that step (another distribution, packages by hand).
TEST_PARTS := check-unit check-integration check-sanitize check-package check-vm
INSTALL_DEPS ?= yes
test:
	@if [ "$(INSTALL_DEPS)" != no ]; then scripts/install-deps.sh --test || exit 1; fi
	@t0=$$(date +%s); for part in $(TEST_PARTS); do t=$$(date +%s); \
		$(MAKE) --no-print-directory $$part || exit 1; \
		echo "make test: $$part passed in $$(($$(date +%s) - t)) s"; done; \
		echo "make test: all passed in $$(($$(date +%s) - t0)) s"

.SECONDARY:

# libFuzzer builds (clang). Run one: build/fuzz/fuzz-buddyinfo tests/corpus/buddyinfo
FUZZ_CC ?= clang
FUZZ_FLAGS := -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
fuzz:
	@mkdir -p build/fuzz
	@for n in $(FUZZ_NAMES); do echo "  FUZZ $$n"; \
		$(FUZZ_CC) $(CPPFLAGS) -std=gnu17 $(FUZZ_FLAGS) -o build/fuzz/fuzz-$$n \
		tests/fuzz/fuzz-$$n.c $(DAEMON_SRC) $(POLICY_SRC) $(LDLIBS) -lm || exit 1; done
	@echo "run: build/fuzz/fuzz-NAME -max_total_time=60 tests/corpus/NAME"

# Mutation testing of policy/ (docs/policy.md "Mutation testing"): every
# mutant of policy/*.c built from a copy in a temporary directory and run
# against the pure tests; the report (survivors with their diffs) also goes
# to $(BUILDDIR)/mutate/report.txt and .json. Fails under MUTATE_MIN_SCORE.
MUTATE_SAMPLE ?= 20
MUTATE_MIN_SCORE ?= 90
MUTATE_ARGS ?=
.PHONY: mutate help
help:
	@sed -n '1,/^$$/s/^# \{0,1\}//p' Makefile

mutate:
	python3 tools/mutate.py -j2 --cc $(CC) --sample $(MUTATE_SAMPLE) --min-score $(MUTATE_MIN_SCORE) \
		--report $(BUILDDIR)/mutate/report.txt $(MUTATE_ARGS)

-include tests/vm/vm.mk
-include bench/bench.mk
-include install.mk
-include packaging.mk
-include tests/lint/lint.mk

clean:
	rm -rf build build-san-*

-include $(shell find $(BUILDDIR) -name '*.d' 2>/dev/null)
