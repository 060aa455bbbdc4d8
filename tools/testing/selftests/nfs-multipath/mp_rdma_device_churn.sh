#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A client RDMA device deleted and added again, over and over, while the
# transports of its paths reconnect.  A device that comes back makes the
# path monitor probe every path that is down at once (on 6.1, which has
# no notice of a device that comes, at its next probe, 1 to 2 s later),
# so each add starts connects on the new device.  The delete follows a
# random 0 to 150 ms after the add (on 6.1, after a cm_id of the device's
# address appeared), and lands anywhere in those connects: in the bind of the cm_id
# to the source address, its address or route resolution, the CM
# handshake, or on an established connection.  A netem delay of DELAY_MS on the
# device's link, and its neighbours flushed at each add, stretch the
# resolution (an ARP round trip) and the handshake over a few hundred ms.
# (Unstretched, and 0 to 1 s after the add, the deletes found 60
# connections of 60, and no connect; with 50 ms, and 0 to 400 ms, the
# transports were connected or still offline at every delete.)  A multipath mount, nconnect=8 over
# the four client rxe devices, writes with crc32c verify all along.
#
#   - a third of the deletes or more came while the device's paths were
#     reconnecting: a path of the device was offline (down, or probing)
#     and a cm_id of its address was there (resolving, connecting, or
#     connected before the probe's answer).  The states of those
#     transports and cm_ids are counted and shown: a cm_id in address
#     or route resolution was seen in most runs, not in all;
#   - every delete returns within DELETE_S;
#   - nothing warns or oopses (run_tests.sh fails the test on either; a
#     bind that rdma_resolve_addr() made itself warned when its device
#     went between the bind and the query, cma.c resolve_prepare_src());
#   - no I/O error, every block verified;
#   - after the last add the server sees the device's connections again
#     within REJOIN_S, and every path is up;
#   - after the umount the client holds no cm_id and no RC QP.

. ./lib.sh

OPTS="$MP_RDMA,nconnect=8,remoteports=$SERVER_RANGE,localports=$CLIENT_LIST"
CYCLES=30
DELAY_MS=100
DELETE_S=$(limit 5)
REJOIN_S=$(limit 5)
K=1
JSON=/tmp/nfsmp-churn.json
# Time-based, longer than the churn (30 to 70 s here): the writes go on
# through all of it, which the test checks
FIO_JOB="--name=churn --directory=$MNT --rw=randwrite --bs=64k --size=24M
	--numjobs=2 --direct=1 --ioengine=libaio --iodepth=8 --verify=crc32c
	--verify_backlog=64 --rate=1m,1m --time_based --runtime=100
	--group_reporting"

# cm_states ADDR: the states of the client's cm_ids from ADDR, a word each
cm_states() {
	rdma resource show cm_id 2>/dev/null | cm_ids | awk -v a="$1:" '
		index($4, a) == 1 { printf "%s ", $2 }'
}

# cm_started ADDR: a cm_id from ADDR is there
cm_started() {
	[ -n "$(cm_states "$1")" ]
}

# xprt_states IDS: the transport state of each path of IDS, a word each
xprt_states() {
	mountstats_endpoints | awk -v ids=" $1 " '
		index(ids, " " $2 " ") { printf "%s ", $9 }'
}

# nap_ms MAX: a pause of 0 to MAX ms, at random
nap_ms() {
	nap "$(printf '0.%03d' $((RANDOM % ($1 + 1))))"
}

# tally WORDS: how often each word is there, "N WORD" after another
tally() {
	echo $1 | tr ' ' '\n' | sort | uniq -c | xargs
}

# churn N ADDR IDS: delete rxeK and add it again, N times, each delete
# within DELETE_S; ADDR is its address, IDS its paths
churn() {
	local i t0 took worst=0 states="" xstates="" hits=0 ifc st xst rc

	ifc=$(word_at "$K" "$CLIENT_IFS")
	for i in $(seq 1 "$1"); do
		st=$(cm_states "$2")
		xst=$(xprt_states "$3")
		states="$states$st"
		xstates="$xstates$xst"
		case " $xst" in
		*" offline "*) [ -z "$st" ] || hits=$((hits + 1)) ;;
		esac
		t0=$(now_cs)
		rc=0
		run_wait "$DELETE_S" rdma link delete "rxe$K" || rc=$?
		case "$rc" in
		0) ;;
		124)
			kernel_stacks
			fail "cycle $i: rdma link delete rxe$K did not return within $DELETE_S s" ;;
		*)
			fail "cycle $i: rdma link delete rxe$K failed ($rc);" \
				"$(rxe_recreated) re-creations by rxe-qp1-watch" ;;
		esac
		took=$(($(now_cs) - t0))
		[ "$took" -le "$worst" ] || worst=$took
		nap_ms 300
		/usr/sbin/ip neigh flush dev "$ifc" || fail "cannot flush the neighbours of $ifc"
		rxe_restore "$K" || fail "cycle $i: cannot add rxe$K again"
		nap_ms 150
		# 6.1 probes later: there, wait for the connect to begin
		if ! cm_started "$2"; then
			wait_for_cs 300 cm_started "$2" || true
			nap_ms 150
		fi
	done
	log "ok: $1 deletes of rxe$K, the longest returned after $(secs "$worst") s"
	log "the deletes found the transports of paths $3: $(tally "$xstates")," \
	    "and the cm_ids from $2: $(tally "$states")"
	if [ $((hits * 3)) -ge "$1" ]; then
		log "ok: $hits deletes of $1 landed in a reconnect"
	else
		fail_later "only $hits deletes of $1 landed in a reconnect:" \
			"the churn missed its case"
	fi
}

main() {
	local addr ids n0 pid rc=0

	addr=$(word_at "$K" "$CLIENT_ADDRS")
	boost_priority
	nfs_mount "$OPTS"
	touch_all_xprts
	check_fresh
	# The mount's paths, not what the server counts: an earlier test
	# may have left a connection there
	rdma_paths_from ids "$addr"
	n0=$(echo $ids | wc -w)
	fio_bg pid "$JSON" $FIO_JOB
	nap 3
	pid_gone "$pid" && fail "fio ended before the deletes"

	defer_check "rxe_restore $K"
	defer restore_links
	/usr/sbin/tc qdisc add dev "$(word_at "$K" "$CLIENT_IFS")" root netem \
		delay "${DELAY_MS}ms" || fail "cannot add a netem delay"
	churn "$CYCLES" "$addr" "$ids"
	uncap_links
	pid_gone "$pid" && fail_later "fio ended before the churn did"
	trace_mark "last add"
	wait_within "the server sees $n0 connections from $addr after the last add" \
		"$REJOIN_S" "last add" rdma_conns_cmp -ge "$n0" "$addr" || dump_paths
	wait_for 10 all_paths_up || { dump_paths; fail_later "not every path is up again"; }

	fio_wait "$pid" 300 || rc=$?
	fio_check "write+verify" "$rc" "$JSON" "write"
	nfs_umount
	if ! wait_for 10 no_rdma_leftovers; then
		rdma_leftovers | sed 's/^/left: /'
		fail_later "cm_ids or RC QPs are left 10 s after the umount"
	else
		log "ok: no cm_id and no RC QP left after the umount"
	fi
	fail_if_any
}

main
