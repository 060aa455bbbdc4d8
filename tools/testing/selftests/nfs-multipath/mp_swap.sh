#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Swap over a multipath RDMA mount while a server link flaps.  A swapfile
# lives on a mount with one path per NIC; memhog writes, swaps out and
# reads back about twice the guest's free memory, checking every page,
# while one server link at a time goes down for 1 to 2 s.  The hung-task
# detector watches, at 60 s.  Proves: memhog ends with every page as
# written, within 20 minutes (no deadlock); swapoff brings every page
# back; requests moved; the kernel logs no hung task, WARN or BUG
# (run_tests.sh checks the log).
#
# One pass takes 9 to 14 minutes here (1434 MiB in 540 to 846 s on
# 2026-12-04, with 4 paths and 53 to 100 flaps); a second one does not
# fit in the 20 minutes, and adds nothing that the first does not do.

. ./lib.sh

OPTS="$MP_RDMA,nconnect=4,remoteports=$SERVER_RANGE,localports=$CLIENT_LIST"
MEMHOG=$PWD/memhog
STOP=/tmp/nfsmp-swap.stop
SWAP_MIB=1024

flapper() {
	local k ifc n=0

	set +e
	while [ ! -e "$STOP" ]; do
		k=$((RANDOM % $(echo $SERVER_IFS | wc -w)))
		ifc=$(word_at "$k" "$SERVER_IFS")
		on-server "/usr/sbin/ip link set $ifc down; sleep 1.$((RANDOM % 10));
			$(if_up_cmd "$ifc" "$(word_at "$k" "$SERVER_ADDRS")" \
				"$(word_at "$k" "$SERVER_ADDRS6")")" >/dev/null
		n=$((n + 1))
		sleep 4
	done
	echo "$n flaps"
}

# swap_trace: a small ring of the path, connect and MR events, which
# the testbed prints (sysrq-z) when the run hangs: whether a path
# reconnected, and whether it then had MRs.  Only events that are rare
# when all is well, so as not to slow the run.
swap_trace() {
	local e

	trace_start 2000
	[ -n "$(trace_dir)" ] || return 0
	echo 256 >"$(trace_dir)/buffer_size_kb"
	for e in rpcrdma/xprtrdma_createmrs rpcrdma/xprtrdma_nomrs_err \
		 rpcrdma/xprtrdma_op_connect rpcrdma/xprtrdma_connect; do
		trace_event "$e"
	done
}

main() {
	local avail mib pid fpid rc=0 moved tr

	server_ctl_priority
	defer restore_links
	defer "touch $STOP"
	rm -f "$STOP"
	nfs_mount "$OPTS"
	touch_all_xprts
	check_fresh
	echo 60 >/proc/sys/kernel/hung_task_timeout_secs ||
		fail "no hung-task detector"
	dd if=/dev/zero of="$MNT/swapfile" bs=1M count=$SWAP_MIB oflag=direct 2>/dev/null ||
		fail "cannot write the swapfile"
	chmod 600 "$MNT/swapfile"
	mkswap "$MNT/swapfile" >/dev/null || fail "mkswap failed"
	swapon "$MNT/swapfile" || fail "swapon on the multipath mount failed"
	defer_check "swapoff $MNT/swapfile 2>/dev/null || ! grep -q $MNT/swapfile /proc/swaps"
	avail=$(awk '$1 == "MemAvailable:" { print int($2 / 1024) }' /proc/meminfo)
	mib=$((2 * avail))
	[ "$mib" -lt $((avail + SWAP_MIB - 64)) ] || mib=$((avail + SWAP_MIB - 64))
	log "MemAvailable $avail MiB; memhog of $mib MiB over $SWAP_MIB MiB of swap"

	swap_trace
	flapper >/tmp/nfsmp-swap-flap.log 2>&1 &
	fpid=$!
	"$MEMHOG" "$mib" 1 &
	pid=$!
	if ! run_wait_pid "$pid" 1200; then
		hang_evidence
		fail "memhog did not end in 20 minutes"
	fi
	wait "$pid" || rc=$?
	touch "$STOP"
	wait "$fpid" || true
	cat /tmp/nfsmp-swap-flap.log
	[ "$rc" = 0 ] || fail "memhog failed: exit $rc"
	log "ok: every page came back as written"
	swapoff "$MNT/swapfile" || fail "swapoff failed"
	log "ok: swapoff brought the rest back"
	moved=$(paths_sum 15)
	log "paths: $(paths_sum 13) downs, $moved requests moved"
	tr=$(trace_dir)
	[ -z "$tr" ] || log "trace (last 256 KiB): $(awk '
		/xprtrdma_nomrs_err:/ { nomr++ }
		/xprtrdma_createmrs:/ { if (/ created 0 MRs/) none++; else some++ }
		END { printf "%d requests found no MR; MR refreshes: %d allocated none, %d some",
			nomr, none, some }' "$tr/trace")"
	[ "$moved" -gt 0 ] || fail "no request moved: the flapping tested nothing"
	rm -f "$MNT/swapfile"
}

main
