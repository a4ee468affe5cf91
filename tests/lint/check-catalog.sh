#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# check-catalog.sh [DIR]: fragd's journal message catalog matches the source
# in the tree at DIR (default .). check-catalog.sh --self-test: the checker
# fails on a tree that breaks each rule (so a pass is not vacuous).
#
#   C1  every MESSAGE_ID in DIR/daemon/core/log-event.c (the 32 hex digits
#       of each event kind) has an entry "-- ID" in DIR/systemd/fragd.catalog,
#       and every entry there is an ID of the source; no ID twice in either
#   C2  every entry has "Subject:", "Defined-By: fragd",
#       "Documentation: man:fragd(8)" and a paragraph after its header
#   C3  every MESSAGE_ID is listed in DIR/docs/fragd.8 (the JOURNAL section)
#   C4  with journalctl: journalctl --root=TMP --update-catalog reads the
#       catalog without an error and --list-catalog lists each ID once
#       (SKIP without journalctl)
set -u

ids_source() { grep -o '"[0-9a-f]\{32\}"' "$1/daemon/core/log-event.c" | tr -d '"'; }
ids_catalog() { sed -n 's/^-- \([0-9a-fA-F]\{32\}\)[[:space:]]*$/\1/p' "$1/systemd/fragd.catalog"; }

check() { # check DIR: 0 when the rules hold, prints each broken one
	d=$1
	fail=0
	src=$(ids_source "$d" | sort)
	cat=$(ids_catalog "$d" | sort)
	[ -n "$src" ] || { echo "C1: no MESSAGE_ID found in $d/daemon/core/log-event.c"; fail=1; }
	for dup in $(printf '%s\n' "$src" | uniq -d) $(printf '%s\n' "$cat" | uniq -d); do
		echo "C1: MESSAGE_ID $dup occurs twice"
		fail=1
	done
	for id in $src; do
		printf '%s\n' "$cat" | grep -qx "$id" ||
			{ echo "C1: MESSAGE_ID $id (daemon/core/log-event.c) has no entry in systemd/fragd.catalog"; fail=1; }
		grep -q "$id" "$d/docs/fragd.8" ||
			{ echo "C3: MESSAGE_ID $id is not listed in docs/fragd.8"; fail=1; }
	done
	for id in $cat; do
		printf '%s\n' "$src" | grep -qx "$id" ||
			{ echo "C1: catalog entry $id is no MESSAGE_ID of daemon/core/log-event.c"; fail=1; }
	done
	# C2: each entry's header lines, then a blank line, then text
	out=$(awk '
		function done() {
			if (id == "") return
			if (!subj) print "C2: entry " id " has no Subject:"
			if (!defby) print "C2: entry " id " lacks \"Defined-By: fragd\""
			if (!doc) print "C2: entry " id " lacks \"Documentation: man:fragd(8)\""
			if (!body) print "C2: entry " id " has no text after its header"
		}
		/^-- / { done(); id = $2; head = 1; subj = defby = doc = body = 0; next }
		id == "" { next }
		head && /^$/ { head = 0; next }
		head && /^Subject: ./ { subj = 1 }
		head && /^Defined-By: fragd$/ { defby = 1 }
		head && /^Documentation: man:fragd\(8\)$/ { doc = 1 }
		!head && /[^[:space:]]/ { body = 1 }
		END { done() }' "$d/systemd/fragd.catalog")
	[ -z "$out" ] || { echo "$out"; fail=1; }
	if command -v journalctl >/dev/null 2>&1; then
		t=$(mktemp -d)
		mkdir -p "$t/usr/lib/systemd/catalog" "$t/var/lib/systemd/catalog"
		cp "$d/systemd/fragd.catalog" "$t/usr/lib/systemd/catalog/"
		if ! err=$(journalctl --root="$t" --update-catalog 2>&1) || [ -n "$err" ]; then
			echo "C4: journalctl --update-catalog: ${err:-failed}"
			fail=1
		else
			listed=$(journalctl --root="$t" --list-catalog 2>/dev/null | cut -d' ' -f1 | sort)
			[ "$listed" = "$cat" ] ||
				{ echo "C4: journalctl --list-catalog lists: $(echo $listed)"; fail=1; }
		fi
		rm -rf "$t"
	fi
	return $fail
}

if [ "${1:-}" = --self-test ]; then
	t=$(mktemp -d)
	trap 'rm -rf "$t"' EXIT
	ok=1
	mk() { # mk NAME: a copy of the three files in $t/NAME
		mkdir -p "$t/$1/daemon/core" "$t/$1/systemd" "$t/$1/docs"
		cp daemon/core/log-event.c "$t/$1/daemon/core/"
		cp systemd/fragd.catalog "$t/$1/systemd/"
		cp docs/fragd.8 "$t/$1/docs/"
	}
	first=$(ids_catalog . | head -n 1)
	mk c1-missing-entry
	awk -v id="$first" '$0 == "-- " id { skip = 1; next } /^-- / { skip = 0 } !skip' systemd/fragd.catalog \
		>"$t/c1-missing-entry/systemd/fragd.catalog"
	mk c1-extra-entry
	printf '\n-- 00112233445566778899aabbccddeeff\nSubject: x\nDefined-By: fragd\nDocumentation: man:fragd(8)\n\ntext\n' \
		>>"$t/c1-extra-entry/systemd/fragd.catalog"
	mk c2-no-subject
	sed "/^-- $first/,/^\$/{/^Subject:/d}" systemd/fragd.catalog >"$t/c2-no-subject/systemd/fragd.catalog"
	mk c3-undocumented
	sed "s/$first/0000/g" docs/fragd.8 >"$t/c3-undocumented/docs/fragd.8"
	mk c4-bad-syntax
	printf 'text before any ID\n' | cat - systemd/fragd.catalog >"$t/c4-bad-syntax/systemd/fragd.catalog"
	mk c0-intact
	if ! check "$t/c0-intact"; then
		echo "FAIL catalog self-test: the tree as it is fails (see above)"
		ok=0
	fi
	for case in c1-missing-entry c1-extra-entry c2-no-subject c3-undocumented c4-bad-syntax; do
		if check "$t/$case" >/dev/null 2>&1; then
			echo "FAIL catalog self-test: $case passes"
			ok=0
		fi
	done
	[ $ok = 1 ] || exit 1
	echo "PASS catalog self-test: each broken copy fails"
	exit 0
fi

dir=${1:-.}
if check "$dir"; then
	echo "PASS catalog: $(ids_source "$dir" | wc -l) MESSAGE_IDs, one catalog entry and a fragd.8 line each$(command -v journalctl >/dev/null 2>&1 || echo ' (journalctl not installed: C4 skipped)')"
else
	exit 1
fi
