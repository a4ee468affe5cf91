#!/bin/bash
# runbook-links.sh RULES ROOT: every alert of the Prometheus rules file RULES
# (as installed below ROOT) has a runbook_url, each a file:///PATH#ANCHOR
# URL whose PATH is a plain file below ROOT (not a .gz of it, not a link)
# and whose ANCHOR is the anchor of one of its headings (GitHub's: lower
# case, punctuation dropped, spaces to -; fenced code skipped).
# Prints one line per broken link and exits 1, or prints the number of
# links and exits 0. Used by make check-package (the .deb) and
# tests/integration/test-install.sh (make install).
set -uo pipefail
[ $# = 2 ] || { echo "usage: $0 RULES ROOT" >&2; exit 2; }
rules=$1 root=$2

slugs() { # slugs MARKDOWN: one anchor per heading
	awk '/^```/ { fence = !fence; next } !fence && /^#+ / {
		h = tolower($0); sub(/^#+ +/, "", h); gsub(/[^a-z0-9 _-]/, "", h); gsub(/ /, "-", h); print h }' "$1"
}

fail=0
n_alerts=$(grep -c '^ *- alert:' "$rules")
urls=$(sed -n 's/^ *runbook_url: *"\{0,1\}\([^"]*\)"\{0,1\} *$/\1/p' "$rules")
n_urls=$(printf '%s\n' "$urls" | grep -c .)
if [ "$n_alerts" = 0 ] || [ "$n_urls" != "$n_alerts" ]; then
	echo "$rules: $n_alerts alerts, $n_urls runbook_url lines"
	fail=1
fi
for u in $urls; do
	f=${u#file://}; f=${f%%#*}; anchor=${u#*#}
	if [ "${u#file:///}" = "$u" ] || [ "$anchor" = "$u" ]; then
		echo "runbook_url $u: not file:///PATH#ANCHOR"
	elif [ ! -f "$root$f" ] || [ -L "$root$f" ]; then
		other=$(compgen -G "$root$f.*" | head -1)
		echo "runbook_url $u: no file $f below $root${other:+ (there is ${other#"$root"})}"
	elif ! slugs "$root$f" | grep -qxF "$anchor"; then
		echo "runbook_url $u: no heading of $f has the anchor #$anchor"
	else
		continue
	fi
	fail=1
done
[ $fail = 0 ] && echo "$n_urls alerts, each runbook_url a file and a heading of it"
exit $fail
