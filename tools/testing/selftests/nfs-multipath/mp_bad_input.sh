#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Bad remoteports=/localports= strings are refused: mount fails and the
# kernel log names the bad item.  Through the new mount API (fsmount_nfs)
# the message comes back in the fs_context log with EINVAL.  Good strings,
# with interface names too, mount through both.

. ./lib.sh

FSMOUNT=$PWD/fsmount_nfs
NBAD=0

# An interface with no IPv4 address: a new dummy one, or any such one.
noaddr_if() {
	local i

	if ip link add nfsmp-dummy0 type dummy 2>/dev/null; then
		ip link set nfsmp-dummy0 up
		defer "ip link del nfsmp-dummy0"
		echo nfsmp-dummy0
		return
	fi
	for i in $(ls /sys/class/net); do
		[ "$i" != lo ] || continue
		[ -z "$(ip -o -4 addr show dev "$i")" ] && { echo "$i"; return; }
	done
	fail "no interface without an IPv4 address"
}

# bad OPTIONS EXPECT: mount -o vers=3,proto=tcp,OPTIONS (no vers=3 when
# OPTIONS has its own) fails and the new kernel log lines contain EXPECT.
bad() {
	local mark new opts=$MP_TCP,$1

	case "$1" in
	vers=*) opts=proto=tcp,$1 ;;
	esac
	NBAD=$((NBAD + 1))
	mark=$(dmesg_mark)
	if mount -t nfs -o "$opts" "$SERVER:$EXPORT" "$MNT" 2>/dev/null; then
		umount "$MNT"
		fail "bad option string mounted: $1"
	fi
	new=$(dmesg_since "$mark")
	if ! echo "$new" | grep -qF -- "$2"; then
		echo "$new" | sed 's/^/dmesg: /'
		fail "no message naming '$2' for $1"
	fi
	log "ok: refused $(echo "$1" | cut -c1-60):" \
		"$(echo "$new" | grep -F -- "$2" | head -1 | cut -d']' -f2- | cut -c1-100)"
}

long() {
	printf "%0$1d" 0 | tr 0 "$2"
}

# 257 addresses: 10.99.1.1 ... 10.99.2.2
many() {
	{ seq 1 255 | sed 's/^/10.99.1./'; echo 10.99.2.1; echo 10.99.2.2; } | paste -sd'~'
}

remote_corpus() {
	bad remoteports=10.99.0.1~10.99.0.1 "duplicate endpoint: '10.99.0.1'"
	bad remoteports=10.99.0.1-10.99.0.4~10.99.0.3-10.99.0.6 \
		"duplicate endpoint: '10.99.0.3-10.99.0.6'"
	bad remoteports=10.99.0.2-10.99.0.5~10.99.0.1-10.99.0.3 \
		"duplicate endpoint: '10.99.0.1-10.99.0.3'"
	bad remoteports=10.99.0.1~10.99.0.0-10.99.0.9 "duplicate endpoint: '10.99.0.0-10.99.0.9'"
	bad remoteports=10.99.0.4-10.99.0.1 "reversed range: '10.99.0.4-10.99.0.1'"
	bad remoteports=fd00::9-fd00::1 "reversed range: 'fd00::9-fd00::1'"
	bad remoteports=10.99.0.1~fd00::1 "mixed address families: 'fd00::1'"
	bad remoteports=10.99.0.1-fd00::1 "mixed address families: '10.99.0.1-fd00::1'"
	bad remoteports=10.99.0.1~~10.99.0.2 "empty item: '10.99.0.1~~10.99.0.2'"
	bad 'remoteports=~10.99.0.1' "empty item: '~10.99.0.1'"
	bad remoteports=10.99.0.1~ "trailing separator: '10.99.0.1~'"
	bad 'remoteports=~' "empty item: '~'"
	bad 'remoteports=10.99.0.1$' "invalid character: '10.99.0.1\$'"
	bad 'remoteports=10.99.0.1*' "invalid character: '10.99.0.1*'"
	bad 'remoteports=10.99.0.1 ' "invalid character: '10.99.0.1 '"
	bad 'remoteports=10.99.0.1~10.99. 0.2' "invalid character: '10.99. 0.2'"
	bad 'remoteports=10.99.0.1/24' "invalid character: '10.99.0.1/24'"
	bad remoteports=fe80::1%eth0 "scope ids are not supported: 'fe80::1%eth0'"
	bad remoteports=10.99.0.1%1 "scope ids are not supported: '10.99.0.1%1'"
	bad remoteports=$(long 120 a) "item too long: '$(long 40 a)"
	bad remoteports=10.99.0.1~$(long 97 1) "item too long: '$(long 40 1)"
	bad remoteports=10.99.0.0-10.99.1.0 "range too large: '10.99.0.0-10.99.1.0'"
	bad remoteports=fd00::-fd00::1:0 "range too large: 'fd00::-fd00::1:0'"
	bad remoteports=$(many) "too many endpoints: '10.99.2.2'"
	bad remoteports=10.99.1.0-10.99.1.255~10.99.2.1 "too many endpoints: '10.99.2.1'"
	bad remoteports=256.1.1.1 "not an address: '256.1.1.1'"
	bad remoteports=10.99.0 "not an address: '10.99.0'"
	bad remoteports=010.99.0.1 "not an address: '010.99.0.1'"
	bad remoteports=10.99.0.1- "not an address: '10.99.0.1-'"
	bad remoteports=-10.99.0.1 "not an address: '-10.99.0.1'"
	bad remoteports=eth0 "not an address: 'eth0'"
	bad remoteports=fd00:::1 "not an address: 'fd00:::1'"
	bad remoteports=1:2:3:4:5:6:7:8:9 "not an address: '1:2:3:4:5:6:7:8:9'"
	bad remoteports=10.99.0.1:2049 "not an address: '10.99.0.1:2049'"
	bad remoteports= "Bad value for 'remoteports'"
	bad remoteports_offset=-1 "Bad value for 'remoteports_offset'"
	bad remoteports_offset=two "Bad value for 'remoteports_offset'"
}

