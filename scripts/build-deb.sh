#!/bin/sh
# build-deb.sh TARBALL OUTDIR: unpack a `make dist` tarball in a temp dir,
# build the binary package there (dpkg-buildpackage -us -uc -b) and copy the
# .deb, .buildinfo and .changes into OUTDIR. The source tree is not touched:
# dpkg-buildpackage writes into the parent of the tree it builds, which is
# the temp dir. The build log is OUTDIR/build.log.
set -eu
[ $# = 2 ] || { echo "usage: $0 TARBALL OUTDIR" >&2; exit 2; }
tarball=$(realpath "$1")
mkdir -p "$2"
out=$(realpath "$2")
for tool in dpkg-buildpackage dh; do
	command -v $tool >/dev/null || {
		echo "build-deb: $tool is missing (scripts/install-deps.sh --test installs it)" >&2; exit 1; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
tar -xzf "$tarball" -C "$tmp"
src=$(find "$tmp" -mindepth 1 -maxdepth 1 -type d | head -1)
if ! (cd "$src" && dpkg-buildpackage -us -uc -b -j"${FRAGD_DEB_JOBS:-2}") >"$out/build.log" 2>&1; then
	tail -30 "$out/build.log" >&2
	echo "build-deb: dpkg-buildpackage failed (log: $out/build.log)" >&2
	exit 1
fi
# fragd and fragd-dbgsym (the .changes lists both)
rm -f "$out"/fragd*_*.deb "$out"/fragd_*.changes "$out"/fragd_*.buildinfo
cp "$tmp"/fragd*_*.deb "$tmp"/fragd_*.changes "$tmp"/fragd_*.buildinfo "$out/"
ls "$out"/fragd*_*.deb
