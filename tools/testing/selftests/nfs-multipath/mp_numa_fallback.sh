#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The NUMA policy falls back to the far NICs, and comes back.  In a client
# with two NUMA nodes and two data NICs on each (scripts/testbed --numa),
# fio reads and writes (with verify) from node 0 over a numa-queue-depth
# mount with one path per NIC.  Its NICs carry at least 90% of the bytes.
# Node 0's links go down: their paths are declared down within 2 s, and
# the I/O goes on through node 1's NICs (at least 90% of the bytes).  The
# links come back: the paths are up again within 5 s, and the I/O returns
# to node 0's NICs (at least 90%).  fio sees no error, and no request
# waits more than 2 s.

. ./lib.sh

need_numa

MAX_LAT_MS=$(limit 2000)
DETECT_CS=$(limit 200)
REJOIN_CS=$(limit 500)
NEAR_PCT=90

# remote_of LOCAL: the server address of the path from LOCAL
remote_of() {
	echo "$PAIRS" | awk -v a="$1" '$2 == a { print $1 }'
}

# expect_node WHEN NODE: over 3 s, NODE's NICs carry at least NEAR_PCT %
expect_node() {
	local shares

	window_shares shares 3
	if node_share_at_least "$shares" "$2" $NEAR_PCT; then
		log "ok: $1, node $2's NICs carried $(node_share "$shares" "$2") %" \
		    "of $(window_mib "$shares") MiB"
	else
		fail_later "$1, node $2's NICs carried only" \
			"$(node_share "$shares" "$2") % of $(window_mib "$shares") MiB"
	fi
}

defer restore_links
OPTS="$MP_RDMA,nconnect=4,remoteports=$SERVER_RANGE,localports=$CLIENT_LIST"
nfs_mount "$OPTS,pathpolicy=numa-queue-depth"
touch_all_xprts
check_fresh
PAIRS=$(mountstats_pairs)
show_endpoints
ADDRS=""
for a in $(numa_addrs 0); do
	ADDRS="$ADDRS $(remote_of "$a")"
done
log "node 0 NICs: $(numa_ifs 0), their paths go to:$ADDRS"
[ -n "${ADDRS// /}" ] || fail "no path from node 0's addresses"

trace_start "$MAX_LAT_MS"
FIO_NODE=0 load_start 240
expect_node "before" 0

log "--- node 0's links down: $(numa_ifs 0)"
trace_mark "node 0 links down"
t0=$(now_cs)
for i in $(numa_ifs 0); do
	client_link_down "$i"
done
for a in $ADDRS; do
	if wait_path -t waited "$a" "down" 15; then
		d=$(($(now_cs) - t0))
		log "the path to $a was down $(secs "$d") s after the links went down"
		[ "$d" -le "$DETECT_CS" ] ||
			fail_later "the path to $a took $(secs "$d") s to go down"
	else
		dump_paths
		fail "the path to $a is not down 15 s after its link went down"
	fi
done
load_alive || fail "fio ended while node 0's links were down"
expect_node "while node 0's links are down (fallback)" 1
show_endpoints

log "--- node 0's links up"
trace_mark "node 0 links up"
for i in $(numa_ifs 0); do
	client_link_up "$i" || fail "cannot bring $i up"
done
for a in $ADDRS; do
	if wait_path_rxe waited "$a" up 30; then
		log "the path to $a was up again $(secs "$waited") s after its link came back"
		[ "$waited" -le "$REJOIN_CS" ] ||
			fail_later "the path to $a took $(secs "$waited") s to rejoin"
	else
		dump_paths
		fail "the path to $a is not up 30 s after its link came back"
	fi
done
expect_node "after the links came back" 0
show_endpoints

load_stop
latency_check "$MAX_LAT_MS"
fail_if_any
