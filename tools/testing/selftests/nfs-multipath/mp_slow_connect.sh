#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A path whose connects are slow, but which answers at once when
# connected, rejoins.  Over a multipath RPC/RDMA mount under load, one
# server link goes down, and the path through it is declared down.  While
# it is down, netem on that server link delays the connection manager's
# MADs (RoCE packets to QP1) by CONNECT_DELAY_MS, and nothing else: the
# server's REP then comes seconds late, so that each connect takes
# longer than the 2 s a probe may take on its own, while the NULL calls
# on the connection it makes go and come as fast as on the other paths.
# Then the link comes back.  Proves: the path is up again within
# REJOIN_CS, the delay still on; the netem delayed the MADs of those
# connects (its counters say so); fio sees no error.  A monitor that
# gives up on a probe while its transport is still connecting breaks
# the connection that connect makes, and the path never rejoins.
#
# Then the second case: the same path, while its link stays up, is
# declared down, as all of the server's RoCE through that link is held up
# until a probe of the path has failed; then only its connects are slow
# again.  The probe that failed leaves the connection it made.  The next
# one, due at once, is asked on it, and only then does the monitor break
# that connection: the probe goes out on the one made after, and has
# waited for a slow connect.  Proves that the path is up again within
# REJOIN_CS.  A monitor that takes such a probe for one sent on the
# connection that was there when it was asked finds its answer late
# (path_timeout is 1 s in this case), breaks the new connection, and
# asks the next probe the same way, for as long as connects are slow.

. ./lib.sh

CONNECT_DELAY_MS=2300	# below the 3 s a multipath RDMA connect may wait
REJOIN_CS=$(limit 1000)
PATH_TIMEOUT=/sys/module/sunrpc/parameters/path_timeout
LATE_PATH_TIMEOUT_MS=1000

# cm_delay_on IF: delay what the server sends to QP1 through IF
cm_delay_on() {
	on-server "/usr/sbin/tc qdisc add dev $1 root handle 1: prio &&
		/usr/sbin/tc qdisc add dev $1 parent 1:3 handle 30: \
			netem delay ${CONNECT_DELAY_MS}ms &&
		/usr/sbin/tc filter add dev $1 parent 1: protocol ip prio 1 u32 \
			match ip protocol 17 0xff match ip dport 4791 0xffff \
			match u32 0x00000001 0x00ffffff at 32 flowid 1:3"
}

cm_delay_off() {
	on-server "/usr/sbin/tc qdisc del dev $1 root"
}

# all_delay_on IF: with cm_delay_on, delay all RoCE the server sends
# through IF, not only what goes to QP1
all_delay_on() {
	on-server "/usr/sbin/tc filter add dev $1 parent 1: protocol ip prio 2 u32 \
		match ip protocol 17 0xff match ip dport 4791 0xffff flowid 1:3"
}

all_delay_off() {
	on-server "/usr/sbin/tc filter del dev $1 parent 1: prio 2"
}

# cm_delayed IF: the packets the netem of cm_delay_on has sent
cm_delayed() {
	on-server "/usr/sbin/tc -s qdisc show dev $1 parent 1:3" |
		awk '$1 == "Sent" { print $4; exit }'
}

# probes_since MARK ADDR: how many probes of the path to ADDR the trace
# saw after trace_mark MARK
probes_since() {
	trace_since "$1" 100000 | grep -c "rpc_path_state: .* $2 .*-> probing" || true
}

# probe_failed_since MARK ADDR: a probe of the path to ADDR failed after
# trace_mark MARK
probe_failed_since() {
	trace_since "$1" 100000 | grep -q "rpc_path_state: .* $2 probing -> down"
}

