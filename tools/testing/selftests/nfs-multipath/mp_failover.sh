#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Failover under load, over RPC/RDMA (mp_failover_tcp.sh: the same over
# TCP).  A multipath mount with one path per NIC carries fio: 128 MiB of
# random 64 KiB O_DIRECT writes at iodepth 16, each batch read back and
# checked (crc32c) while the writing goes on, at most 2 MiB/s of each
# (LOAD_RATE in lib.sh says why).  Meanwhile a random data link
# goes down for 1 to 3 s every 3 to 5 s, for at least 60 s; one link at a
# time, never all, alternating between the client and the server side.
# Over RDMA, a soft-RoCE device that sent through a dead link never
# connects again; the testbed re-creates it, on the client as on the
# server (scripts/testbed.d/rxe-qp1-watch), as an administrator would,
# and the path rejoins on the new device.
# Proves: no I/O error, no verify error, no request waits more than 2 s
# (fio's largest completion latency), the paths noticed the failures
# (downs > 0), all paths are up again afterwards, and after a remount all
# 128 MiB read back over the wire verify, at full speed.  A small control run first shows
# that the verify-only pass does catch a block corrupted on the server.
# When a request took too long, the log shows the flaps, the path state
# changes and the slow requests as the kernel's trace saw them.

. ./lib.sh

# path_summary: "ADDR STATE, ..." for the paths of the mount on $MNT.
path_summary() {
	mountstats_endpoints | awk '
		{ printf "%s%s %s%s", sep, $6, $11, $9 == "offline" ? "/offline" : ""; sep = ", " }'
}

PROTO=${FAILOVER_PROTO:-rdma}
case "$PROTO" in
rdma) OPTS=$MP_RDMA ;;
tcp) OPTS=$MP_TCP ;;
*) fail "unknown FAILOVER_PROTO=$PROTO" ;;
esac
FLAP_SIDES="client server"
OPTS="$OPTS,nconnect=4,remoteports=$SERVER_RANGE,localports=$CLIENT_LIST"

SIZE_MIB=128		# the data set, written once and read back twice
JOBS=2			# fio jobs, one file each
FLAP_RATE=1m,1m		# reads and writes of each job while links flap
FLAP_SECS=60		# flapping lasts at least this long, with I/O
MAX_LAT_MS=$(limit 2000)		# no request may take longer than this
FLAP_STOP=/tmp/nfsmp-flap.stop
FLAP_LOG=/tmp/nfsmp-flap.log

FIO_JOB="--name=failover --directory=$MNT --rw=randwrite --bs=64k
	--size=$((SIZE_MIB / JOBS))M --numjobs=$JOBS --direct=1
	--ioengine=libaio --iodepth=16 --verify=crc32c --group_reporting"

# flap_one N: take a random data link down for 1 to 3 s and bring it back;
# on the sides of FLAP_SIDES in turn.  Returns after 3 to 5 s.
flap_one() {
	local n=$1 k d p t0 side ifc what

	t0=$(now_cs)
	k=$((RANDOM % $(echo $CLIENT_IFS | wc -w)))
	d=$((10 + RANDOM % 21))		# down for d/10 s: 1.0 to 3.0
	p=$((30 + RANDOM % 21))		# a flap every p/10 s: 3.0 to 5.0
	[ "$p" -ge $((d + 10)) ] || p=$((d + 10))
	side=$(word_at $((n % $(echo $FLAP_SIDES | wc -w))) "$FLAP_SIDES")
	if [ "$side" = client ]; then
		ifc=$(word_at "$k" "$CLIENT_IFS")
		what="path from $(word_at "$k" "$CLIENT_ADDRS")"
	else
		ifc=$(word_at "$k" "$SERVER_IFS")
		what="path to $(word_at "$k" "$SERVER_ADDRS")"
	fi
	trace_mark "flap $n: $side $ifc down"
	log "flap $n: +$(secs $((t0 - T0))) s $side $ifc down for $(secs $((d * 10))) s" \
		"($what) [$(path_summary)]"
	if [ "$side" = client ]; then
		client_link_down "$ifc" || log "flap $n: cannot take $ifc down"
		sleep "$(secs $((d * 10)))"
		client_link_up "$ifc" || log "flap $n: cannot bring $ifc up"
	else
		# One call, so that the server keeps the link down for d/10 s
		on-server "/usr/sbin/ip link set $ifc down; sleep $(secs $((d * 10)));
			$(if_up_cmd "$ifc" "$(word_at "$k" "$SERVER_ADDRS")" \
				"$(word_at "$k" "$SERVER_ADDRS6")")" >/dev/null ||
			log "flap $n: on-server failed for $ifc"
	fi
	trace_mark "flap $n: $side $ifc up"
	echo "$side $ifc" >>"$FLAP_LOG"
	while [ $(($(now_cs) - t0)) -lt $((p * 10)) ] && [ ! -e "$FLAP_STOP" ]; do
		sleep 0.2
	done
}

# flapper: flap links until $FLAP_STOP exists.
flapper() {
	local n=1

	set +e
	while [ ! -e "$FLAP_STOP" ]; do
		flap_one "$n"
		n=$((n + 1))
	done
}

