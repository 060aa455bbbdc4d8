#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A live but slow path.  A sequential O_DIRECT writer with a verify
# backlog runs over a multipath TCP mount with two transports per NIC;
# then netem delays everything one client NIC sends by 4 s (delay, not
# loss: the path answers, seconds late, while its peers answer in
# milliseconds).  Proves: the slow path's transports go down and their
# requests move; they do not rejoin while the delay lasts (a path that
# answers too late stays down); they rejoin within 10 s of the delay
# going; no request waits more than 2 s, as for the other failures; fio
# sees no I/O or verify error.

. ./lib.sh

OPTS="$MP_TCP,nconnect=8,remoteports=$SERVER_RANGE,localports=$CLIENT_LIST"
DELAY_SECS=15
MAX_LAT_MS=$(limit 2000)
REJOIN_CS=$(limit 1000)
FIO_JOB="--name=slow --directory=$MNT --rw=write --bs=64k --size=160M
	--direct=1 --ioengine=libaio --iodepth=4 --verify=crc32c
	--verify_backlog=64 --verify_fatal=1"

# slow_paths_are STATE: every transport of the slow NIC is in STATE
slow_paths_are() {
	local x

	for x in $SLOW_XPRTS; do
		[ "$(health_of "$x" state)" = "$1" ] || return 1
	done
}

# health_of XPRTDIR KEY: the transport's path_KEY (state, downs, moved)
health_of() {
	cat "$1/path_$2"
}

# slow_sum KEY: the sum of KEY over the slow NIC's transports
slow_sum() {
	local x n=0

	for x in $SLOW_XPRTS; do
		n=$((n + $(health_of "$x" "$1")))
	done
	echo "$n"
}

main() {
	local cif laddr t0 rejoined=0 bad=0 moved downs rc=0 x waited fpid max

	boost_priority
	defer restore_links
	nfs_mount "$OPTS"
	touch_all_xprts
	check_fresh
	show_endpoints
	cif=$(word_at 0 "$CLIENT_IFS")
	laddr=$(word_at 0 "$CLIENT_ADDRS")
	# By sysfs directory: the endpoint: lines show no source address
	# while a path is not connected
	SLOW_XPRTS=$(for x in "$(mount_switch)"/xprt-*; do
		if [ "$(cat "$x/srcaddr" 2>/dev/null)" = "$laddr" ]; then
			echo "$x"
		fi
	done)
	[ "$(echo $SLOW_XPRTS | wc -w)" = 2 ] ||
		fail "not two transports from $laddr: $SLOW_XPRTS"

	fio_bg fpid /tmp/nfsmp-slow.json $FIO_JOB
	sleep 5
	kill -0 "$fpid" 2>/dev/null || fail "fio ended before the delay"
	log "--- netem delay 4000ms on $cif ($laddr)"
	/usr/sbin/tc qdisc add dev "$cif" root netem delay 4000ms limit 100000 ||
		fail "cannot add netem on $cif"
	t0=$(now_cs)
	wait_for_cs -t waited 500 slow_paths_are down ||
		{ dump_paths; fail "the paths from $laddr are not down 5 s after the delay began"; }
	log "ok: the paths from $laddr went down $(secs "$waited") s after the delay began"
	# While the delay lasts they stay down: a late answer keeps them there
	while [ $(($(now_cs) - t0)) -lt $((DELAY_SECS * 100)) ]; do
		for x in $SLOW_XPRTS; do
			if [ "$(health_of "$x" state)" = up ]; then
				bad=$((bad + 1))
				log "${x##*/} is up again while delayed"
			fi
		done
		sleep 1
	done
	/usr/sbin/tc qdisc del dev "$cif" root || fail "cannot remove netem"
	log "--- the delay is gone"
	if wait_for_cs -t waited "$REJOIN_CS" slow_paths_are up; then
		rejoined=1
		log "ok: the paths from $laddr rejoined $(secs "$waited") s after the delay went"
	fi
	fio_wait "$fpid" 300 || rc=$?
	fio_check "write+verify" "$rc" /tmp/nfsmp-slow.json "read write"
	show_endpoints
	downs=$(slow_sum downs)
	moved=$(slow_sum moved)
	log "paths from $laddr: $downs downs, $moved requests moved away"
	[ "$moved" -gt 0 ] || fail_later "no request moved off the slow path"
	[ "$bad" = 0 ] || fail_later "the slow path rejoined $bad times while it was slow"
	[ "$rejoined" = 1 ] ||
		fail_later "the paths from $laddr did not rejoin within $(secs $REJOIN_CS) s"
	max=$(fio_max_lat /tmp/nfsmp-slow.json "read write")
	log "largest fio latency: $max ms (limit $MAX_LAT_MS ms)"
	[ "$max" -le "$MAX_LAT_MS" ] ||
		fail_later "a request waited $max ms, more than $MAX_LAT_MS ms"
	rm -f "$MNT"/slow.*
	fail_if_any
}

main
