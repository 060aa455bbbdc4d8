#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# sysfs can take a transport away for good, on a busy mount: offline,
# then remove, through its xprt_state file.  On a multipath NFSv3 mount
# over RDMA (one path per NIC), and on a plain NFSv4.1 nconnect=4 mount
# over TCP, whose session trunking is upstream's own use of it.  Proves:
# the removed transport's sysfs directory goes away within 10 s (30 s on
# the debug kernel), the
# server then holds one connection fewer, and fio sees no error; on the
# multipath mount its endpoint: line goes too, and the path monitor does
# not bring it back.
#
# And a transport removed while its tasks wait for it to connect (on the
# v4.1 mount: its connection aborted with ss -K, and no SYN of the client
# to port 2049 leaves): the task that leaves it in call_connect_status()
# must not go on to the timeout check with its request released.
# Proves: that case happened (SYNs were dropped, and the trace saw a
# connect end in an error after remove was asked, and at least one task
# waited for the transport's send lock while another held it for the
# connect), no oops, offline and remove each return within 5 s (neither
# waits for that lock, which those tasks pass among themselves), the
# directory goes away, and fio sees no error.
#
# And a connected transport removed while tasks wait on it for replies
# that its connection no longer carries (nothing leaves its source port),
# with no SYN to port 2049 let out: the tasks that the disconnect wakes
# leave it without trying to connect it first.  Proves: tasks were on it,
# its directory goes away, no SYN was dropped, fio sees no error.  Before
# "SUNRPC: remove a transport in sysfs without its send lock",
# call_connect() sent them off: 8 SYNs, gone after 4.6 s.
#
# On Debian's modules
# (scripts/testbed --stock) only the v4.1 cases run, for comparison; the
# last one oopses there, as expected: Debian's kernel lacks "SUNRPC: a
# task that left a removed transport returns from call_connect_status()".

. ./lib.sh

GONE_CS=$(limit 1000)

# remove_one: offline and remove a transport of the mount on $MNT that
# is not its first; XDIR gets its sysfs directory
remove_one() {
	local sw x waited

	sw=$(mount_switch_of "$1") || fail "no xprt switch for the mount"
	for x in "$sw"/xprt-*; do
		grep -qx 'main_xprt=1' "$x/xprt_info" || { XDIR=$x; break; }
	done
	[ -n "${XDIR:-}" ] || fail "no transport besides the main one"
	log "removing ${XDIR##*/} ($(cat "$XDIR/dstaddr")) of $sw"
	echo offline >"$XDIR/xprt_state" || fail "cannot offline ${XDIR##*/}"
	sleep 1
	echo remove >"$XDIR/xprt_state" || fail "cannot remove ${XDIR##*/}"
	if wait_for_cs -t waited $GONE_CS test ! -d "$XDIR"; then
		log "ok: ${XDIR##*/} went away $(secs "$waited") s after remove"
	else
		log "still there: $(cat "$XDIR/xprt_state" 2>/dev/null)" \
			"$(cat "$XDIR/xprt_info" 2>/dev/null | tr '\n' ' ')"
		fail "${XDIR##*/} is still in sysfs $(secs $GONE_CS) s after remove"
	fi
}

# mount_switch_of N: the switch of the mount, the one with N transports
# to the server or its endpoints
mount_switch_of() {
	local s n

	for s in /sys/kernel/sunrpc/xprt-switches/switch-*; do
		n=$(ls -d "$s"/xprt-* 2>/dev/null | wc -l)
		[ "$n" = "$1" ] && { echo "$s"; return 0; }
	done
	return 1
}

conns_now() {
	server_conns "$1" | wc -l
}

one_case() {
	local name=$1 opts=$2 proto=$3 n=$4 before after

	log "--- $name: $opts"
	XDIR=""
	nfs_mount "$opts"
	touch_all_xprts
	load_start 60
	before=$(conns_now "$proto")
	remove_one "$n"
	sleep 3
	after=$(conns_now "$proto")
	log "server $proto connections: $before before, $after after"
	[ "$after" -lt "$before" ] || fail "the server still holds $after $proto connections"
	if [ "$name" = multipath ]; then
		[ "$(mountstats_endpoints | wc -l)" = $((n - 1)) ] ||
			fail "mountstats still shows $(mountstats_endpoints | wc -l)" \
				"endpoint: lines"
		log "ok: $((n - 1)) endpoint: lines left"
		sleep 3
		[ ! -d "$XDIR" ] || fail "the removed transport came back"
	fi
	load_stop
	nfs_umount
}

# syn_block / syn_unblock: no TCP SYN to port 2049 leaves the client
SYN_IFS=""
syn_block() {
	local i

	for i in $CLIENT_IFS; do
		/usr/sbin/tc qdisc add dev "$i" clsact || return 1
		SYN_IFS="$SYN_IFS $i"
		/usr/sbin/tc filter add dev "$i" egress pref 1 protocol ip \
			flower ip_proto tcp dst_port 2049 tcp_flags 0x02/0x12 \
			action drop || return 1
	done
}

