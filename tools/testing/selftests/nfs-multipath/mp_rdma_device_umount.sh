#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A multipath RDMA mount is unmounted while one of its client RDMA
# devices is gone.  nconnect=8 over the four client rxe devices, writes
# under way; rxe1 is deleted, the writer stopped, and the mount
# unmounted with rxe1 still missing.
# Proves: the unmount returns within UMOUNT_S; rpcrdma then unloads, and
# the client's RDMA core holds no cm_id and no RC QP any more (what an
# endpoint, a connect or a teardown that was lost would leave behind);
# with the device back and rpcrdma loaded again, a new mount works.

. ./lib.sh

OPTS="$MP_RDMA,nconnect=8,remoteports=$SERVER_RANGE,localports=$CLIENT_LIST"
UMOUNT_S=$(limit 20)
K=1

main() {
	local pid t0 left

	boost_priority
	nfs_mount "$OPTS"
	touch_all_xprts
	check_fresh
	defer_check "rxe_restore $K"
	defer_check "/sbin/modprobe rpcrdma"
	fio_bg pid /tmp/nfsmp-devumount.json --name=devumount --directory="$MNT" \
		--rw=write --bs=64k --size=64M --direct=1 --ioengine=libaio \
		--iodepth=8 --rate=2m
	sleep 3
	run_wait "$(limit 5)" rdma link delete "rxe$K" ||
		fail "rdma link delete rxe$K did not return"
	log "rxe$K deleted"
	sleep 2
	pkill -INT -P "$pid" -x fio || true
	run_wait_pid "$pid" 60 || fail "fio did not stop"

	t0=$(now_cs)
	if ! run_wait "$UMOUNT_S" umount "$MNT"; then
		kernel_stacks
		fail "umount did not return within $UMOUNT_S s with rxe$K gone"
	fi
	log "ok: umount returned after $(secs $(($(now_cs) - t0))) s with rxe$K gone"

	# The transports of the mount are freed after umount returns
	t0=$(now_cs)
	if ! wait_for 10 /sbin/modprobe -rq rpcrdma; then
		grep -w '^rpcrdma' /proc/modules | sed 's/^/still: /'
		rdma_leftovers | sed 's/^/left: /'
		fail "rpcrdma does not unload 10 s after the umount"
	fi
	log "ok: rpcrdma unloaded after $(secs $(($(now_cs) - t0))) s"
	left=$(rdma_leftovers)
	if [ -n "$left" ]; then
		echo "$left" | sed 's/^/left: /'
		fail_later "cm_ids or RC QPs are left after rpcrdma unloaded"
	else
		log "ok: no cm_id and no RC QP left"
	fi

	rxe_restore "$K" || fail "cannot add rxe$K again"
	/sbin/modprobe rpcrdma || fail "cannot load rpcrdma again"
	nfs_mount "$OPTS"
	touch_all_xprts
	wait_for 10 all_paths_up || { dump_paths; fail_later "not every path is up"; }
	nfs_umount
	fail_if_any
}

main
