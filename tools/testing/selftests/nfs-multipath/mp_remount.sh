#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The endpoints of a live mount changed by `mount -o remount`.  Over
# RPC/RDMA, a mount with two paths (two server addresses, two client
# addresses) writes with crc32c verify while a remount takes it to four
# of each with nconnect=4, then back to two, then changes pathpolicy=.
# Proves, each time: the transports are those a fresh mount with the
# options would have (pairs of server and client address, as often), up,
# within ADD_S or DEL_S; the server then holds exactly these connections
# within HELD_S (rdma resource show); /proc/mounts shows the new options.  fio sees no error
# and no request waits more than MAX_LAT_MS.  Bad options are refused
# with EINVAL and a message that names them, and change nothing; a client
# that another mount shares refuses; a mount without endpoint sets
# refuses them and keeps the stock remount.  Over TCP (ss on the server)
# the same two remounts.  At the end, a fresh mount with the options the
# four-path remount showed gets the same transports.  First, a mount whose
# umount loses its DREQ leaves a connection on the server that the checks
# of the server's view must not count (lib.sh's SERVER_PRIOR).

. ./lib.sh

S=($SERVER_ADDRS)
C=($CLIENT_ADDRS)
[ ${#S[@]} -ge 4 ] && [ ${#C[@]} -ge 4 ] || skip "needs 4 links"
TWO="nconnect=2,remoteports=${S[0]}~${S[1]},localports=${C[0]}~${C[1]}"
FOUR="nconnect=4,remoteports=${S[0]}-${S[3]},localports=${C[0]}~${C[1]}~${C[2]}~${C[3]}"
# A new RPC/RDMA path is up within 0.1 s, or about 5 s when its address
# resolution misses the ARP reply: the RDMA core's resolver waits for a
# neighbour update, which came already in neigh_event_send(), until its
# timeout (5 s for RPC/RDMA) or another neighbour's update
ADD_S=$(limit 8)
# A deleted path has left within 4 s; the server lets go of its
# connection within 5 s after that (each look at it takes up to 1 s)
DEL_S=$(limit 5)
HELD_S=$(limit 5)
MAX_LAT_MS=$(limit 2000)
JSON=/tmp/nfsmp-remount.json
MNT2=/mnt/nfsmp-remount2
FIO_JOB="--name=remount --directory=$MNT --rw=randwrite --bs=64k --size=24M
	--numjobs=2 --direct=1 --ioengine=libaio --iodepth=16 --verify=crc32c
	--verify_backlog=64 --rate=1m,1m --time_based --runtime=$(limit 60)
	--group_reporting"

# same_pairs WANT: the mount has the transports WANT
same_pairs() {
	[ "$(xprt_pairs)" = "$1" ]
}

# placed WANT: the mount has the transports WANT ("SERVERADDR
# CLIENTADDR" lines, sorted), all up; or, for WANT "spread N", N
# transports, one to each of the first N server addresses and one from
# each of the first N client addresses
placed() {
	local p

	p=$(xprt_pairs)
	case "$1" in
	spread\ *)
		[ "$(echo "$p" | wc -l)" -eq "${1#spread }" ] || return 1
		echo "$p" | each_n_times 1 1 "${S[@]:0:${1#spread }}" || return 1
		echo "$p" | each_n_times 1 2 "${C[@]:0:${1#spread }}" || return 1
		;;
	*)
		[ "$p" = "$1" ] || return 1
		;;
	esac
	switch_all_up
}

# canon ADDR...: an endpoint set as /proc/mounts shows it, for IPv4
# addresses in one /24: runs of consecutive ones folded into ranges
canon() {
	printf '%s\n' "$@" | sort -t. -k4,4n | awk -F. '
		function flush() {
			if (first == "") return
			out = out (out == "" ? "" : "~") first
			if (last != first) out = out "-" last
		}
		{
			if (first != "" && $4 == prev + 1) { last = $0; prev = $4; next }
			flush(); first = $0; last = $0; prev = $4
		}
		END { flush(); print out }'
}

