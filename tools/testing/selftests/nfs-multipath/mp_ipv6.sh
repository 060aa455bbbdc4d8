#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# remoteports=/localports= over IPv6: a range of IPv6 server endpoints,
# local endpoints by address (RDMA) and by interface name (TCP).  The
# server sees exactly the client's endpoint pairs, one per server address,
# /proc/mounts shows the folded IPv6 sets, and data written through the
# mount reads back equal on the client and on the server.  An interface
# name resolves to an address that is neither deprecated nor tentative:
# the first interface also carries one of each, newer than its own, so
# listed ahead of it.

. ./lib.sh

SERVER6=${SERVER_ADDRS6%% *}
RANGE6=$(echo $SERVER_ADDRS6 | awk '{ print $1 "-" $NF }')
LOCAL6=$(echo $CLIENT_ADDRS6 | awk '{ print $1 "-" $NF }')

pairs_match() {
	[ "$(mountstats_pairs | sort)" = "$(server_conns "$1" | sort)" ]
}

check_pairs() {
	local proto=$1

	touch_all_xprts
	mountstats_endpoints | sed 's/^\t*/client /'
	if ! wait_for 30 pairs_match "$proto"; then
		server_conns "$proto" | sed 's/^/server conn: /'
		fail "the server's $proto connections differ from the endpoint: lines"
	fi
	server_conns "$proto" | each_n_times 1 1 $SERVER_ADDRS6 ||
		fail "not one $proto connection per server address"
	log "ok: the server sees the client's $proto pairs, one per server address"
}

check_sets() {
	[ "$(mount_opt remoteports)" = "$RANGE6" ] ||
		fail "remoteports shown as '$(mount_opt remoteports)', not $RANGE6"
	[ "$(mount_opt localports)" = "$LOCAL6" ] ||
		fail "localports shown as '$(mount_opt localports)', not $LOCAL6"
	log "ok: /proc/mounts shows remoteports=$RANGE6,localports=$LOCAL6"
}

check_data() {
	local opts=$1 src=/tmp/nfsmp-v6 want got srv

	make_data "$src" 16
	want=$(sha "$src")
	dd if="$src" of="$MNT/v6" bs=1M oflag=direct 2>/dev/null ||
		fail "write over IPv6 failed"
	rm -f "$src"
	nfs_umount
	srv=$(server_sha "$EXPORT/v6")
	nfs_mount "$opts" "[$SERVER6]"
	got=$(dd if="$MNT/v6" bs=1M iflag=direct 2>/dev/null | sha256sum | cut -d' ' -f1)
	[ "$want" = "$srv" ] || fail "the server's copy differs from the source"
	[ "$want" = "$got" ] || fail "data read back over IPv6 differs"
	log "ok: 16 MiB verified at the source, the server and read back"
	rm -f "$MNT/v6"
}

# run PROTO OPTIONS
run() {
	log "--- $1: $2"
	nfs_mount "$2" "[$SERVER6]"
	check_pairs "$1"
	sources_are "$1" $CLIENT_ADDRS6
	check_sets
	check_data "$2"
	nfs_umount
}

DEPRECATED6=fd99::1f0
TENTATIVE6=fd99::1f1
DECOY_IF=${CLIENT_IFS%% *}
DAD_WAS=$(cat "/proc/sys/net/ipv6/conf/$DECOY_IF/dad_transmits")

# decoys_del: the decoys that are there go, and DAD is as it was; false
# if any of it failed (a checked cleanup)
decoys_del() {
	local a rc=0

	for a in "$DEPRECATED6" "$TENTATIVE6"; do
		/usr/sbin/ip -6 addr show dev "$DECOY_IF" | grep -q " $a/" || continue
		/usr/sbin/ip -6 addr del "$a/64" dev "$DECOY_IF" || rc=1
	done
	echo "$DAD_WAS" >"/proc/sys/net/ipv6/conf/$DECOY_IF/dad_transmits" || rc=1
	return "$rc"
}

# decoys_add: a deprecated address, and one whose duplicate address
# detection takes 100 s, on the first interface
decoys_add() {
	local dev=$DECOY_IF order

	defer_check decoys_del
	/usr/sbin/ip -6 addr add "$DEPRECATED6/64" dev "$dev" preferred_lft 0 nodad
	echo 100 >"/proc/sys/net/ipv6/conf/$dev/dad_transmits"
	/usr/sbin/ip -6 addr add "$TENTATIVE6/64" dev "$dev"
	/usr/sbin/ip -6 addr show dev "$dev" deprecated | grep -q " $DEPRECATED6/" ||
		fail "$DEPRECATED6 is not deprecated"
	/usr/sbin/ip -6 addr show dev "$dev" tentative | grep -q " $TENTATIVE6/" ||
		fail "$TENTATIVE6 is not tentative"
	# Else a pick of the first usable-looking address would pass too
	order=$(/usr/sbin/ip -6 -o addr show dev "$dev" scope global |
		awk '{ sub(/\/.*/, "", $4); printf "%s ", $4 }')
	case "$order" in
	"$DEPRECATED6 $TENTATIVE6 "*|"$TENTATIVE6 $DEPRECATED6 "*) ;;
	*) fail "$dev lists its addresses as $order, not both decoys first" ;;
	esac
	log "$dev also has $DEPRECATED6 (deprecated) and $TENTATIVE6 (tentative)," \
		"listed first: $order"
}

# sources_are PROTO ADDR...: the server's PROTO connections come from
# exactly these client addresses, one each
sources_are() {
	local proto=$1 got

	shift
	got=$(server_conns "$proto")
	if ! echo "$got" | each_n_times 1 2 "$@"; then
		echo "$got" | sed 's/^/server conn: /'
		fail "the $proto connections do not come from $* (a decoy picked?)"
	fi
	log "ok: the $proto transports are bound to $*"
}

RDMA6="vers=3,proto=rdma6,port=$RDMA_PORT,nconnect=4,remoteports=$RANGE6"
TCP6="vers=3,proto=tcp6,nconnect=4,remoteports=$RANGE6"
run rdma "$RDMA6,localports=$(echo $CLIENT_ADDRS6 | tr ' ' '~')"
decoys_add
run tcp "$TCP6,localports=$(echo $CLIENT_IFS | tr ' ' '~')"
