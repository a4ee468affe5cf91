#!/bin/bash
# completion/fragd.bash: sourced into a plain bash (no bash-completion), the
# completion functions give the expected COMPREPLY for a few command lines of
# fragd and fragd-thp-exec; every option of `fragd --help` and
# `fragd-thp-exec --help` is offered; shellcheck is clean when installed.
# Writes only below a temp dir.
set -uo pipefail
: "${FRAGD_SRCDIR:?}" "${FRAGD:?}" "${BUILDDIR:?}"
comp=$FRAGD_SRCDIR/completion/fragd.bash
fail=0
pass() { echo "PASS completion: $*"; }
bad() { echo "FAIL completion: $*"; fail=1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/d/conf.d" && : >"$tmp/d/fragd.conf" && : >"$tmp/d/other.conf"

# complete LINE: what the completion gives for LINE (the cursor at its end; a
# trailing space starts a new, empty word), one candidate per line, sorted.
# '=' is a word of its own, as bash's COMP_WORDBREAKS makes it.
complete_line() {
	bash --norc --noprofile -c '
		source "$1" || exit 1
		line=$2
		read -ra COMP_WORDS <<<"${line//=/ = }"
		[[ $line == *" " || $line == *= ]] && COMP_WORDS+=("")
		COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
		COMP_LINE=$line COMP_POINT=${#line}
		spec=$(complete -p "${COMP_WORDS[0]}") || exit 1
		fn=${spec#*-F }; fn=${fn%% *}
		"$fn" "${COMP_WORDS[0]}" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
		printf "%s\n" "${COMPREPLY[@]}" | sort' _ "$comp" "$1"
}
expect() { # expect LINE EXPECTED (candidates, space-separated)
	local got
	got=$(cd "$tmp" && complete_line "$1" | tr '\n' ' ' | sed 's/ $//')
	[ "$got" = "$2" ] && pass "'$1' -> $2" || bad "'$1': got '$got', want '$2'"
}

bash -n "$comp" && pass "bash -n" || bad "bash -n $comp"
expect 'fragd --form' '--format'
expect 'fragd --format ' 'json prom text'
expect 'fragd --once --format=j' 'json'
expect 'fragd --log-level w' 'warning'
expect 'fragd st' 'status'
expect 'fragd ' 'pause resume status thp-dropin'
expect 'fragd p' 'pause'
expect 'fragd re' 'resume'
expect 'fragd status --f' '--format'
expect 'fragd status --format ' 'json text'
expect 'fragd status --format=j' 'json'
expect 'fragd pause --r' '--root'
expect 'fragd --root d resume --' '--config --log-level --root --set'
expect 'fragd -c d/fr' 'd/fragd.conf'
expect 'fragd --config=d/o' 'd/other.conf'
expect 'fragd --root d/c' 'd/conf.d'
expect 'fragd --quiet' '--quiet-if-clean'
expect 'fragd thp-dropin x.service ' 'madvise never'
expect 'fragd --root d thp-dropin x.service m' 'madvise'
expect 'fragd status --r' '--root'
expect 'fragd-thp-exec --mode ' 'inherit madvise never'
expect 'fragd-thp-exec -m n' 'never'
expect 'fragd-thp-exec --f' '--fallback=never'
expect 'fragd-thp-exec --mode never -- d/o' 'd/other.conf'
expect 'fragd-thp-exec --mode never -- cat d/f' 'd/fragd.conf'
expect 'fragd-thp-exec -q bas' "$(cd "$tmp" && compgen -c bas | sort | tr '\n' ' ' | sed 's/ $//')"
# every long option of --help is offered for '--'
for prog in fragd fragd-thp-exec; do
	case $prog in
	fragd) bin=$FRAGD ;;
	*) bin=$BUILDDIR/$prog ;;
	esac
	[ -x "$bin" ] || { bad "$bin not built"; continue; }
	offered=$(cd "$tmp" && complete_line "$prog --")
	missing=
	for o in $("$bin" --help | grep -oE -- '--[a-z][a-z-]*' | sort -u); do
		grep -q -- "^$o\(=.*\)\?$" <<<"$offered" || missing="$missing $o"
	done
	[ -z "$missing" ] && pass "$prog: every option of --help is offered" \
		|| bad "$prog: --help options not offered:$missing"
done
# every subcommand of `fragd --help` ("fragd WORD") is offered for 'fragd '
offered=$(cd "$tmp" && complete_line "fragd ")
missing=
for w in $("$FRAGD" --help | sed -nE 's/^ *(Usage: )?fragd ([a-z][a-z-]*).*/\2/p' | sort -u); do
	grep -qx -- "$w" <<<"$offered" || missing="$missing $w"
done
[ -z "$missing" ] && pass "fragd: every subcommand of --help is offered" || bad "subcommands not offered:$missing"
if command -v shellcheck >/dev/null; then
	shellcheck -s bash -e SC2207 "$comp" && pass "shellcheck" || bad "shellcheck $comp"
fi
exit $fail
