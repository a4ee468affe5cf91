#!/bin/bash
# run.sh [options] SCENARIO [KEY=VALUE...] - boot a test guest under qemu
# (TCG), run one scenario, and turn its result into an exit code.
#
#   -k SERIES   kernel series fetched by get-kernel.sh (default 6.1)
#   -m MEM      guest memory (default 2G)
#   -c CPUS     guest CPUs (default 2)
#   -N NODES    NUMA nodes; memory and CPUs are split evenly
#   -L SIZE     RAM below 4 GiB (qemu max-ram-below-4g, default 512M): with
#               -m 2G the guest has a 1.5 GiB Normal zone and a small DMA32,
#               like a real host, at half the memory (and TCG time) of -m 4G
#               (-L '' gives qemu's own split: a Normal zone only from ~3.5G)
#   -T SECS     timeout for the whole boot (default 150)
#   -i INITRD   initramfs (default $BUILDDIR/vm/initramfs.cpio.gz)
#   -d IMAGE    systemd guest: boot IMAGE (ext4) as a virtio disk, snapshot=on,
#               via INITRD's fvm.root= stage
#   -D SIZE     a blank data disk of SIZE (sparse raw file, made for this boot
#               and removed after it) as the next virtio disk; the guest is
#               told its device as fvm.data= (/dev/vdb with -d, else /dev/vda)
#   -l LOG      console log (default tests/vm/logs/SCENARIO-SERIES.log)
#   -I          interactive: console on this terminal, no timeout
#   -v          copy the console to stdout as it runs
# KEY=VALUE goes to the guest as fvm.KEY=VALUE (see guest/scenarios/*.sh).
#
# Exit code: the scenario's (0 pass, 77 skip, other fail), 124 on timeout,
# 125 when the guest printed no @@RC line. @@RESULT lines are copied to
# LOG.result.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=common.sh
. "$(dirname "$0")/common.sh"

series=6.1 mem=2G cpus=2 nodes=1 tmo=150 lowmem=512M initrd='' disk='' datadisk='' log='' interactive=0 verbose=0
while getopts k:m:c:N:L:T:i:d:D:l:Ivh o; do
	case $o in
	k) series=$OPTARG ;; m) mem=$OPTARG ;; c) cpus=$OPTARG ;; N) nodes=$OPTARG ;; L) lowmem=$OPTARG ;;
	T) tmo=$OPTARG ;; i) initrd=$OPTARG ;; d) disk=$OPTARG ;; D) datadisk=$OPTARG ;; l) log=$OPTARG ;;
	I) interactive=1 ;; v) verbose=1 ;;
	h) sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
	*) exit 2 ;;
	esac
done
shift $((OPTIND - 1))
scenario=${1:?usage: run.sh [options] SCENARIO [KEY=VALUE...]}
shift
builddir=${BUILDDIR:-$VM_DIR/../../build}
initrd=${initrd:-$builddir/vm/initramfs.cpio.gz}
kdir=$(kernel_dir "$series")
[ -f "$kdir/vmlinux" ] || die "no kernel $series in $VM_CACHE (run: tests/vm/get-kernel.sh $series)"
[ -f "$initrd" ] || die "no initramfs $initrd (run: make vm-initramfs)"

# no_timer_check: under TCG on a loaded host the kernel's check that the
# 8254 timer ticks through the IO-APIC can time out, and it panics ("IO-APIC
# + timer doesn't work"); the check proves nothing about a virtual machine
append="console=ttyS0 panic=-1 psi=1 quiet loglevel=4 no_timer_check fvm.scenario=$scenario"
extra=$(kernel_append "$series")
[ -z "$extra" ] || append+=" $extra"
for kv in "$@"; do
	[[ $kv == *=* ]] || die "not KEY=VALUE: $kv"
	append+=" fvm.$kv"
done

numa=()
if [ "$nodes" -gt 1 ]; then
	# split memory (in MiB) and CPUs evenly over the nodes
	per=$(($(numfmt --from=iec "${mem%B}") / nodes / 1048576))
	mem=$((per * nodes))M
	for ((n = 0; n < nodes; n++)); do
		c0=$((n * cpus / nodes)) c1=$(((n + 1) * cpus / nodes - 1))
		numa+=(-object "memory-backend-ram,id=mem$n,size=${per}M"
			-numa "node,nodeid=$n,memdev=mem$n,cpus=$c0-$c1")
	done
fi
# shellcheck disable=SC2054 # commas belong to qemu's option syntax
qemu=(qemu-system-x86_64 -M "pc${lowmem:+,max-ram-below-4g=$lowmem}" -accel tcg,thread=multi -cpu "${FRAGD_VM_CPU:-qemu64}" -m "$mem" -smp "$cpus"
	-nographic -no-reboot -nic none -kernel "$kdir/vmlinux" -initrd "$initrd" "${numa[@]}")
if [ -n "$disk" ]; then
	qemu+=(-drive "file=$disk,if=virtio,format=raw,snapshot=on")
	append+=" fvm.root=/dev/vda"
fi
if [ -n "$datadisk" ]; then
	ddir=$(mktemp -d "${TMPDIR:-/tmp}/fragd-vm-data.XXXXXX")
	trap 'rm -rf "$ddir"' EXIT
	truncate -s "$datadisk" "$ddir/data.img"
	qemu+=(-drive "file=$ddir/data.img,if=virtio,format=raw,cache=unsafe")
	append+=" fvm.data=/dev/vd$([ -n "$disk" ] && echo b || echo a)"
fi
qemu+=(-append "$append")

if [ "$interactive" = 1 ]; then
	echo "+ ${qemu[*]}"
	[ -n "$datadisk" ] || exec "${qemu[@]}"
	"${qemu[@]}" # not exec: the EXIT trap removes the data disk
	exit
fi

log=${log:-$VM_DIR/logs/$scenario-$series.log}
mkdir -p "$(dirname "$log")"
echo "+ ${qemu[*]}" >"$log"
t0=${EPOCHREALTIME/./}
set +e
timeout --kill-after=5 "$tmo" "${qemu[@]}" </dev/null 2>&1 |
	while IFS= read -r l; do
		d=$((${EPOCHREALTIME/./} - t0))
		printf '[%4d.%02d] %s\n' $((d / 1000000)) $((d / 10000 % 100)) "${l%$'\r'}"
	done | if [ "$verbose" = 1 ]; then tee -a "$log"; else cat >>"$log"; fi
qrc=${PIPESTATUS[0]}
set -e
grep -o '@@RESULT .*' "$log" >"$log.result" || true
rc=$(sed -n 's/.*@@RC=\([0-9]*\).*/\1/p' "$log" | tail -n 1)
if [ "$qrc" = 124 ] || [ "$qrc" = 137 ]; then
	echo "run.sh: timeout after ${tmo}s" >>"$log"
	exit 124
fi
if [ -z "$rc" ]; then
	echo "run.sh: no @@RC line (qemu rc=$qrc)" >>"$log"
	exit 125
fi
exit "$rc"
