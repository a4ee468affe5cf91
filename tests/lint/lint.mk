# tests/lint/lint.mk - checks on the structure: libpolicy.a's purity, what
# the pure tests link, the include rules and the call graph between objects,
# run by make check-unit.
# Included by the top Makefile. See docs/design.md "Layout" and "Purity".
NM ?= nm

.PHONY: check-policy-purity
check-unit: check-policy-purity

# libpolicy.a needs nothing from outside itself but the allowlist in the script
check-policy-purity: $(BUILDDIR)/libpolicy.a
	@NM=$(NM) sh tests/lint/policy-purity.sh $<

# the pure tests need no shared library beyond libc, libm and cmocka
.PHONY: check-pure-tests-link
check-unit: check-pure-tests-link
check-pure-tests-link: $(PURE_TESTS)
	@sh tests/lint/pure-tests-link.sh $^

# the dependency rules of docs/design.md "Layout" over every #include "..."
.PHONY: check-includes
check-unit: check-includes
check-includes:
	@sh tests/lint/check-includes.sh --self-test
	@sh tests/lint/check-includes.sh .

# no objects of libfragd.a and libpolicy.a call each other, directly or in a
# loop of any length (nm, and the sources for the functions written in headers)
.PHONY: check-calls
check-unit: check-calls
check-calls: $(DAEMON_OBJ) $(POLICY_OBJ)
	@NM=$(NM) CC=$(CC) sh tests/lint/check-calls.sh --self-test
	@NM=$(NM) SRCDIR=$(CURDIR) sh tests/lint/check-calls.sh $(DAEMON_OBJ) $(POLICY_OBJ)

# the man pages are lint-clean (mandoc -T lint: style messages included) and
# carry a real date; SKIP without mandoc (make test installs it: scripts/install-deps.sh --test)
.PHONY: check-man
check-unit: check-man
check-man:
	@if ! command -v mandoc >/dev/null; then echo "SKIP check-man: mandoc not installed"; exit 0; fi; \
	fail=0; for m in $(wildcard docs/*.[1-8]); do \
		out=$$(mandoc -T lint $$m 2>&1) || fail=1; \
		[ -z "$$out" ] || { echo "$$out"; fail=1; }; \
		grep -Eq '^\.TH [^ ]+ [1-8] "?[0-9]{4}-[0-9]{2}-[0-9]{2}"? ' $$m || \
			{ echo "$$m: .TH has no date YYYY-MM-DD"; fail=1; }; \
	done; [ $$fail = 0 ] && echo "PASS check-man: $(words $(wildcard docs/*.[1-8])) man pages lint-clean"; exit $$fail

# dependency files name each object both relative and absolute, so make
# calls with BUILDDIR=build and BUILDDIR=/abs/build see the same headers
.PHONY: check-depfiles
check-unit: check-depfiles
check-depfiles:
	@MAKE=$(MAKE) sh tests/lint/check-depfiles.sh

# every MESSAGE_ID of daemon/core/log-event.c has its journal catalog entry
# (systemd/fragd.catalog) and fragd.8 line, and nothing else is there;
# journalctl --update-catalog reads the catalog (when installed)
.PHONY: check-catalog
check-unit: check-catalog
check-catalog:
	@sh tests/lint/check-catalog.sh --self-test
	@sh tests/lint/check-catalog.sh .

# every parser (a "_parse" function, or one taking a text buffer and its
# length) is called by a fuzzer, or listed as reached through one
.PHONY: check-fuzz-coverage
check-unit: check-fuzz-coverage
check-fuzz-coverage:
	@sh tests/lint/check-fuzz.sh --self-test
	@sh tests/lint/check-fuzz.sh .