# remount_to OPTS WANT LIMIT WHAT: remount with OPTS; the mount has the
# transports WANT, up, within LIMIT s, and the server exactly their
# connections within HELD_S more
remount_to() {
	local t0 waited

	log "mount -o remount,$1 $MNT"
	t0=$(now_cs)
	mount -o "remount,$1" "$MNT" || fail "remount,$1 failed"
	log "the remount returned after $(secs $(($(now_cs) - t0))) s"
	if ! wait_for_cs $(($3 * 300)) placed "$2"; then
		log "transports: $(xprt_pairs | tr '\n' ',')"
		dump_paths
		fail "$4: the transports are not placed and up within $(($3 * 3)) s"
	fi
	waited=$(($(now_cs) - t0))
	if [ "$waited" -le $(($3 * 100)) ]; then
		log "ok: $4: placed and up $(secs "$waited") s after the remount (limit $3 s)"
	else
		fail_later "$4: placed and up $(secs "$waited") s after the remount, more than $3 s"
	fi
	wait_for_cs $((HELD_S * 100)) server_holds_xprts ||
		fail "$4: the server holds $(server_xprt_pairs | tr '\n' ','), the" \
			"mount has $(xprt_pairs | tr '\n' ',')"
	log "ok: $4: the server holds exactly these $(secs $(($(now_cs) - t0))) s after the remount"
}

# opts_are NCONNECT REMOTE LOCAL: /proc/mounts shows them
opts_are() {
	[ "$(mount_opt nconnect)" = "$1" ] ||
		fail "/proc/mounts shows nconnect=$(mount_opt nconnect), not $1"
	[ "$(mount_opt remoteports)" = "$2" ] ||
		fail "/proc/mounts shows remoteports=$(mount_opt remoteports), not $2"
	[ "$(mount_opt localports)" = "$3" ] ||
		fail "/proc/mounts shows localports=$(mount_opt localports), not $3"
	log "ok: /proc/mounts: nconnect=$1,remoteports=$2,localports=$3"
}

# refused_remount OPTS WORDS [ERROR]: the remount fails with ERROR (as
# mount.nfs words it; default EINVAL's), the kernel log names WORDS
# (empty: says nothing, as NFS's stock range checks do without an
# fs_context log), without a warning, and the mount's options and
# transports stay
refused_remount() {
	local mark opts before out

	mark=$(dmesg_mark)
	opts=$(mount_opts)
	before=$(xprt_pairs)
	if out=$(mount -o "remount,$1" "$MNT" 2>&1); then
		fail "remount,$1 was taken"
	fi
	case "$out" in
	*"${3:-incorrect mount option}"*) ;;
	*) fail "remount,$1 was refused, but not with '${3:-incorrect mount option}': $out" ;;
	esac
	[ -n "$2" ] || set -- "$1" "$out"
	{ [ "$2" = "$out" ] || dmesg_since "$mark" | grep -qF "$2"; } ||
		fail "remount,$1 was refused ($out), but the kernel log does" \
			"not say \"$2\": $(dmesg_since "$mark" | tail -n 3)"
	! kernel_trouble_since "$mark" ||
		fail "remount,$1 left kernel trouble: $(kernel_trouble_since "$mark")"
	[ "$(mount_opts)" = "$opts" ] || fail "remount,$1 changed /proc/mounts"
	[ "$(xprt_pairs)" = "$before" ] || fail "remount,$1 changed the transports"
	log "ok: remount,$1 refused: $(dmesg_since "$mark" | grep -F "$2" | tail -n 1 ||
		echo "$out")"
}

# main_dst: the server address of the mount's main transport
main_dst() {
	cat "$(grep -l '^main_xprt=1' "$SW"/xprt-*/xprt_info | xargs dirname)/dstaddr"
}

bad_input() {
	log "--- bad input"
	refused_remount "remoteports=10.99.0.300" "'10.99.0.300'"
	refused_remount "localports=10.99.7.7" \
		"address not configured on this host: '10.99.7.7'"
	refused_remount "localports=nosuch0" "unknown interface: 'nosuch0'"
	refused_remount "remoteports=fd99::1" \
		"address family differs from the server's"
	refused_remount "remoteports=${S[2]}~${S[3]}" \
		"the main transport's endpoints must stay: '$(main_dst) from"
	refused_remount "nconnect=65" ""
	refused_remount "pathpolicy=fastest" "pathpolicy"
}

