#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# nconnect=8 over RDMA with remoteports= all server addresses and
# localports= all client addresses: the server holds exactly 2 connections
# on each of its addresses and from each client address; 256 MiB written
# and read back intact; every client NIC carries at least 15% of the bytes.

. ./lib.sh

OPTS="$MP_RDMA,nconnect=8,remoteports=$SERVER_RANGE,localports=$CLIENT_LIST"

nfs_mount "$OPTS"
touch_all_xprts
wait_spread rdma 2 2
nfs_umount
mp_transfer shares "$OPTS" 256
echo "$shares" | shares_all_at_least 15 ||
	fail "a client NIC carried less than 15% of the bytes"
log "ok: every client NIC carried at least 15% of the bytes"
