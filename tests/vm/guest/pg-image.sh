#!/bin/bash
# pg-image.sh TREE - mkrootfs.sh -x hook for the postgres guest: the
# cluster 15/main made again (on the host, in a chroot of TREE: initdb under
# TCG took minutes) with 1 MiB WAL segments, and WAL recycling off. Every
# segment a pgbench run fills is then a new one, zero-filled with the same
# 256 KiB pwritev() calls (order-6 page-cache folios on XFS) as a 16 MiB
# one, and a 60 s run under TCG (30-100 transactions a second) creates tens
# of them instead of none or one. The scenario copies the cluster to the XFS
# data disk and starts it there.
set -euo pipefail
tree=${1:?usage: pg-image.sh TREE}
[ -x "$tree/usr/bin/pg_createcluster" ] || { echo "pg-image.sh: no PostgreSQL in $tree" >&2; exit 1; }
chroot "$tree" pg_dropcluster 15 main
chroot "$tree" pg_createcluster --start-conf manual 15 main -- --wal-segsize=1 >/dev/null
echo "wal_recycle = off" >"$tree/etc/postgresql/15/main/conf.d/fragd-vm.conf"
echo "pg-image.sh: cluster 15/main with 1 MiB WAL segments, wal_recycle off"
