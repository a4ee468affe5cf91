#!/bin/bash
# pg-image.sh TREE - mkrootfs.sh -x hook for the postgres guest: the
# cluster 15/main made again (on the host, in a chroot of TREE: initdb under
# TCG took minutes) with 64 MiB WAL segments, and WAL recycling off. Every
# segment a run starts is then a new one, zero-filled with 256 KiB pwritev()
# calls (order-6 page-cache folios on XFS): a burst of 256 of them, which
# the scenario makes with pg_switch_wal() (as archive_timeout would). The
# burst must be larger than what kernel defaults' proactive compaction keeps
# free in large blocks (tens of MiB in this guest; with 1 MiB segments the
# 4-folio bursts never met fragmented memory: tests/vm/README.md). The
# scenario copies the cluster to the XFS data disk and starts it there.
set -euo pipefail
tree=${1:?usage: pg-image.sh TREE}
[ -x "$tree/usr/bin/pg_createcluster" ] || { echo "pg-image.sh: no PostgreSQL in $tree" >&2; exit 1; }
chroot "$tree" pg_dropcluster 15 main
chroot "$tree" pg_createcluster --start-conf manual 15 main -- --wal-segsize=64 >/dev/null
echo "wal_recycle = off" >"$tree/etc/postgresql/15/main/conf.d/fragd-vm.conf"
echo "pg-image.sh: cluster 15/main with 64 MiB WAL segments, wal_recycle off"
