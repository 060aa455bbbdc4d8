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

. ./lib.sh

CONNECT_DELAY_MS=2300	# below the 3 s a multipath RDMA connect may wait
REJOIN_CS=$(limit 1000)

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

# cm_delayed IF: the packets the netem of cm_delay_on has sent
cm_delayed() {
	on-server "/usr/sbin/tc -s qdisc show dev $1 parent 1:3" |
		awk '$1 == "Sent" { print $4; exit }'
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
	load_stop
	nfs_umount
}

main
