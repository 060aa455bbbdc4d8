#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Manual control of a path through sysfs, under load, over RPC/RDMA.  On a
# multipath mount with one path per NIC, while fio reads and writes, one
# transport that is not the client's first (main) one is set offline
# through its xprt_state file.  Proves: its endpoint: line says offline
# and its NIC then carries (almost) nothing, while the path monitor leaves
# it offline; set online, it is online and up again and carries I/O.
# Writing offline to the main transport fails with EINVAL, as upstream.
# Then offline and online, written many times to busy transports and to
# a transport that reconnects, each return within seconds.  No request
# of the load waits more than 2 s, as for the other failures: the
# offline transport's requests move, and the black-holed one is a
# failure like mp_blackhole's.

. ./lib.sh

OPTS="$MP_RDMA,nconnect=4,remoteports=$SERVER_RANGE,localports=$CLIENT_LIST"
MAX_LAT_MS=$(limit 2000)

# write_state DIR STATE SECS: write STATE to DIR/xprt_state; true when
# the write returned within SECS.  If not, the writer's kernel stack is
# logged before it is killed.
write_state() {
	local pid n=$(($3 * 10))

	sh -c "echo $2 >$1/xprt_state" &
	pid=$!
	while kill -0 "$pid" 2>/dev/null && [ "$n" -gt 0 ]; do
		sleep 0.1
		n=$((n - 1))
	done
	if kill -0 "$pid" 2>/dev/null; then
		log "the write of $2 to ${1##*/} waits in:"
		sed 's/^/#   /' "/proc/$pid/stack" 2>/dev/null || true
		kill -9 "$pid"
		wait "$pid" 2>/dev/null || true
		return 1
	fi
	wait "$pid"
}

# flip_busy MAIN: write offline, then online, FLIPS times to each busy
# transport but MAIN; every write returns within 5 s.  A write waits for
# the transport's send lock, which a sender holds for a moment at a time.
FLIPS=5
flip_busy() {
	local i x s n=0

	log "--- $FLIPS offline/online writes to each busy transport"
	for i in $(seq "$FLIPS"); do
		for x in "$(dirname "$1")"/xprt-*; do
			[ "$x" != "$1" ] || continue
			for s in offline online; do
				write_state "$x" "$s" 5 ||
					fail "writing $s to ${x##*/}/xprt_state" \
						"did not return within 5 s (write $n)"
				n=$((n + 1))
			done
		done
	done
	log "ok: $n writes, each returned within 5 s"
	for x in "$(dirname "$1")"/xprt-*; do
		[ "$x" = "$1" ] || wait_for 5 path_online "$(cat "$x/dstaddr")" ||
			fail "${x##*/} is not online and up after the writes"
	done
}

# downs_past ADDR N: the path to ADDR went down more than N times
downs_past() {
	[ "$(path_downs "$1")" -gt "$2" ]
}

# flip_reconnecting ADDR: with the server's side of the path to ADDR
# black-holed, so that the monitor's probes keep connecting it (a
# connect holds the send lock for seconds), offline and online written
# ten times each return within 10 s.
flip_reconnecting() {
	local x sif i s d0

	x=$(xprt_dir "$1")
	sif=$(server_if "$1")
	d0=$(path_downs "$1")
	log "--- offline/online writes while the path to $1 reconnects (server $sif black-holed)"
	on-server "/usr/sbin/tc qdisc add dev $sif root netem loss 100%" ||
		fail "on-server could not add netem on $sif"
	# Declared dead: by its downs, as its state may be probing whenever
	# it is looked at, when a probe takes longer than the back-off (the
	# connects of this case do, on a slow kernel)
	wait_for_cs 3000 downs_past "$1" "$d0" ||
		fail "the path to $1 is '$(path_state "$1")', downs" \
			"$(path_downs "$1"), 30 s after the black hole began"
	for i in $(seq 10); do
		for s in offline online; do
			write_state "$x" "$s" 10 ||
				fail "writing $s to ${x##*/}/xprt_state" \
					"did not return within 10 s (round $i)"
		done
		sleep 0.5
	done
	log "ok: 20 writes, each returned within 10 s"
	on-server "/usr/sbin/tc qdisc del dev $sif root" || fail "cannot remove netem"
	wait_path "$1" up 30 ||
		fail "the path to $1 is '$(path_state "$1")' 30 s after netem went"
	log "ok: the path to $1 is up again"
}

