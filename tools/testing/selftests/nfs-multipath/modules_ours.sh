#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The client runs our module set: every sunrpc-dependent module that is
# loaded comes from updates/ and carries our stamp, and the set is whole.

. ./lib.sh

check_module() {
	local m=$1 file stamp

	file=$(modinfo -F filename "$m")
	stamp=$(modinfo -F nfs_multipath "$m" || true)
	log "$m: $file ${stamp:+(nfs_multipath=$stamp)}"
	case "$file" in
	*/updates/*) ;;
	*) fail "$m is not loaded from updates/" ;;
	esac
	[ -n "$stamp" ] || fail "$m has no nfs_multipath stamp"
	if [ -d "/sys/module/$m" ]; then
		[ "$(cat "/sys/module/$m/version")" = "nfs-multipath-$stamp" ] ||
			fail "/sys/module/$m/version is not our stamp"
	fi
}

main() {
	local m ver

	ver=$(cat /sys/module/sunrpc/version 2>/dev/null || true)
	log "/sys/module/sunrpc/version: ${ver:-<none>}"
	case "$ver" in
	nfs-multipath-*) ;;
	*) fail "the loaded sunrpc is not ours" ;;
	esac
	for m in sunrpc rpcrdma auth_rpcgss rpcsec_gss_krb5 lockd grace nfs_acl \
		 nfs nfsv3 nfsv4 nfsd; do
		check_module "$m"
	done
	# Whatever else is loaded and links to sunrpc must be ours too, or
	# its symbol CRCs would not match.
	for m in $(awk '$4 ~ /sunrpc/ { print $1 }' /proc/modules); do
		check_module "$m"
	done
}

main
