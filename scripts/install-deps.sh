#!/bin/sh
# install-deps.sh [--test] [--list]: installs the Debian 12 (bookworm)
# packages fragd needs.
#   (no option)  what building fragd and running it need: the compiler,
#                pkg-config and the four libraries fragd links
#   --test       that and the whole test suite's stack (make test runs this
#                itself: cmocka, clang, promtool, qemu, debootstrap, ...)
#   --list       print the package names it would install, one a line, and
#                install nothing
# Packages already installed are not asked for again: when all of them are
# (dpkg-query), it says so and exits without apt-get (no network, no sudo).
# Otherwise it runs apt-get update and apt-get install, through sudo when
# not root.
set -eu

# build: compiler and make, pkg-config and the four libraries fragd links
BUILD="build-essential pkg-config libsystemd-dev libnl-3-dev libnl-genl-3-dev libinih-dev"
# tests: cmocka, clang (libFuzzer, second sanitizer build), promtool and a
#        real node_exporter, qemu + busybox + debootstrap for the real-kernel
#        suite (tests/vm), systemd-analyze, gnuplot for benchmark plots;
#        bc bison flex libelf-dev build the suite's own 7.3 kernel
#        (tests/vm/build-kernel.sh), xfsprogs puts mkfs.xfs in its guest;
#        git and ca-certificates fetch the kernel source;
#        dbus-daemon runs the private bus of the fake systemd that
#        tests/integration/test-thp-dropin.sh asks
# package: debhelper, dpkg-dev, fakeroot and lintian build and check the .deb
#        (make check-package), mandoc lints the man pages, bash-completion
#        runs the completion test and says where completions go
TEST="git ca-certificates
	libcmocka-dev clang libclang-rt-14-dev
	prometheus prometheus-node-exporter curl
	qemu-system-x86 busybox-static cpio debootstrap e2fsprogs kmod xz-utils zstd python3 file shellcheck
	bc bison flex libelf-dev xfsprogs
	systemd dbus-daemon gnuplot-nox
	debhelper dpkg-dev fakeroot lintian mandoc bash-completion"

want=$BUILD
list=0
for arg in "$@"; do
	case $arg in
	--test) want="$BUILD $TEST" ;;
	--list) list=1 ;;
	*) echo "usage: $0 [--test] [--list]" >&2; exit 2 ;;
	esac
done
# shellcheck disable=SC2086 # one package name a word
want=$(printf '%s\n' $want)
if [ $list = 1 ]; then
	printf '%s\n' "$want"
	exit 0
fi
words() { printf '%s\n' "$1" | tr '\n' ' ' | sed 's/ $//'; }
if ! command -v dpkg-query >/dev/null || ! command -v apt-get >/dev/null; then
	echo "install-deps: needs Debian's dpkg-query and apt-get; install these by hand: $(words "$want")" >&2
	exit 1
fi

# the wanted packages not installed yet (dpkg-query names only the ones it
# knows, so a package never seen counts as missing too)
missing() {
	# shellcheck disable=SC2086
	installed=$(dpkg-query -W -f='${Package} ${db:Status-Status}\n' $want 2>/dev/null |
		awk '$2 == "installed" { print $1 }')
	printf '%s\n' "$want" | while read -r p; do
		printf '%s\n' "$installed" | grep -qxF "$p" || echo "$p"
	done
}
todo=$(missing)
n=$(printf '%s\n' "$want" | wc -l)
if [ -z "$todo" ]; then
	echo "install-deps: all $n packages installed"
	exit 0
fi

SUDO=
if [ "$(id -u)" -ne 0 ]; then
	command -v sudo >/dev/null || {
		echo "install-deps: run as root or install sudo; missing: $(words "$todo")" >&2
		exit 1
	}
	SUDO=sudo
fi
echo "install-deps: installing $(printf '%s\n' "$todo" | wc -l) of $n packages: $(words "$todo")"
$SUDO apt-get update -qq
# shellcheck disable=SC2086
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $todo >/dev/null
todo=$(missing)
[ -z "$todo" ] || { echo "install-deps: still not installed: $(words "$todo")" >&2; exit 1; }
echo "install-deps: done"
