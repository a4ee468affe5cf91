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
#       "Documentation: man:fragd(8)", "Support: " with a man: or file://
#       reference (systemd's own catalog entries carry one too) and a
#       paragraph after its header
#   C3  every MESSAGE_ID is listed in DIR/docs/fragd.8 (the JOURNAL section)
#   C4  with journalctl: journalctl --root=TMP --update-catalog reads the
#       catalog without an error and --list-catalog lists each ID once
#       (SKIP without journalctl)
#   C5  no entry's text names a path into the source tree (docs/x.md: not
#       on the host that reads the journal); the installed runbook is
#       written @DOCDIR@/runbook.md, which make install fills in
# check-catalog.sh --fields FILE ROOT: C2, C4 (each entry once) and C5 on an
#       installed catalog FILE, and every Documentation:/Support: reference
#       and every path of the text into fragd's doc directory resolves to a
#       file below ROOT (the unpacked package: make check-package); no
#       @...DIR@ left unfilled
set -u

ids_source() { grep -o '"[0-9a-f]\{32\}"' "$1/daemon/core/log-event.c" | tr -d '"'; }
ids_catalog() { sed -n 's/^-- \([0-9a-fA-F]\{32\}\)[[:space:]]*$/\1/p' "$1/systemd/fragd.catalog"; }

