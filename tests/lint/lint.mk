# tests/lint/lint.mk - checks on the build's structure, run by make check-unit.
# Included by the top Makefile. See docs/design.md "Layout" and "Purity".
NM ?= nm

.PHONY: check-policy-purity
check-unit: check-policy-purity

# libpolicy.a needs nothing from outside itself but the allowlist in the script
check-policy-purity: $(BUILDDIR)/libpolicy.a
	@NM=$(NM) sh tests/lint/policy-purity.sh $<