# shared: a second mount with the same options shares the client; a
# remount of either may not change its endpoints
shared() {
	log "--- a client that two mounts share"
	# With the options in force: another policy is another client
	nfs_mount_on "$MNT2" "$MP_RDMA,nosharecache,$TWO,pathpolicy=$(mount_opt pathpolicy)"
	refused_remount "$FOUR" \
		"$SERVER: 1 other mount of the server shares its transports" busy
	# A remount that changes no endpoint is the stock one, shared or not
	mount -o remount,ro "$MNT" || fail "remount,ro of a shared client failed"
	mount -o remount,rw "$MNT" || fail "remount,rw of a shared client failed"
	log "ok: remount,ro and rw of a shared client"
	umount_wait "$MNT2" 60 || fail "umount $MNT2 failed"
}

# lost_dreq: an RPC/RDMA mount whose umount loses its DREQ (the client's
# first data NIC drops RoCE's UDP port meanwhile) leaves its connection
# on the server, as a lossy link can (CI met one in mp_remount, from an
# earlier test).  The server's views of the tests leave it out from the
# next test on; this one takes note of it as that test would.
lost_dreq() {
	local ifc=${CLIENT_IFS%% *} stale

	log "--- a connection that outlives its client's cm_id"
	nfs_mount "$MP_RDMA,remoteports=${S[0]},localports=${C[0]}"
	touch_all_xprts
	/usr/sbin/tc qdisc add dev "$ifc" root handle 1: prio ||
		fail "cannot add a prio qdisc to $ifc"
	defer_check "/usr/sbin/tc qdisc del dev $ifc root 2>/dev/null;" \
		"! /usr/sbin/tc qdisc show dev $ifc | grep -q 'qdisc prio 1:'"
	/usr/sbin/tc filter add dev "$ifc" parent 1: protocol ip u32 \
		match ip protocol 17 0xff match ip dport 4791 0xffff action drop ||
		fail "cannot drop RoCE's datagrams on $ifc"
	nfs_umount
	# The transport goes, and its DREQ with it, after umount returned
	wait_for 10 eval '! rdma resource show cm_id | cm_ids | grep -q " ${C[0]}:"' ||
		fail "the client keeps a cm_id from ${C[0]} 10 s after the umount"
	sleep 1
	/usr/sbin/tc qdisc del dev "$ifc" root || fail "cannot remove the qdisc of $ifc"
	sleep 3
	stale=$(server_rdma_stale) || fail "cannot ask the server for its connections"
	[ -n "$stale" ] || fail "the server let go of a connection whose DREQ was lost"
	note_server_prior || fail "cannot ask the server for its connections"
	! server_rdma_links | grep -qxF "$stale" ||
		fail "server_rdma_links still shows $stale after note_server_prior"
	[ -z "$(server_rdma_stale)" ] ||
		fail "server_rdma_stale still shows $(server_rdma_stale) after note_server_prior"
	log "ok: the server holds $(echo "$stale" | wc -l) connection(s) whose client" \
	    "end is gone, and the checks below leave them out"
}

