#!/bin/bash
# mkrootfs.sh -o IMAGE -f FRAGD [-u UNIT] [-C CONF] [-w PROG]... - the systemd guest.
# mkrootfs.sh -o IMAGE -p DIR - the same guest without fragd, for the package
#   scenario: the files of DIR (the .deb, its dependencies' .debs, a
#   workload) go to /vm/pkg/, and no fragd binary, unit or config is
#   installed (the package brings them).
# More options, with either form:
#   -e PKGS   Debian packages debootstrapped into the base as well (comma
#             separated, e.g. postgresql-15,xfsprogs,dbus for the
#             postgres scenario); such a base is cached under its own name
#             (bookworm-extra-<hash of PKGS>-vN), the plain one is untouched.
#             PostgreSQL clusters in it are set to start manually (the
#             scenario starts them once their data directory is in place).
#   -b FILE   a program for /usr/local/bin/ (with the libraries ldd lists
#             that the root lacks); repeatable
#   -s SIZE   image size (default 1G)
#   -x HOOK   run `HOOK TREE` on the image's tree (a copy: the cached base
#             is never changed) before it is packed
#   -K        cache the packed base (with HOOK's work) as an image of its own,
#             $FRAGD_VM_CACHE/rootfs/image-<base>-<hash>.img (hash of the
#             base's name, HOOK, SIZE and this script), and make IMAGE as a
#             copy of it with the per-image layer below written in by
#             debugfs: seconds instead of a copy of the base and mkfs.ext4
#             (the postgres guest: 0.6 GB, about a minute)
#
# A Debian bookworm root (debootstrap --variant=minbase with systemd-sysv,
# udev, kmod, procps), made once and cached in $FRAGD_VM_CACHE/rootfs/, gets the
# harness's fixed setup (hostname, fstab, empty root password, the console
# kept free for test output, the test runner unit) and then, per image:
#   FRAGD  -> /usr/local/sbin/fragd, with the shared libraries ldd lists
#             that the root lacks
#   UNIT   -> /etc/systemd/system/fragd.service (not enabled: the scenario
#             does `systemctl enable --now`); default: the project's
#             systemd/fragd.service.in with its @PLACEHOLDERS@ filled in, or
#             tests/vm/guest/fragd.service until the project has one
#   CONF   -> /etc/fragd/fragd.conf (and /etc/fragd.conf -> fragd/fragd.conf)
#   the project's systemd/fragd.catalog -> /usr/lib/systemd/catalog/ (the
#             scenario runs journalctl --update-catalog, as the package's
#             trigger does)
#   PROG   -> /usr/local/bin/ (the static workloads: fragmenter, consumer)
#   tests/vm/guest/{lib.sh,bounds.conf,scenarios/} -> /vm/
# and becomes an ext4 IMAGE (mkfs.ext4 -d, no loop device, no root mounts).
# Boot it with run.sh -d IMAGE -i INITRAMFS-WITH-MODULES; the runner unit
# runs the scenario named by fvm.scenario= and prints @@RC like /init does.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=common.sh
. "$(dirname "$0")/common.sh"

out='' fragd='' unit='' conf='' pkg='' progs=() extra='' size=1G bins=() debcache='' hook='' cached=0
while getopts o:f:u:C:p:w:e:b:s:x:K o; do
	case $o in
	o) out=$OPTARG ;; f) fragd=$OPTARG ;; u) unit=$OPTARG ;; C) conf=$OPTARG ;;
	p) pkg=$OPTARG ;; w) progs+=("$OPTARG") ;;
	e) extra=$OPTARG ;; b) bins+=("$OPTARG") ;; s) size=$OPTARG ;; x) hook=$OPTARG ;; K) cached=1 ;;
	*) exit 2 ;;
	esac
done
{ [ -n "$out" ] && { [ -n "$fragd" ] || [ -n "$pkg" ]; }; } ||
	die "usage: $0 -o IMAGE -f FRAGD [-u UNIT] [-C CONF] [-w PROG]... | -o IMAGE -p DIR; [-e PKGS] [-b FILE]... [-s SIZE] [-x HOOK]"
srcdir=$(cd "$VM_DIR/../.." && pwd)

# --- the cached base: debootstrap + the harness's fixed setup
# procps: /bin/kill, which units' ExecReload= commonly use (on every real host)
include=systemd-sysv,udev,kmod,procps
prep_version=2 # bump when $include or the fixed setup below changes
base=$VM_CACHE/rootfs/bookworm-minbase-v$prep_version
for old in "$VM_CACHE"/rootfs/bookworm-minbase*; do
	[ "$old" = "$base" ] || [ ! -d "$old" ] || rm -rf "$old" "$old.log"
done
if [ -n "$extra" ]; then
	# a base of its own: the plain one (and its name pattern above) stays as is
	include=$include,$extra
	base=$VM_CACHE/rootfs/bookworm-extra-$(echo "$extra" | sha256sum | cut -c1-12)-v$prep_version
	# the .debs are kept too: another package list need not fetch them again
	mkdir -p "$VM_CACHE/rootfs/debs-extra"
	debcache=--cache-dir=$VM_CACHE/rootfs/debs-extra
