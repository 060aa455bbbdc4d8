#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Path policies on unequal links.  The four paths (client ethK to server
# ethK, remoteports_offset=0) are capped 4:2:1:1 on both guests' egress
# (no drops: see tbf_args in lib.sh); the same transfer then runs with
# pathpolicy=round-robin, queue-depth and service-time, in turn, three
# times each.  It is two O_DIRECT streams, each with one request of the
# mount's wsize in flight: with few requests in flight, round-robin hands
# the slow links as many as the fast ones; queue-depth, which breaks ties
# of queue length by the paths' round trips, and service-time, which
# weighs queues by how long the paths take a request, should not.
# Proves: no path goes down for being slow; queue-depth and service-time
# each give the fast links at least 10 points more of the bytes than
# round-robin does (medians); /proc/mounts and the sysfs policy file of
# the transport switch show the policy in force; writing the sysfs file
# changes it at run time; a bad policy is refused with EINVAL.

. ./lib.sh

RATES="64 32 16 16"	# mbit per link, client and server egress, eth0..eth3
MIB=32
ROUNDS=3
OPTS="$MP_RDMA,nconnect=4,remoteports=$SERVER_RANGE,localports=$CLIENT_LIST,remoteports_offset=0"

# two_streams SRC DST BS: copy SRC to DST with two O_DIRECT dd of BS bytes
# a block, one half each; either side may be the mount.
two_streams() {
	local half=$(($(stat -c %s "$1") / $3 / 2)) flag k pids="" p rc=0

	case "$1" in "$MNT"/*) flag=iflag=direct ;; *) flag=oflag=direct ;; esac
	for k in 0 1; do
		dd if="$1" of="$2" bs="$3" skip=$((k * half)) seek=$((k * half)) \
		   count=$half conv=notrunc $flag 2>/dev/null &
		pids="$pids $!"
	done
	for p in $pids; do
		wait "$p" || rc=1
	done
	return $rc
}

# transfer POLICY: write then read MIB MiB with two streams through a mount
# with pathpolicy=POLICY; SHARES gets "IF BYTES PERCENT" per client NIC.
transfer() {
	local src=/tmp/nfsmp-policy back=/tmp/nfsmp-policy.back before t0 bs

	make_data "$src" "$MIB"
	nfs_mount "$OPTS,pathpolicy=$1"
	[ "$(mount_opt pathpolicy)" = "$1" ] ||
		fail "/proc/mounts says pathpolicy=$(mount_opt pathpolicy), not $1"
	[ "$(cat "$(mount_switch)/policy")" = "$1" ] ||
		fail "sysfs policy is '$(cat "$(mount_switch)/policy")', not $1"
	bs=$(mount_opt wsize)
	[ "$(mount_opt rsize)" = "$bs" ] ||
		fail "rsize $(mount_opt rsize) and wsize $bs differ"
	touch_all_xprts
	before=$(nic_counters)
	t0=$(cut -d' ' -f1 /proc/uptime)
	two_streams "$src" "$MNT/policy" "$bs" || fail "write failed"
	two_streams "$MNT/policy" "$back" "$bs" || fail "read failed"
	[ "$(sha "$src")" = "$(sha "$back")" ] || fail "$1: data read back differs"
	SHARES=$(nic_shares "$before" "$(nic_counters)")
	log "$1: $((2 * MIB)) MiB moved in $bs-byte requests in" \
		"$(awk -v t="$t0" '{ printf "%.1f", $1 - t }' /proc/uptime) s"
	echo "$SHARES" | sed "s/^/$1 nic share: /; s/\$/ %/"
	show_endpoints "$1 "
	# Slow is not dead: a path that keeps answering must stay up.
	[ "$(paths_sum 13)" = 0 ] ||
		fail "$1: a slow but working link was declared down"
	rm -f "$MNT/policy" "$src" "$back"
	nfs_umount
}

# fast_share: percent of the bytes on the two fast links (eth0, eth1)
fast_share() {
	echo "$1" | awk 'NR <= 2 { s += $3 } END { printf "%.0f", s }'
}

defer uncap_links
cap_links $RATES || fail "cannot cap the links"
log "links capped at $RATES mbit"

# median: the middle one of the numbers on stdin
median() {
	sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}

# Compare the medians of ROUNDS alternating transfers each, not one of each.
rr_all=""
qd_all=""
st_all=""
for r in $(seq 1 $ROUNDS); do
	transfer round-robin
	rr_all="$rr_all $(fast_share "$SHARES")"
	transfer queue-depth
	qd_all="$qd_all $(fast_share "$SHARES")"
	transfer service-time
	st_all="$st_all $(fast_share "$SHARES")"
done
rr_fast=$(echo $rr_all | tr ' ' '\n' | median)
qd_fast=$(echo $qd_all | tr ' ' '\n' | median)
st_fast=$(echo $st_all | tr ' ' '\n' | median)
log "fast links carried (%):$rr_all with round-robin,$qd_all with queue-depth," \
	"$st_all with service-time (by caps: 75)"
log "medians: round-robin $rr_fast %, queue-depth $qd_fast %, service-time $st_fast %"
[ "$qd_fast" -ge $((rr_fast + 10)) ] ||
	fail "queue-depth did not give the fast links 10 points more than round-robin"
[ "$st_fast" -ge $((rr_fast + 10)) ] ||
	fail "service-time did not give the fast links 10 points more than round-robin"
log "ok: queue-depth and service-time give the fast links more bytes than round-robin"

log "--- switching at run time"
nfs_mount "$OPTS,pathpolicy=round-robin"
sw=$(mount_switch) || fail "no sysfs switch for the mount"
echo queue-depth >"$sw/policy" || fail "cannot write $sw/policy"
[ "$(mount_opt pathpolicy)" = queue-depth ] ||
	fail "/proc/mounts did not follow the sysfs change"
if err=$(sh -c "echo fastest >$sw/policy" 2>&1); then
	fail "sysfs took an unknown policy"
fi
case "$err" in
*"Invalid argument"*) log "ok: an unknown policy is refused: $err" ;;
*) fail "an unknown policy is refused, but not with EINVAL: $err" ;;
esac
[ "$(cat "$sw/policy")" = queue-depth ] || fail "a refused write changed the policy"
echo service-time >"$sw/policy" || fail "cannot write service-time to $sw/policy"
[ "$(mount_opt pathpolicy)" = service-time ] ||
	fail "/proc/mounts did not follow the change to service-time"
log "ok: sysfs switches the policy and refuses unknown ones"
nfs_umount

log "--- bad values"
mark=$(dmesg_mark)
if mount -t nfs -o "$OPTS,pathpolicy=fastest" "$SERVER:$EXPORT" "$MNT" 2>/dev/null; then
	umount "$MNT"
	fail "pathpolicy=fastest was accepted"
fi
if mount -t nfs -o "$MP_RDMA,pathpolicy=queue-depth" "$SERVER:$EXPORT" "$MNT" 2>/dev/null; then
	umount "$MNT"
	fail "pathpolicy= without endpoint sets was accepted"
fi
dmesg_since "$mark" | grep -F "pathpolicy" | sed 's/^/dmesg: /'
dmesg_since "$mark" | grep -q "pathpolicy= needs remoteports= or localports=" ||
	fail "no message naming pathpolicy= without endpoint sets"
log "ok: bad pathpolicy= values fail the mount"
