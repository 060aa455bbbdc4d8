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
#   - the device's paths are down within DOWN_CS of the delete's start,
#     and the server keeps none of their connections;
#   - the I/O goes on over the other devices: no error, no request over
#     MAX_LAT_MS, every block verified as it is written;
#   - after the re-add the server sees the device's connections again
#     within REJOIN_S, and the paths are up.

. ./lib.sh

OPTS="$MP_RDMA,nconnect=8,remoteports=$SERVER_RANGE,localports=$CLIENT_LIST"
SIZE_MIB=64
DELETE_S=$(limit 5)
REJOIN_S=$(limit 5)
DOWN_CS=$(limit 200)		# as for a carrier loss
MAX_LAT_MS=$(limit 2000)
FIO_JOB="--name=device --directory=$MNT --rw=randwrite --bs=64k
	--size=$((SIZE_MIB / 2))M --numjobs=2 --direct=1 --ioengine=libaio
	--iodepth=16 --verify=crc32c --verify_backlog=128 --rate=1m,1m
	--group_reporting"

# ids_in IDS STATES: every path of IDS is in one of STATES
ids_in() {
	mountstats_endpoints | awk -v ids=" $1 " -v st="|$2|" '
		index(ids, " " $2 " ") {
			n++
			if (!index(st, "|" $11 "|")) bad = 1
		}
		END { exit bad || n == 0 }'
}

main() {
	local k=1 dev ifc addr n0 ids links pid rc=0 t0 took max

	dev=rxe$k
	ifc=$(word_at "$k" "$CLIENT_IFS")
	addr=$(word_at "$k" "$CLIENT_ADDRS")
	boost_priority
	nfs_mount "$OPTS"
	touch_all_xprts
	check_fresh
	# The mount's paths, not what the server counts: an earlier test
	# may have left a connection there
	rdma_paths_from ids "$addr"
	n0=$(echo $ids | wc -w)
	log "$dev ($ifc, $addr) carries paths $ids"
	# By port, as both sides name them: not what an earlier test left
	links=$(client_rdma_links "$addr" | xargs)
	[ "$(echo $links | wc -w)" -eq "$n0" ] ||
		fail "$n0 paths leave $addr, but the client has connections $links"
	[ "$(server_holds $links)" -eq "$n0" ] ||
		fail "the server holds $(server_holds $links) of $links"
	log "the server holds $(rdma_conns_from "$addr") connections from $addr," \
	    "$n0 of them this mount's: $links"

	trace_start "$MAX_LAT_MS"
	fio_bg pid /tmp/nfsmp-device.json $FIO_JOB
	sleep 5
	pid_gone "$pid" && fail "fio ended before the delete"

	defer_check "rxe_restore $k"
	t0=$(now_cs)
	trace_mark "delete $dev"
	if ! run_wait "$DELETE_S" rdma link delete "$dev"; then
		kernel_stacks
		fail "rdma link delete $dev did not return within $DELETE_S s"
	fi
	log "ok: rdma link delete $dev returned after $(secs $(($(now_cs) - t0))) s"
	if wait_for_cs 500 ids_in "$ids" "down|probing"; then
		took=$(($(now_cs) - t0))
		if [ "$took" -le "$DOWN_CS" ]; then
			log "ok: paths $ids down $(secs "$took") s after the delete began"
		else
			fail_later "paths $ids down only $(secs "$took") s after the delete began"
		fi
	else
		dump_paths
		fail_later "paths $ids are not down 5 s after the delete"
	fi
	if wait_for 30 server_holds_none $links; then
		log "ok: the server holds none of them; $(rdma_conns_from "$addr")" \
		    "from $addr in all"
	else
		fail_later "the server still holds $(server_holds $links) of" \
			"the mount's connections from $addr ($links)"
	fi
	sleep 10

	t0=$(now_cs)
	trace_mark "add $dev"
	rxe_restore "$k" || fail "cannot add $dev again"
	# One that a probe gave up on may linger: at least as many
	wait_within "the server sees $n0 connections from $addr after the re-add" \
		"$REJOIN_S" "add $dev" rdma_conns_cmp -ge "$n0" "$addr" || dump_paths
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
