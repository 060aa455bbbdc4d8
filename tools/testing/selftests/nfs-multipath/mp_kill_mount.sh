#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Killed mounts and umounts do not leave the path monitor's pings running
# on freed memory.  Every data endpoint of a multipath mount is
# black-holed on the server (netem loss 100%; the mount address, which
# answers MNT, is not among them), so that the mount waits for NULL calls
# that take seconds to fail.  mount.nfs, which makes the mount(2) call, is
# killed with SIGKILL while it waits, again and again, over TCP and over
# RDMA, spread over the time such a mount takes to fail (1.5 to 3.3 s
# over TCP, 12.7 s over RDMA, measured), and at least 3 in 4 must still
# wait when killed.  Then a live mount's paths go dark and umount -i -f
# (without the umount.nfs helper) takes it down at once, over TCP and
# over RDMA; it is killed if it still runs after 50 ms (it did over both
# in the run of 2026-12-04; over TCP it had ended within 0.3 s twice,
# the time the kill used to wait).  Proves: every killed
# mount and every umount ends, no mount and no mount.nfs is left, the
# kernel logs no BUG, WARNING or slab corruption, and the slab caches
# validate (run-selftests boots the client with slab poisoning and
# KFENCE).

. ./lib.sh

KILLS=${KILL_CYCLES:-8}
# What mount.nfs said, for a mount that ended before it was killed
ERR=/tmp/nfsmp-kill-mount.err
DATA_ADDRS=$(echo $SERVER_ADDRS | cut -d' ' -f2-)
DATA_RANGE=$(echo $DATA_ADDRS | awk '{ print $1 "-" $NF }')

# black_hole on|off: every data endpoint's server NIC drops what it sends
black_hole() {
	local a cmds=""

	for a in $DATA_ADDRS; do
		if [ "$1" = on ]; then
			cmds="$cmds /usr/sbin/tc qdisc replace dev $(server_if "$a")"
			cmds="$cmds root netem loss 100% &&"
		else
			cmds="$cmds /usr/sbin/tc qdisc del dev $(server_if "$a") root 2>/dev/null;"
		fi
	done
	on-server "$cmds true" >/dev/null
}

# neigh_forget: the client forgets the data endpoints' link addresses.  A
# mount's life depends on them: with none, a TCP connect fails after the
# ARP probes (No route to host, 3.3 s), and soon after with the entry
# FAILED; with a stale one, after the connect timeout (10.3 s).  So each
# mount starts from none.
neigh_forget() {
	local a

	for a in $DATA_ADDRS; do
		/usr/sbin/ip neigh flush to "$a" || fail "cannot flush the neighbour $a"
	done
}

# in_flight PID: PID still runs: it has not ended and is no zombie
in_flight() {
	local st

	st=$(sed -e 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f1)
	[ -n "$st" ] && [ "$st" != Z ] && [ "$st" != X ]
}

# kill_one OPTS DELAY_MS: start a mount, kill it after DELAY_MS.
# mount.nfs itself, which makes the mount(2) call: mount(8) would leave
# its helper running when killed.  Adds 1 to HITS when the mount still
# waited for its paths when killed.
kill_one() {
	local pid n=0 rc=0 killed=0

	neigh_forget
	/usr/sbin/mount.nfs "$SERVER:$EXPORT" "$MNT" -o "$1" >/dev/null 2>"$ERR" &
	pid=$!
	sleep "$(printf '%d.%03d' $(($2 / 1000)) $(($2 % 1000)))"
	grep -q " $MNT " /proc/mounts &&
		fail "the mount succeeded within $2 ms with every data endpoint dark"
	# Still waiting for the paths, or this kill tests nothing
	if in_flight "$pid" && kill -KILL "$pid"; then
		HITS=$((HITS + 1))
		killed=1
	fi
	if ! run_wait_pid "$pid" 60; then
		kernel_stacks
		fail "a killed mount is still there after 60 s"
	fi
	wait "$pid" 2>/dev/null || rc=$?
	[ "$killed" = 1 ] ||
		log "mount.nfs ended within $2 ms, before it could be killed:" \
			"exit $rc, $(tr '\n' ' ' <"$ERR")"
	# A mount that won the race after the check is taken down again
	while grep -q " $MNT " /proc/mounts; do
		n=$((n + 1))
		[ "$n" -le 3 ] || fail "cannot umount $MNT"
		umount_wait "$MNT" 60 -f || true
	done
}

