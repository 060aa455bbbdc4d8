#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Every path down at once, on a hard mount.  While a 64 MiB file is being
# written through a multipath mount with one path per NIC, all data links
# go down for 20 s: first all four on the server over RPC/RDMA (the
# control link stays), then, on a new file, all four on the client over
# TCP (a soft-RoCE device of the client that sent through a dead link
# never connects again; scripts/testbed.d/rxe-qp1-watch says why).  Proves,
# each time: the writer waits instead of getting an error; meanwhile every
# path is down yet one transport stays online (the last one is never taken
# offline); when the links return every path is up within 5 s; the writer
# finishes without error, and the file read back after a remount and the
# server's copy both match the source (sha256).

. ./lib.sh

PATHS="nconnect=4,remoteports=$SERVER_RANGE,localports=$CLIENT_LIST"
MIB=64
DOWN_SECS=20
REJOIN_CS=$(limit 500)
SRC=/tmp/nfsmp-alldown
PROGRESS=/tmp/nfsmp-alldown.progress

# slow_writer SRC DST: copy SRC to DST 1 MiB at a time (O_DIRECT), 0.1 s
# apart, so that the copy is still going when the links go down; the
# number of chunks done is in $PROGRESS.
slow_writer() {
	local i

	for i in $(seq 0 $((MIB - 1))); do
		dd if="$1" of="$2" bs=1M skip="$i" seek="$i" count=1 \
		   conv=notrunc oflag=direct 2>"$PROGRESS.err" || exit 1
		# By a rename: a reader never sees the file empty
		echo $((i + 1)) >"$PROGRESS.new"
		mv "$PROGRESS.new" "$PROGRESS"
		sleep 0.1
	done
}

progress() {
	cat "$PROGRESS" 2>/dev/null || echo 0
}

at_least_8() {
	[ "$(progress)" -ge 8 ]
}

# progressed N: the writer is past chunk N, or done.
progressed() {
	[ "$(progress)" -gt "$1" ] || ! kill -0 "$WRITER" 2>/dev/null
}

all_links() {
	local ifc cmd=""

	if [ "$1" = client ]; then
		for ifc in $CLIENT_IFS; do
			if [ "$2" = down ]; then
				client_link_down "$ifc"
			else
				client_link_up "$ifc"
			fi
		done
	else
		for ifc in $SERVER_IFS; do
			if [ "$2" = down ]; then
				cmd="$cmd /usr/sbin/ip link set $ifc down;"
			else
				cmd="$cmd $(if_up_cmd "$ifc" \
					"$(word_at "${ifc#eth}" "$SERVER_ADDRS")" \
					"$(word_at "${ifc#eth}" "$SERVER_ADDRS6")");"
			fi
		done
		on-server "$cmd"
	fi
}

# all_down_case SIDE PROTO: the scenario, all links of SIDE (client,
# server), over PROTO (rdma, tcp).
all_down_case() {
	local side=$1 file=$MNT/alldown-$1 want got srv pid t0 t1 at online states rc=0 left waited

	case "$2" in
	rdma) OPTS="$MP_RDMA,$PATHS" ;;
	tcp) OPTS="$MP_TCP,$PATHS" ;;
	esac
	log "--- all $side links down for $DOWN_SECS s during a $MIB MiB write, over $2"
	trace_start 6000
	make_data "$SRC" "$MIB"
	want=$(sha "$SRC")
	nfs_mount "$OPTS"
	touch_all_xprts
	check_fresh
	rm -f "$PROGRESS"
	slow_writer "$SRC" "$file" >/dev/null 2>&1 &
	pid=$!
	WRITER=$pid
	defer "kill $pid"
	wait_for 60 at_least_8 || fail "the writer did not get going"

	at=$(progress)
	t0=$(now_cs)
	# A case that fails brings the links back before its umount
	defer restore_links
	all_links "$side" down || fail "cannot take the $side links down"
	log "all $side links down after $at MiB"
	sleep $((DOWN_SECS - 5))
	log "after $(secs $(($(now_cs) - t0))) s down, $(progress) MiB written:"
	show_endpoints
	if kill -0 "$pid" 2>/dev/null; then
		log "ok: the writer waits"
	else
		wait "$pid" || rc=$?
		fail_later "the writer ended (status $rc) while every link was down"
	fi
	states=$(mountstats_endpoints | awk '{ print $11 }' | sort -u | tr '\n' ' ')
	online=$(mountstats_endpoints | awk '$9 != "offline"' | wc -l)
	case "$states" in
	"down "|"probing "|"down probing ")
		log "ok: every path is down or probing" ;;
	*)
		fail_later "with every $side link down the paths are: $states" ;;
	esac
	if [ "$online" = 1 ]; then
		log "ok: the others went offline, one transport stayed online"
	else
		fail_later "$online transports are online, not the last one alone"
	fi
	# What is left of the time down: none, when the checks took longer
	left=$((DOWN_SECS - ($(now_cs) - t0) / 100))
	[ "$left" -le 0 ] || sleep "$left"

	at=$(progress)
	t1=$(now_cs)
	trace_mark "$side links up"
	all_links "$side" up || fail "cannot bring the $side links up"
	log "all $side links up after $(secs $((t1 - t0))) s"
	if wait_for_cs -t waited 3000 all_paths_up; then
		log "every path up again $(secs "$waited") s after the links came back"
		if [ "$waited" -gt "$REJOIN_CS" ]; then
			trace_since "$side links up" 300
			fail_later "the rejoin took $(secs "$waited") s," \
				"more than $(secs $REJOIN_CS) s"
		fi
	else
		dump_paths
		trace_since "$side links up" 300
		fail_later "not every path is up 30 s after the links came back"
	fi

	if wait_for_cs 6000 progressed "$at"; then
		log "the writer went on $(secs $(($(now_cs) - t1))) s after the links came back"
	else
		fail_later "the writer did not go on in 60 s after the links came back"
	fi
	if ! run_wait_pid "$pid" 120; then
		hang_evidence
		fail "the writer did not finish in 120 s after the links came back"
	fi
	rc=0
	wait "$pid" || rc=$?
	if [ "$rc" != 0 ]; then
		sed 's/^/dd: /' "$PROGRESS.err"
		fail "the write failed after $(progress) MiB (status $rc)"
	fi
	log "ok: the write finished without error" \
	    "$(secs $(($(now_cs) - t1))) s after the links came back"

	nfs_umount
	srv=$(server_sha "$EXPORT/alldown-$side")
	nfs_mount "$OPTS"
	got=$(dd if="$file" bs=1M iflag=direct 2>/dev/null | sha256sum | cut -d' ' -f1)
	log "sha256 source $want"
	log "sha256 server $srv"
	log "sha256 client $got"
	[ "$want" = "$srv" ] || fail "the server's copy differs from the source"
	[ "$want" = "$got" ] || fail "the data read back differs from the source"
	log "ok: the data verifies at the server and read back"
	rm -f "$file" "$SRC"
	nfs_umount
}

main() {
	boost_priority
	server_ctl_priority
	defer "rm -f $SRC $PROGRESS $PROGRESS.new $PROGRESS.err"
	defer restore_links
	all_down_case server rdma
	all_down_case client tcp
	fail_if_any
}

main