local_corpus() {
	local noaddr

	noaddr=$(noaddr_if)
	bad localports=10.99.0.11~10.99.0.11 "duplicate endpoint: '10.99.0.11'"
	bad localports=eth0~10.99.0.11 "duplicate endpoint: '10.99.0.11'"
	bad localports=eth0~eth0 "duplicate endpoint: 'eth0'"
	bad localports=eth9 "unknown interface: 'eth9'"
	bad localports=$noaddr "interface has no address: '$noaddr'"
	bad localports=10.99.0.200 "address not configured on this host: '10.99.0.200'"
	bad localports=10.99.0.11~$SERVER "address not configured on this host: '$SERVER'"
	bad localports=10.99.0.14-10.99.0.11 "reversed range: '10.99.0.14-10.99.0.11'"
	bad localports=10.99.0.11~ "trailing separator: '10.99.0.11~'"
	bad localports=$(long 16 e) "invalid interface name: '$(long 16 e)'"
	bad localports=.. "not an address: '..'"
	bad localports=eth0/1 "invalid character: 'eth0/1'"
	bad localports=10.99.0.11%eth0 "scope ids are not supported: '10.99.0.11%eth0'"
	bad localports= "Bad value for 'localports'"
	bad remoteports=fd00::1,localports=10.99.0.11 \
		"address family differs from the server's: '10.99.0.11'"
	bad remoteports=fd00::1-fd00::2,localports=$noaddr "interface has no address: '$noaddr'"
	bad localports=fd00::11 "address not configured on this host: 'fd00::11'"
	bad vers=4,remoteports=$SERVER_RANGE "need vers=3, not vers=4.0"
	bad vers=4.1,localports=eth0 "need vers=3, not vers=4.1"
	bad vers=4.2,remoteports=$SERVER_RANGE,localports=eth0 "need vers=3, not vers=4.2"
}

# fs_bad EXPECT OPTION...: fsmount_nfs fails with EINVAL, and its log
# has an error line with EXPECT.
fs_bad() {
	local want=$1 out

	shift
	out=$("$FSMOUNT" "$SERVER:$EXPORT" "$MNT" "addr=$SERVER" "$@") &&
		{ umount "$MNT"; fail "fsmount of a bad string mounted: $*"; }
	echo "$out" | sed 's/^/fsmount: /'
	echo "$out" | grep -q '^errno: EINVAL' || fail "fsmount: not EINVAL for $*"
	echo "$out" | grep '^log: e ' | grep -qF -- "$want" ||
		fail "fsmount: the fs_context log does not name '$want'"
	NBAD=$((NBAD + 1))
}

