#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# /proc/mounts shows remoteports= and localports= in canonical folded form
# and the shown options mount the same transports again; nconnect defaults
# to the larger set; remoteports_offset= pins the first transport's remote;
# addr= stays the server.  Mounts with equal sets share their transports,
# mounts with other sets or another nconnect get their own.

. ./lib.sh

MNT2=/mnt/nfsmp-test2
MNT3=/mnt/nfsmp-test3
SUB=nfsmp-sub

switches() {
	ls /sys/kernel/sunrpc/xprt-switches | wc -l
}

switches_are() {
	[ "$(switches)" -eq "$1" ]
}

# expect_opt NAME VALUE [DIR]
expect_opt() {
	local got

	got=$(mount_opt "$1" "${3:-$MNT}")
	[ "$got" = "$2" ] || fail "/proc/mounts shows $1=$got, expected $2"
	log "ok: /proc/mounts shows $1=$got"
}

# endpoints_of [DIR]: the endpoint: lines without what differs from one
# mount to the next: the transport ids and the requests moved.
endpoints_of() {
	mountstats_endpoints "$@" | awk '{ $2 = ""; $NF = ""; print }'
}

# ids_are_sysfs: the id of every endpoint: line names the mount's
# transport in sysfs, xprt-ID-*, with the same remote address.
ids_are_sysfs() {
	local sw id _a _b _c dst d

	sw=$(mount_switch) || fail "no xprt switch in sysfs for the mount"
	while read -r _ id _a _b _c dst _; do
		d=$(echo "$sw"/xprt-"$id"-*)
		[ -d "$d" ] || fail "endpoint: id $id has no $sw/xprt-$id-*"
		[ "$(cat "$d/dstaddr")" = "$dst" ] ||
			fail "endpoint: id $id goes to $dst, ${d##*/} to $(cat "$d/dstaddr")"
	done <<<"$(mountstats_endpoints)"
	log "ok: the endpoint: ids are those of the transports in sysfs"
}

round_trip() {
	local shown first second

	nfs_mount "$MP_TCP,remoteports=10.99.0.3~10.99.0.1~10.99.0.2,localports=eth1~10.99.0.11"
	expect_opt remoteports 10.99.0.1-10.99.0.3
	expect_opt localports 10.99.0.11-10.99.0.12
	expect_opt nconnect 3
	expect_opt addr "$SERVER"
	touch_all_xprts
	first=$(endpoints_of)
	echo "$first" | sed 's/^/first: /'
	[ "$(echo "$first" | wc -l)" -eq 3 ] || fail "expected 3 endpoint: lines"
	shown=$(mount_opts | tr ',' '\n' |
		grep -E '^(nconnect|remoteports|localports|remoteports_offset)=' |
		paste -sd,)
	nfs_umount
	nfs_mount "$MP_TCP,$shown"
	touch_all_xprts
	second=$(endpoints_of)
	echo "$second" | sed 's/^/again: /'
	[ "$first" = "$second" ] || fail "the shown options place other transports"
	log "ok: the shown options $shown mount the same transports"
	nfs_umount
}

nconnect_default() {
	nfs_mount "$MP_TCP,remoteports=10.99.0.2~10.99.0.4,localports=$CLIENT_LIST"
	expect_opt nconnect 4
	expect_opt remoteports 10.99.0.2~10.99.0.4
	[ "$(mountstats_endpoints | wc -l)" -eq 4 ] || fail "expected 4 transports"
	ids_are_sysfs
	nfs_umount
}

# offset_pins OFFSET SHOWN REMOTE
offset_pins() {
	local first

	nfs_mount "$MP_TCP,nconnect=4,remoteports=$SERVER_RANGE,remoteports_offset=$1"
	expect_opt remoteports_offset "$2"
	first=$(mountstats_endpoints | awk 'NR == 1 { print $6 }')
	[ "$first" = "$3" ] || fail "offset $1: the first transport goes to $first, not $3"
	log "ok: remoteports_offset=$1 puts the first transport on $3"
	nfs_umount
}

addr_is_identity() {
	nfs_mount "$MP_TCP,nconnect=2,remoteports=10.99.0.2-10.99.0.3"
	expect_opt addr "$SERVER"
	touch_all_xprts
	mountstats_pairs | awk -v s="$SERVER" '$1 == s { bad = 1 } END { exit bad }' ||
		fail "a data transport goes to the mount address $SERVER"
	log "ok: addr=$SERVER, no data transport goes to it"
	nfs_umount
}

sharing() {
	local sets="remoteports=$SERVER_RANGE,localports=$CLIENT_LIST"
	local opts="$MP_TCP,nconnect=4,$sets" base

	on-server mkdir -p "$EXPORT/$SUB"
	defer "on-server rmdir $EXPORT/$SUB"
	nfs_mount "$opts"
	touch_all_xprts
	wait_for 30 conns_spread tcp 1 1 || fail "first mount: no 4 connections"
	base=$(switches)
	nfs_mount_on "$MNT2" "$opts" "$SERVER" "$EXPORT/$SUB"
	(MNT=$MNT2 && touch_all_xprts)
	wait_for 10 switches_are "$base" || fail "an equal mount made a new switch"
	[ "$(endpoints_of)" = "$(endpoints_of "$MNT2")" ] ||
		fail "equal mounts show different endpoints"
	conns_spread tcp 1 1 || fail "an equal mount made new connections"
	log "ok: equal sets share: $base switches, same endpoints, 4 connections"
	umount "$MNT2"

	nfs_mount_on "$MNT2" "${opts%,localports=*}" "$SERVER" "$EXPORT/$SUB"
	wait_for 10 switches_are $((base + 1)) || fail "other sets share a switch"
	nfs_mount_on "$MNT3" "$MP_TCP,nconnect=8,$sets" "$SERVER" "$EXPORT/$SUB"
	wait_for 10 switches_are $((base + 2)) || fail "other nconnect shares a switch"
	[ "$(mountstats_endpoints "$MNT3" | wc -l)" -eq 8 ] ||
		fail "the nconnect=8 mount has not 8 transports"
	log "ok: other sets and other nconnect get their own clients"
}

round_trip
nconnect_default
offset_pins 2 2 10.99.0.3
offset_pins 5 1 10.99.0.2
addr_is_identity
sharing
