#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A client RDMA device that goes away and comes back, under I/O (issue 16,
# test 1).  A multipath mount, nconnect=8 over the four client rxe devices,
# writes with crc32c verify; one device is deleted (`rdma link delete`,
# what a NIC reset or a driver unbind does to the RDMA core), then added
# again on the same netdev.
#
#   - the delete returns within DELETE_S;
#   - the device's paths are seen down, and the server keeps no connection
#     from its address;
#   - the I/O goes on over the other devices: no error, no request over
#     MAX_LAT_MS;
#   - after the re-add the server sees the device's connections again
#     within REJOIN_S, and the paths are up;
#   - the data verifies after a remount.

. ./lib.sh

OPTS="$MP_RDMA,nconnect=8,remoteports=$SERVER_RANGE,localports=$CLIENT_LIST"
SIZE_MIB=64
DELETE_S=$(limit 5)
REJOIN_S=$(limit 5)
MAX_LAT_MS=$(limit 2000)
FIO_JOB="--name=device --directory=$MNT --rw=randwrite --bs=64k
	--size=$((SIZE_MIB / 2))M --numjobs=2 --direct=1 --ioengine=libaio
	--iodepth=16 --verify=crc32c --verify_backlog=128 --rate=1m,1m
	--group_reporting"

# conns_from ADDR: the server's RDMA connections from client address ADDR
conns_from() {
	server_rdma_conns | awk -v a="$1" '$2 == a' | wc -l
}

conns_from_is() {
	[ "$(conns_from "$1")" -eq "$2" ]
}

# conns_from_at_least ADDR N: the server has N connections from ADDR,
# or more (one that a probe gave up on may linger there)
conns_from_at_least() {
	[ "$(conns_from "$1")" -ge "$2" ]
}

# paths_from_in ADDR STATES: every path from local address ADDR is in one
# of STATES
paths_from_in() {
	local r

	for r in $(mountstats_pairs | awk -v l="$1" '$2 == l { print $1 }'); do
		path_in "$r" "$2" || return 1
	done
}

main() {
	local k=1 dev ifc addr n0 pid rc=0 t0 waited max

	dev=rxe$k
	ifc=$(word_at "$k" "$CLIENT_IFS")
	addr=$(word_at "$k" "$CLIENT_ADDRS")
	boost_priority
	nfs_mount "$OPTS"
	touch_all_xprts
	check_fresh
	n0=$(conns_from "$addr")
	[ "$n0" -gt 0 ] || fail "the server sees no connection from $addr"
	log "$dev ($ifc, $addr) carries $n0 connections"

	trace_start "$MAX_LAT_MS"
	fio_bg pid /tmp/nfsmp-device.json $FIO_JOB
	sleep 5
	pid_gone "$pid" && fail "fio ended before the delete"

	t0=$(now_cs)
	trace_mark "delete $dev"
	if ! run_wait "$DELETE_S" rdma link delete "$dev"; then
		kernel_stacks
		fail "rdma link delete $dev did not return within $DELETE_S s"
	fi
	defer_check "[ -e /sys/class/infiniband/$dev ] || rdma link add $dev type rxe netdev $ifc"
	log "ok: rdma link delete $dev returned after $(secs $(($(now_cs) - t0))) s"
	wait_for_cs -t waited 500 paths_from_in "$addr" "down|probing" ||
		{ dump_paths; fail_later "the paths from $addr are not down 5 s after the delete"; }
	log "the paths from $addr down $(secs "$waited") s after the delete"
	wait_for 30 conns_from_is "$addr" 0 ||
		fail_later "the server still has $(conns_from "$addr") connections from $addr"
	sleep 10

	t0=$(now_cs)
	trace_mark "add $dev"
	rdma link add "$dev" type rxe netdev "$ifc" || fail "cannot add $dev again"
	wait_within "the server sees $n0 connections from $addr after the re-add" \
		"$REJOIN_S" "add $dev" conns_from_at_least "$addr" "$n0" || dump_paths
	wait_for 10 all_paths_up || { dump_paths; fail_later "not every path is up again"; }

	fio_wait "$pid" 300 || rc=$?
	fio_check "write+verify" "$rc" /tmp/nfsmp-device.json "read write"
	max=$(fio_max_lat /tmp/nfsmp-device.json "read write")
	log "largest fio latency: $max ms (limit $MAX_LAT_MS ms)"
	[ "$max" -le "$MAX_LAT_MS" ] || { trace_show; fail_later "a request waited $max ms"; }
	nfs_umount
	fail_if_any
}

main
