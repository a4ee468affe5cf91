#!/bin/bash
# mkinitramfs.sh -o OUT [-C FRAGD_CONF] [-K KROOT -M "MODULE..."] [FILE...]
#
# Builds a minimal initramfs for the test guest: static busybox, guest/init,
# guest/lib.sh, guest/bounds.conf, guest/scenarios/*.sh, and FILEs (fragd,
# fragmenter, consumer, ...) in /bin. Dynamically linked FILEs get the
# libraries ldd lists, at the same paths. -C installs a config as
# /etc/fragd.conf. -K/-M (the systemd guest's boot stage) copy the named
# kernel modules and their dependencies from an unpacked linux-image package
# (after depmod), in load order, for /init to insmod before switch_root.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out='' conf='' kroot='' mods=''
while getopts o:C:K:M: o; do
	case $o in
	o) out=$OPTARG ;;
	C) conf=$OPTARG ;;
	K) kroot=$OPTARG ;;
	M) mods=$OPTARG ;;
	*) exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ -n "$out" ] || { echo "usage: $0 -o OUT [-C CONF] [-K KROOT -M MODULES] [FILE...]" >&2; exit 2; }
busybox=$(command -v busybox) || { echo "$0: busybox not found (install busybox-static)" >&2; exit 1; }
if ldd "$busybox" >/dev/null 2>&1; then
	echo "$0: $busybox is dynamically linked; install busybox-static" >&2
	exit 1
fi

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage"/{bin,sbin,usr/bin,usr/sbin,proc,sys,dev,tmp,run,etc,root,newroot,modules,vm/scenarios}
cp "$busybox" "$stage/bin/busybox"
for a in $("$busybox" --list-full); do
	[ -e "$stage/$a" ] || ln -s /bin/busybox "$stage/$a"
done
install -m 755 "$here/guest/init" "$stage/init"
install -m 644 "$here/guest/lib.sh" "$here/guest/bounds.conf" "$stage/vm/"
install -m 644 "$here"/guest/scenarios/*.sh "$stage/vm/scenarios/"
[ -z "$conf" ] || install -m 644 "$conf" "$stage/etc/fragd.conf"
echo "root:x:0:0:root:/root:/bin/sh" >"$stage/etc/passwd"
echo "root:x:0:" >"$stage/etc/group"

for f in "$@"; do
	install -m 755 "$f" "$stage/bin/"
	for lib in $(ldd "$f" 2>/dev/null | grep -o '/[^ ]*' || true); do
		[ -e "$stage$lib" ] && continue
		mkdir -p "$stage$(dirname "$lib")"
		cp -L "$lib" "$stage$lib"
	done
done

if [ -n "$mods" ]; then
	kver=$(ls "$kroot/lib/modules")
	# shellcheck disable=SC2086 # a list of module names
	for ko in $(modprobe -d "$kroot" -S "$kver" -a --show-depends $mods |
		awk '$1 == "insmod" { print $2 }'); do
		b=$(basename "$ko")
		b=${b%.xz} b=${b%.zst}	# busybox insmod wants them uncompressed
		grep -qx "$b" "$stage/modules/order" 2>/dev/null && continue
		case $ko in
		*.xz) xz -dc "$ko" >"$stage/modules/$b" ;;
		*.zst) zstd -qdc "$ko" >"$stage/modules/$b" ;;
		*) cp "$ko" "$stage/modules/" ;;
		esac
		echo "$b" >>"$stage/modules/order"
	done
fi

mkdir -p "$(dirname "$out")"
(cd "$stage" && find . -print0 | cpio --null -o -H newc --quiet) | gzip -1 >"$out.tmp"
mv "$out.tmp" "$out"
echo "initramfs $out: $(du -h "$out" | cut -f1)"
