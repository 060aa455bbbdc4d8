#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A non-idempotent request that was never sent moves to another path.  A
# multipath TCP mount has one path per client NIC.  That NIC of one
# path starts to drop all it sends (netem loss 100%), and at once the
# client aborts the path's connection (ss -K), so its transport has to
# connect again and cannot: every request the round robin gives it waits
# for that connect, unsent.  Workers making directories without a pause
# start right then, before the path can be declared down.  Proves: once
# the path is declared down, the MKDIRs that waited there moved
# (rpc_path_move, not "after it was sent"), and no worker's step took
# longer than STALL_MS; no sequence saw the EEXIST a request executed
# twice gives; the server received each MKDIR at least once and at most
# as often as the client transmitted it.  That no MKDIR moved after it
# was sent is only a guard here (nothing goes out on the dark path);
# mp_nonidem tests that rule.  MKDIR stands for every non-idempotent
# request: whether a request may move depends on its p_idempotent, not
# on which it is (CREATE's and MKDIR's are both clear).
#
# Only the first few requests the round robin gives the transport wait
# there: it skips a transport whose queue is longer than the average.
# So that these are MKDIRs, a worker's step sends nothing else: each
# worker has its own directory, with a directory made in it, before the
# path goes dark, so that its access checks and default ACL are cached;
# mkdir(2) sends no LOOKUP for the new name, and a MKDIR stuck on the
# dark path holds no lock another worker needs.  (Earlier versions made
# exclusive files too, each a LOOKUP, a CREATE and a SETATTR, and made
# the workers' directories in the export's root after the loss began: in
# a third of the runs no MKDIR or CREATE was among the four or so
# requests stuck, in CI too.)

. ./lib.sh

WORKERS=16
PROCS="mkdir"
STOP=/tmp/nfsmp-unsent.stop
DETECT_S=$(limit 5)		# the path is down (or probed) within this
STALL_MS=$(limit 8000)		# no worker's step takes longer

# worker W: MKDIRs in $MNT/u$W (prepare_workers made it) until $STOP;
# each step's time in ms to /tmp/nfsmp-u$W.ms
worker() {
	local d=$MNT/u$1 i=0 t0 t1

	: >"/tmp/nfsmp-u$1.ms"
	while [ ! -e "$STOP" ]; do
		i=$((i + 1))
		t0=${EPOCHREALTIME/./}
		mkdir "$d/m$i" || { echo "u$1: mkdir $i failed"; return 1; }
		t1=${EPOCHREALTIME/./}
		echo $(((t1 - t0) / 1000)) >>"/tmp/nfsmp-u$1.ms"
	done
	echo "u$1: $i steps, the longest $(sort -n "/tmp/nfsmp-u$1.ms" | tail -n 1) ms"
}

# prepare_workers: each worker's directory, and a directory in it
prepare_workers() {
	local w

	for w in $(seq 1 $WORKERS); do
		mkdir "$MNT/u$w" "$MNT/u$w/m0" ||
			fail "cannot make the directories of worker $w"
	done
}

# conns SADDR CADDR: the client's established connections from CADDR to
# SADDR's NFS port
conns() {
	ss -Htn state established "( src $2 and dst $1 and dport = :2049 )" |
		grep -c . || true
}

# abort_path SADDR CADDR: the one connection from CADDR to SADDR ends
abort_path() {
	local n

	n=$(conns "$1" "$2")
	[ "$n" = 1 ] || fail "$n connections from $2 to $1, not one"
	ss -K -tn state established "( src $2 and dst $1 and dport = :2049 )" \
		>/dev/null || fail "ss -K failed"
	n=$(conns "$1" "$2")
	[ "$n" = 0 ] || fail "ss -K left the connection from $2 to $1 established"
}

# stop_workers: stop the workers and wait for them, the loss ended
stop_workers() {
	local p

	touch "$STOP"
	restore_links
	for p in $PIDS; do
		run_wait_pid "$p" 60 || return 1
	done
}