# port_block PORT: after syn_block, nothing more from source port PORT
# to port 2049 either, on every NIC at once (one tc batch)
port_block() {
	local i batch=/tmp/nfsmp-port-block.tc

	for i in $SYN_IFS; do
		echo "filter add dev $i egress pref 2 protocol ip flower" \
			"ip_proto tcp dst_port 2049 src_port $1 action drop"
	done >"$batch"
	/usr/sbin/tc -batch "$batch"
}

# Only the qdiscs that syn_block added
syn_unblock() {
	local i

	for i in $SYN_IFS; do
		/usr/sbin/tc qdisc del dev "$i" clsact || return 1
	done
	SYN_IFS=""
}

# syn_drops: how many SYNs syn_block dropped, on all NICs
syn_drops() {
	local i

	for i in $SYN_IFS; do
		/usr/sbin/tc -s filter show dev "$i" egress pref 1
	done | sed -n 's/.*(dropped \([0-9]*\),.*/\1/p' |
		awk '{ n += $1 } END { print n + 0 }'
}

syn_dropped() {
	[ "$(syn_drops)" -gt 0 ]
}

# sysfs_state_timed STATE SECS: write STATE to $XDIR/xprt_state, which
# must take less than SECS
sysfs_state_timed() {
	local t0

	t0=$(now_cs)
	if ! timeout -k 5 "$2" sh -c "echo $1 >$XDIR/xprt_state"; then
		log "tasks waiting for a send lock: $(sending_waiters -c)"
		hang_evidence
		fail "$1 to ${XDIR##*/} failed or took over $2 s;" \
			"state $(cat "$XDIR/xprt_state" 2>&1)"
	fi
	log "$1 to ${XDIR##*/} took $(secs $(($(now_cs) - t0))) s"
}

# sending_waiters [-c]: a task of an RPC client waits for a transport's
# send lock (-c: how many do)
sending_waiters() {
	local n

	n=$(cat /sys/kernel/debug/sunrpc/rpc_clnt/*/tasks 2>/dev/null |
		grep -c 'q:xprt_sending' || true)
	[ "${1:-}" != -c ] || { echo "$n"; return 0; }
	[ "$n" -gt 0 ]
}

# writers_start N: N fio jobs that each write one O_DIRECT block at a
# time, to a file each opened once (so no OPEN serialises them): each
# blocks on the dead transport when a write of its lands there, so that
# several tasks wait for its connect
writers_start() {
	WRITERS_JSON=/tmp/nfsmp-writers.json
	fio_json "$WRITERS_JSON" --name=writers --directory="$MNT" \
		--rw=write --bs=64k --size=4M --direct=1 --ioengine=psync \
		--numjobs="$1" --time_based --runtime=600 &
	WRITERS_PID=$!
	defer "pkill -INT -P $WRITERS_PID -x fio"
}

# writers_stop: end the writers; none of their writes may have failed
writers_stop() {
	fio_stop "$WRITERS_PID" "$WRITERS_JSON" writers write
	rm -f "$MNT"/writers.*
}

# pick_second: XDIR gets the transport of the nconnect=2 mount on $MNT
# that is not its main one, PORT its source port
pick_second() {
	local sw

	touch_all_xprts
	sw=$(mount_switch_of 2) || fail "no xprt switch for the mount"
	for XDIR in "$sw"/xprt-*; do
		grep -qx 'main_xprt=1' "$XDIR/xprt_info" || break
	done
	! grep -qx 'main_xprt=1' "$XDIR/xprt_info" ||
		fail "no transport besides the main one"
	PORT=$(sed -n 's/^src_port=//p' "$XDIR/xprt_info")
	[ "${PORT:-0}" != 0 ] || fail "${XDIR##*/} is not connected"
}

tasks_on_xprt() {
	sed -n 's/^tasks_queuelen=//p' "$XDIR/xprt_info"
}

# connected_case: remove a connected transport whose tasks wait for
# replies that its connection no longer carries, and whose server takes
# no new connection.  The tasks that the disconnect wakes must leave it
# without a connect first.  Writers only, whose replies are small.
connected_case() {
	local port queued t0 waited

	log "--- v4.1, a connected transport removed with requests on it"
	XDIR=""
	nfs_mount "vers=4.1,proto=tcp,nconnect=2"
	pick_second
	port=$PORT
	writers_start 4
	nap 2
	defer_check syn_unblock
	syn_block || fail "cannot drop the client's SYNs to port 2049"
	# From here on, quick: the transport's unacknowledged data ends its
	# connection after the TCP user timeout, which is the NFSv4 lease
	# (10 s in the testbed).  Builtins only until remove
	port_block "$port" || fail "cannot drop the client's packets from port $port"
	t0=$(now_cs)
	echo offline >"$XDIR/xprt_state" || fail "cannot offline ${XDIR##*/}"
	queued=0
	while IFS== read -r key val; do
		[ "$key" != tasks_queuelen ] || queued=$val
	done <"$XDIR/xprt_info"
	echo remove >"$XDIR/xprt_state" || fail "cannot remove ${XDIR##*/}"
	log "nothing left port $port of ${XDIR##*/}; offline and remove" \
		"took $(secs $(($(now_cs) - t0))) s, with $queued tasks on it"
	[ "$queued" -gt 0 ] ||
		fail "no task was on ${XDIR##*/}: the case did not happen"
	if ! wait_for_cs -t waited $GONE_CS test ! -d "$XDIR"; then
		log "$(syn_drops) SYNs dropped"
		fail "${XDIR##*/} is still in sysfs $(secs $GONE_CS) s after" \
			"remove, with $(tasks_on_xprt) tasks on it"
	fi
	log "ok: ${XDIR##*/} went away $(secs "$waited") s after remove"
	[ "$(syn_drops)" = 0 ] ||
		fail "$(syn_drops) SYNs tried to connect the removed transport"
	log "ok: no connect was tried on it"
	syn_unblock || fail "cannot let SYNs out again"
	writers_stop
	nfs_umount
}

