#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# remoteports=dns: the server endpoints are the addresses of the server's
# name, looked up in the kernel through keyutils' key.dns_resolver, which
# reads /etc/hosts here.  Over RPC/RDMA, a mount of NAME with two client
# addresses and no nconnect= writes with crc32c verify while NAME's
# answer goes from 2 addresses to 4, then to 3: within FOLLOW_S each
# time, the mount has one transport to each address, all up, and the
# server holds exactly their connections.  An answer without an address
# keeps the transports, and the kernel log says so once.  With answers
# that live 600 s, a changed answer changes nothing until a path is lost
# (its server address black-holed): then it is followed at once.  A
# remount that gives addresses ends the following.  /proc/mounts shows
# remoteports=dns; remoteports_offset= with it, and remoteports=dns on a
# remount of a mount made without it, are refused.

. ./lib.sh

S=($SERVER_ADDRS)
C=($CLIENT_ADDRS)
[ ${#S[@]} -ge 4 ] && [ ${#C[@]} -ge 2 ] || skip "needs 4 links"
NAME=nfsmp-dns
KEYCONF=/etc/keyutils/key.dns_resolver.conf
OPTS="$MP_RDMA,remoteports=dns,localports=${C[0]}~${C[1]}"
# An answer lives 5 s (keyutils' default_ttl) and a look comes every 5 s:
# a change is seen within 10 s, and a new RPC/RDMA path is up within 8 s
# more (mp_remount says why)
FOLLOW_S=$(limit 18)
# After a path is lost: detected within 3 s, the next look within 5 s
LOST_S=$(limit 16)
MAX_LAT_MS=$(limit 2000)
JSON=/tmp/nfsmp-dns.json
FIO_JOB="--name=dns --directory=$MNT --rw=randwrite --bs=64k --size=24M
	--numjobs=2 --direct=1 --ioengine=libaio --iodepth=16 --verify=crc32c
	--verify_backlog=64 --rate=1m,1m --time_based --runtime=$(limit 60)
	--group_reporting"

# answer ADDR...: NAME resolves to ADDR... (none: to nothing)
answer() {
	local a

	grep -v " $NAME\$" /etc/hosts >/tmp/nfsmp-hosts || true
	for a in "$@"; do
		echo "$a $NAME" >>/tmp/nfsmp-hosts
	done
	cat /tmp/nfsmp-hosts >/etc/hosts
	log "$NAME now resolves to ${*:-nothing}"
}

# dsts: the server addresses of the mount's transports, sorted
dsts() {
	cat "$SW"/xprt-*/dstaddr 2>/dev/null | sort
}

# follows ADDR...: one transport to each ADDR, no other, all up, and the
# server holds exactly their connections
follows() {
	[ "$(dsts)" = "$(printf '%s\n' "$@" | sort)" ] &&
		switch_all_up && server_holds_xprts
}

# follows_here ADDR...: one transport to each ADDR, no other, all up
follows_here() {
	[ "$(dsts)" = "$(printf '%s\n' "$@" | sort)" ] && switch_all_up
}

# follow_within SECONDS WHAT [-here] ADDR...: follows ADDR... within
# SECONDS (-here: as the client sees it)
follow_within() {
	local t0 secs=$1 what=$2 check=follows

	shift 2
	if [ "$1" = -here ]; then
		check=follows_here
		shift
	fi
	t0=$(now_cs)
	wait_for_cs $((secs * 300)) "$check" "$@" ||
		fail "$what: paths $(cat "$SW"/xprt-*/path_state | tr '\n' ' ')," \
			"the transports go to $(dsts | tr '\n' ' ')," \
			"server $(server_xprt_pairs | tr '\n' ','), not to $*"
	if [ $(($(now_cs) - t0)) -le $((secs * 100)) ]; then
		log "ok: $what: followed after $(secs $(($(now_cs) - t0))) s (limit $secs s)"
	else
		fail_later "$what: followed after $(secs $(($(now_cs) - t0))) s, more than $secs s"
	fi
}

# stays SECONDS ADDR...: the transports go to ADDR... for SECONDS
stays() {
	local end=$(($(now_cs) + $1 * 100))

	shift
	while [ "$(now_cs)" -lt "$end" ]; do
		[ "$(dsts)" = "$(printf '%s\n' "$@" | sort)" ] ||
			fail "the transports went to $(dsts | tr '\n' ' '), not $*"
		sleep 1
	done
}

restore_hosts() {
	answer
	rm -f "$KEYCONF"
}

refused() {
	local mark out

	mark=$(dmesg_mark)
	if out=$(mount "$@" 2>&1); then
		fail "mount $* was taken"
	fi
	dmesg_since "$mark" | grep -qF "$REASON" ||
		fail "mount $* was refused ($out), but the kernel log does not" \
			"say \"$REASON\": $(dmesg_since "$mark" | tail -n 2)"
	! kernel_trouble_since "$mark" || fail "kernel trouble: $(kernel_trouble_since "$mark")"
	log "ok: refused: $(dmesg_since "$mark" | grep -F "$REASON" | tail -n 1)"
}

bad_input() {
	log "--- bad input"
	mkdir -p "$MNT"
	REASON="remoteports_offset= does not go with remoteports=dns"
	refused -t nfs -o "$OPTS,remoteports_offset=1" "$NAME:$EXPORT" "$MNT"
	nfs_mount "$MP_RDMA,remoteports=${S[0]}~${S[1]}"
	REASON="remount: remoteports=dns needs a mount made with it"
	refused -o remount,remoteports=dns "$MNT"
	nfs_umount
}

main() {
	local pid mark

	boost_priority
	PROTO=rdma
	defer restore_hosts
	answer "${S[0]}" "${S[1]}"
	bad_input

	log "--- RDMA: $OPTS"
	nfs_mount "$OPTS" "$NAME"
	touch_all_xprts
	SW=$(mount_switch) || fail "no xprt switch in sysfs for the mount"
	[ "$(mount_opt remoteports)" = dns ] ||
		fail "/proc/mounts shows remoteports=$(mount_opt remoteports)"
	[ "$(mount_opt nconnect)" = 2 ] ||
		fail "/proc/mounts shows nconnect=$(mount_opt nconnect), not 2"
	follow_within 10 "mount" "${S[0]}" "${S[1]}"

	trace_start "$MAX_LAT_MS"
	fio_bg pid "$JSON" $FIO_JOB
	sleep 3
	answer "${S[0]}" "${S[1]}" "${S[2]}" "${S[3]}"
	follow_within "$FOLLOW_S" "2 to 4 addresses" "${S[@]:0:4}"
	[ "$(mount_opt nconnect)" = 4 ] ||
		fail "/proc/mounts shows nconnect=$(mount_opt nconnect), not 4"
	answer "${S[0]}" "${S[1]}" "${S[2]}"
	follow_within "$FOLLOW_S" "4 to 3 addresses" "${S[@]:0:3}"

	log "--- an answer without an address"
	mark=$(dmesg_mark)
	answer
	stays 11 "${S[@]:0:3}"
	[ "$(dmesg_since "$mark" | grep -c "remoteports=dns: no answer")" = 1 ] ||
		fail "the kernel log said 'no answer' $(dmesg_since "$mark" |
			grep -c "remoteports=dns: no answer") times, not once"
	log "ok: the transports stayed, and the kernel log said so once"
	answer "${S[0]}" "${S[1]}" "${S[2]}"
	wait_for 15 eval 'dmesg_since "$mark" | grep -q "remoteports=dns: answered again"' ||
		fail "the kernel log does not say the name answered again"
	pid_gone "$pid" && fail "fio ended before the answers did"
	fio_done "$pid" "$JSON" "$MAX_LAT_MS"

	lost_path
	remount_addresses
	nfs_umount
	fail_if_any
}

# lost_path: with answers that live 600 s, a new answer waits; a lost
# path has it looked up at once
lost_path() {
	local sif pid rc=0

	log "--- a path lost"
	mkdir -p "${KEYCONF%/*}"
	echo "default_ttl = 600" >"$KEYCONF"
	# The answer in use lives 5 s: the next one, 600
	sleep 11
	answer "${S[0]}" "${S[1]}" "${S[3]}"
	stays 8 "${S[@]:0:3}"
	log "ok: the new answer waits while no path is lost"
	# A path is found lost by the requests it does not answer
	fio_bg pid "$JSON" ${FIO_JOB/--runtime=$(limit 60)/--runtime=$(limit 40)}
	sif=$(server_if "${S[2]}")
	on-server "/usr/sbin/tc qdisc add dev $sif root netem loss 100%" ||
		fail "on-server could not add netem on $sif"
	defer "on-server /usr/sbin/tc qdisc del dev $sif root 2>/dev/null || true"
	# The server keeps the black-holed connection a while: the client's view
	follow_within "$LOST_S" "${S[2]} lost" -here "${S[0]}" "${S[1]}" "${S[3]}"
	wait_for_cs 1000 eval 'server_xprt_pairs | grep -q "^${S[3]} "' ||
		fail "the server holds no connection to ${S[3]}"
	on-server "/usr/sbin/tc qdisc del dev $sif root" || fail "cannot remove netem"
	rm -f "$KEYCONF"
	fio_wait "$pid" $(limit 300) || rc=$?
	fio_check "write+verify" "$rc" "$JSON" "write"
}

# remount_addresses: a remount with addresses ends the following
remount_addresses() {
	log "--- a remount with addresses"
	mount -o "remount,remoteports=${S[0]}~${S[1]}~${S[3]}" "$MNT" ||
		fail "remount,remoteports=${S[0]}~${S[1]}~${S[3]} failed"
	[ "$(mount_opt remoteports)" != dns ] ||
		fail "/proc/mounts still shows remoteports=dns"
	answer "${S[@]:0:4}"
	stays 8 "${S[0]}" "${S[1]}" "${S[3]}"
	log "ok: remoteports=$(mount_opt remoteports) stays, whatever $NAME resolves to"
}

main
