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
