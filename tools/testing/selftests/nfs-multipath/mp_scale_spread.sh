#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Spread across server nodes (make check-scale: two nodes, two links
# each).  Every node exports the same read-only image with the same
# fsid=, as the nodes of a scale-out server export one filesystem.
# Proves:
# - the nodes hand out the same file handles: the handles that the client
#   gets through a mount of each node (name_to_handle_at, which embeds the
#   server's handle) are the same for every file;
# - a mount over the four addresses of both nodes with nconnect=8 puts two
#   connections on each address, as the nodes themselves count them;
# - verified reads over it (fio, crc32c in every 64 KiB block, then the
#   SHA256SUMS of the image) leave through both nodes, each sending
#   between 40% and 60% of the bytes, as the nodes' NIC counters say.

. ./lib.sh

need_nodes 2

ADDRS="$(node_addrs 1) $(node_addrs 2)"
OPTS="$MP_RDMA,nconnect=8,remoteports=$(echo $ADDRS | tr ' ' '~'),localports=$CLIENT_LIST"
MIN_SHARE=40
FHANDLE=$PWD/fhandle

# handles DIR: the file handle of every file of the export on DIR
handles() {
	(cd "$1" && "$FHANDLE" . SHA256SUMS data data/f*)
}

same_handles() {
	local a b n1 n2

	n1=$(node_addrs 1)
	n2=$(node_addrs 2)
	nfs_mount_on "$MNT.1" "$MP_RDMA" "${n1%% *}" "$RO_EXPORT"
	nfs_mount_on "$MNT.2" "$MP_RDMA" "${n2%% *}" "$RO_EXPORT"
	a=$(handles "$MNT.1") || fail "no file handles through node 1"
	b=$(handles "$MNT.2") || fail "no file handles through node 2"
	echo "$a" | head -n 2 | sed 's/^/node 1: /'
	echo "$b" | head -n 2 | sed 's/^/node 2: /'
	[ "$(echo "$a" | wc -l)" = $((RO_FILES + 3)) ] ||
		fail "expected $((RO_FILES + 3)) handles, got $(echo "$a" | wc -l)"
	if [ "$a" != "$b" ]; then
		diff <(echo "$a") <(echo "$b") | head -n 10
		fail "the nodes hand out different file handles"
	fi
	log "ok: both nodes hand out the same $((RO_FILES + 3)) file handles"
	umount_wait "$MNT.1" 60 || fail "umount $MNT.1 failed"
	umount_wait "$MNT.2" 60 || fail "umount $MNT.2 failed"
}

main() {
	local before1 before2 after1 after2 d1 d2 share1 share2 rc=0

	same_handles
	nfs_mount "$OPTS" "${ADDRS%% *}" "$RO_EXPORT"
	show_endpoints
	if ! wait_for 30 nodes_carry 2 1 2; then
		node_conns_per_addr 1 | sed 's/^/node 1 holds: /'
		node_conns_per_addr 2 | sed 's/^/node 2 holds: /'
		fail "the nodes do not hold 2 connections per address"
	fi
	node_conns_per_addr 1 | sed 's/^/node 1 holds: /'
	node_conns_per_addr 2 | sed 's/^/node 2 holds: /'
	log "ok: each node holds 2 RDMA connections per address of its own"

	before1=$(node_tx 1)
	before2=$(node_tx 2)
	fio_json /tmp/nfsmp-spread.json $(ro_fio_args "$MNT") --io_size=16M || rc=$?
	fio_check "verified reads" "$rc" /tmp/nfsmp-spread.json read
	ro_sums "$MNT" || fail "the export does not read back as its SHA256SUMS"
	log "ok: every file reads back as SHA256SUMS says"
	after1=$(node_tx 1)
	after2=$(node_tx 2)
	log "node 1 NICs: before $before1; after $after1"
	log "node 2 NICs: before $before2; after $after2"
	d1=$((${after1##* } - ${before1##* }))
	d2=$((${after2##* } - ${before2##* }))
	[ $((d1 + d2)) -gt 0 ] || fail "the nodes sent nothing"
	share1=$((100 * d1 / (d1 + d2)))
	share2=$((100 * d2 / (d1 + d2)))
	log "node 1 sent $((d1 >> 20)) MiB ($share1%), node 2 $((d2 >> 20)) MiB ($share2%)"
	[ "$share1" -ge "$MIN_SHARE" ] && [ "$share2" -ge "$MIN_SHARE" ] ||
		fail "the reads are not spread over the nodes" \
		     "(each should send at least $MIN_SHARE%)"
	log "ok: each node sent at least $MIN_SHARE% of the bytes"
	rm -f /tmp/nfsmp-spread.json*
}

main
