#!/bin/bash
# build-kernel.sh [-n] SERIES... - build the harness's own kernel from
# Debian's 7.3 source (the linux-source-7.3 package of trixie-backports)
# into the cache. -n prints the cache directory each SERIES uses, and builds
# nothing.
#
#   7.3-stock     Debian's 7.3 allocator, booted plainly
#   7.3-noretry   the same vmlinux booted with noretry_costly=1
#                 (patches/noretry-costly-order-7.3.patch: costly-order
#                 __GFP_NORETRY allocations skip direct reclaim and direct
#                 compaction, not with __GFP_THISNODE or __GFP_NOFAIL;
#                 kswapd and kcompactd are still woken). run.sh adds the
#                 switch (kernel_append in common.sh); the guest reads it
#                 back from /sys/module/kernel/parameters/noretry_costly.
#
# One build serves both series: the patch only adds the switch, so the two
# conditions differ by the kernel command line alone. (Debian's own 7.3
# image has XFS and zram as modules, which the initramfs guest lacks, and
# another config.)
#
# The source comes from trixie-backports, read with a private apt list in
# $FRAGD_VM_CACHE/apt/ (never the host's own sources): its archive is the
# one the host's apt sources name for Debian (FRAGD_VM_DEBIAN_MIRROR
# overrides), signed by the debian-archive-keyring the host has.
#
# Config: `make tinyconfig` with kernel/fragd-vm.config merged over it,
# everything built in (no modules). Only vmlinux is built (booted through its
# PVH entry, as get-kernel.sh does with Debian's). This leaves in
# $FRAGD_VM_CACHE/kernel/7.3-SRCVER-HASH/ (7.3-stock and 7.3-noretry are
# symlinks to it, so `kernel_dir SERIES` works as for get-kernel.sh's
# series):
#   vmlinux, kver (uname -r: 7.3.N-fragd), config, root/lib/modules/KVER/
#   (modules.builtin and depmod's files: mkinitramfs.sh -K finds every
#   module built in), build.log, build.time
# HASH covers the config fragment, the patch and this script's recipe
# version, so a machine builds each combination once. The source package
# stays in $FRAGD_VM_CACHE/src/.
#
# Environment: FRAGD_VM_CACHE, FRAGD_VM_JOBS (default nproc),
# FRAGD_VM_KEEP_BUILD=1 keeps the build tree (printed) for a rebuild by hand.
# Needs: gcc make bc bison flex libelf-dev (objtool) xz-utils; no root.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=common.sh
. "$(dirname "$0")/common.sh"

# bump when the build steps change what comes out (the cache key)
RECIPE=2
SRC_PKG=linux-source-7.3
SRC_SUITE=trixie-backports
FRAGMENT=$VM_DIR/kernel/fragd-vm.config
PATCH=$VM_DIR/patches/noretry-costly-order-7.3.patch
KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg
APT_DIR=$VM_CACHE/apt
jobs=${FRAGD_VM_JOBS:-$(nproc)}

# debian_mirror: the Debian archive the host's apt sources use (a deb822
# "URIs:" of a stanza whose suites name a Debian release, or a one-line
# "deb URI SUITE" entry), not its security archive
debian_mirror() {
	local m
	m=${FRAGD_VM_DEBIAN_MIRROR:-}
	if [ -z "$m" ]; then
		m=$(cat /etc/apt/sources.list.d/*.sources 2>/dev/null | awk '
			/^[ \t]*$/ { if (uri != "" && suites ~ /(bookworm|trixie|stable)/ && suites !~ /security/) { print uri; exit } uri = suites = ""; next }
			$1 == "URIs:" { uri = $2 } $1 == "Suites:" { suites = $0 }
			END { if (uri != "" && suites ~ /(bookworm|trixie|stable)/ && suites !~ /security/) print uri }' | head -n 1)
	fi
	if [ -z "$m" ]; then
		m=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
			awk '$1 == "deb" { u = $2; if (u ~ /^\[/) u = $3; if (u !~ /security/) { print u; exit } }')
	fi
	[ -n "$m" ] || die "no Debian archive in the host's apt sources to fetch $SRC_PKG from (set FRAGD_VM_DEBIAN_MIRROR)"
	echo "${m%/}"
}

# apt_private ARGS...: apt-get or apt-cache (the first word) on the private
# list of $SRC_SUITE, never the host's sources, lists or cache
apt_private() {
	local tool=$1
	shift
	"$tool" -o Dir::Etc::SourceList="$APT_DIR/sources.list" -o Dir::Etc::SourceParts=/nonexistent \
		-o Dir::State::Lists="$APT_DIR/lists" -o Dir::Cache="$APT_DIR/cache" \
		-o Debug::NoLocking=1 "$@"
}

# apt_lists: the private list, read once per machine (update again with
# FRAGD_VM_APT_UPDATE=1 or by removing $APT_DIR)
apt_lists() {
	[ -f "$KEYRING" ] || die "no $KEYRING (apt-get install debian-archive-keyring)"
	mkdir -p "$APT_DIR/lists/partial" "$APT_DIR/cache/archives/partial"
	echo "deb [signed-by=$KEYRING] $(debian_mirror) $SRC_SUITE main" >"$APT_DIR/sources.list.new"
	if ! cmp -s "$APT_DIR/sources.list.new" "$APT_DIR/sources.list" 2>/dev/null; then
		mv "$APT_DIR/sources.list.new" "$APT_DIR/sources.list"
		rm -f "$APT_DIR"/lists/*Packages* "$APT_DIR"/lists/*Release*
	else
		rm -f "$APT_DIR/sources.list.new"
	fi
	if [ "${FRAGD_VM_APT_UPDATE:-0}" = 1 ] || ! compgen -G "$APT_DIR/lists/*_Packages" >/dev/null; then
		{ apt_private apt-get update -qq 2>&1 | grep -v unsandboxed >&2; [ "${PIPESTATUS[0]}" = 0 ]; } || echo "build-kernel.sh: apt-get update of the private $SRC_SUITE list failed" >&2
	fi
}

# the source version: the private list's candidate, else the newest .deb
# already cached
src_version() {
	local v
	v=$(apt_private apt-cache policy "$SRC_PKG" 2>/dev/null | awk '$1 == "Candidate:" && $2 != "(none)" { print $2 }')
	if [ -z "$v" ]; then
		v=$(find "$VM_CACHE/src" -name "${SRC_PKG}_*_all.deb" 2>/dev/null | sort -V | tail -n 1)
		v=${v##*/"${SRC_PKG}"_} v=${v%_all.deb}
	fi
	[ -n "$v" ] || die "no $SRC_PKG in $SRC_SUITE (the private list in $APT_DIR) and none in $VM_CACHE/src"
	echo "$v"
}

