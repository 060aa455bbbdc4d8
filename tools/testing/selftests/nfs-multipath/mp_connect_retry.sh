#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Requests that wait out a failed connect on a path that then goes down.
# call_connect_status() makes a task whose connect failed (refused, no
# route) wait 3 s before it tries again.  On a multipath mount the path
# monitor declares such a path down within about a second; the requests
# that wait there must then start over on another path at once, not when
# their 3 s are over (seen in mp_failover over RDMA: a READ took 4.6 s).
# Over TCP, under a fio load: the path to one server address loses its
# route on the client (an unreachable route, so that every connect fails
# at once with EHOSTUNREACH), and its connection is aborted (ss -K).
# Proves: tasks' connects did fail with EHOSTUNREACH and tasks slept out
# the delay on the transport (the trace saw both, so the case happened),
# but tasks did not retry in a loop; the path is
# declared down within 2 s; no request of the load waited more than 2 s,
# no I/O error; the path rejoins within 5 s once the route is back.
#
# The path monitor pings a busy path that went quiet for a fifth of
# path_timeout (or four of its gaps between replies, if longer), and here
# that ping's connect fails at once: with the default 500 ms the path is
# down about 100 ms after its last reply, a race with the reconnects of
# the tasks the abort woke, which the monitor often won (the case
# happened in 1 abort of 3 in one run, in 0 of 8 in another).  At 1 s the
# path goes down 200 ms after its last reply at the earliest, and 1 s at
# the latest, within the 2 s that the requests may wait (at 2 s one took
# 2.18 s).

. ./lib.sh

MAX_LAT_MS=$(limit 2000)		# as for the other failures
DETECT_CS=$(limit 200)
REJOIN_CS=$(limit 500)
# Failed connects of tasks while the route is gone: each of the load's 16
# requests in flight at most twice (it moves after the first, or the
# path went down before it tried), and the probes of the dead path, 3 in
# its 6 s down.  A task woken by every connect and disconnect retries in
# a loop: thousands.
REFUSED_MAX=40
PATH_TIMEOUT_MS=1000
TRIES=3		# the case needs a task at the delay: one abort is enough
PARAM=/sys/module/sunrpc/parameters/path_timeout

# route_tables: the routing tables the client looks up, main included
route_tables() {
	/usr/sbin/ip rule show | sed -n 's/.* lookup \([^ ]*\).*/\1/p' |
		grep -vx -e local -e default | sort -u
}

# no_route ADDR: an unreachable route to ADDR in every table
no_route() {
	local t

	for t in $(route_tables); do
		/usr/sbin/ip route add unreachable "$1/32" table "$t" || return 1
	done
}

# route_back ADDR: no unreachable route to ADDR is left in any table
route_back() {
	local t

	for t in $(route_tables); do
		/usr/sbin/ip route show table "$t" | grep -q "^unreachable $1 " ||
			continue
		/usr/sbin/ip route del unreachable "$1/32" table "$t" || return 1
	done
}

# path_within ADDR STATE SECS LIMIT_CS AFTER: the path to ADDR gets to
# STATE (within SECS, or it is a failure), and within LIMIT_CS of AFTER
path_within() {
	local waited

	if wait_path -t waited "$1" "$2" "$3"; then
		log "the path to $1 was $2 $(secs "$waited") s after $5"
		[ "$waited" -le "$4" ] ||
			fail_later "the path to $1 was $2 only $(secs "$waited") s" \
				"after $5, more than $(secs "$4") s"
	else
		dump_paths
		fail_later "the path to $1 is not $2 $3 s after $5"
	fi
}

# abort_once ADDR N: the path to ADDR loses its route and its connection,
# is declared down, and comes back when the route does
abort_once() {
	log "--- no route to $1, and its connection aborted (abort $2)"
	defer_check "route_back $1"
	no_route "$1" || fail "cannot add an unreachable route to $1"
	trace_mark "abort the connection to $1"
	ss -K dst "$1" dport = :2049 >/dev/null ||
		fail "ss -K could not abort the connection to $1"
	[ -z "$(ss -Htn state established dst "$1" dport = :2049)" ] ||
		fail "a connection to $1 is still established after ss -K"
	path_within "$1" down 15 "$DETECT_CS" "its connection was aborted"
	# Longer than the delay: a task still in it would finish it now
	sleep 4
	show_endpoints
	route_back "$1" || fail "cannot remove the unreachable route to $1"
	path_within "$1" up 30 "$REJOIN_CS" "its route came back"
}

main() {
	local addr refused slept try tr timeout

	/sbin/modprobe tcp_diag || fail "no tcp_diag: ss -K cannot abort a socket"
	timeout=$(cat "$PARAM") || fail "no $PARAM"
	defer_check "echo $timeout >$PARAM"
	echo "$PATH_TIMEOUT_MS" >"$PARAM" || fail "cannot set path_timeout"
	nfs_mount "$MP_TCP,nconnect=4,remoteports=$SERVER_RANGE,localports=$CLIENT_LIST"
	touch_all_xprts
	check_fresh
	show_endpoints
	addr=$(word_at 0 "$SERVER_ADDRS")

	trace_start "$MAX_LAT_MS"
	tr=$(trace_dir)
	[ -n "$tr" ] || fail "no rpc_path tracepoints: cannot tell the case happened"
	# -113: EHOSTUNREACH, which the unreachable route gives a connect
	echo 'status == -113' >"$tr/events/sunrpc/rpc_connect_status/filter"
	defer "echo 0 >$tr/events/sunrpc/rpc_connect_status/filter"
	trace_event sunrpc/rpc_connect_status
	# The delay after a failed connect, on the transport's own queue
	echo 'q_name == "xprt_delayed"' >"$tr/events/sunrpc/rpc_task_sleep/filter"
	defer "echo 0 >$tr/events/sunrpc/rpc_task_sleep/filter"
	trace_event sunrpc/rpc_task_sleep
	load_start 60
	balanced_load || fail "before any failure not every client NIC carried I/O"

	# The load's requests do not always reach the delay before the path
	# goes down: abort again, at most TRIES times, until one did
	for try in $(seq 1 "$TRIES"); do
		abort_once "$addr" "$try"
		slept=$(grep -c 'rpc_task_sleep:' "$tr/trace" || true)
		log "after abort $try: $slept times a task slept out the delay"
		[ "$slept" -eq 0 ] || break
	done
	refused=$(grep -c 'rpc_connect_status:' "$tr/trace" || true)
	log "trace: in $try aborts $refused connects failed with EHOSTUNREACH," \
		"$slept times a task slept out the delay on its transport"
	[ "$refused" -gt 0 ] ||
		fail_later "no connect failed: the case did not happen"
	[ "$slept" -gt 0 ] ||
		fail_later "in $try aborts no task slept out a connect delay on" \
			"its transport: the case did not happen"
	[ "$refused" -le $((REFUSED_MAX * try)) ] ||
		fail_later "$refused failed connects in $try aborts, more than" \
			"$REFUSED_MAX each: tasks retry in a loop"

	load_stop
	latency_check "$MAX_LAT_MS"
	nfs_umount
	fail_if_any
}

main