# closing_case ADDR SIF: the second case, on the path to ADDR, whose
# server link SIF delays the connection manager's MADs already
closing_case() {
	local addr=$1 sif=$2 d0 d1 n0 n t0 waited pt try

	log "--- the path to $addr goes down while its link stays up"
	trace_start 4000
	[ -n "$(trace_dir)" ] || fail "no tracefs with the path events"
	read -r pt <"$PATH_TIMEOUT"
	echo "$LATE_PATH_TIMEOUT_MS" >"$PATH_TIMEOUT" || fail "cannot set path_timeout"
	defer "echo $pt >$PATH_TIMEOUT"
	d0=$(path_downs "$addr") || fail "no path health in sysfs for $addr"
	n0=$(cm_delayed "$sif")
	# A probe that connected, then failed: the next one is asked
	# before the connection it made is broken.  Now and then one
	# answers through the delay; then again, three times at most.
	for try in 1 2 3; do
		trace_mark "all delay on $try"
		all_delay_on "$sif" || fail "cannot delay all RoCE on server $sif"
		defer "all_delay_off $sif"
		if ! wait_path "$addr" "down|probing" 15; then
			dump_paths
			fail "the path to $addr is not down 15 s after its replies were held up"
		fi
		wait_for 30 probe_failed_since "all delay on $try" "$addr" ||
			fail "no probe of the path to $addr failed in 30 s"
		all_delay_off "$sif" ||
			fail "cannot end the delay of all RoCE on server $sif"
		[ "$(path_state "$addr")" = up ] || break
		log "the path to $addr answered through the delay (try $try)"
		[ "$try" -lt 3 ] ||
			fail "the path to $addr answered through the delay: this tested nothing"
	done
	t0=$(now_cs)
	d1=$(path_downs "$addr") || fail "no path health in sysfs for $addr"
	[ "$d1" -gt "$d0" ] || fail "the path to $addr did not go down ($d0 -> $d1 downs)"
	log "the path to $addr went down; only its connects are slow again"
	trace_mark "all delay off"
	if wait_path -t waited "$addr" up 30; then
		log "the path to $addr was up again $(secs "$waited") s later"
	else
		dump_paths
		log "$(probes_since "all delay off" "$addr") probes since the delay ended"
		trace_since "all delay off" 60
		fail "the path to $addr is not up 30 s after its replies came fast" \
		     "again, with its connects delayed by $CONNECT_DELAY_MS ms"
	fi
	[ "$waited" -le "$REJOIN_CS" ] ||
		fail "the rejoin took $(secs "$waited") s, more than $(secs "$REJOIN_CS") s"
	log "ok: rejoined within $(secs "$REJOIN_CS") s" \
	    "($(secs $(($(now_cs) - t0))) s after the delay ended," \
	    "$(probes_since "all delay off" "$addr") new probes)"
	n=$(cm_delayed "$sif")
	[ "$((${n:-0} - ${n0:-0}))" -gt 0 ] ||
		fail "netem delayed no packet in this case: it tested nothing"
	show_endpoints
}

main() {
	local laddr addr sif cif n t0 waited

	boost_priority
	defer restore_links
	nfs_mount "$MP_RDMA,nconnect=4,remoteports=$SERVER_RANGE,localports=$CLIENT_LIST"
	touch_all_xprts
	check_fresh
	show_endpoints
	laddr=$(word_at 0 "$CLIENT_ADDRS")
	addr=$(path_remote "$laddr")
	[ -n "$addr" ] || fail "no path from $laddr"
	sif=$(server_if "$addr")
	cif=$(client_if "$laddr")

	load_start 180
	log "--- server $sif down: the path $laddr -> $addr (client $cif)"
	server_link_down "$sif" >/dev/null || fail "cannot take server $sif down"
	wait_path "$addr" "down|probing" 15 ||
		{ dump_paths; fail "the path to $addr is not down 15 s after server $sif went"; }
	cm_delay_on "$sif" || fail "cannot add netem for QP1 on server $sif"
	defer "cm_delay_off $sif"
	t0=$(now_cs)
	server_link_up "$sif" >/dev/null || fail "cannot bring server $sif up"
	if wait_path -t waited "$addr" up 30; then
		log "the path to $addr was up again $(secs "$waited") s" \
		    "after server $sif came back," \
		    "its connects delayed by $CONNECT_DELAY_MS ms"
	else
		dump_paths
		fail "the path to $addr is not up 30 s after server $sif came back," \
		     "with its connects delayed by $CONNECT_DELAY_MS ms"
	fi
	[ "$waited" -le "$REJOIN_CS" ] ||
		fail "the rejoin took $(secs "$waited") s, more than $(secs "$REJOIN_CS") s"
	log "ok: rejoined within $(secs "$REJOIN_CS") s" \
	    "($(secs $(($(now_cs) - t0))) s after the command began)"
	n=$(cm_delayed "$sif")
	[ "${n:-0}" -gt 0 ] ||
		fail "netem delayed no packet to QP1:" \
		     "the connects were not slow, this tested nothing"
	log "ok: netem delayed $n packets of the connection manager"
	show_endpoints
	closing_case "$addr" "$sif"
	load_stop
	nfs_umount
}

main
