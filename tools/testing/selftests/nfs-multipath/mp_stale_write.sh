#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# No stale WRITE after a move.  genwrite rewrites the blocks of a small
# file with O_DIRECT, generation after generation, over a multipath mount
# with one path per NIC.  netem then holds back everything one path
# carries to the server (delay, not loss: the path stays alive, and its
# connection would deliver what it holds): over TCP on the client NIC's
# egress, over RDMA on the server NIC's ingress.  The path is declared
# down, its WRITEs move and complete elsewhere, and genwrite writes one
# more full generation and stops.  Then the qdisc goes, with the packets
# it held, so that only what the old connection itself still sends can
# reach the server; and the test waits long enough for it to retransmit.
# The delay is longer than a cycle holds the packets (which the cycle
# checks): netem lets nothing through by itself, so this tests what the
# client does, not what the network does.  A copy that the network still
# delivers after the move (netem delay 4 s, released before the qdisc
# went) can land after newer data, on RDMA as on TCP: no client can take
# back what it already sent.  Documentation/filesystems/nfs/nfs-multipath.rst
# says how long that window is.
#
# Why not the client's egress over RDMA: rxe fails the GSI QP (QP1) of a
# client device whose CM traffic netem held and then dropped (seen in 2
# runs of 2: "type GSI state ERR" on the delayed device), and the device
# never connects again.  The testbed re-creates only the server's devices
# (scripts/testbed.d/rxe-qp1-watch says why).  Proves, on the server:
# every block holds the last generation written to it.  A WRITE that the
# old connection delivers after its moved copy completed would leave an
# older one.  A cycle counts only when a WRITE that had been sent moved
# (the rpc_path_move tracepoint says so).
#
#   STALE_PROTO=tcp|rdma (tcp), STALE_BS=bytes per block (65536),
#   STALE_CYCLES=N (2), STALE_DELAY_MS (30000)

. ./lib.sh

# server_delay_on IF MS: netem holds back for MS ms everything the server
# receives on IF.  Its ingress is redirected through ifb0, whose root
# qdisc is the netem.
server_delay_on() {
	on-server "/usr/sbin/ip link set ifb0 up &&
		/usr/sbin/tc qdisc add dev ifb0 root netem delay $2ms limit 100000 &&
		/usr/sbin/tc qdisc add dev $1 handle ffff: ingress &&
		/usr/sbin/tc filter add dev $1 parent ffff: matchall \
			action mirred egress redirect dev ifb0"
}

# server_delay_off IF: the netem of server_delay_on goes first, and what
# it holds is lost with it; then the redirect.
server_delay_off() {
	on-server "/usr/sbin/tc qdisc del dev ifb0 root &&
		/usr/sbin/tc qdisc del dev $1 ingress"
}

PROTO=${STALE_PROTO:-tcp}
BS=${STALE_BS:-65536}
CYCLES=${STALE_CYCLES:-2}
DELAY_MS=${STALE_DELAY_MS:-30000}
BLOCKS=32
THREADS=8
GENWRITE=$PWD/genwrite
MANIFEST=/tmp/nfsmp-genwrite.manifest
QUIESCE=12		# s after the rejoin: the old socket's retransmissions

case "$PROTO" in
rdma) OPTS="$MP_RDMA" ;;
*) OPTS="$MP_TCP" ;;
esac
OPTS="$OPTS,nconnect=4,remoteports=$SERVER_RANGE,localports=$CLIENT_LIST"

STALE_TR=""

# trace_moves: record every request that leaves a path
trace_moves() {
	STALE_TR=$(tracefs)
	[ -n "$STALE_TR" ] && [ -d "$STALE_TR/events/sunrpc/rpc_path_move" ] ||
		fail "no rpc_path tracepoints in tracefs"
	echo >"$STALE_TR/trace"
	echo 1 >"$STALE_TR/events/sunrpc/rpc_path_move/enable"
	defer "echo 0 >$STALE_TR/events/sunrpc/rpc_path_move/enable"
	if [ -d "$STALE_TR/events/sunrpc/rpc_path_keep" ]; then
		echo 1 >"$STALE_TR/events/sunrpc/rpc_path_keep/enable"
		defer "echo 0 >$STALE_TR/events/sunrpc/rpc_path_keep/enable"
	fi
}

