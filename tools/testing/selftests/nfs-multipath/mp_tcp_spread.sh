#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# nconnect=8 over TCP with remoteports= and localports=: the server's
# established connections are exactly the pairs of the client's endpoint:
# lines, 2 per server address and 2 per client address; data survives the
# trip and every client NIC carries traffic.  With noresvport the bound
# transports use unprivileged ports and the pairs stay the same.

. ./lib.sh

OPTS="$MP_TCP,nconnect=8,remoteports=$SERVER_RANGE,localports=$CLIENT_LIST"

pairs_match() {
	[ "$(mountstats_pairs | sort)" = "$(server_tcp_conns | sort)" ]
}

check_pairs() {
	touch_all_xprts
	wait_spread tcp 2 2
	mountstats_endpoints | sed 's/^\t*/client /'
	wait_for 30 pairs_match ||
		fail "the server's connections differ from the endpoint: lines"
	log "ok: the server's connections are the client's endpoint pairs"
}

# Peer ports of the server's NFS connections, all above 1023?
unprivileged_ports() {
	on-server "ss -Htn state established '( sport = :2049 )'" |
		awk '{ p = $NF; sub(/.*:/, "", p); if (p < 1024) bad = 1 }
		     END { exit bad || !NR }'
}

nfs_mount "$OPTS"
check_pairs
nfs_umount

mp_transfer shares "$OPTS" 64
echo "$shares" | shares_all_at_least 10 ||
	fail "a client NIC carried less than 10% of the bytes"
log "ok: every client NIC carried traffic"

log "--- noresvport"
nfs_mount "$OPTS,noresvport"
check_pairs
unprivileged_ports || fail "noresvport transports use privileged ports"
log "ok: noresvport transports bound to their addresses, ports >= 1024"
