#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Lost packets are not a dead path.  Under an uncapped write+verify load
# over RPC/RDMA (one path per NIC), netem on the server drops 1% of what
# one server address sends, for 16 s, on each address in turn.  A queue
# pair resends a packet lost at the end of a burst only after its local
# ACK timeout (0.54 s over RoCE through the RDMA CM): longer than the
# shortest ping time the monitor learns on a fast path, so that such a
# loss used to take its path down.  Proves: the server's queue pairs
# resent at least MIN_RESENDS times without a NAK asking (after a
# timeout; rxe's completer_retry_err less rcvd_seq_err); paths went down
# for at most one in RESENDS_PER_DOWN of them (a resend that is lost too
# stalls a path for two timeouts, which the ping time does not cover);
# fio sees no I/O or verify error, and no request waits more than 2 s.

. ./lib.sh

OPTS="$MP_RDMA,nconnect=4,remoteports=$SERVER_RANGE,localports=$CLIENT_LIST"
LOSS=1%
LOSS_SECS=16
MIN_RESENDS=80
RESENDS_PER_DOWN=30
MAX_LAT_MS=$(limit 2000)
FIO_JOB="--name=loss --directory=$MNT --rw=randrw --bs=64k --size=64M
	--direct=1 --ioengine=libaio --iodepth=8 --verify=crc32c
	--verify_backlog=64 --verify_fatal=1 --time_based --runtime=$(limit 120)"

# sum_downs: the downs of every path of the mount
sum_downs() {
	local f n=0

	for f in "$(mount_switch)"/xprt-*/path_downs; do
		n=$((n + $(cat "$f")))
	done
	echo "$n"
}

# server_resends: resends of all server devices that no NAK asked for:
# rxe's retries (completer_retry_err) less those after a sequence NAK
# (rcvd_seq_err)
server_resends() {
	local out

	out=$(on-server 'cd /sys/class/infiniband && for d in *; do
		echo "$(cat $d/ports/1/hw_counters/completer_retry_err)" \
		     "$(cat $d/ports/1/hw_counters/rcvd_seq_err)"; done') ||
		fail "cannot read the server's rxe counters"
	echo "$out" | awk 'NF == 2 { n += $1 - $2 } END { print n + 0 }'
}

main() {
	local addr sif r0 r1 d0 d1 resends downs fpid rc=0 max

	boost_priority
	defer restore_links
	nfs_mount "$OPTS"
	touch_all_xprts
	check_fresh
	show_endpoints
	trace_start "$MAX_LAT_MS"
	trace_event sunrpc/rpc_request 'procname == "NULL"'
	fio_bg fpid /tmp/nfsmp-loss.json $FIO_JOB
	nap 8
	kill -0 "$fpid" 2>/dev/null || fail "fio ended before the losses"
	r0=$(server_resends)
	d0=$(sum_downs)
	for addr in $SERVER_ADDRS; do
		sif=$(server_if "$addr")
		log "--- $addr ($sif) loses $LOSS of what it sends for $LOSS_SECS s"
		trace_mark "$sif loses $LOSS"
		on-server "/usr/sbin/tc qdisc add dev $sif root netem loss $LOSS" ||
			fail "cannot add netem on $sif"
		sleep "$LOSS_SECS"
		on-server "/usr/sbin/tc qdisc del dev $sif root" ||
			fail "cannot remove netem from $sif"
	done
	# A loss in the last second takes its path down after the qdisc went
	nap 2
	r1=$(server_resends)
	d1=$(sum_downs)
	fio_wait "$fpid" $(limit 120) || rc=$?
	fio_check "write+verify" "$rc" /tmp/nfsmp-loss.json "read write"
	show_endpoints
	resends=$((r1 - r0))
	downs=$((d1 - d0))
	log "server resends that no NAK asked for: $resends; path downs: $downs"
	[ "$resends" -ge "$MIN_RESENDS" ] ||
		fail_later "only $resends resends that no NAK asked for," \
			"fewer than $MIN_RESENDS: too few losses to judge"
	if [ $((downs * RESENDS_PER_DOWN)) -le "$resends" ]; then
		log "ok: at most one path down in $RESENDS_PER_DOWN resends"
	else
		dump_paths
		trace_since "$(server_if "$(word_at 0 "$SERVER_ADDRS")") loses" 200
		fail_later "$downs path downs for $resends resends that no NAK asked for," \
			"more than one in $RESENDS_PER_DOWN"
	fi
	max=$(fio_max_lat /tmp/nfsmp-loss.json "read write")
	log "largest fio latency: $max ms (limit $MAX_LAT_MS ms)"
	[ "$max" -le "$MAX_LAT_MS" ] ||
		fail_later "a request waited $max ms, more than $MAX_LAT_MS ms"
	rm -f "$MNT"/loss.*
	fail_if_any
}

main
