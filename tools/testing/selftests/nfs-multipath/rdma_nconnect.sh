#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# nconnect=4 over RDMA: the client shows 4 rdma transports in mountstats,
# and the server, seen from outside, holds 4 connected cm_ids for it.

. ./lib.sh

# mountstats_xprts PROTO: count the "xprt: PROTO" lines of the mount on $MNT.
mountstats_xprts() {
	mount_stats | awk -v proto="$1" '
		$1 == "xprt:" && $2 == proto { n++ }
		END { print n + 0 }'
}

NCONNECT=4

conns_settled() {
	[ "$(server_rdma_conns | wc -l)" -eq "$NCONNECT" ]
}

nfs_mount "vers=3,proto=rdma,port=$RDMA_PORT,nconnect=$NCONNECT"
touch_all_xprts
n=$(mountstats_xprts rdma)
log "mountstats: $n rdma transports"
[ "$n" -eq "$NCONNECT" ] || fail "expected $NCONNECT rdma transports, got $n"
if ! wait_for 15 conns_settled; then
	server_rdma_conns | sed 's/^/server cm_id: /'
	fail "the server does not see $NCONNECT connections"
fi
server_rdma_conns | sed 's/^/server cm_id: /'
log "server sees $NCONNECT connected cm_ids on port $RDMA_PORT"
