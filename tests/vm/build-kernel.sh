#!/bin/bash
# build-kernel.sh [-n] SERIES... - build the harness's own kernels from
# Debian's 6.12 source (the linux-source-6.12 package) into the cache.
# -n prints the cache directory each SERIES builds into, and builds nothing.
#
#   6.12-noretry  with patches/noretry-costly-order.patch: costly-order
#                 __GFP_NORETRY allocations skip direct reclaim and direct
#                 compaction (not with __GFP_THISNODE or __GFP_NOFAIL);
#                 kswapd and kcompactd are still woken
#   6.12-stock    the same source and config without the patch: the
#                 baseline of the noretry comparison (Debian's own 6.12 has
#                 XFS and zram as modules, which the initramfs guest lacks,
#                 and another config; here the patch is the only difference)
#
# Config: `make tinyconfig` with kernel/fragd-vm.config merged over it,
# everything built in (no modules). Only vmlinux is built (booted through its
# PVH entry, as get-kernel.sh does with Debian's). For each series this
# leaves in $FRAGD_VM_CACHE/kernel/SERIES-SRCVER-HASH/ (SERIES is a symlink
# to it, so `kernel_dir SERIES` works as for get-kernel.sh's series):
#   vmlinux, kver (uname -r: 6.12.N-fragd-noretry or -fragd-stock), config,
#   root/lib/modules/KVER/ (modules.builtin and depmod's files: mkinitramfs.sh
#   -K finds every module built in), build.log, build.time
# HASH covers the config fragment, the patch (noretry only) and this
# script's recipe version, so a machine builds each combination once. The
# source package stays in $FRAGD_VM_CACHE/src/.
#
# Environment: FRAGD_VM_CACHE, FRAGD_VM_JOBS (default nproc),
# FRAGD_VM_KEEP_BUILD=1 keeps the build tree (printed) for a rebuild by hand.
# Needs: gcc make bc bison flex libelf-dev (objtool) xz-utils; no root.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=common.sh
. "$(dirname "$0")/common.sh"

# bump when the build steps change what comes out (the cache key)
RECIPE=1
SRC_PKG=linux-source-6.12
FRAGMENT=$VM_DIR/kernel/fragd-vm.config
PATCH=$VM_DIR/patches/noretry-costly-order.patch
jobs=${FRAGD_VM_JOBS:-$(nproc)}

