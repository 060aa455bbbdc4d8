#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A mount without remoteports=/localports= behaves as on Debian's own
# modules.  The same plain mounts - NFSv3 and NFSv4.1, over TCP and
# RDMA, with nconnect=1 and 4 - run on our modules,
# then on the stock ones (loaded in place of ours: updates/ moved out),
# in one boot.  For each the test records what a user or a tool can see:
# the layout of the mount's mountstats block (its keys and the number of
# fields of each line, not the counts), the options in /proc/mounts, the
# files of the transport switches and transports in sysfs and what their
# address files say; then the
# errors of nconnect=17 and nconnect=65, and what a mount does when the
# server does not answer, or refuses an RDMA connect (its exit status,
# its message, and how long it took, within a factor of two), and what
# the kernel logged.  Any difference fails.  Not compared, since they are
# not about a mount, and have their reason (the rst lists them too):
#
#   /sys/module/sunrpc/version, and the nfs_multipath field of modinfo:
#       they name the build of our modules, which is their purpose;
#   /sys/module/sunrpc/parameters/path_*: the path monitor's tunables.

. ./lib.sh

OUT=/tmp/nfsmp-plain
DEAD=10.99.0.99		# on the data subnet, no host: nothing answers

# The plain mounts: name and options
CASES="
v3-tcp-1 vers=3,proto=tcp
v3-tcp-4 vers=3,proto=tcp,nconnect=4
v3-rdma-1 vers=3,proto=rdma,port=$RDMA_PORT
v3-rdma-4 vers=3,proto=rdma,port=$RDMA_PORT,nconnect=4
v41-tcp-1 vers=4.1,proto=tcp
v41-tcp-4 vers=4.1,proto=tcp,nconnect=4
v41-rdma-1 vers=4.1,proto=rdma,port=$RDMA_PORT
v41-rdma-4 vers=4.1,proto=rdma,port=$RDMA_PORT,nconnect=4
"

# mountstats_layout: the block of the mount on $MNT, its device and opts
# lines as they are, and of every other line its key and number of fields
mountstats_layout() {
	mount_stats | awk '
		$1 == "device" || $1 == "opts:" { print; next }
		{ print $1, NF }' |
		sed 's/,clientaddr=[^,]*//'
}

# sysfs_layout: the sets of files that the transport switches and the
# transports have
sysfs_layout() {
	local d

	for d in /sys/kernel/sunrpc/xprt-switches/switch-*; do
		[ -d "$d" ] || continue
		echo "switch: $(cd "$d" && ls -d -- * | sed 's/^xprt-[0-9]*-/xprt-N-/' |
			sort | tr '\n' ' ')"
	done | sort -u
	for d in /sys/kernel/sunrpc/xprt-switches/switch-*/xprt-*; do
		[ -d "$d" ] || continue
		echo "xprt: $(cd "$d" && ls | sort | tr '\n' ' ')"
	done | sort -u
}

# sysfs_values: what the transports' address files say ("<not a socket>"
# for RPC/RDMA on stock)
sysfs_values() {
	local d

	for d in /sys/kernel/sunrpc/xprt-switches/switch-*/xprt-*; do
		[ -d "$d" ] || continue
		echo "xprt: dstaddr $(cat "$d/dstaddr") srcaddr $(cat "$d/srcaddr")"
	done | sort -u
}

# kernel_said MARK: what NFS, SunRPC and RDMA logged since MARK, without
# times (the rest of the kernel, "random: crng init done" say, comes
# when it comes)
kernel_said() {
	dmesg_since "$1" | sed 's/^\[[ 0-9.]*\] //' |
		grep -i -E 'nfs|rpc|lockd|xprt|rdma|svc|sunrpc' |
		grep -v -e 'loading out-of-tree module' -e 'module verification failed' || true
}

