#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# 100 mount/umount cycles of a multipath RPC/RDMA mount (nconnect=4, one
# path per NIC, a file touched each time), then the whole NFS/SunRPC module
# set is unloaded and loaded again.  Proves: nothing leaks that a slab
# cache shows: the object counts of the nfs and rpc caches, and of the
# kmalloc caches our structures come from, are back at their baseline
# after the cycles and again after the reload; unloading finds no objects
# left in a cache and logs no warning; the reloaded modules mount again;
# the RPC clients, transport switches and transports in /sys/kernel/sunrpc
# are as many as at the baseline.
#
# Counts are taken after dropping the dentry and inode caches and
# shrinking each cache (which flushes the per-CPU slabs), so they are
# exact counts of allocated objects.  A cache whose slabs are shared with
# no other cache ("aliases" 0 in /sys/kernel/slab) must come back exactly.
# A cache that shares its slabs with others, and the kmalloc caches, also
# serve the rest of the kernel, which allocates and frees on its own
# (timers, the network, 9p): they may grow by at most CYCLES / 2, so that
# a leak of one object per mount still shows.  They may also end below the
# baseline: a leak only adds objects, and the reload does not recreate
# some objects of the first load at boot.

. ./lib.sh

OPTS="$MP_RDMA,nconnect=4,remoteports=$SERVER_RANGE,localports=$CLIENT_LIST"
CYCLES=100
SLACK=$((CYCLES / 2))
MODULES_UP="nfs nfsv3 rpcrdma"		# as the testbed loads them
MODULES_DOWN="nfsv3 nfsv4 nfs lockd rpcrdma"
# An NFSv4 mount of an earlier test (its flavor probing) loads these;
# they hold sunrpc, and a modprobe -r of nfsv4 leaves them
MODULES_GSS="rpcsec_gss_krb5 auth_rpcgss"

# caches: the slab caches we watch: those of our modules that exist
# here, and the kmalloc caches.
caches() {
	ls /sys/kernel/slab | grep -E '^(rpc_|nfs_|nfs3_|nlm|xprt|svc)' | sort
	ls /sys/kernel/slab | grep -E '^kmalloc-[0-9]+k?$' | sort -t- -k2 -n
}

# slab_counts: "CACHE OBJECTS ALIASES" for each watched cache, exact.
slab_counts() {
	local c

	sync
	echo 2 >/proc/sys/vm/drop_caches
	for c in $(caches); do
		echo 1 >"/sys/kernel/slab/$c/shrink" 2>/dev/null || true
	done
	for c in $(caches); do
		echo "$c $(cut -d' ' -f1 "/sys/kernel/slab/$c/objects")" \
		     "$(cat "/sys/kernel/slab/$c/aliases")"
	done
}

# slab_diff BASE NOW: lines "CACHE BASE NOW DIFF ALIASES BAD" for every
# watched cache; BAD is 1 when the difference is too large.
slab_diff() {
	printf '%s\n%s\n' "$1" "$2" | awk -v slack="$SLACK" '
		{
			if ($1 in base) {
				d = $2 - base[$1]
				shared = ($1 ~ /^kmalloc-/ || $3 > 0)
				bad = shared ? d > slack : d != 0
				printf "%s %d %d %d %d %d\n", $1, base[$1], $2, d, $3, bad
			} else {
				base[$1] = $2
			}
		}'
}

# settled BASE: the counts are within the limits (retried for up to 20 s:
# background users of shared caches settle, and kfree_rcu(), which frees
# the transport switches among others, frees in batches seconds later).
# SLAB_DIFF gets the last comparison.
settled() {
	SLAB_DIFF=$(slab_diff "$1" "$(slab_counts)")
	! echo "$SLAB_DIFF" | awk '$6 == 1 { bad = 1 } END { exit !bad }'
}

# With slub_debug=U on a cache (scripts/testbed --append), debugfs keeps
# its allocation sites: trace_save keeps them at the baseline, and
# trace_growth CACHE names the sites that gained objects since.
TRACES=/sys/kernel/debug/slab
trace_save() {
	local c

	mount -t debugfs none /sys/kernel/debug 2>/dev/null || true
	for c in $(caches); do
		[ ! -r "$TRACES/$c/alloc_traces" ] ||
			cat "$TRACES/$c/alloc_traces" >"/tmp/nfsmp-traces.$c"
	done
}

trace_growth() {
	[ -r "/tmp/nfsmp-traces.$1" ] || return 0
	awk '
		FNR == NR && /^ *[0-9]+ / { b[$2] += $1; next }
		/^ *[0-9]+ / { a[$2] += $1 }
		END { for (k in a) if (a[k] > b[k]) print a[k] - b[k], k }' \
		"/tmp/nfsmp-traces.$1" "$TRACES/$1/alloc_traces" | sort -rn | head -n 8 |
		sed "s/^/slab $1 grew at: /"
}

# check_slabs WHEN BASE: compare with the baseline and log.
check_slabs() {
	local when=$1 c

	if wait_for 20 settled "$2"; then
		log "ok: slab counts $when are back at the baseline"
	else
		fail_later "slab counts $when are not back at the baseline"
	fi
	echo "$SLAB_DIFF" | awk -v w="$when" '
		$4 != 0 || $6 {
			printf "slab %s: %s %d -> %d (%+d, aliases %d)%s\n", w, $1, $2,
			       $3, $4, $5, $6 ? " too many" : ""
		}'
	for c in $(echo "$SLAB_DIFF" | awk '$6 { print $1 }'); do
		trace_growth "$c"
	done
}

