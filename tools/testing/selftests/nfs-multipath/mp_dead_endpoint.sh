#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# A multipath mount with one server endpoint down: the mount succeeds, the
# dead path is offline and carries nothing while the others carry the
# I/O; when the endpoint returns, its path comes back online by itself and
# carries I/O again.  A mount whose endpoints all stay silent fails, and
# the kernel log says so.

. ./lib.sh

DEAD_IF=eth3
DEAD=$(echo $SERVER_ADDRS | awk '{ print $4 }')
OPTS="$MP_RDMA,nconnect=4,remoteports=$SERVER_RANGE,localports=$CLIENT_LIST"

# state_of ADDR: the state of the transport to ADDR, from its endpoint: line
state_of() {
	mountstats_endpoints | awk -v a="$1" '$6 == a { print $NF }'
}

online() {
	case "$(state_of "$DEAD")" in
	connected|idle|connecting) return 0 ;;
	esac
	return 1
}

# io_shares: write and read back 16 MiB; NIC_SHARES gets the client shares
io_shares() {
	local src=/tmp/nfsmp-dead before want got

	make_data "$src" 16
	want=$(sha "$src")
	before=$(nic_counters)
	dd if="$src" of="$MNT/dead" bs=1M oflag=direct 2>/dev/null ||
		fail "write failed"
	got=$(dd if="$MNT/dead" bs=1M iflag=direct 2>/dev/null | sha256sum | cut -d' ' -f1)
	NIC_SHARES=$(nic_shares "$before" "$(nic_counters)")
	rm -f "$src" "$MNT/dead"
	[ "$want" = "$got" ] || fail "data read back differs"
	echo "$NIC_SHARES" | sed 's/^/nic share: /; s/$/ %/'
}

on-server "ip link set $DEAD_IF down" || fail "cannot take $DEAD_IF down"
defer "on-server 'ip link set $DEAD_IF up'"

t0=$(date +%s)
nfs_mount "$OPTS"
log "mounted with $DEAD down in $(($(date +%s) - t0)) s"
mountstats_endpoints | sed 's/^\t*/client /'
[ "$(state_of "$DEAD")" = offline ] ||
	fail "the path to $DEAD is '$(state_of "$DEAD")', not offline"
log "ok: the path to $DEAD is offline"

io_shares
[ "$(echo "$NIC_SHARES" | awk '$3 >= 15' | wc -l)" -eq 3 ] ||
	fail "not exactly 3 client NICs carried the I/O"
[ "$(echo "$NIC_SHARES" | awk '$3 < 2' | wc -l)" -eq 1 ] ||
	fail "the NIC of the dead path carried traffic"
log "ok: 3 paths carried the I/O, the dead one nothing"

on-server "ip link set $DEAD_IF up" || fail "cannot bring $DEAD_IF up"
t0=$(date +%s)
wait_for 60 online || fail "the path to $DEAD did not come back in 60 s"
log "the path to $DEAD came back after $(($(date +%s) - t0)) s"
mountstats_endpoints | sed 's/^\t*/client /'

io_shares
echo "$NIC_SHARES" | shares_all_at_least 10 ||
	fail "after the rejoin a client NIC carried less than 10%"
log "ok: after the rejoin all 4 paths carried I/O"

nfs_umount
log "--- no endpoint answers"
mark=$(dmesg_mark)
if mount -t nfs -o "$MP_RDMA,retry=0,remoteports=10.99.0.201-10.99.0.202" \
	 "$SERVER:$EXPORT" "$MNT" 2>/dev/null; then
	umount "$MNT"
	fail "a mount with no answering endpoint succeeded"
fi
dmesg_since "$mark" | grep -F "none of the 2 paths to server" ||
	fail "no message that no path answered"
log "ok: with no answering endpoint the mount fails and says so"