# cache_name VERSION: the directory name, e.g. 7.3-7.3.4-1_bpo13+1-3f2a9c01d4e5
cache_name() {
	local ver=$1 h
	h=$({
		echo "recipe $RECIPE"
		cat "$FRAGMENT" "$PATCH"
	} | sha256sum | cut -c1-12)
	echo "7.3-${ver//\~/_}-$h"
}

need() {
	local t missing=()
	for t in gcc make bc bison flex xz perl; do
		command -v "$t" >/dev/null || missing+=("$t")
	done
	[ -e /usr/include/libelf.h ] || [ -e /usr/include/gelf.h ] || missing+=(libelf-dev)
	[ ${#missing[@]} -eq 0 ] ||
		die "missing to build a kernel: ${missing[*]} (apt-get install build-essential bc bison flex libelf-dev xz-utils)"
}

fetch_source() { # fetch_source VERSION: prints the .deb's path
	local ver=$1 deb
	mkdir -p "$VM_CACHE/src"
	deb=$VM_CACHE/src/${SRC_PKG}_${ver}_all.deb
	if [ ! -s "$deb" ]; then
		# as root apt warns that its _apt user cannot write the cache: harmless
		(cd "$VM_CACHE/src" && apt_private apt-get download -qq "$SRC_PKG=$ver" 2>&1 | grep -v unsandboxed) >&2 || true
		[ -s "$deb" ] || die "apt-get download $SRC_PKG=$ver failed (no $deb)"
	fi
	echo "$deb"
}

# configure TREE: tinyconfig + the fragment; every line of the fragment must
# have landed (a dependency the fragment misses would drop it silently)
configure() {
	local tree=$1 l k bad=0
	make -s -C "$tree" ARCH=x86_64 tinyconfig >/dev/null
	(cd "$tree" && scripts/kconfig/merge_config.sh -m -O . .config "$FRAGMENT" >/dev/null)
	make -s -C "$tree" ARCH=x86_64 olddefconfig >/dev/null
	while IFS= read -r l; do
		case $l in
		CONFIG_*=*)
			grep -qxF "$l" "$tree/.config" || {
				echo "build-kernel.sh: $FRAGMENT: '$l' did not survive olddefconfig (a missing dependency?)" >&2
				bad=1
			}
			;;
		"# CONFIG_"*" is not set")
			k=${l#\# } k=${k%% *}
			! grep -q "^$k=" "$tree/.config" || {
				echo "build-kernel.sh: $FRAGMENT: '$k' is still set (selected by another option?)" >&2
				bad=1
			}
			;;
		esac
	done <"$FRAGMENT"
	[ "$bad" = 0 ] || die "the config fragment does not apply to $SRC_PKG; fix $FRAGMENT"
}

# children_cpu FILE: CPU seconds (user + system) of this shell's waited-for
# children so far (bash's `times`, second line), written to FILE: `times`
# must run in this shell, not in a $(...) subshell, which has no children
children_cpu() {
	times >"$1"
	awk 'NR == 2 { for (i = 1; i <= 2; i++) { m = $i; sub(/m.*/, "", m); s = $i; sub(/.*m/, "", s); sub(/s$/, "", s); t += m * 60 + s } printf "%d\n", t }' "$1" >"$1.s"
	mv "$1.s" "$1"
}

# build_one TREE DIR: build vmlinux and install it into DIR
build_one() {
	local tree=$1 dir=$2 t0 kver secs cpu0 cpu
	t0=$SECONDS
	children_cpu "$tree/cpu0"
	cpu0=$(cat "$tree/cpu0")
	echo "kernel 7.3: building vmlinux in $tree (-j$jobs, nice)"
	if ! nice make -C "$tree" ARCH=x86_64 -j"$jobs" LOCALVERSION=-fragd \
		vmlinux >"$tree/build.log" 2>&1; then
		tail -n 30 "$tree/build.log" >&2
		die "building 7.3 failed (log: $tree/build.log; FRAGD_VM_KEEP_BUILD=1 keeps the tree)"
	fi
	secs=$((SECONDS - t0))
	children_cpu "$tree/cpu1"
	cpu=$(($(cat "$tree/cpu1") - cpu0))
	kver=$(make -s -C "$tree" ARCH=x86_64 LOCALVERSION=-fragd kernelrelease)
	rm -rf "$dir.tmp" && mkdir -p "$dir.tmp/root/lib/modules/$kver"
	cp "$tree/vmlinux" "$dir.tmp/vmlinux"
	cp "$tree/.config" "$dir.tmp/config"
	cp "$tree/build.log" "$dir.tmp/build.log"
	# no modules: modules.builtin lets modprobe (mkinitramfs.sh -K) say
	# "builtin" for virtio_blk, ext4, ...
	cp "$tree/modules.builtin" "$tree/modules.builtin.modinfo" "$dir.tmp/root/lib/modules/$kver/"
	: >"$dir.tmp/root/lib/modules/$kver/modules.order"
	depmod -b "$dir.tmp/root" "$kver"
	echo "$kver" >"$dir.tmp/kver"
	echo "$secs s wall, $cpu s CPU (user+system, -j$jobs), load $(cut -d' ' -f1-3 /proc/loadavg)" >"$dir.tmp/build.time"
	rm -rf "$dir" && mv "$dir.tmp" "$dir"
	echo "kernel 7.3: $kver built: $(cat "$dir/build.time"); $(du -h "$dir/vmlinux" | cut -f1) vmlinux"
}

# link SERIES... NAME: each series' directory becomes a symlink to NAME
link() {
	local name=${*: -1} s
	for s in "${@:1:$#-1}"; do
		ln -sfn "$name" "$(kernel_dir "$s")"
	done
}

build() { # build SERIES...: the one vmlinux both series boot, unless cached
	local ver deb name tree
	apt_lists
	ver=$(src_version)
	name=$(cache_name "$ver")
	if [ -f "$VM_CACHE/kernel/$name/vmlinux" ] && [ -f "$VM_CACHE/kernel/$name/kver" ]; then
		link "$@" "$name"
		echo "kernel $*: $name $(cat "$VM_CACHE/kernel/$name/kver") (cached)"
		return 0
	fi
	need
	deb=$(fetch_source "$ver")
	tree=$(mktemp -d "$VM_CACHE/kernel/.build.XXXXXX")
	if [ "${FRAGD_VM_KEEP_BUILD:-0}" = 1 ]; then
		echo "kernel: build tree $tree (kept)"
	else
		BUILD_TREE=$tree
		trap 'rm -rf "$BUILD_TREE"' EXIT
	fi
	echo "kernel: unpacking $SRC_PKG $ver"
	dpkg-deb --fsys-tarfile "$deb" | tar -xO "./usr/src/$SRC_PKG.tar.xz" |
		tar -xJ -C "$tree" --strip-components=1
	patch -d "$tree" -p1 --quiet --forward <"$PATCH" ||
		die "$PATCH does not apply to $SRC_PKG $ver"
	configure "$tree"
	build_one "$tree" "$VM_CACHE/kernel/$name"
	link "$@" "$name"
}

names=0
if [ "${1:-}" = -n ]; then
	names=1
	shift
fi
# shellcheck disable=SC2086 # a list of words
[ $# -gt 0 ] || set -- $BUILT_KERNELS
for s in "$@"; do
	kernel_is_built "$s" || die "unknown series '$s' (this script builds: $BUILT_KERNELS)"
done
if [ "$names" = 1 ]; then
	apt_lists
	ver=$(src_version)
	for s in "$@"; do
		echo "$VM_CACHE/kernel/$(cache_name "$ver")"
	done
	exit 0
fi
mkdir -p "$VM_CACHE/kernel"
# one build at a time per cache (two suites started together would race)
exec 9>"$VM_CACHE/kernel/.build.lock"
flock 9
build "$@"