# mount_life OPTS: how long (ms) a mount takes to fail with every data
# endpoint dark, in MOUNT_MS: the shorter of two.  It must fail.
mount_life() {
	local t0 t1 i ms

	MOUNT_MS=
	for i in 1 2; do
		neigh_forget
		t0=${EPOCHREALTIME/./}
		if /usr/sbin/mount.nfs "$SERVER:$EXPORT" "$MNT" -o "$1" >/dev/null 2>"$ERR"; then
			umount_wait "$MNT" 60 -f || true
			fail "a mount succeeded with every data endpoint dark"
		fi
		t1=${EPOCHREALTIME/./}
		ms=$(((t1 - t0) / 1000))
		log "a mount that is not killed fails after $ms ms: $(tr '\n' ' ' <"$ERR")"
		[ -n "$MOUNT_MS" ] && [ "$MOUNT_MS" -le "$ms" ] || MOUNT_MS=$ms
	done
}

kill_mounts() {
	local proto=$1 opts i delay

	case "$proto" in
	rdma) opts="$MP_RDMA" ;;
	*) opts="$MP_TCP" ;;
	esac
	opts="$opts,nconnect=3,remoteports=$DATA_RANGE,soft,timeo=50,retrans=1,retry=0"
	log "--- $KILLS killed mounts over $proto, every data endpoint dark: $opts"
	mount_life "$opts"
	[ "$MOUNT_MS" -ge 300 ] || fail "the mount failed in $MOUNT_MS ms: too soon to be killed"
	# Spread over the first 80 % of its life: its pings are out then
	HITS=0
	for i in $(seq 1 "$KILLS"); do
		delay=$((MOUNT_MS / 10 + (i * 397) % (MOUNT_MS * 7 / 10)))
		kill_one "$opts" "$delay"
	done
	[ "$HITS" -ge $((KILLS * 3 / 4)) ] ||
		fail "only $HITS of $KILLS mounts over $proto were still waiting when killed"
	log "ok: $HITS of $KILLS mounts over $proto killed while their pings waited"
}

# kill_umount PROTO: a live mount goes dark, and its umount is killed
kill_umount() {
	local opts pid

	case "$1" in
	rdma) opts="$MP_RDMA" ;;
	*) opts="$MP_TCP" ;;
	esac
	opts="$opts,nconnect=3,remoteports=$DATA_RANGE,soft,timeo=50,retrans=1"
	nfs_mount_on "$MNT" "$opts"
	touch_all_xprts
	black_hole on
	umount -i -f "$MNT" >/dev/null 2>&1 &
	pid=$!
	sleep 0.05
	# It often ends sooner: the teardown with the pings out is what
	# counts, the kill only when it lands
	if in_flight "$pid"; then
		log "umount over $1 still running after 50 ms, killed, in:" \
			"$(grep -oE '[a-z_0-9]+\+' "/proc/$pid/stack" 2>/dev/null |
			head -n 4 | tr -d '+' | tr '\n' ' ')"
		kill -KILL "$pid" 2>/dev/null || log "it ended before the kill"
	else
		log "umount over $1 ended within 50 ms, before the kill"
	fi
	run_wait_pid "$pid" 60 ||
		{ kernel_stacks; fail "a killed umount is still there after 60 s"; }
	wait "$pid" 2>/dev/null || true
	black_hole off
	if grep -q " $MNT " /proc/mounts; then
		umount_wait "$MNT" 60 -f || fail "umount after the killed one failed"
	fi
	log "ok: a umount over $1 killed while its paths were dark"
}

# slabs_validate: have SLUB check every cache; its reports go to dmesg
slabs_validate() {
	local c n=0

	for c in /sys/kernel/slab/*/validate; do
		echo 1 >"$c" 2>/dev/null && n=$((n + 1))
	done
	log "validated $n slab caches"
	[ "$n" -gt 0 ] || fail "no slab cache could be validated (no slub_debug?)"
}

main() {
	local mark

	grep -q 'slub_debug' /proc/cmdline || fail "the client runs without slub_debug"
	mark=$(dmesg_mark)
	mkdir -p "$MNT"
	defer restore_links
	defer "black_hole off"
	black_hole on
	kill_mounts tcp
	kill_mounts rdma
	black_hole off
	kill_umount tcp
	kill_umount rdma
	sleep 5
	if pgrep -x mount.nfs >/dev/null || grep -q " $MNT nfs" /proc/mounts; then
		ps -o pid,stat,args | grep -E 'mount' | sed 's/^/left: /'
		fail "a killed mount left a mount or a mount.nfs behind"
	fi
	log "ok: no mount and no mount.nfs left"
	slabs_validate
	if kernel_trouble_since "$mark" 'corrupt'; then
		fail "the kernel reported memory or lock trouble"
	fi
	log "ok: no slab or KFENCE report, no warning"
}

main
