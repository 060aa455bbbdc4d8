#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Killed mounts and umounts do not leave the path monitor's pings running
# on freed memory.  Every data endpoint of a multipath mount is
# black-holed on the server (netem loss 100%; the mount address, which
# answers MNT, is not among them), so that the mount waits for NULL calls
# that take seconds to fail.  mount.nfs, which makes the mount(2) call, is
# killed with SIGKILL while it waits, again and again, over TCP and over
# RDMA; then umount -i (without the umount.nfs helper, so that the kill
# reaches the umount(2) caller) is killed while the paths of a live mount
# go dark, over TCP and over RDMA.  Proves: every killed mount and
# umount ends, no mount and no mount.nfs is left, the kernel logs no BUG,
# WARNING or slab corruption, and the slab caches validate (run-selftests
# boots the client with slab poisoning and KFENCE).

. ./lib.sh

KILLS=${KILL_CYCLES:-8}
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

# kill_one OPTS DELAY_MS: start a mount, kill it after DELAY_MS.
# mount.nfs itself, which makes the mount(2) call: mount(8) would leave
# its helper running when killed.
kill_one() {
	local pid n=0

	/usr/sbin/mount.nfs "$SERVER:$EXPORT" "$MNT" -o "$1" >/dev/null 2>&1 &
	pid=$!
	sleep "$(printf '%d.%03d' $(($2 / 1000)) $(($2 % 1000)))"
	kill -KILL "$pid" 2>/dev/null || true
	if ! run_wait_pid "$pid" 60; then
		kernel_stacks
		fail "a killed mount is still there after 60 s"
	fi
	wait "$pid" 2>/dev/null || true
	# A mount that won the race is taken down again
	while grep -q " $MNT " /proc/mounts; do
		n=$((n + 1))
		[ "$n" -le 3 ] || fail "cannot umount $MNT"
		umount_wait "$MNT" 60 -f || true
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
	for i in $(seq 1 "$KILLS"); do
		delay=$((200 + (i * 397) % 2500))
		kill_one "$opts" "$delay"
	done
	log "ok: $KILLS mounts over $proto killed while their pings waited"
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
	sleep 0.3
	kill -KILL "$pid" 2>/dev/null || true
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