fi
if [ "$(cat "$base/.fragd-vm-prep" 2>/dev/null)" != "$prep_version" ]; then
	# the archive apt on this host uses for bookworm (no host names in here)
	mirror=${FRAGD_VM_MIRROR:-$(apt-cache policy | awk '$3 == "bookworm/main" && $4 == "amd64" { print $2; exit }')}
	[ -n "$mirror" ] || die "no bookworm/main apt source configured; set FRAGD_VM_MIRROR"
	if [ ! -x "$base/sbin/init" ]; then
		rm -rf "$base.tmp"
		mkdir -p "$(dirname "$base")"
		echo "debootstrap bookworm into $base (once; about a minute)"
		# shellcheck disable=SC2086 # $debcache is one word or none
		debootstrap --variant=minbase --include="$include" $debcache \
			bookworm "$base.tmp" "$mirror" >"$base.log" 2>&1 ||
			die "debootstrap failed, see $base.log"
		rm -rf "$base"
		mv "$base.tmp" "$base"
	fi
	echo fragd-vm >"$base/etc/hostname"
	echo "/dev/vda / ext4 rw,errors=remount-ro 0 1" >"$base/etc/fstab"
	passwd -R "$base" -d root >/dev/null # interactive debugging: root, no password
	# the serial console carries the test output; nothing else may claim it
	systemctl --root="$base" mask serial-getty@ttyS0.service getty@tty1.service >/dev/null 2>&1
	# PostgreSQL (-e postgresql-15): no cluster starts at boot; the scenario
	# puts the data directory in place and starts it
	for sc in "$base"/etc/postgresql/*/*/start.conf; do
		[ -f "$sc" ] && echo manual >"$sc"
	done
	rm -rf "$base"/var/cache/apt/archives/*.deb "$base"/var/lib/apt/lists/*
	echo "$prep_version" >"$base/.fragd-vm-prep"
fi

# --- the packed base, cached (-K): the base's tree with HOOK's work, as an
# image; the per-image layer below then goes into $stage alone
stage=$(mktemp -d)
full=''
trap 'rm -rf "$stage" "$stage.debugfs" "$stage.debugfs.log" "$out.tmp" ${full:+"$full"}' EXIT
if [ "$cached" = 1 ]; then
	key=$({ echo "$base $prep_version $size"; cat "$0"; [ -z "$hook" ] || cat "$hook"; } | sha256sum | cut -c1-12)
	cimg=$VM_CACHE/rootfs/image-$(basename "$base")-$key.img
	if [ ! -f "$cimg" ]; then
		full=$(mktemp -d)
		cp -a "$base/." "$full/"
		rm -f "$full/.fragd-vm-prep"
		[ -z "$hook" ] || "$hook" "$full" || die "hook $hook failed"
		rm -f "$cimg.tmp"
		mkfs.ext4 -q -F -L fragd-vm -d "$full" "$cimg.tmp" "$size"
		mv "$cimg.tmp" "$cimg"
		rm -rf "$full"
		full=''
		echo "packed base cached: $cimg"
	fi
else
	cp -a "$base/." "$stage/"
	rm -f "$stage/.fragd-vm-prep"
fi

# --- the per-image layer (the library checks look at the base: $stage holds
# only the layer with -K)

if [ -n "$pkg" ]; then
	mkdir -p "$stage/vm/pkg/deps"
	cp -r "$pkg/." "$stage/vm/pkg/"
	# the guest has no network: the packages the .debs depend on that the
	# base lacks (and theirs) are fetched here with apt-get download
	want=$(for d in "$pkg"/*.deb; do dpkg-deb -f "$d" Depends; done)
	for _round in 1 2 3; do
		missing=$(echo "$want" | tr ',' '\n' | sed 's/|.*//; s/(.*//; s/:any//; s/ //g' | sort -u |
			while read -r p; do
				[ -n "$p" ] || continue
				dpkg-query --admindir="$stage/var/lib/dpkg" -W -f '${Status}' "$p" 2>/dev/null |
					grep -q ' installed$' && continue
				ls "$stage/vm/pkg/deps/${p}"_*.deb >/dev/null 2>&1 && continue
				echo "$p"
			done)
		[ -n "$missing" ] || break
		# shellcheck disable=SC2086 # one package name per word
		(cd "$stage/vm/pkg/deps" && apt-get download -q $missing >/dev/null) ||
			die "apt-get download $missing failed"
		want=$(for d in "$stage"/vm/pkg/deps/*.deb; do dpkg-deb -f "$d" Depends; done)
	done
	echo "package guest: $(cd "$stage/vm/pkg" && echo ./*.deb deps/*.deb)"
else
	install -D -m 755 "$fragd" "$stage/usr/local/sbin/fragd"
	for lib in $(ldd "$fragd" 2>/dev/null | grep -o '/[^ ]*' || true); do
		# only what the guest lacks: its own libc and libsystemd stay
		[ -e "$base$lib" ] || [ -e "$base/usr$lib" ] && continue
		install -D -m 644 "$(readlink -f "$lib")" "$stage$lib"
	done

	if [ -z "$unit" ]; then
		if [ -f "$srcdir/systemd/fragd.service.in" ]; then
			unit=$srcdir/systemd/fragd.service.in
		else
			unit=$VM_DIR/guest/fragd.service
		fi
	fi
	mkdir -p "$stage/etc/systemd/system"
	sed -e 's|@SBINDIR@|/usr/local/sbin|g; s|@sbindir@|/usr/local/sbin|g' \
		-e 's|@BINDIR@|/usr/local/bin|g; s|@bindir@|/usr/local/bin|g' \
		-e 's|@SYSCONFDIR@|/etc|g; s|@sysconfdir@|/etc|g' \
		-e 's|@RUNSTATEDIR@|/run|g; s|@runstatedir@|/run|g' \
		"$unit" >"$stage/etc/systemd/system/fragd.service"
	if [ -n "$conf" ]; then
		install -D -m 644 "$conf" "$stage/etc/fragd/fragd.conf"
		ln -sf fragd/fragd.conf "$stage/etc/fragd.conf"
	fi
	if [ -f "$srcdir/systemd/fragd.catalog" ]; then
		install -D -m 644 "$srcdir/systemd/fragd.catalog" "$stage/usr/lib/systemd/catalog/fragd.catalog"
	fi
fi
for p in ${progs[@]+"${progs[@]}"}; do
	install -D -m 755 "$p" "$stage/usr/local/bin/$(basename "$p")"
done

for b in ${bins[@]+"${bins[@]}"}; do
	install -D -m 755 "$b" "$stage/usr/local/bin/$(basename "$b")"
	for lib in $(ldd "$b" 2>/dev/null | grep -o '/[^ ]*' || true); do
		[ -e "$base$lib" ] || [ -e "$base/usr$lib" ] && continue
		install -D -m 644 "$(readlink -f "$lib")" "$stage$lib"
	done
done

[ -z "$hook" ] || [ "$cached" = 1 ] || "$hook" "$stage" || die "hook $hook failed"

mkdir -p "$stage/vm/scenarios"
install -m 644 "$VM_DIR/guest/lib.sh" "$VM_DIR/guest/bounds.conf" "$stage/vm/"
install -m 644 "$VM_DIR"/guest/scenarios/*.sh "$stage/vm/scenarios/"
install -m 755 "$VM_DIR/guest/systemd-runner" "$stage/vm/runner"
install -m 644 "$VM_DIR/guest/fragd-vmtest.service" "$stage/etc/systemd/system/"
mkdir -p "$stage/etc/systemd/system/multi-user.target.wants"
ln -sf ../fragd-vmtest.service "$stage/etc/systemd/system/multi-user.target.wants/fragd-vmtest.service"

mkdir -p "$(dirname "$out")"
rm -f "$out.tmp"
if [ "$cached" = 1 ]; then
	# the layer into a copy of the packed base: directories made (those that
	# exist say so and stay), every file and link removed and written anew,
	# owned by root with the layer's mode; then each file read back
	cp --sparse=always "$cimg" "$out.tmp"
	cmds=$stage.debugfs
	{
		(cd "$stage" && find . -mindepth 1 -type d | sort) | while read -r p; do echo "mkdir ${p#.}"; done
		(cd "$stage" && find . \( -type f -o -type l \) | sort) | while read -r p; do
			p=${p#.}
			echo "rm $p"
			if [ -L "$stage$p" ]; then
				echo "symlink $p $(readlink "$stage$p")"
			else
				echo "write $stage$p $p"
				echo "sif $p mode 0x$(stat -c %f "$stage$p")"
				echo "sif $p uid 0"
				echo "sif $p gid 0"
			fi
		done
	} >"$cmds"
	debugfs -w -f "$cmds" "$out.tmp" >"$cmds.log" 2>&1 || die "debugfs on $out.tmp failed: $(tail -n 3 "$cmds.log")"
	(cd "$stage" && find . -type f | sort) | while read -r p; do
		p=${p#.}
		debugfs -R "cat $p" "$out.tmp" 2>/dev/null | cmp -s - "$stage$p" ||
			die "$p did not reach $out.tmp (debugfs: $(grep -v '^debugfs' "$cmds.log" | grep -v -e 'File not found by ext2_lookup' -e 'already exists' | tail -n 3))"
	done
	rm -f "$cmds" "$cmds.log"
	e2fsck -fn "$out.tmp" >/dev/null 2>&1 || die "e2fsck finds $out.tmp damaged after the layer was written in"
else
	mkfs.ext4 -q -F -L fragd-vm -d "$stage" "$out.tmp" "$size"
fi
mv "$out.tmp" "$out"
echo "rootfs $out: $(du -h "$out" | cut -f1) used of $size;${extra:+ with $extra;} ${pkg:+package guest, no fragd installed}${unit:+unit from ${unit#"$srcdir"/}}"