# observe NAME OPTIONS: what the plain mount NAME shows, in $OUT.$WHICH
observe() {
	local name=$1 opts=$2

	mount -t nfs -o "$opts" "$SERVER:$EXPORT" "$MNT" ||
		fail "$WHICH: mount -o $opts failed"
	touch_all_xprts
	{
		echo "== $name"
		echo "options: $(mount_opts | sed 's/,clientaddr=[^,]*//')"
		mountstats_layout
		sysfs_layout
		sysfs_values
	} >>"$OUT.$WHICH"
	umount_wait "$MNT" 30 || fail "$WHICH: umount of $name failed"
}

# refused NAME OPTIONS: a mount that must fail; its status and message
refused() {
	local name=$1 opts=$2 rc=0 msg t0

	t0=$(now_cs)
	msg=$(timeout -k 5 200 mount -t nfs -o "$opts" "$3:$EXPORT" "$MNT" 2>&1) || rc=$?
	if [ "$rc" = 0 ]; then
		umount_wait "$MNT" 30 -f || true
		fail "$WHICH: mount -o $opts worked"
	fi
	echo "== $name: exit $rc: $msg" >>"$OUT.$WHICH"
	echo "$name $(($(now_cs) - t0))" >>"$OUT.$WHICH.time"
}

run_all() {
	local name opts mark

	: >"$OUT.$WHICH"
	: >"$OUT.$WHICH.time"
	mark=$(dmesg_mark)
	while read -r name opts; do
		[ -n "$name" ] && observe "$name" "$opts"
	done <<-EOF
	$CASES
	EOF
	refused nconnect-17 vers=3,proto=tcp,nconnect=17 "$SERVER"
	refused nconnect-65 vers=3,proto=tcp,nconnect=65 "$SERVER"
	refused v41-nconnect-17 vers=4.1,proto=tcp,nconnect=17 "$SERVER"
	# Only NFSv4 has the kernel connect first: v3 asks rpcbind and
	# mountd from user space
	refused dead-tcp vers=4.1,proto=tcp,retry=0 "$DEAD"
	# A port nothing listens on: the CM refuses the connect
	refused refused-rdma vers=4.1,proto=rdma,port=$((RDMA_PORT + 1)),retry=0 "$SERVER"
	{
		echo "== sysfs"
		sysfs_layout
		echo "== kernel log"
		kernel_said "$mark"
	} >>"$OUT.$WHICH"
	log "$WHICH: $(grep -c '^== ' "$OUT.$WHICH") observations"
}

# times_close: each refused mount took as long on ours as on stock,
# within a factor of two (and 2 s)
times_close() {
	awk '
		FNR == NR { t[$1] = $2; next }
		{
			a = t[$1]; b = $2
			printf "refused %s: ours %.1f s, stock %.1f s\n", $1, a / 100, b / 100
			if (a > 2 * b + 200 || b > 2 * a + 200) bad = 1
		}
		END { exit bad }' "$OUT.ours.time" "$OUT.stock.time"
}

main() {
	mkdir -p "$MNT"
	on-server "cat /proc/fs/nfsd/versions" | grep -q '+4.1' ||
		fail "the server does not serve NFSv4.1"
	defer_check "stack_reload ours"
	# Both runs start from modules loaded afresh
	stack_reload ours || fail "cannot load our modules"
	WHICH=ours
	run_all
	stack_reload stock || fail "cannot load the stock modules"
	WHICH=stock
	run_all
	stack_reload ours || fail "cannot load our modules"
	if ! diff -u "$OUT.stock" "$OUT.ours" | sed 's/^/diff: /'; then
		:
	fi
	cmp -s "$OUT.stock" "$OUT.ours" ||
		fail "a plain mount on our modules differs from one on Debian's"
	log "ok: $(grep -c '^== ' "$OUT.ours") plain mounts and refusals look the same" \
		"on our modules and on stock"
	times_close || fail "a refused mount took much longer or shorter than on stock"
	log "ok: the refused mounts took as long as on stock"
}

main