# moved_procs ADDR: a line "PROC count" for each procedure of the
# requests that moved off the path to ADDR before they were sent
moved_procs() {
	awk -v a="$1" '/rpc_path_move: / && $NF == a && !/after it was sent/ {
		for (i = 1; i < NF; i++)
			if ($i == "from")
				n[$(i - 1)]++
	} END { for (p in n) print p, n[p] }' "$(trace_dir)/trace"
}

main() {
	local saddr caddr cif p w rc=0 n moved worst waited tr extra

	boost_priority
	server_ctl_priority
	/sbin/modprobe tcp_diag || fail "no tcp_diag: ss -K cannot abort a socket"
	defer restore_links
	rm -f "$STOP" /tmp/nfsmp-u*.ms
	on-server "rm -rf $EXPORT/u[0-9]*"
	nfs_mount "$MP_TCP,nconnect=4,remoteports=$SERVER_RANGE,localports=$CLIENT_LIST"
	touch_all_xprts
	check_fresh
	prepare_workers
	PAIRS=$(mountstats_pairs)
	saddr=$(word_at 1 "$SERVER_ADDRS")
	caddr=$(echo "$PAIRS" | awk -v a="$saddr" '$1 == a { print $2 }')
	[ "$(echo "$caddr" | wc -w)" = 1 ] ||
		fail "not one path to $saddr: $(echo $PAIRS)"
	cif=$(client_if "$caddr")
	[ -n "$cif" ] || fail "no client interface has $caddr"
	trace_start 1000
	tr=$(trace_dir)
	[ -n "$tr" ] || fail "no rpc_path tracepoints"
	trace_event sunrpc/rpc_path_keep

	counts_take before

	log "the path $caddr -> $saddr goes dark ($cif) and loses its connection"
	PIDS=""
	defer_check stop_workers
	/usr/sbin/tc qdisc replace dev "$cif" root netem loss 100%
	abort_path "$saddr" "$caddr"
	for w in $(seq 1 $WORKERS); do
		worker "$w" >"/tmp/nfsmp-u$w.log" 2>&1 &
		PIDS="$PIDS $!"
	done
	wait_path -t waited "$saddr" "down|probing" "$DETECT_S" ||
		{ dump_paths; fail "the path to $saddr is not down $DETECT_S s after going dark"; }
	log "the path to $saddr is $(path_state "$saddr") after $(secs "$waited") s"
	sleep 3
	touch "$STOP"
	for p in $PIDS; do
		run_wait_pid "$p" 60 ||
			{ hang_evidence; fail "a worker did not end 60 s after the path was down"; }
		wait "$p" || rc=1
	done
	cat /tmp/nfsmp-u*.log
	[ "$rc" = 0 ] || fail "a sequence met an error"
	log "ok: every sequence ended without an error"

	moved=$(moved_procs "$saddr")
	n=$(echo "$moved" | awk '$1 == "MKDIR" { n = $2 } END { print n + 0 }')
	grep -E 'rpc_path_(move|keep): .* MKDIR ' "$tr/trace" | head -n 6 |
		trace_lines
	[ "$n" -gt 0 ] ||
		fail "no MKDIR moved off the dead path before it was sent"
	log "ok: $n MKDIRs moved off the dead path unsent"
	log "all that moved unsent: $(echo $moved)"
	if grep -qE 'rpc_path_move: .* MKDIR .*after it was sent' "$tr/trace"; then
		fail "a MKDIR moved after it was sent"
	fi
	log "ok: no MKDIR moved after it was sent"
	worst=$(cat /tmp/nfsmp-u*.ms | sort -n | tail -n 1)
	log "the longest step (a MKDIR) took $worst ms"
	[ "$worst" -le "$STALL_MS" ] ||
		fail "a step took $worst ms, more than $STALL_MS: the unsent requests waited"

	counts_take after
	counts_check extra before after

	restore_links
	wait_for 30 all_paths_up ||
		{ dump_paths; fail "not every path is up 30 s after the loss ended"; }
	nfs_umount
	on-server "rm -rf $EXPORT/u[0-9]*"
}

main