# sunrpc_objects: how many RPC clients, transport switches and transports
# SunRPC shows in sysfs.
sunrpc_objects() {
	local d=/sys/kernel/sunrpc

	echo "$(ls "$d/rpc-clients" | wc -l) rpc clients," \
	     "$(ls "$d/xprt-switches" | wc -l) xprt switches," \
	     "$(ls -d "$d"/xprt-switches/*/xprt-* 2>/dev/null | wc -l) xprts"
}

objects_back() {
	OBJECTS=$(sunrpc_objects)
	[ "$OBJECTS" = "$1" ]
}

# check_objects WHEN BASE: the same SunRPC objects as at the baseline.
check_objects() {
	local s

	if wait_for 5 objects_back "$2"; then
		log "ok: sysfs $1: $OBJECTS, as at the baseline"
	else
		fail_later "sysfs $1: $OBJECTS; at the baseline: $2"
		for s in /sys/kernel/sunrpc/xprt-switches/*; do
			echo "${s##*/}: $(tr '\n' ' ' <"$s/xprt_switch_info")" \
			     "$(cat "$s"/xprt-*/dstaddr 2>/dev/null | tr '\n' ' ')"
		done | head -n 20
	fi
}

one_cycle() {
	mount -t nfs -o "$OPTS" "$SERVER:$EXPORT" "$MNT" || fail "mount $1 failed"
	touch "$MNT/cycle.$1" || fail "touch in mount $1 failed"
	rm -f "$MNT/cycle.$1"
	umount_wait "$MNT" 60 || fail "umount $1 failed"
}

nfs_modules_left() {
	local set='sunrpc|nfs|nfsv3|nfsv4|lockd|rpcrdma|grace|nfs_acl'

	awk -v re="^($set|${MODULES_GSS// /|})\$" '$1 ~ re { print $1 }' \
		/proc/modules
}

# gss_loaded: those of MODULES_GSS that are loaded
gss_loaded() {
	local m

	for m in $MODULES_GSS; do
		[ ! -d "/sys/module/$m" ] || echo "$m"
	done
}

# nfs_modules_gone: unload what is left; true once nothing is
nfs_modules_gone() {
	# shellcheck disable=SC2046
	/sbin/modprobe -r $(nfs_modules_left) 2>/dev/null || true
	[ -z "$(nfs_modules_left)" ]
}

main() {
	local base i t0 t1 mark left objs

	mkdir -p "$MNT"
	defer "umount_wait $MNT 30 -f"
	# One cycle first: the first mount starts lockd and caches
	# what later mounts reuse.
	t0=$(now_cs)
	one_cycle 0
	log "one cycle takes $(secs $(($(now_cs) - t0))) s"
	base=$(slab_counts)
	trace_save
	objs=$(sunrpc_objects)
	log "watching $(echo "$base" | wc -l) slab caches:" \
	    "$(echo "$base" | awk '$3 == 0 { printf "%s%s", s, $1; s = " " }') exact," \
	    "the others may grow by up to $SLACK objects"

	t0=$(now_cs)
	for i in $(seq 1 $CYCLES); do
		one_cycle "$i"
	done
	t1=$(now_cs)
	log "$CYCLES cycles in $(secs $((t1 - t0))) s"
	check_slabs "after $CYCLES cycles" "$base"
	check_objects "after $CYCLES cycles" "$objs"

	mark=$(dmesg_mark)
	# shellcheck disable=SC2046
	/sbin/modprobe -r $MODULES_DOWN $(gss_loaded) ||
		fail "cannot unload $MODULES_DOWN $(gss_loaded)"
	left=$(nfs_modules_left)
	if [ -n "$left" ]; then
		# Who holds them, and does it let go (a transport freed by a
		# work item that has not run yet) or not (a leak)?
		for m in $left; do
			log "$m left: refcnt $(cat "/sys/module/$m/refcnt")," \
			    "holders: $(ls "/sys/module/$m/holders" | tr '\n' ' ')"
		done
		wait_for 10 nfs_modules_gone
		left=$(nfs_modules_left)
		[ -z "$left" ] || fail "still loaded 10 s after modprobe -r: $left"
		log "unloaded at a retry: a reference was still let go after umount"
	fi
	log "ok: the NFS/SunRPC modules are unloaded"
	/sbin/modprobe -a $MODULES_UP || fail "cannot load $MODULES_UP again"
	/sbin/modprobe -a nfsv4 2>/dev/null || true
	case "$(cat /sys/module/sunrpc/version 2>/dev/null)" in
	nfs-multipath-*) log "ok: our modules are loaded again" ;;
	*) fail "the sunrpc loaded again is not ours" ;;
	esac
	if kernel_trouble_since "$mark" 'Objects remaining|still has objects'; then
		fail_later "the kernel complained while the modules were unloaded"
	fi

	# The reload created our caches afresh; compare the same way.
	one_cycle again
	check_slabs "after the reload" "$base"
	check_objects "after the reload" "$objs"
	fail_if_any
}

main
