#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# localports= is what spreads the traffic over the client NICs, not
# routing: on one shared subnet, remoteports= alone sends (nearly)
# everything through one client NIC; with localports= each NIC carries
# at least 15%.

. ./lib.sh

# shares_one_over PCT: one interface carried more than PCT percent.
shares_one_over() {
	awk -v p="$1" '$3 > p { ok = 1 } END { exit !ok }'
}

BASE="$MP_RDMA,nconnect=8,remoteports=$SERVER_RANGE"
MIB=64

log "--- remoteports= only"
mp_transfer shares "$BASE" $MIB
echo "$shares" | shares_one_over 85 ||
	fail "without localports= no client NIC carried more than 85%"
log "ok: without localports= one client NIC carried more than 85%"

log "--- remoteports= and localports="
mp_transfer shares "$BASE,localports=$CLIENT_LIST" $MIB
echo "$shares" | shares_all_at_least 15 ||
	fail "with localports= a client NIC carried less than 15%"
log "ok: with localports= every client NIC carried at least 15%"
