#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Every server address is reachable over RDMA: mount through each one,
# move data, and see the server accept the connection on that address.

. ./lib.sh

conn_to() {
	server_rdma_conns | awk -v a="$1" '$1 == a { ok = 1 } END { exit !ok }'
}

data=/tmp/nfsmp-each
make_data "$data" 4
defer "rm -f $data"
want=$(sha "$data")
for addr in $SERVER_ADDRS; do
	nfs_mount "vers=3,proto=rdma,port=$RDMA_PORT" "$addr"
	dd if="$data" of="$MNT/each.$addr" bs=1M oflag=direct 2>/dev/null
	got=$(dd if="$MNT/each.$addr" bs=1M iflag=direct 2>/dev/null | sha256sum | cut -d' ' -f1)
	[ "$got" = "$want" ] || fail "data through $addr differs"
	wait_for 10 conn_to "$addr" || fail "the server saw no RDMA connection on $addr"
	log "$addr: RDMA connection seen by the server, data verified"
	rm -f "$MNT/each.$addr"
	nfs_umount
done
