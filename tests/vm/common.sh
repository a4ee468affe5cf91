# shellcheck shell=bash
# common.sh - host-side helpers shared by the tests/vm scripts (sourced).
# Never writes the host's /proc or /sys: everything kernel-facing happens in
# the guest.

VM_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
VM_CACHE=${FRAGD_VM_CACHE:-${HOME:-/root}/.cache/fragd-vm}
export VM_DIR VM_CACHE

die() {
	echo "${0##*/}: $*" >&2
	exit 1
}

# The series build-kernel.sh builds from Debian's 7.3 source instead of
# fetching a package: one vmlinux with the NORETRY change behind a boot
# switch, booted plainly (7.3-stock) or with the switch on (7.3-noretry).
# get-kernel.sh hands them over, so a series is a series everywhere
# (FRAGD_VM_KERNELS, run.sh -k, VM_KERNEL=, kernel_dir).
BUILT_KERNELS="7.3-stock 7.3-noretry"
kernel_is_built() {
	case " $BUILT_KERNELS " in *" $1 "*) return 0 ;; esac
	return 1
}

# kernel_append SERIES: what the series adds to the kernel command line
kernel_append() {
	case $1 in
	*-noretry) echo noretry_costly=1 ;;
	esac
}

# kernel_pkg SERIES: resolve a series (6.1, 6.12) or an explicit package name
# to the concrete linux-image package apt would install.
kernel_pkg() {
	local meta
	case $1 in
	linux-image-*) echo "$1"; return ;;
	6.1) meta=linux-image-amd64 ;;
	*) meta=linux-image-$1-amd64 ;;
	esac
	apt-cache depends "$meta" 2>/dev/null |
		awk '/Depends: linux-image-[0-9]/ { print $2; exit }'
}

# kernel_dir SERIES: where get-kernel.sh unpacked that series (via a symlink
# named after the series, so a newer point release replaces it cleanly).
kernel_dir() {
	echo "$VM_CACHE/kernel/$1"
}