fsmount_corpus() {
	[ -x "$FSMOUNT" ] ||
		fail "$FSMOUNT missing: make -C tools/testing/selftests TARGETS=nfs-multipath"
	fs_bad "empty item: '10.99.0.1~~10.99.0.2'" \
		vers=3 proto=tcp remoteports=10.99.0.1~~10.99.0.2
	fs_bad "reversed range: '10.99.0.4-10.99.0.1'" \
		vers=3 proto=rdma port=$RDMA_PORT remoteports=10.99.0.4-10.99.0.1
	fs_bad "unknown interface: 'eth9'" \
		vers=3 proto=tcp remoteports=$SERVER_RANGE localports=eth9
	fs_bad "address not configured on this host: '10.99.0.200'" \
		vers=3 proto=tcp localports=10.99.0.200
	fs_bad "need vers=3, not vers=4.0" vers=4 proto=tcp remoteports=$SERVER_RANGE
	fs_bad "udp" vers=3 proto=udp remoteports=$SERVER_RANGE
	fs_bad "Bad value for 'remoteports'" vers=3 proto=tcp remoteports=
}

# good_mount OPTIONS LOCALPORTS: mount(8) and fsmount_nfs both mount
# vers=3,OPTIONS and show localports=LOCALPORTS.
good() {
	local opts=$1 shown=$2 opt out

	nfs_mount "vers=3,$opts"
	[ "$(mount_opt localports)" = "$shown" ] || fail "mount(8) $opts: not localports=$shown"
	ls "$MNT" >/dev/null || fail "mount(8) $opts: cannot list"
	nfs_umount
	log "ok: mount(8) -o vers=3,$opts"
	set -- addr="$SERVER" vers=3
	for opt in $(echo "$opts" | tr ',' ' '); do
		set -- "$@" "$opt"
	done
	out=$("$FSMOUNT" "$SERVER:$EXPORT" "$MNT" "$@") ||
		{ echo "$out" | sed 's/^/fsmount: /'; fail "fsmount of $opts failed"; }
	[ "$(mount_opt localports)" = "$shown" ] || fail "fsmount $opts: not localports=$shown"
	ls "$MNT" >/dev/null || fail "fsmount $opts: cannot list"
	nfs_umount
	log "ok: fsmount_nfs $*"
}

# param_bad NAME VALUE: writing VALUE to sunrpc's NAME fails with EINVAL,
# leaves the value as it was, and the kernel log names NAME.
param_bad() {
	local f=/sys/module/sunrpc/parameters/$1 old mark out

	old=$(cat "$f")
	mark=$(dmesg_mark)
	if out=$(echo "$2" 2>&1 >"$f"); then
		echo "$old" >"$f"
		fail "sunrpc.$1 took $2"
	fi
	echo "$out" | grep -q 'Invalid argument' || fail "sunrpc.$1=$2: $out, not EINVAL"
	[ "$(cat "$f")" = "$old" ] || fail "sunrpc.$1 is $(cat "$f") after $2"
	dmesg_since "$mark" | grep -qF "$1=$2: not a number" ||
		fail "no message naming sunrpc.$1=$2"
	NBAD=$((NBAD + 1))
	log "ok: sunrpc.$1=$2 refused with EINVAL"
}

param_corpus() {
	param_bad path_timeout 0
	param_bad path_timeout 9
	param_bad path_timeout 60001
	param_bad path_timeout abc
	param_bad path_heartbeat 3601
	param_bad path_heartbeat -1
}

main() {
	local mark

	mkdir -p "$MNT"
	mark=$(dmesg_mark)
	remote_corpus
	local_corpus
	fsmount_corpus
	param_corpus
	log "ok: $NBAD bad strings refused with a message naming the item"
	good "proto=tcp,nconnect=4,remoteports=$SERVER_RANGE,localports=eth0~eth1~eth2~eth3" \
		10.99.0.11-10.99.0.14
	good "proto=rdma,port=$RDMA_PORT,remoteports=10.99.0.2~10.99.0.3,localports=10.99.0.13" \
		10.99.0.13
	good "proto=tcp,remoteports=$SERVER_RANGE,localports=eth3~10.99.0.11" \
		10.99.0.11~10.99.0.14
	! kernel_trouble_since "$mark" ||
		fail "kernel trouble in dmesg"
}

main
