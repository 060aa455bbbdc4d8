#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# localports= by interface name, and names mixed with addresses: the
# mount shows the resolved addresses, and the server sees exactly those
# source addresses.

. ./lib.sh

ifname_of() {
	ip -o -4 addr show | awk -v a="$1" '{ split($4, p, "/") } p[1] == a { print $2 }'
}

# try_localports PROTO LOCALPORTS SHOWN ADDR...: mount with 4 transports,
# /proc/mounts shows localports=SHOWN, the server sees 4/#ADDR from each.
try_localports() {
	local proto=$1 lp=$2 shown=$3 opts got

	shift 3
	case $proto in
	rdma) opts=$MP_RDMA ;;
	*) opts=$MP_TCP ;;
	esac
	nfs_mount "$opts,nconnect=4,remoteports=$SERVER_RANGE,localports=$lp"
	got=$(mount_opt localports)
	log "localports=$lp shows localports=$got"
	[ "$got" = "$shown" ] || fail "expected localports=$shown"
	touch_all_xprts
	if ! wait_for 30 server_sees $proto $((4 / $#)) "$@"; then
		server_conns $proto | sed 's/^/server conn: /'
		fail "the server does not see the sources $*"
	fi
	server_conns $proto | sort | uniq -c | sed 's/^/server conn: /'
	log "ok: the server sees the sources $*"
	nfs_umount
}

server_sees() {
	local proto=$1 n=$2

	shift 2
	server_conns "$proto" | each_n_times "$n" 2 "$@"
}

set -- $CLIENT_IFS
if0=$1 if1=$2 if2=$3 if3=$4
a0=$(echo $CLIENT_ADDRS | cut -d' ' -f1)
a1=$(echo $CLIENT_ADDRS | cut -d' ' -f2)
a3=$(echo $CLIENT_ADDRS | cut -d' ' -f4)
[ "$(ifname_of "$a1")" = "$if1" ] || fail "$a1 is not on $if1"

try_localports rdma "$if0~$if1~$if2~$if3" \
	"$(echo $CLIENT_ADDRS | awk '{ print $1 "-" $NF }')" $CLIENT_ADDRS
try_localports tcp "$if3~$a0" "$a0~$a3" "$a0" "$a3"
try_localports rdma "$a1~$if3" "$a1~$a3" "$a1" "$a3"
