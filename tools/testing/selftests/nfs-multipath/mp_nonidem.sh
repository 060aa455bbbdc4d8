#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Non-idempotent requests are never sent twice.  Eight workers run a
# deterministic sequence of MKDIR, exclusive CREATE, RENAME, REMOVE and
# RMDIR over a multipath TCP mount while data links flap on both sides.
# Executed twice, any of them gives an error the sequence cannot give
# (EEXIST or ENOENT).  Proves: the sequences end without an error; no
# request of those procedures moved to another path after it was sent
# (the rpc_path_move tracepoint); requests did move; and the server
# received each of those procedures at least as often as the client
# called it (nfsd's counters against the client's), the difference
# being retransmissions on the same path, which its reply cache answers,
# and at most as often as the client transmitted it (the mount's per-op
# transmission counts).
#
#   NONIDEM_PROTO=tcp|rdma (tcp; rdma flaps the server's links only)

. ./lib.sh

PROTO=${NONIDEM_PROTO:-tcp}
WORKERS=8
# At least SECS seconds and FLAPS flaps, at most SECS_MAX seconds: on a
# slow (debug) kernel a flap takes longer: 60 s gave only 4, and 240 s
# gave 12 one day and 10 the next (24 s a flap, the flapper itself slow)
SECS=60
FLAPS=12
SECS_MAX=330
STOP=/tmp/nfsmp-nonidem.stop
FLAPPED=/tmp/nfsmp-nonidem.flaps
PROCS="create mkdir remove rmdir rename"

case "$PROTO" in
rdma) OPTS="$MP_RDMA"; SIDES="server" ;;
*) OPTS="$MP_TCP"; SIDES="client server" ;;
esac
OPTS="$OPTS,nconnect=4,remoteports=$SERVER_RANGE,localports=$CLIENT_LIST"

# worker W: the sequence in $MNT/w$W until $STOP appears
worker() {
	local d=$MNT/w$1 i=0

	set -o noclobber
	mkdir "$d"
	while [ ! -e "$STOP" ]; do
		i=$((i + 1))
		mkdir "$d/$i" || { echo "w$1: mkdir $i failed"; return 1; }
		: >"$d/$i/f" || { echo "w$1: exclusive create $i failed"; return 1; }
		mv "$d/$i/f" "$d/$i/g" || { echo "w$1: rename $i failed"; return 1; }
		rm "$d/$i/g" || { echo "w$1: remove $i failed"; return 1; }
		rmdir "$d/$i" || { echo "w$1: rmdir $i failed"; return 1; }
	done
	rmdir "$d"
	echo "w$1: $i rounds"
}

# flap: take a random data link of SIDES down for 2 to 3 s, every 4 s
flapper() {
	local n=0 side k ifc

	set +e
	while [ ! -e "$STOP" ]; do
		side=$(word_at $((n % $(echo $SIDES | wc -w))) "$SIDES")
		k=$((RANDOM % $(echo $CLIENT_IFS | wc -w)))
		if [ "$side" = client ]; then
			ifc=$(word_at "$k" "$CLIENT_IFS")
			client_link_down "$ifc"
			sleep 2.$((RANDOM % 10))
			client_link_up "$ifc"
		else
			ifc=$(word_at "$k" "$SERVER_IFS")
			on-server "/usr/sbin/ip link set $ifc down; sleep 2.$((RANDOM % 10));
				$(if_up_cmd "$ifc" "$(word_at "$k" "$SERVER_ADDRS")" \
					"$(word_at "$k" "$SERVER_ADDRS6")")" >/dev/null
		fi
		n=$((n + 1))
		echo "$n" >"$FLAPPED.new" && mv "$FLAPPED.new" "$FLAPPED"
		sleep 2
	done
	echo "$n flaps"
}

# stop_all: stop the workers and the flapper, and wait for them, ahead
# of the umount
stop_all() {
	local p

	touch "$STOP"
	for p in $PIDS; do
		run_wait_pid "$p" 60 || return 1
	done
	restore_links
}

