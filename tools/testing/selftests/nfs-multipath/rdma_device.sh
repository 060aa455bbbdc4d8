#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The RDMA device under a plain RDMA mount (one path, no remoteports= or
# localports=) goes away and comes back.  Writes with crc32c verify run
# at a steady rate; the device the mount's connection uses is deleted
# (`rdma link delete`, what a NIC reset or a driver unbind does to the
# RDMA core), and added again on the same netdev HOLD_S later.  The
# same case runs on our modules, then on Debian's in the same boot, for
# the record: stock's figures are logged beside ours, not judged (a stock
# case that hung would still fail the test: its unmount and the reload of
# our modules are cleanups that must succeed).
# Proves, on ours: the delete returns within DELETE_S; the hard mount
# waits without an I/O error while the device is gone, and resumes once
# it is back: the server sees a new connection from the device's address
# within RESUME_S of the re-add, and fio verifies every block.  Whether the
# server let go of the old one is logged: a device that goes at once may
# send no DREQ.

. ./lib.sh

PLAIN="vers=3,proto=rdma,port=$RDMA_PORT"
DELETE_S=$(limit 5)
HOLD_S=5
RESUME_S=$(limit 30)
FIO_JOB="--name=plaindev --directory=$MNT --rw=randwrite --bs=64k
	--size=24M --direct=1 --ioengine=libaio --iodepth=8 --verify=crc32c
	--verify_backlog=64 --rate=1m,1m"

# mount_conn: "DEVICE NETDEV LOCALADDR" of the mount's RDMA connection
mount_conn() {
	local dev src line

	line=$(rdma resource show cm_id | cm_ids | awk '
		$2 == "CONNECT" && $3 == "[rpcrdma]" {
			sub(/:[0-9]+$/, "", $4); print $1, $4; exit
		}')
	read -r dev src <<<"$line"
	[ -n "${dev:-}" ] || return 1
	echo "$dev $(rdma link show "$dev/1" |
		awk '{ for (i = 1; i < NF; i++) if ($i == "netdev") print $(i + 1) }') $src"
}

# new_link SRC OLD...: the server holds a connection from SRC on a port
# that none of the client's links OLD (ADDR:PORT) had
new_link() {
	local src=$1

	shift
	server_rdma_links | awk -v s="$src:" -v old=" $* " '
		index($2, s) == 1 && !index(old, " " $2 " ") { n++ }
		END { exit !n }'
}

# problem WHICH MSG...: a failure on our modules, a note on stock ones
problem() {
	local which=$1

	shift
	if [ "$which" = ours ]; then
		fail_later "$*"
	else
		log "stock: $*"
	fi
}

# run_case WHICH: the device under the mount goes and comes back
run_case() {
	local which=$1 json=/tmp/nfsmp-plaindev-$1.json
	local conn dev nd src links pid t0 del resume rc=0 max errs

	nfs_mount "$PLAIN"
	dd if=/dev/zero of="$MNT/warm" bs=64k count=16 oflag=direct 2>/dev/null ||
		fail "$which: cannot write to the mount"
	conn=$(mount_conn) || fail "$which: the mount has no RDMA connection"
	read -r dev nd src <<<"$conn"
	links=$(client_rdma_links "$src" | xargs)
	log "$which: the mount's connection leaves $src on $dev ($nd): $links"
	defer_check "rxe_restore ${dev#rxe}"
	fio_bg pid "$json" $FIO_JOB
	sleep 3
	pid_gone "$pid" && fail "$which: fio ended before the delete"

	t0=$(now_cs)
	if ! run_wait "$DELETE_S" rdma link delete "$dev"; then
		kernel_stacks
		problem "$which" "rdma link delete $dev did not return within $DELETE_S s"
		return 1
	fi
	del=$(($(now_cs) - t0))
	log "$which: rdma link delete $dev returned after $(secs "$del") s"
	sleep "$HOLD_S"
	pid_gone "$pid" && problem "$which" "fio ended while $dev was gone"
	# Noted, not asserted: the server lets go of the old connection
	# when a DREQ reaches it, which a device that goes at once may not
	# send, or when it next sends on it
	log "$which: the server holds $(server_holds $links) of the old" \
	    "connection(s) $links $HOLD_S s after the delete"
	rxe_restore "${dev#rxe}" || fail "cannot add $dev again"

	# The connection that resumes is a new one, from another port
	if wait_for_cs -t resume $((RESUME_S * 100)) new_link "$src" $links; then
		log "$which: the server sees the connection from $src again" \
		    "$(secs "$resume") s after the re-add"
	else
		problem "$which" "no connection from $src $RESUME_S s after the re-add"
	fi
	if [ "$which" = ours ]; then
		fio_wait "$pid" 120 || rc=$?
		fio_check "$which write+verify" "$rc" "$json" "write"
	else
		# Noted, not asserted: a stock hang ends the case here
		if ! run_wait_pid "$pid" 120; then
			log "stock: fio still runs 120 s after the re-add"
			return 1
		fi
		wait "$pid" || rc=$?
		errs=$(grep -c 'io_u error' "$json.err" 2>/dev/null) || true
		log "stock: fio exit $rc, ${errs:-0} I/O errors"
	fi
	max=$(fio_max_lat "$json" "write")
	log "$which: largest request $max ms (the device was gone $HOLD_S s)"
	if [ "$which" = ours ]; then
		nfs_umount
	elif ! run_wait 60 umount "$MNT"; then
		log "stock: umount does not return"
		return 1
	fi
}

main() {
	boost_priority
	defer_check "stack_reload ours"
	run_case ours || true
	fail_if_any
	stack_reload stock || fail "cannot load the stock modules"
	run_case stock || log "stock: the case ended early (see above)"
}

main