rdma_case() {
	local pid two four opts4 xprts

	PROTO=rdma
	lost_dreq
	log "--- RDMA: $MP_RDMA,$TWO"
	nfs_mount "$MP_RDMA,$TWO"
	touch_all_xprts
	check_fresh
	SW=$(mount_switch) || fail "no xprt switch in sysfs for the mount"
	two=$(xprt_pairs)
	wait_for_cs $((ADD_S * 100)) placed "$two" && wait_for_cs 1000 server_holds_xprts ||
		fail "a fresh mount did not settle: $(server_xprt_pairs | tr '\n' ',')"
	bad_input

	trace_start "$MAX_LAT_MS"
	fio_bg pid "$JSON" $FIO_JOB
	sleep 5
	pid_gone "$pid" && fail "fio ended before the first remount"
	remount_to "$FOUR" "spread 4" "$ADD_S" "2 to 4 paths"
	opts_are 4 "$(canon "${S[@]:0:4}")" "$(canon "${C[@]:0:4}")"
	opts4=$(mount_opts)
	four=$(xprt_pairs)
	sleep 3
	remount_to "$TWO" "$two" "$DEL_S" "4 to 2 paths"
	opts_are 2 "$(canon "${S[@]:0:2}")" "$(canon "${C[@]:0:2}")"
	xprts=$(ls -d "$SW"/xprt-*)
	log "mount -o remount,pathpolicy=queue-depth $MNT"
	mount -o remount,pathpolicy=queue-depth "$MNT" ||
		fail "remount,pathpolicy=queue-depth failed"
	[ "$(ls -d "$SW"/xprt-*)" = "$xprts" ] ||
		fail "a remount of the policy alone replaced transports"
	[ "$(cat "$SW/policy")" = queue-depth ] ||
		fail "the switch's policy is $(cat "$SW/policy"), not queue-depth"
	[ "$(mount_opt pathpolicy)" = queue-depth ] ||
		fail "/proc/mounts shows pathpolicy=$(mount_opt pathpolicy)"
	log "ok: pathpolicy=queue-depth in force"
	pid_gone "$pid" && fail "fio ended before the last remount"
	fio_done "$pid" "$JSON" "$MAX_LAT_MS"

	shared
	nfs_umount
	fresh "$opts4" "$four"
}

# fresh OPTS WANT: a new mount with the options /proc/mounts showed has
# the transports WANT
fresh() {
	local opts keep

	# The options that say where the transports go
	keep='vers|proto|port|nconnect|remoteports|localports|remoteports_offset|pathpolicy'
	opts=$(echo "$1" | tr ',' '\n' | grep -E "^($keep)=" | paste -sd, -)
	log "--- a fresh mount with the options of the 4-path remount"
	nfs_mount "$opts"
	touch_all_xprts
	SW=$(mount_switch) || fail "no xprt switch in sysfs for the fresh mount"
	same_pairs "$2" ||
		fail "a fresh mount has $(xprt_pairs | tr '\n' ','), the remount had" \
			"$(echo "$2" | tr '\n' ',')"
	log "ok: the fresh mount has the remount's transports"
	nfs_umount
}

tcp_case() {
	local two

	PROTO=tcp
	log "--- TCP: $MP_TCP,$TWO"
	nfs_mount "$MP_TCP,$TWO"
	touch_all_xprts
	SW=$(mount_switch) || fail "no xprt switch in sysfs for the TCP mount"
	two=$(xprt_pairs)
	wait_for_cs $((ADD_S * 100)) placed "$two" && wait_for_cs 1000 server_holds_xprts ||
		fail "a fresh TCP mount did not settle"
	remount_to "$FOUR" "spread 4" "$ADD_S" "TCP: 2 to 4 paths"
	remount_to "$TWO" "$two" "$DEL_S" "TCP: 4 to 2 paths"
	rw_here 8
	nfs_umount
}

# plain: a mount without endpoint sets refuses them, and nconnect= above
# 16 as the stock parser does; its other remounts are the stock ones
plain() {
	log "--- a plain mount"
	SW=/nonexistent
	nfs_mount "$MP_TCP,nconnect=2"
	refused_remount "remoteports=${S[1]}" \
		"need a mount made with remoteports= or localports="
	refused_remount "pathpolicy=queue-depth" \
		"need a mount made with remoteports= or localports="
	refused_remount "nconnect=17" ""
	mount -o remount,nconnect=4 "$MNT" ||
		fail "a plain mount refused remount,nconnect=4, which stock takes"
	[ "$(mount_opt nconnect)" = 2 ] ||
		fail "a plain mount's nconnect became $(mount_opt nconnect)"
	log "ok: remount,nconnect=4 taken and ignored, as stock does"
	nfs_umount
}


main() {
	boost_priority
	plain
	rdma_case
	tcp_case
	fail_if_any
}

main