main() {
	local tr w fpid rc=0 p moved sent_moves caught kept t re extra

	boost_priority
	server_ctl_priority
	defer restore_links
	rm -f "$STOP"
	nfs_mount "$OPTS"
	PIDS=""
	defer_check stop_all
	touch_all_xprts
	check_fresh
	tr=$(tracefs)
	[ -n "$tr" ] && [ -d "$tr/events/sunrpc/rpc_path_move" ] || fail "no rpc_path tracepoints"
	echo >"$tr/trace"
	echo 1 >"$tr/events/sunrpc/rpc_path_move/enable"
	defer "echo 0 >$tr/events/sunrpc/rpc_path_move/enable"
	echo 1 >"$tr/events/sunrpc/rpc_path_keep/enable"
	defer "echo 0 >$tr/events/sunrpc/rpc_path_keep/enable"

	counts_take before
	for w in $(seq 1 $WORKERS); do
		worker "$w" >"/tmp/nfsmp-w$w.log" 2>&1 &
		PIDS="$PIDS $!"
	done
	echo 0 >"$FLAPPED"
	flapper >/tmp/nfsmp-flap.log 2>&1 &
	fpid=$!
	PIDS="$PIDS $fpid"
	sleep "$SECS"
	t=$SECS
	while [ "$(cat "$FLAPPED")" -lt "$FLAPS" ] && [ "$t" -lt "$SECS_MAX" ]; do
		sleep 5
		t=$((t + 5))
	done
	touch "$STOP"
	log "flapped $(cat "$FLAPPED") times in $t s"
	[ "$(cat "$FLAPPED")" -ge "$FLAPS" ] ||
		fail "only $(cat "$FLAPPED") flaps in $SECS_MAX s, not $FLAPS:" \
			"too few to test anything"
	for p in ${PIDS% $fpid}; do
		run_wait_pid "$p" 120 ||
			{ hang_evidence; fail "a worker did not end 120 s after the flapping"; }
		wait "$p" || rc=1
	done
	wait "$fpid" || true
	restore_links
	wait_for 30 all_paths_up ||
		{ dump_paths; fail "not every path is up 30 s after the flapping"; }
	cat /tmp/nfsmp-w*.log /tmp/nfsmp-flap.log
	[ "$rc" = 0 ] || fail "a sequence met an error that only a request executed twice can give"
	log "ok: every sequence ended without an error"

	moved=$(paths_sum 15)
	re=' (CREATE|MKDIR|REMOVE|RMDIR|RENAME|SETATTR|SYMLINK|MKNOD|LINK)'
	re="$re from .* after it was sent"
	sent_moves=$(grep -cE "$re" "$tr/trace" || true)
	kept=$(grep -cE ' (CREATE|MKDIR|REMOVE|RMDIR|RENAME) stays on .*: sent [1-9][0-9]* times' \
		"$tr/trace" || true)
	log "requests moved: $moved;" \
		"of them non-idempotent: $(grep -cE ' (CREATE|MKDIR|REMOVE|RMDIR|RENAME) from ' \
			"$tr/trace" || true)," \
		"after they were sent: $sent_moves;" \
		"looks that kept a dead path's connection for a sent non-idempotent one: $kept"
	# A request on a dead path either moved or, sent and
	# non-idempotent, stayed: either way the flapping met one.
	[ $((moved + kept)) -gt 0 ] ||
		fail "no request moved or was kept on a dead path: the flapping tested nothing"
	[ "$sent_moves" = 0 ] || fail "a non-idempotent request moved after it was sent"
	log "ok: no non-idempotent request moved after it was sent"

	counts_take after
	re=' (CREATE|MKDIR|REMOVE|RMDIR|RENAME) (from .*|stays on .*: sent [1-9][0-9]* times)$'
	caught=$(grep -cE "$re" "$tr/trace" || true)
	counts_check extra before after
	caught=$((caught + extra))
	# Moved before they were sent, or sent again on their own path
	[ "$caught" -gt 0 ] ||
		fail "no non-idempotent request met a failure: the flapping tested nothing"
	log "ok: $caught non-idempotent requests met a failure" \
		"(moved unsent, kept, or sent again on their path), none was sent twice elsewhere"
	log "server reply cache: $(on-server cat /proc/net/rpc/nfsd |
		awk '$1 == "rc" { print "hits", $2, "misses", $3, "nocache", $4 }')"
}

main