fields() { # fields CATALOG: C2 and C5, one line per broken rule
	# each entry's header lines, then a blank line, then text; comments skipped
	awk '
		function done() {
			if (id == "") return
			if (!subj) print "C2: entry " id " has no Subject:"
			if (!defby) print "C2: entry " id " lacks \"Defined-By: fragd\""
			if (!doc) print "C2: entry " id " lacks \"Documentation: man:fragd(8)\""
			if (!support) print "C2: entry " id " has no \"Support: \" with a man: or file:// reference"
			if (!body) print "C2: entry " id " has no text after its header"
		}
		/^#/ { next }
		/^-- / { done(); id = $2; head = 1; subj = defby = doc = support = body = 0; next }
		id == "" { next }
		head && /^$/ { head = 0; next }
		head && /^Subject: ./ { subj = 1 }
		head && /^Defined-By: fragd$/ { defby = 1 }
		head && /^Documentation: man:fragd\(8\)$/ { doc = 1 }
		head && /^Support: (man:[^ ]+\([1-8]\)|file:\/\/(\/|@DOCDIR@\/)[^ ]+)$/ { support = 1 }
		!head && /[^[:space:]]/ { body = 1 }
		{
			n = split($0, w, /[[:space:]("\047]+/)
			for (i = 1; i <= n; i++)
				if (w[i] ~ /^[A-Za-z0-9_.-]+\/./ && w[i] !~ /:\/\//)
					print "C5: entry " id " names " w[i] ", a path into the source tree (write the installed path)"
		}
		END { done() }' "$1"
}

journal() { # journal CATALOG IDS: C4, with journalctl (silent without it)
	command -v journalctl >/dev/null 2>&1 || return 0
	t=$(mktemp -d)
	mkdir -p "$t/usr/lib/systemd/catalog" "$t/var/lib/systemd/catalog"
	cp "$1" "$t/usr/lib/systemd/catalog/fragd.catalog"
	if ! err=$(journalctl --root="$t" --update-catalog 2>&1) || [ -n "$err" ]; then
		echo "C4: journalctl --update-catalog: ${err:-failed}"
	else
		listed=$(journalctl --root="$t" --list-catalog 2>/dev/null | cut -d' ' -f1 | sort)
		[ "$listed" = "$2" ] || echo "C4: journalctl --list-catalog lists: $(printf '%s\n' "$listed" | tr '\n' ' ')"
	fi
	rm -rf "$t"
}

resolves() { # resolves CATALOG ROOT: C6, the references of an installed catalog
	grep -n '@[A-Z]*DIR@' "$1" | sed 's/^/C6: not filled in: line /'
	{
		sed -n 's/^\(Documentation\|Support\): *//p' "$1" | tr ' ' '\n'
		grep -v '^#' "$1" | grep -oE '/[^[:space:]]*/doc/fragd/[^[:space:]]*[^[:space:].,;:)]'
	} | sort -u | while read -r ref; do
		[ -n "$ref" ] || continue
		case $ref in
		man:*)
			name=${ref#man:}; sec=${name##*(}; sec=${sec%)}; name=${name%(*}
			[ -n "$(find "$2" -path "*/man/man$sec/$name.$sec*" -print -quit 2>/dev/null)" ] ||
				echo "C6: $ref: no man page $name.$sec below $2" ;;
		file://*)
			f=${ref#file://}; f=${f%%#*}
			[ -f "$2$f" ] || echo "C6: $ref: no file $f below $2" ;;
		/*)
			[ -f "$2$ref" ] || echo "C6: the text names $ref: no such file below $2" ;;
		*) echo "C6: $ref: neither man: nor file://" ;;
		esac
	done
}

fields_installed() { # fields_installed CATALOG ROOT: 0 when C2, C4-C6 hold
	out=$(fields "$1"; journal "$1" "$(sed -n 's/^-- \([0-9a-fA-F]\{32\}\)[[:space:]]*$/\1/p' "$1" | sort)"; resolves "$1" "$2")
	[ -z "$out" ] || { echo "$out"; return 1; }
}

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
	out=$(fields "$d/systemd/fragd.catalog")
	[ -z "$out" ] || { echo "$out"; fail=1; }
	out=$(journal "$d/systemd/fragd.catalog" "$cat")
	[ -z "$out" ] || { echo "$out"; fail=1; }
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
	mk c2-no-support
	sed "/^-- $first/,/^\$/{/^Support:/d}" systemd/fragd.catalog >"$t/c2-no-support/systemd/fragd.catalog"
	mk c5-source-path
	sed "0,/^Nothing needs to be done/s//See docs\/runbook.md. Nothing needs to be done/" systemd/fragd.catalog \
		>"$t/c5-source-path/systemd/fragd.catalog"
	mk c0-intact
	if ! check "$t/c0-intact"; then
		echo "FAIL catalog self-test: the tree as it is fails (see above)"
		ok=0
	fi
	for case in c1-missing-entry c1-extra-entry c2-no-subject c2-no-support c3-undocumented c4-bad-syntax \
		c5-source-path; do
		if check "$t/$case" >/dev/null 2>&1; then
			echo "FAIL catalog self-test: $case passes"
			ok=0
		fi
	done
	# --fields on an installed tree: whole, then without the runbook, with
	# @DOCDIR@ left, with a Support: naming a man page not there
	r=$t/root
	mkdir -p "$r/usr/lib/systemd/catalog" "$r/usr/share/doc/fragd" "$r/usr/share/man/man8"
	cp docs/runbook.md "$r/usr/share/doc/fragd/"
	gzip -c docs/fragd.8 >"$r/usr/share/man/man8/fragd.8.gz"
	installed=$r/usr/lib/systemd/catalog/fragd.catalog
	sed 's|@DOCDIR@|/usr/share/doc/fragd|g' systemd/fragd.catalog >"$installed"
	if ! fields_installed "$installed" "$r"; then
		echo "FAIL catalog self-test: --fields fails on an installed copy (see above)"
		ok=0
	fi
	mv "$r/usr/share/doc/fragd/runbook.md" "$t/runbook.md"
	fields_installed "$installed" "$r" >/dev/null 2>&1 && { echo "FAIL catalog self-test: --fields passes without the runbook"; ok=0; }
	mv "$t/runbook.md" "$r/usr/share/doc/fragd/runbook.md"
	cp systemd/fragd.catalog "$installed"
	fields_installed "$installed" "$r" >/dev/null 2>&1 && { echo "FAIL catalog self-test: --fields passes with @DOCDIR@ left"; ok=0; }
	sed -e 's|@DOCDIR@|/usr/share/doc/fragd|g' -e "0,/^Support: .*/s//Support: man:fragd-missing(8)/" \
		systemd/fragd.catalog >"$installed"
	fields_installed "$installed" "$r" >/dev/null 2>&1 && { echo "FAIL catalog self-test: --fields passes with Support: man:fragd-missing(8)"; ok=0; }
	[ $ok = 1 ] || exit 1
	echo "PASS catalog self-test: each broken copy fails"
	exit 0
fi

if [ "${1:-}" = --fields ]; then
	[ $# = 3 ] || { echo "usage: $0 --fields CATALOG ROOT" >&2; exit 2; }
	if fields_installed "$2" "$3"; then
		echo "PASS catalog: $2: $(grep -c '^-- ' "$2") entries with Subject, Defined-By, Documentation and Support; every reference resolves below $3"
		exit 0
	fi
	exit 1
fi

dir=${1:-.}
if check "$dir"; then
	echo "PASS catalog: $(ids_source "$dir" | wc -l) MESSAGE_IDs, one catalog entry and a fragd.8 line each$(command -v journalctl >/dev/null 2>&1 || echo ' (journalctl not installed: C4 skipped)')"
else
	exit 1
fi
