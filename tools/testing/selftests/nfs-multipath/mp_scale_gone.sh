#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# An address that is gone for good (make check-scale): deleted from its
# node, not moved.  A mount of the read-only export over the four
# addresses of two nodes, nconnect=8, reads with crc32c checks while the
# last address G of node 2 that the main transport does not go to (which
# del_xprt refuses to drop) is deleted.  Its connections are dead, and a
# new one cannot be made: nothing answers G's ARP any more.
# Proves:
# - G's two paths go down, and stay down for STAY s while the reads go
#   on, without an I/O or verify error, and no read waits more than 2 s;
# - the other six transports carry the reads: both nodes keep sending;
# - G's transports can be dropped with the runtime-endpoint sysfs file
#   (del_xprt) while reads go on, and then the mount has no path to G.

. ./lib.sh

need_nodes 2

ADDRS="$(node_addrs 1) $(node_addrs 2)"
OPTS="$MP_RDMA,nconnect=8,remoteports=$(echo $ADDRS | tr ' ' '~'),localports=$CLIENT_LIST"
STAY=20
MAX_LAT_MS=$(limit 2000)

# xprts_to ADDR: the sysfs directories of the mount's transports to ADDR
xprts_to() {
	local x

	for x in $(mount_switch)/xprt-*; do
		[ "$(cat "$x/dstaddr" 2>/dev/null)" != "$1" ] || echo "$x"
	done
}

# states_to ADDR: the path states of the transports to ADDR, one line
states_to() {
	local x

	for x in $(xprts_to "$1"); do
		printf '%s ' "$(cat "$x/path_state")"
	done
}

# none_up ADDR: there are transports to ADDR, and none of them is up
none_up() {
	local s

	s=$(states_to "$1")
	[ -n "$s" ] && [ "${s#*up}" = "$s" ]
}

main() {
	local fpid rc=0 t t0 i x before1 before2 after1 after2 max main dev

	nfs_mount "$OPTS" "${ADDRS%% *}" "$RO_EXPORT"
	# The main transport cannot be dropped (del_xprt refuses it): G is
	# the last address of node 2 that it does not go to
	main=$(grep -l '^main_xprt=1' "$(mount_switch)"/xprt-*/xprt_info | xargs dirname)
	for G in $(node_addrs 2 | awk '{ for (i = NF; i; i--) print $i }'); do
		[ "$(cat "$main/dstaddr")" != "$G" ] && break
	done
	log "the main transport goes to $(cat "$main/dstaddr"); $G goes for good"
	defer_check "[ -n \"\$(on-server 2 ip -o -4 addr show to $G)\" ] || testbed-move $G 2"
	wait_for 30 nodes_carry 2 1 2 ||
		fail "the nodes do not hold 2 connections per address"
	show_endpoints

	trace_start "$MAX_LAT_MS"
	fio_bg fpid /tmp/nfsmp-gone.json $(ro_fio_args "$MNT") --rate=512k \
		--time_based --runtime=$((STAY + 30))
	sleep 5
	t0=$(now_cs)
	dev=$(on-server 2 ip -o -4 addr show | awk -v a="$G" '$4 ~ "^" a "/" { print $2 }')
	on-server 2 "ip addr del $G/24 dev $dev && ip rule del from $G" ||
		fail "cannot delete $G on node 2"
	log "deleted $G on node 2"
	if ! wait_for_cs -t t 1500 none_up "$G"; then
		dump_paths
		fail "the paths to $G are not down 15 s after it went"
	fi
	log "ok: the paths to $G are down after $(secs "$t") s: $(states_to "$G")"

	before1=$(node_tx_total 1)
	before2=$(node_tx_total 2)
	for ((i = 0; i < STAY; i++)); do
		none_up "$G" || { dump_paths; fail "a path to $G came up again"; }
		sleep 1
	done
	after1=$(node_tx_total 1)
	after2=$(node_tx_total 2)
	log "ok: the paths to $G stayed down for $STAY s: $(states_to "$G")"
	log "meanwhile node 1 sent $(((after1 - before1) >> 20)) MiB," \
	    "node 2 $(((after2 - before2) >> 20)) MiB"
	[ $((after1 - before1)) -gt 1048576 ] && [ $((after2 - before2)) -gt 1048576 ] ||
		fail "the other paths do not carry the reads"
	log "ok: both nodes go on sending"

	for x in $(xprts_to "$G"); do
		echo 1 >"$x/del_xprt" || fail "del_xprt of ${x##*/} was refused"
	done
	wait_for 10 eval '[ -z "$(xprts_to "$G")" ]' ||
		fail "the transports to $G are still there 10 s after del_xprt"
	show_endpoints
	! mountstats_endpoints | awk -v g="$G" '$6 == g { bad = 1 } END { exit !bad }' ||
		fail "mountstats still shows a path to $G"
	log "ok: del_xprt dropped the transports to $G"

	fio_wait "$fpid" 120 || rc=$?
	fio_check "verified reads while $G goes" "$rc" /tmp/nfsmp-gone.json read
	max=$(fio_max_lat /tmp/nfsmp-gone.json read)
	log "largest read latency: $max ms (limit $MAX_LAT_MS ms)"
	if [ "$max" -gt "$MAX_LAT_MS" ]; then
		trace_show
		fail "a read waited $max ms"
	fi
	ro_sums "$MNT" || fail "the export does not read back as its SHA256SUMS"
	log "ok: every file reads back as SHA256SUMS says"
	rm -f /tmp/nfsmp-gone.json*
}

main
