#!/bin/bash
# get-kernel.sh SERIES... - fetch Debian kernel packages into the cache and
# prepare them for booting under qemu.
#
# SERIES is 6.1 (what linux-image-amd64 depends on), 6.12 (the
# linux-image-6.12-amd64 meta package, bookworm's 6.12 LTS) or a full
# linux-image-* package name; 7.3-stock and 7.3-noretry are built from
# Debian's 7.3 source by build-kernel.sh instead (one vmlinux, the same
# layout, ~30 minutes on first use, cached after).  For each one this leaves in
# $FRAGD_VM_CACHE/kernel/SERIES/ (a symlink to the versioned directory):
#   vmlinux   the uncompressed ELF kernel; qemu boots it through its PVH
#             entry point, which skips the in-guest decompression (~3.5 s
#             per boot under TCG)
#   root/     the unpacked package with modules.dep (for the systemd guest)
#   kver      the kernel release string
# Nothing is written into the source tree.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=common.sh
. "$(dirname "$0")/common.sh"

# extract_vmlinux BZIMAGE OUT: find the compressed payload by its magic and
# decompress it; the decompressors stop at the end of their stream and may
# complain about the trailer, so only the result (an ELF file) is checked.
extract_vmlinux() {
	local img=$1 out=$2 m magic tool off
	for m in '\xfd7zXZ\x00:xz -dc' '\x28\xb5\x2f\xfd:zstd -dcq' '\x1f\x8b\x08\x00:gzip -dc'; do
		magic=${m%%:*} tool=${m#*:}
		command -v "${tool%% *}" >/dev/null || continue
		for off in $(LC_ALL=C grep -obUaP "$magic" "$img" | cut -d: -f1 | head -3); do
			tail -c +"$((off + 1))" "$img" | $tool >"$out.tmp" 2>/dev/null || true
			if [ "$(head -c 4 "$out.tmp" | od -An -tx1 | tr -d ' ')" = 7f454c46 ]; then
				mv "$out.tmp" "$out"
				return 0
			fi
		done
	done
	rm -f "$out.tmp"
	return 1
}

get_one() {
	local series=$1 pkg dir kver
	pkg=$(kernel_pkg "$series")
	[ -n "$pkg" ] || die "no kernel package for series '$series' in the configured apt sources (apt-get update first? apt-cache search linux-image-$series)"
	dir=$VM_CACHE/kernel/$pkg
	if [ -f "$dir/vmlinux" ] && [ -f "$dir/kver" ]; then
		ln -sfn "$pkg" "$(kernel_dir "$series")"
		echo "kernel $series: $pkg $(cat "$dir/kver") (cached)"
		return 0
	fi
	rm -rf "$dir" && mkdir -p "$dir"
	# as root apt warns that its _apt user cannot write the cache: harmless
	(cd "$dir" && apt-get download -qq "$pkg" 2>&1 | grep -v unsandboxed) || true
	[ -f "$(echo "$dir"/"$pkg"_*.deb)" ] ||
		die "apt-get download $pkg failed"
	dpkg-deb -x "$dir"/"$pkg"_*.deb "$dir/root"
	rm -f "$dir"/"$pkg"_*.deb
	kver=$(ls "$dir/root/lib/modules")
	depmod -b "$dir/root" "$kver"
	extract_vmlinux "$dir/root/boot/vmlinuz-$kver" "$dir/vmlinux" ||
		die "cannot extract vmlinux from vmlinuz-$kver"
	echo "$kver" >"$dir/kver"
	ln -sfn "$pkg" "$(kernel_dir "$series")"
	echo "kernel $series: $pkg $kver ($(du -h "$dir/vmlinux" | cut -f1) vmlinux)"
}

[ $# -gt 0 ] || set -- 6.1
built=()
for s in "$@"; do
	if kernel_is_built "$s"; then
		built+=("$s")
	else
		get_one "$s"
	fi
done
# one call, so that both built series come out of one source tree
[ ${#built[@]} -eq 0 ] || "$VM_DIR/build-kernel.sh" "${built[@]}"
