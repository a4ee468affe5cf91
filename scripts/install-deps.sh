#!/bin/sh
# Installs what fragd needs to build and test on Debian 12 (bookworm).
# Runs apt-get through sudo when not already root.
set -eu
SUDO=
if [ "$(id -u)" -ne 0 ]; then
	command -v sudo >/dev/null || { echo "install-deps: run as root or install sudo" >&2; exit 1; }
	SUDO=sudo
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# build: compiler, pkg-config and the four libraries fragd links
# tests: cmocka, clang (libFuzzer, second sanitizer build), promtool and a
#        real node_exporter, qemu + busybox + debootstrap for the real-kernel
#        suite (tests/vm), systemd-analyze, gnuplot for benchmark plots;
#        bc bison flex libelf-dev build the suite's own 6.12 kernels
#        (tests/vm/build-kernel.sh), xfsprogs puts mkfs.xfs in its guest;
#        dbus-daemon runs the private bus of the fake systemd that
#        tests/integration/test-thp-dropin.sh asks
# package: debhelper, dpkg-dev, fakeroot and lintian build and check the .deb
#        (make check-package), mandoc lints the man pages, bash-completion
#        runs the completion test and says where completions go
$SUDO apt-get install -y -qq --no-install-recommends \
	build-essential pkg-config git ca-certificates \
	libsystemd-dev libnl-3-dev libnl-genl-3-dev libinih-dev \
	libcmocka-dev clang libclang-rt-14-dev \
	prometheus prometheus-node-exporter curl \
	qemu-system-x86 busybox-static cpio debootstrap e2fsprogs kmod xz-utils zstd python3 file shellcheck \
	bc bison flex libelf-dev xfsprogs \
	systemd dbus-daemon gnuplot-nox \
	debhelper dpkg-dev fakeroot lintian mandoc bash-completion >/dev/null
echo "install-deps: done"