# control_verify: a verify-only pass notices one block corrupted on the
# server, so a clean pass means the data read over the wire was checked.
control_verify() {
	local job="--name=control --directory=$MNT --rw=randwrite --bs=64k
		--size=4M --direct=1 --ioengine=libaio --iodepth=16 --verify=crc32c"

	fio_json /tmp/nfsmp-ctl.json $job || fail "control: fio write failed"
	on-server "dd if=/dev/zero of=$EXPORT/control.0.0 bs=4k seek=17 count=1 conv=notrunc" \
		>/dev/null 2>&1 || fail "control: cannot corrupt the file on the server"
	if fio_json /tmp/nfsmp-ctl.json $job --verify_only; then
		fail "control: the verify-only pass missed a corrupted block"
	fi
	grep -m1 -iE 'verify|crc' /tmp/nfsmp-ctl.json.err | sed 's/^/control: fio: /'
	log "ok: control: the verify-only pass catches a block corrupted on the server"
	rm -f "$MNT/control.0.0"
}

main() {
	local rc flap_pid elapsed pad max m fpid downs0 downs moved t_end re0

	rm -f "$FLAP_STOP" "$FLAP_LOG"
	defer "rm -f $FLAP_STOP $FLAP_LOG /tmp/nfsmp-fo*.json* /tmp/nfsmp-ctl.json*"
	defer restore_links
	nfs_mount "$OPTS"
	defer "run_wait 20 rm -f $MNT/failover.0.0 $MNT/failover.1.0 $MNT/control.0.0"
	touch_all_xprts
	check_fresh
	show_endpoints
	control_verify

	trace_start "$MAX_LAT_MS"
	downs0=$(paths_sum 13)
	re0=$(rxe_recreated)
	T0=$(now_cs)
	flapper &
	flap_pid=$!
	renice -10 -p "$flap_pid" >/dev/null
	defer "touch $FLAP_STOP; kill $flap_pid; restore_links"

	log "phase 1: write $SIZE_MIB MiB, verifying each batch, while links flap"
	rc=0
	fio_bg fpid /tmp/nfsmp-fo1.json $FIO_JOB --verify_backlog=128 --rate=$FLAP_RATE
	fio_wait "$fpid" 300 || rc=$?
	elapsed=$(($(now_cs) - T0))
	log "phase 1 took $(secs "$elapsed") s"
	fio_check "write+verify" "$rc" /tmp/nfsmp-fo1.json "read write"
	max=$(fio_max_lat /tmp/nfsmp-fo1.json "read write")

	# Keep the links flapping under I/O for at least FLAP_SECS.
	pad=$((FLAP_SECS + 2 - elapsed / 100))
	if [ "$pad" -gt 0 ]; then
		log "phase 2: verify-only reads for $pad s more, while links flap"
		rc=0
		fio_bg fpid /tmp/nfsmp-fo2.json $FIO_JOB --verify_only --runtime="$pad" \
			--rate=$FLAP_RATE
		fio_wait "$fpid" $((pad + 60)) || rc=$?
		fio_check "verify-only under flapping" "$rc" /tmp/nfsmp-fo2.json read
		m=$(fio_max_lat /tmp/nfsmp-fo2.json read)
		[ "$m" -gt "$max" ] && max=$m
	fi

	touch "$FLAP_STOP"
	wait "$flap_pid" || true
	t_end=$(now_cs)
	log "links flapped for $(secs $((t_end - T0))) s:" \
	    "$(grep -c '^client' "$FLAP_LOG") times on the client," \
	    "$(grep -c '^server' "$FLAP_LOG") on the server;" \
	    "$(($(rxe_recreated) - re0)) client rxe devices re-created"
	restore_links

	show_endpoints
	downs=$(($(paths_sum 13) - downs0))
	moved=$(paths_sum 15)
	log "paths: $downs downs, $moved requests moved"
	log "largest fio latency under flapping: $max ms (limit $MAX_LAT_MS ms)"

	if wait_for 10 all_paths_up; then
		log "ok: all paths up $(secs $(($(now_cs) - t_end))) s after the flapping stopped"
	else
		dump_paths
		fail_later "not all paths are up 10 s after the last flap"
	fi
	if [ "$downs" -gt 0 ]; then
		log "ok: the paths noticed the failures"
	else
		fail_later "no path went down: the failures went unnoticed"
	fi
	if [ "$moved" -gt 0 ]; then
		log "ok: requests moved off the dead paths"
	else
		fail_later "no request moved off a dead path"
	fi
	if [ "$max" -le "$MAX_LAT_MS" ]; then
		log "ok: no request took more than $MAX_LAT_MS ms"
	else
		fail_later "a request took $max ms, more than $MAX_LAT_MS ms"
		trace_show
	fi

	log "phase 3: remount, verify all $SIZE_MIB MiB read back over the wire"
	nfs_umount
	nfs_mount "$OPTS"
	defer "run_wait 20 rm -f $MNT/failover.0.0 $MNT/failover.1.0"
	fio_verify_only /tmp/nfsmp-fo3.json $FIO_JOB
	log "ok: all $SIZE_MIB MiB verified after remount; test took $(secs $(($(now_cs) - T0))) s"
	rm -f "$MNT"/failover.*
	fail_if_any
}

main
