#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A multipath mount with one server endpoint down: the mount succeeds, the
# dead path is offline and carries nothing while the others carry the
# I/O; when the endpoint returns, its path comes back online by itself and
# carries I/O again within 5 s.  A mount whose endpoints all stay silent
# fails, and the kernel log says so.

. ./lib.sh

DEAD_IF=eth3
DEAD=$(echo $SERVER_ADDRS | awk '{ print $4 }')
OPTS="$MP_RDMA,nconnect=4,remoteports=$SERVER_RANGE,localports=$CLIENT_LIST"

REJOIN_CS=$(limit 500)		# the path is back within 5 s of its endpoint
NO_ANSWER_SECS=180	# a mount of silent endpoints gives up before that

# io_shares VAR: write and read back 16 MiB; VAR gets the client shares
io_shares() {
	local -n __s=$1
	local src=/tmp/nfsmp-dead before want got

	make_data "$src" 16
	want=$(sha "$src")
	before=$(nic_counters)
	dd if="$src" of="$MNT/dead" bs=1M oflag=direct 2>/dev/null ||
		fail "write failed"
	got=$(dd if="$MNT/dead" bs=1M iflag=direct 2>/dev/null | sha256sum | cut -d' ' -f1)
	__s=$(nic_shares "$before" "$(nic_counters)")
	rm -f "$src" "$MNT/dead"
	[ "$want" = "$got" ] || fail "data read back differs"
	echo "$__s" | sed 's/^/nic share: /; s/$/ %/'
}

on-server "ip link set $DEAD_IF down" || fail "cannot take $DEAD_IF down"
defer restore_links

t0=$(date +%s)
nfs_mount "$OPTS"
log "mounted with $DEAD down in $(($(date +%s) - t0)) s"
mountstats_endpoints | sed 's/^\t*/client /'
[ "$(xprt_state "$DEAD")" = offline ] ||
	fail "the transport to $DEAD is '$(xprt_state "$DEAD")', not offline"
in_states "$(path_state "$DEAD")" "down|probing" ||
	fail "the path to $DEAD is '$(path_state "$DEAD")', not down"
log "ok: the path to $DEAD is offline and $(path_state "$DEAD")"

io_shares shares
[ "$(echo "$shares" | awk '$3 >= 15' | wc -l)" -eq 3 ] ||
	fail "not exactly 3 client NICs carried the I/O"
[ "$(echo "$shares" | awk '$3 < 2' | wc -l)" -eq 1 ] ||
	fail "the NIC of the dead path carried traffic"
log "ok: 3 paths carried the I/O, the dead one nothing"

t0=$(now_cs)
server_link_up "$DEAD_IF" || fail "cannot bring $DEAD_IF up"
t1=$(now_cs)
if ! wait_path -t waited "$DEAD" up 60; then
	dump_paths
	fail "the path to $DEAD did not come back in 60 s"
fi
# The link came up during on-server: count from its end (the link is
# certainly up then), and show the time from its start too.
log "the path to $DEAD came back $(secs "$waited") s after on-server brought" \
    "$DEAD_IF up ($(secs $((t1 - t0 + waited))) s after on-server began)"
mountstats_endpoints | sed 's/^\t*/client /'
[ "$waited" -le "$REJOIN_CS" ] ||
	fail "the path to $DEAD took $(secs "$waited") s to come back," \
		"more than $(secs $REJOIN_CS) s"
path_online "$DEAD" ||
	fail "the path to $DEAD is up but its transport is $(xprt_state "$DEAD")"
log "ok: the path to $DEAD is online again within $(secs $REJOIN_CS) s"

io_shares shares
echo "$shares" | shares_all_at_least 10 ||
	fail "after the rejoin a client NIC carried less than 10%"
log "ok: after the rejoin all 4 paths carried I/O"

nfs_umount
log "--- no endpoint answers"
mark=$(dmesg_mark)
t0=$(now_cs)
mount -t nfs -o "$MP_RDMA,retry=0,remoteports=10.99.0.201-10.99.0.202" \
	"$SERVER:$EXPORT" "$MNT" >/dev/null 2>&1 &
pid=$!
if ! run_wait_pid "$pid" $NO_ANSWER_SECS; then
	pkill -9 -P "$pid"
	kill -9 "$pid"
	fail "a mount with no answering endpoint still hangs after $NO_ANSWER_SECS s"
fi
if wait "$pid"; then
	umount "$MNT"
	fail "a mount with no answering endpoint succeeded"
fi
log "the mount failed after $(secs $(($(now_cs) - t0))) s"
dmesg_since "$mark" | grep -F "none of the 2 paths to server" ||
	fail "no message that no path answered"
log "ok: with no answering endpoint the mount fails and says so"
