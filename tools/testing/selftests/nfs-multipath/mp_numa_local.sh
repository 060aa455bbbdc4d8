#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# NUMA-aware dispatch, in a client with two NUMA nodes and two data NICs
# on each (scripts/testbed --numa).  With pathpolicy=numa-queue-depth and
# numa-round-robin, over every client and server address: a writer, then
# a reader, bound to one node (numactl --cpunodebind --membind), O_DIRECT
# and buffered, move at least 90% of their bytes through the NICs of
# their node (the client's NIC counters), for node 0 and for node 1.  The
# paths' near/far counters agree, and each path shows the node of its
# NIC.  Data verified at the source, the server and read back.  The same
# transfer with pathpolicy=round-robin leaves the node's NICs well under
# 90%: the NIC counters tell the policies apart.
#
# The test is about where requests go while every path is up, not about
# path health: path_timeout is 5 s while it runs, so that a buffered
# write's burst of WRITEs, whose replies the one-vCPU server can delay
# past the default 500 ms under TCG, takes no path down (it did, once,
# with another session's guests on the host: the writer's paths went
# down and its WRITEs rightly went to node 1's NICs).

. ./lib.sh

need_numa

PT=/sys/module/sunrpc/parameters/path_timeout
pt0=$(cat "$PT") || fail "no $PT"
defer_check "echo $pt0 >$PT"
echo "$(limit 5000)" >"$PT" || fail "cannot set path_timeout"

MIB=32
NEAR_PCT=90
RR_MAX_PCT=75
SRC=/tmp/nfsmp-numa-src
OPTS="$MP_RDMA,nconnect=8,remoteports=$SERVER_RANGE,localports=$CLIENT_LIST"

# check_paths_nodes: every connected path shows the node of its NIC
check_paths_nodes() {
	local line src node want bad=0

	while read -r line; do
		src=$(echo "$line" | awk '{ print $4 }')
		node=$(echo "$line" | awk '{ print $17 }')
		[ "$src" = "*" ] && continue
		want=-1
		numa_addrs 0 | grep -qx "$src" && want=0
		numa_addrs 1 | grep -qx "$src" && want=1
		if [ "$node" != "$want" ]; then
			log "path from $src shows node $node, its NIC is on $want"
			bad=1
		fi
	done <<<"$(mountstats_endpoints)"
	[ "$bad" = 0 ] || fail "a path shows another node than its NIC's"
	log "ok: every connected path shows the node of its NIC"
}

# transfer VAR NODE WHAT COMMAND...: run COMMAND on NODE; VAR gets the
# NIC shares, and the near and far sends of the paths are checked
transfer() {
	local -n __tv=$1
	local node=$2 what=$3 before near0 far0 near far pct

	shift 3
	near0=$(paths_sum 19)
	far0=$(paths_sum 21)
	before=$(nic_counters)
	on_node "$node" "$@" || fail "$what on node $node failed"
	__tv=$(nic_shares "$before" "$(nic_counters)")
	near=$(($(paths_sum 19) - near0))
	far=$(($(paths_sum 21) - far0))
	pct=$(node_share "$__tv" "$node")
	log "$what on node $node: node $node NICs $pct % of $(window_mib "$__tv") MiB;" \
	    "sends near $near, far $far"
	[ $((near + far)) -gt 0 ] || fail "$what: the paths counted no send"
}

# near_case NODE MODE: write and read back MIB MiB on NODE, O_DIRECT or
# buffered; both stay on the NICs of NODE
near_case() {
	local node=$1 mode=$2 f=$MNT/numa-$1-$2 shares wflag rflag got
	local -a rd

	case "$mode" in
	direct) wflag=oflag=direct; rflag=iflag=direct ;;
	buffered) wflag=conv=fsync; rflag=iflag=fullblock ;;
	esac
	transfer shares "$node" "write ($mode)" \
		dd if="$SRC" of="$f" bs=1M count=$MIB "$wflag" status=none
	node_share_at_least "$shares" "$node" $NEAR_PCT || {
		show_endpoints
		fail "write ($mode) on node $node: its NICs carried only" \
			"$(node_share "$shares" "$node") %"
	}
	[ "$(server_sha "$EXPORT/${f#"$MNT"/}")" = "$SUM" ] ||
		fail "write ($mode) on node $node: the server's copy differs"
	# Read over the wire: nothing of the file in the page cache
	echo 3 >/proc/sys/vm/drop_caches
	rd=(dd if="$f" of=/tmp/nfsmp-numa-got bs=1M "$rflag" status=none)
	transfer shares "$node" "read ($mode)" "${rd[@]}"
	node_share_at_least "$shares" "$node" $NEAR_PCT || {
		show_endpoints
		fail "read ($mode) on node $node: its NICs carried only" \
			"$(node_share "$shares" "$node") %"
	}
	got=$(sha /tmp/nfsmp-numa-got)
	rm -f /tmp/nfsmp-numa-got "$f"
	[ "$got" = "$SUM" ] || fail "read ($mode) on node $node: data differ"
	log "ok: $mode on node $node: at least $NEAR_PCT % through its NICs, data verified"
}

make_data "$SRC" $MIB
defer "rm -f $SRC /tmp/nfsmp-numa-got"
SUM=$(sha "$SRC")
log "node 0 NICs: $(numa_ifs 0); node 1 NICs: $(numa_ifs 1)"

for policy in numa-queue-depth numa-round-robin; do
	log "=== pathpolicy=$policy"
	nfs_mount "$OPTS,pathpolicy=$policy"
	check "the mount shows pathpolicy=$policy" \
		test "$(mount_opt pathpolicy)" = "$policy"
	touch_all_xprts
	check_fresh
	check_paths_nodes
	for node in 0 1; do
		for mode in direct buffered; do
			near_case "$node" "$mode"
		done
	done
	show_endpoints
	nfs_umount
done

log "=== pathpolicy=round-robin, for contrast"
nfs_mount "$OPTS,pathpolicy=round-robin"
touch_all_xprts
transfer shares 0 "write (direct)" \
	dd if="$SRC" of="$MNT/numa-rr" bs=1M count=$MIB oflag=direct status=none
rm -f "$MNT/numa-rr"
pct=$(node_share "$shares" 0)
awk -v p="$pct" -v m=$RR_MAX_PCT 'BEGIN { exit !(p < m) }' ||
	fail "round-robin put $pct % on node 0's NICs:" \
		"the NIC counters cannot tell the policies apart"
log "ok: round-robin put $pct % on node 0's NICs (less than $RR_MAX_PCT %)"
nfs_umount