# connecting_case: remove a transport whose tasks wait for its connect
connecting_case() {
	local port sw ended waited tr

	log "--- v4.1, a transport removed while it connects"
	XDIR=""
	nfs_mount "vers=4.1,proto=tcp,nconnect=2"
	pick_second
	port=$PORT
	# sunrpc's own events only: on --stock too
	trace_open || fail "no tracefs: cannot tell the case happened"
	tr=$(trace_dir)
	[ -d "$tr/events/sunrpc/rpc_connect_status" ] ||
		fail "no rpc_connect_status event: cannot tell the case happened"
	trace_event sunrpc/rpc_connect_status
	# Longer than the case may take: tasks must wait for the connect
	load_start 90
	defer_check syn_unblock
	syn_block || fail "cannot drop the client's SYNs to port 2049"
	log "aborting ${XDIR##*/} (port $port); it cannot connect again"
	ss -K dst "$SERVER" dport = :2049 sport = :"$port" >/dev/null ||
		fail "ss -K could not abort port $port"
	[ -z "$(ss -Htn state established dst "$SERVER" dport = :2049 sport = :"$port")" ] ||
		fail "the connection from port $port is still established after ss -K"
	# The transport tries to connect again.  Its state cannot tell:
	# CONNECTING stays set from one attempt to the next, so wait for a
	# SYN that was dropped
	wait_for 10 syn_dropped ||
		fail "${XDIR##*/} does not reconnect: $(cat "$XDIR/xprt_state")"
	# Until a task holds the send lock while it waits for the connect,
	# and another waits for that lock, which then passes between them
	writers_start 4
	wait_for 10 sending_waiters ||
		fail "no task waits for the send lock of ${XDIR##*/}; queues:" \
			"$(cat /sys/kernel/debug/sunrpc/rpc_clnt/*/tasks 2>/dev/null |
				awk '{ print $NF }' | sort | uniq -c | tr '\n' ' ')"
	log "$(sending_waiters -c) tasks wait for a send lock"
	# Neither waits for the transport's send lock, which the tasks
	# waiting for the connect pass among themselves for as long as the
	# server cannot be reached (before "remove a transport in sysfs
	# without its send lock", remove did: over 35 s)
	sysfs_state_timed offline "$(limit 5)"
	# Before: the task that leaves may run before a mark after it.  So
	# an error traced while remove waits counts too: a weak proof; the
	# oops that "a task that left a removed transport returns from
	# call_connect_status()" fixes is the strong one
	trace_mark "remove ${XDIR##*/}"
	sysfs_state_timed remove "$(limit 5)"
	wait_for_cs -t waited $GONE_CS test ! -d "$XDIR" ||
		fail "${XDIR##*/} is still in sysfs $(secs $GONE_CS) s after remove"
	log "ok: ${XDIR##*/} went away $(secs "$waited") s after remove"
	ended=$(sed -n '/remove xprt-/,$p' "$tr/trace" |
		grep -c 'rpc_connect_status:.*status=-' || true)
	log "trace: $ended connects ended in an error after remove;" \
		"$(syn_drops) SYNs dropped"
	if [ "$ended" = 0 ]; then
		grep -v '^#' "$tr/trace" | tail -n 30 | trace_lines
		fail "no task waited for the connect: the case did not happen"
	fi
	syn_unblock || fail "cannot let SYNs out again"
	writers_stop
	load_stop
	nfs_umount
}

main() {
	/sbin/modprobe tcp_diag || fail "no tcp_diag: ss -K cannot abort a socket"
	on-server "cat /proc/fs/nfsd/versions" | grep -q '+4.1' ||
		fail "the server does not serve NFSv4.1"
	# On Debian's modules (scripts/testbed --stock), for comparison:
	# the v4.1 cases only
	case "$(cat /sys/module/sunrpc/version 2>/dev/null)" in
	nfs-multipath-*)
		local opts="$MP_RDMA,nconnect=4"

		opts+=",remoteports=$SERVER_RANGE,localports=$CLIENT_LIST"
		one_case multipath "$opts" rdma 4
		;;
	*) log "stock modules: the v4.1 cases only" ;;
	esac
	one_case v4.1 "vers=4.1,proto=tcp,nconnect=4" tcp 4
	connected_case
	connecting_case
}

main