main() {
	local sw x main="" addr cif err st shares

	nfs_mount "$OPTS"
	touch_all_xprts
	check_fresh
	show_endpoints
	sw=$(mount_switch) || fail "no xprt switch in sysfs goes to $SERVER_RANGE"
	log "the mount's transports: $sw"
	for x in "$sw"/xprt-*; do
		log "${x##*/}: $(cat "$x/dstaddr") $(grep main_xprt "$x/xprt_info")" \
		    "$(path_health_text "$x")"
		if grep -qx 'main_xprt=1' "$x/xprt_info"; then
			main=$x
		elif [ -z "${addr:-}" ]; then
			addr=$(cat "$x/dstaddr")
		fi
	done
	[ -n "$main" ] || fail "no transport says main_xprt=1"
	[ -n "${addr:-}" ] || fail "no transport besides the main one"
	x=$(xprt_dir "$addr")
	cif=$(client_if "$(path_local "$addr")")
	defer "echo online >$x/xprt_state"

	trace_start "$MAX_LAT_MS"
	load_start 120
	balanced_load || fail "not every client NIC carried I/O to begin with"

	log "--- offline: ${x##*/}, the path $(path_local "$addr") -> $addr ($cif)"
	trace_mark "offline ${x##*/}"
	echo offline >"$x/xprt_state" || fail "cannot write offline to ${x##*/}"
	st=$(xprt_state "$addr")
	[ "$st" = offline ] || fail "the endpoint: line of $addr says '$st', not offline"
	log "ok: the endpoint: line says offline"
	sleep 1
	window_shares shares 5
	show_endpoints
	st=$(xprt_state "$addr")
	[ "$st" = offline ] ||
		fail "the path to $addr is '$st' again: something brought it online"
	share_below "$shares" "$cif" 2 ||
		fail "$cif carried $(share_of "$shares" "$cif") %" \
			"of $(window_mib "$shares") MiB while offline"
	log "ok: it stayed offline and $cif carried almost nothing"

	log "--- online"
	trace_mark "online ${x##*/}"
	echo online >"$x/xprt_state" || fail "cannot write online to ${x##*/}"
	wait_for 5 path_online "$addr" ||
		fail "the path to $addr is '$(xprt_state "$addr")'," \
			"path '$(path_state "$addr")' after online"
	log "ok: online and up: $(xprt_state "$addr"), path $(path_state "$addr")"
	window_shares shares 3
	share_at_least "$shares" "$cif" 10 ||
		fail "$cif carried only $(share_of "$shares" "$cif") %" \
			"of $(window_mib "$shares") MiB after online" \
			"$(load_alive && echo "(fio runs)" || echo "(fio had ended)")"
	log "ok: $cif carried I/O again"

	flip_busy "$main"
	defer restore_links
	flip_reconnecting "$addr"

	log "--- offline on the main transport ${main##*/}"
	if err=$(sh -c "echo offline >$main/xprt_state" 2>&1); then
		echo online >"$main/xprt_state"
		fail "the main transport accepted offline"
	fi
	case "$err" in
	*"Invalid argument"*) log "ok: refused: $err" ;;
	*) fail "the main transport refused offline, but not with EINVAL: $err" ;;
	esac
	[ "$(xprt_state "$(cat "$main/dstaddr")")" != offline ] ||
		fail "the main transport is offline after all"

	load_stop
	latency_check "$MAX_LAT_MS"
	fail_if_any
}

main