# the source version: apt's candidate, else the newest .deb already cached
src_version() {
	local v
	v=$(apt-cache policy "$SRC_PKG" 2>/dev/null | awk '$1 == "Candidate:" && $2 != "(none)" { print $2 }')
	if [ -z "$v" ]; then
		v=$(find "$VM_CACHE/src" -name "${SRC_PKG}_*_all.deb" 2>/dev/null | sort -V | tail -n 1)
		v=${v##*/"${SRC_PKG}"_} v=${v%_all.deb}
	fi
	[ -n "$v" ] || die "no $SRC_PKG in the apt sources (apt-get update first?) and none in $VM_CACHE/src"
	echo "$v"
}

# cache_name SERIES VERSION: the directory name, e.g.
# 6.12-noretry-6.12.117-1_deb12u1-3f2a9c01d4e5
cache_name() {
	local series=$1 ver=$2 h
	h=$({
		echo "recipe $RECIPE"
		cat "$FRAGMENT"
		[ "$series" = 6.12-stock ] || cat "$PATCH"
	} | sha256sum | cut -c1-12)
	echo "$series-${ver//\~/_}-$h"
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
		(cd "$VM_CACHE/src" && apt-get download -qq "$SRC_PKG=$ver" 2>&1 | grep -v unsandboxed) >&2 || true
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

# build TREE SERIES DIR: build vmlinux for SERIES and install it into DIR
build_one() {
	local tree=$1 series=$2 dir=$3 t0 kver secs cpu0 cpu
	t0=$SECONDS
	children_cpu "$tree/cpu0"
	cpu0=$(cat "$tree/cpu0")
	echo "kernel $series: building vmlinux in $tree (-j$jobs, nice)"
	if ! nice make -C "$tree" ARCH=x86_64 -j"$jobs" LOCALVERSION="-fragd-${series#6.12-}" \
		vmlinux >"$tree/build-$series.log" 2>&1; then
		tail -n 30 "$tree/build-$series.log" >&2
		die "building $series failed (log: $tree/build-$series.log; FRAGD_VM_KEEP_BUILD=1 keeps the tree)"
	fi
	secs=$((SECONDS - t0))
	children_cpu "$tree/cpu1"
	cpu=$(($(cat "$tree/cpu1") - cpu0))
	kver=$(make -s -C "$tree" ARCH=x86_64 LOCALVERSION="-fragd-${series#6.12-}" kernelrelease)
	rm -rf "$dir.tmp" && mkdir -p "$dir.tmp/root/lib/modules/$kver"
	cp "$tree/vmlinux" "$dir.tmp/vmlinux"
	cp "$tree/.config" "$dir.tmp/config"
	cp "$tree/build-$series.log" "$dir.tmp/build.log"
	# no modules: modules.builtin lets modprobe (mkinitramfs.sh -K) say
	# "builtin" for virtio_blk, ext4, ...
	cp "$tree/modules.builtin" "$tree/modules.builtin.modinfo" "$dir.tmp/root/lib/modules/$kver/"
	: >"$dir.tmp/root/lib/modules/$kver/modules.order"
	depmod -b "$dir.tmp/root" "$kver"
	echo "$kver" >"$dir.tmp/kver"
	echo "$secs s wall, $cpu s CPU (user+system, -j$jobs), load $(cut -d' ' -f1-3 /proc/loadavg)" >"$dir.tmp/build.time"
	rm -rf "$dir" && mv "$dir.tmp" "$dir"
	echo "kernel $series: $kver built: $(cat "$dir/build.time"); $(du -h "$dir/vmlinux" | cut -f1) vmlinux"
}

build() { # build SERIES...: the ones not cached yet, from one tree
	local ver deb s name todo=() patched=0 tree
	ver=$(src_version)
	for s in "$@"; do
		name=$(cache_name "$s" "$ver")
		if [ -f "$VM_CACHE/kernel/$name/vmlinux" ] && [ -f "$VM_CACHE/kernel/$name/kver" ]; then
			ln -sfn "$name" "$(kernel_dir "$s")"
			echo "kernel $s: $name $(cat "$VM_CACHE/kernel/$name/kver") (cached)"
		else
			todo+=("$s")
		fi
	done
	[ ${#todo[@]} -gt 0 ] || return 0
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
	configure "$tree"
	# the stock kernel first: the patched one is then an incremental build
	# (mm/page_alloc.c and the link)
	for s in 6.12-stock 6.12-noretry; do
		[[ " ${todo[*]} " == *" $s "* ]] || continue
		if [ "$s" = 6.12-noretry ] && [ "$patched" = 0 ]; then
			patch -d "$tree" -p1 --quiet --forward <"$PATCH" ||
				die "$PATCH does not apply to $SRC_PKG $ver"
			patched=1
		fi
		name=$(cache_name "$s" "$ver")
		build_one "$tree" "$s" "$VM_CACHE/kernel/$name"
		ln -sfn "$name" "$(kernel_dir "$s")"
	done
}

names=0
if [ "${1:-}" = -n ]; then
	names=1
	shift
fi
[ $# -gt 0 ] || set -- 6.12-stock 6.12-noretry
for s in "$@"; do
	kernel_is_built "$s" || die "unknown series '$s' (this script builds: $BUILT_KERNELS)"
done
if [ "$names" = 1 ]; then
	ver=$(src_version)
	for s in "$@"; do
		echo "$VM_CACHE/kernel/$(cache_name "$s" "$ver")"
	done
	exit 0
fi
mkdir -p "$VM_CACHE/kernel"
# one build at a time per cache (two suites started together would race)
exec 9>"$VM_CACHE/kernel/.build.lock"
flock 9
build "$@"