# moves_take: what left a path, or stayed on it, since the last call, by
# procedure and whether it had been sent, in MOVES; SENT counts the WRITEs
# that left a path after they were sent there
moves_take() {
	local t

	t=$(awk '/rpc_path_(move|keep):/ { p = $0
			sub(/.*rpc_path_(move|keep): task:[^ ]* /, "", p)
			sub(/ .*/, "", p) }
		/rpc_path_move:/ { m[p (/after it was sent/ ? " sent" : " unsent")]++ }
		/rpc_path_keep:/ { k[p]++ }
		END { printf "%d\t", ("WRITE sent" in m) ? m["WRITE sent"] : 0
		      for (p in m) printf "%s moved %d; ", p, m[p]
		      for (p in k) printf "%s stayed %d; ", p, k[p] }' "$STALE_TR/trace")
	echo >"$STALE_TR/trace"
	SENT=${t%%$'\t'*}
	MOVES=${t#*$'\t'}
}

# delay_on CIF SIF: hold back what the path through client interface CIF
# and server interface SIF carries to the server
delay_on() {
	case "$PROTO" in
	rdma)
		server_delay_on "$2" "$DELAY_MS" ||
			fail "cannot add netem on the server's ingress of $2"
		;;
	*)
		/usr/sbin/tc qdisc add dev "$1" root netem \
			delay "${DELAY_MS}ms" limit 100000 ||
			fail "cannot add netem on $1"
		;;
	esac
}

# delay_off CIF SIF: the netem of delay_on goes, with what it holds
delay_off() {
	case "$PROTO" in
	rdma) server_delay_off "$2" || fail "cannot remove netem on the server" ;;
	*) /usr/sbin/tc qdisc del dev "$1" root || fail "cannot remove netem" ;;
	esac
}

# stale_cycle K: one cycle, on the path from client address K
stale_cycle() {
	local k=$1 laddr addr cif sif pid downs held moved0 moved sent rc=0 waited

	laddr=$(word_at "$k" "$CLIENT_ADDRS")
	addr=$(path_remote "$laddr")
	[ -n "$addr" ] || fail "no path from $laddr"
	cif=$(client_if "$laddr")
	sif=$(server_if "$addr")
	moved0=$(paths_sum 15)
	log "--- cycle on $laddr -> $addr ($cif, server $sif): netem delay ${DELAY_MS}ms"

	"$GENWRITE" "$MNT/gen" $BLOCKS "$BS" $THREADS "$MANIFEST" &
	pid=$!
	defer "kill -USR1 $pid"
	sleep 2
	kill -0 "$pid" 2>/dev/null || fail "genwrite ended early"
	# The path may go down before on-server returns
	downs=$(endpoint_field "$addr" 13)
	held=$(now_cs)
	delay_on "$cif" "$sif"
	# A cycle that fails before delay_off must not leave the path held
	# for the umount of the cleanups
	defer uncap_links
	if ! wait_down "$addr" "$cif" 15 "$downs" >/dev/null; then
		dump_paths
		fail "the delayed path to $addr is not down after 15 s"
	fi
	log "the delayed path went down"
	sleep 0.5
	kill -USR1 "$pid"
	if ! run_wait_pid "$pid" 60; then
		hang_evidence
		fail "genwrite did not finish its last generation in 60 s"
	fi
	wait "$pid" || rc=$?
	[ "$rc" = 0 ] || fail "genwrite failed: exit $rc"
	moved=$(($(paths_sum 15) - moved0))
	moves_take
	sent=$SENT
	log "requests moved off paths in this cycle: $moved, WRITEs that had been sent: $sent"
	log "the trace of this cycle: ${MOVES:-no request moved or stayed}"
	# What netem still holds is lost with it: only what the old
	# connection sends from now on can reach the server.
	delay_off "$cif" "$sif"
	held=$(($(now_cs) - held))
	log "netem held the path's packets for $(secs "$held") s"
	[ $((held * 10)) -lt "$DELAY_MS" ] ||
		fail "netem held the packets for no less than its ${DELAY_MS} ms delay" \
			"and may have released some: raise STALE_DELAY_MS"
	wait_path -t waited "$addr" up 30 ||
		{ dump_paths; fail "the path to $addr is not up 30 s after netem went"; }
	log "up again after $(secs "$waited") s; quiet for $QUIESCE s"
	sleep "$QUIESCE"
	show_endpoints
	[ "$sent" -gt 0 ] || fail "no WRITE moved after it was sent: this cycle tested nothing"
	on-server "printf '%s %s\n' $(tr '\n' ' ' <"$MANIFEST") >/tmp/gw.manifest &&
		$EXPORT/.genwrite --check $EXPORT/gen $BLOCKS $BS /tmp/gw.manifest" ||
		fail "the server holds stale blocks"
	log "ok: every block on the server holds the last generation written to it"
}

main() {
	local k

	boost_priority
	defer restore_links
	nfs_mount "$OPTS"
	touch_all_xprts
	check_fresh
	cp "$GENWRITE" "$MNT/.genwrite" || fail "cannot copy genwrite to the export"
	trace_moves
	defer "rm -f $MNT/.genwrite $MNT/gen"
	show_endpoints
	for k in $(seq 1 "$CYCLES"); do
		stale_cycle "$k"
	done
	rm -f "$MNT/.genwrite" "$MNT/gen"
	nfs_umount
}

main
