#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Without NUMA information (the default testbed: the client's NICs are on
# no node, or all on one), a NUMA policy is the policy it is layered on.
# The two take turns in one mount (sysfs sets the policy), over ROUNDS
# slices of SLICE_MIB written and read back, in the order A B B A A B B A,
# so that what the mount or a drift of the host does to the shares falls
# on both.  The mount shows the NUMA policy, and so does sysfs.
#
#   - round-robin and numa-round-robin give every client NIC the same
#     share, within TOL points;
#   - numa-queue-depth, like queue-depth, gives every NIC at least
#     MIN_SHARE percent.  Their shares are not compared: queue-depth's
#     own shares are not reproducible within TOL points here.  A slice
#     of 4 MiB gave a NIC 5 to 50 %; two halves of one mount's 128 MiB,
#     queue-depth both, differed by 4.2 points uncapped and by 7.7 with
#     every link capped at 40 mbit (measured 2026-12-06).  That the
#     NUMA layer leaves the choice to queue-depth, unchanged, when it
#     has no node to prefer is checked exactly by numa_test (host).

. ./lib.sh

ROUNDS=8
SLICE_MIB=16
IO_KIB=64
STREAMS=8
TOL=5
MIN_SHARE=10

BASE="$MP_RDMA,nconnect=8,remoteports=$SERVER_RANGE,localports=$CLIENT_LIST"

nodes=""
for i in $CLIENT_IFS; do
	nodes="$nodes $(if_node "$i")"
done
log "the NUMA nodes of $CLIENT_IFS:$nodes"
[ "$(echo $nodes | tr ' ' '\n' | sort -u | wc -l)" = 1 ] ||
	skip "the client's NICs are on several NUMA nodes"

# shows_policy SW POLICY: the mount and its switch SW show POLICY
shows_policy() {
	check "the mount shows pathpolicy=$2" test "$(mount_opt pathpolicy)" = "$2"
	check "sysfs shows policy $2" test "$(cat "$1/policy")" = "$2"
}

# slice VAR: VAR gets the NIC bytes of SLICE_MIB MiB of fresh data written
# with STREAMS parallel O_DIRECT streams of IO_KIB requests, and read back
# over the wire, verified at the server and in the read
slice() {
	local -n __sl=$1
	local src=/tmp/nfsmp-slice file=$MNT/numa-none want before

	make_data "$src" $SLICE_MIB
	want=$(chunk_sums "$src" $SLICE_MIB $STREAMS $IO_KIB)
	before=$(nic_counters)
	par_write "$src" "$file" $SLICE_MIB $STREAMS $IO_KIB || fail "parallel write failed"
	[ "$(par_read_sums "$file" $SLICE_MIB $STREAMS $IO_KIB)" = "$want" ] ||
		fail "data read back differs from the source"
	__sl=$(nic_shares "$before" "$(nic_counters)")
	[ "$(server_sha "$EXPORT/numa-none")" = "$(sha "$src")" ] ||
		fail "server copy differs from the source"
	rm -f "$src" "$file"
}

# add_bytes VAR SHARES: VAR gets its "IF BYTES" lines plus those of SHARES
add_bytes() {
	local -n __ab=$1

	__ab=$(printf '%s\n%s\n' "$__ab" "$2" | awk 'NF >= 2 {
		if (!($1 in b)) o[n++] = $1
		b[$1] += $2
	} END { for (i = 0; i < n; i++) print o[i], b[o[i]] }')
}

# same_shares A B: every NIC's share in A and B within TOL points
same_shares() {
	local i a b

	for i in $CLIENT_IFS; do
		a=$(share_of "$1" "$i")
		b=$(share_of "$2" "$i")
		log "$i: $a % and $b %"
		awk -v a="$a" -v b="$b" -v t=$TOL \
			'BEGIN { d = a - b; exit !(d <= t && -d <= t) }' || return 1
	done
}

# compare BASE CHECK: BASE and numa-BASE in turns in one mount; then
# CHECK BASE SHARES-OF-BASE SHARES-OF-NUMA-BASE
compare() {
	local sw r pol s sum_plain="" sum_numa=""

	nfs_mount "$BASE,pathpolicy=numa-$1"
	sw=$(mount_switch) || fail "no xprt switch of the mount in sysfs"
	shows_policy "$sw" "numa-$1"
	touch_all_xprts
	for r in $(seq 0 $((ROUNDS - 1))); do
		# A B B A: rounds 0 and 3 of every 4 are BASE's
		case $((r % 4)) in
		0|3) pol=$1 ;;
		*) pol=numa-$1 ;;
		esac
		echo "$pol" >"$sw/policy" || fail "cannot write $pol to $sw/policy"
		slice s
		log "round $r, $pol:" $(echo "$s" | awk '{ printf "%s %s %% ", $1, $3 }')
		if [ "$pol" = "$1" ]; then
			add_bytes sum_plain "$s"
		else
			add_bytes sum_numa "$s"
		fi
	done
	nfs_umount
	log "ok: $((ROUNDS * SLICE_MIB)) MiB verified at the server and read back"
	"$2" "$1" "$(bytes_shares "$sum_plain")" "$(bytes_shares "$sum_numa")"
}

# equal_shares BASE A B: NIC shares A (BASE) and B (numa-BASE) within TOL
equal_shares() {
	same_shares "$2" "$3" ||
		fail "numa-$1 spread the transfer otherwise than $1" \
			"(more than $TOL points on a NIC)"
	log "ok: numa-$1 gave each NIC the share $1 gave, within $TOL points"
}

# spread_shares BASE A B: every NIC has MIN_SHARE in both A and B
spread_shares() {
	same_shares "$2" "$3" || log "(shares more than $TOL points apart)"
	echo "$2" | shares_all_at_least $MIN_SHARE ||
		fail "$1 left a NIC below $MIN_SHARE %"
	echo "$3" | shares_all_at_least $MIN_SHARE ||
		fail "numa-$1 left a NIC below $MIN_SHARE %"
	log "ok: $1 and numa-$1 each gave every NIC at least $MIN_SHARE %"
}

log "=== round-robin and numa-round-robin"
compare round-robin equal_shares
log "=== queue-depth and numa-queue-depth"
compare queue-depth spread_shares
