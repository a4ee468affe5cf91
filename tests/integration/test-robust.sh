#!/bin/bash
# The bad-input generator (tests/robust/robust.py): hundreds of seeded
# mutations of kernel files and configuration files of fixture trees, each
# run through `fragd --once` (text, json) and `fragd --check-config` under a
# timeout, with an oracle against crashes, hangs, sanitizer reports, invalid
# JSON and silent wrong values. Under a sanitizer build (BUILDDIR build-san-*)
# every second case by default (ROBUST_SUBSET=1 for all of them). Prints
# `robust: N passed, M failed`; each failure with its case id and the seed.
set -uo pipefail
: "${FRAGD:?}" "${FRAGD_SRCDIR:?}"
case "${BUILDDIR:-}" in
*build-san*) export ROBUST_SUBSET=${ROBUST_SUBSET:-2} ROBUST_TIMEOUT=${ROBUST_TIMEOUT:-5} ;;
esac
exec python3 "$FRAGD_SRCDIR/tests/robust/robust.py" --fragd "$FRAGD"
