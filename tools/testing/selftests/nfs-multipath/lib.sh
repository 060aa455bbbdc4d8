# SPDX-License-Identifier: GPL-2.0
#
# Shared helpers for the nfs-multipath selftests.  Sourced by each test;
# runs inside the client guest of scripts/testbed, which exports
# SERVER_ADDRS, CLIENT_ADDRS, CLIENT_IFS, EXPORT and provides on-server.
#
# A test script exits 0 when it passes and non-zero otherwise.  Diagnostics
# go to stdout; the runner turns them into KTAP "# " lines.

set -eu

# kselftest exit codes
ksft_pass=0
ksft_fail=1

MNT=${MNT:-/mnt/nfsmp-test}
RDMA_PORT=${RDMA_PORT:-20049}
SERVER=${SERVER:-${SERVER_ADDRS%% *}}

# Cleanups run in reverse order of registration on exit.
__cleanups=""

defer() {
	__cleanups="$*
$__cleanups"
}

__run_cleanups() {
	local rc=$? cmd

	set +e
	while IFS= read -r cmd; do
		[ -n "$cmd" ] && eval "$cmd" >/dev/null 2>&1
	done <<EOT
$__cleanups
EOT
	exit "$rc"
}
trap __run_cleanups EXIT
trap 'exit 130' INT TERM

log() {
	echo "$*"
}

fail() {
	echo "FAIL: $*"
	exit "$ksft_fail"
}

# check DESCRIPTION COMMAND...: run a check, log it, fail the test if false.
check() {
	local what=$1

	shift
	if "$@"; then
		log "ok: $what"
	else
		fail "$what"
	fi
}

# nfs_mount OPTIONS [SERVER]: mount $EXPORT of SERVER (default: $SERVER)
# on $MNT and register the umount.
nfs_mount() {
	local opts=$1 srv=${2:-$SERVER}

	mkdir -p "$MNT"
	log "mount -t nfs -o $opts $srv:$EXPORT $MNT"
	mount -t nfs -o "$opts" "$srv:$EXPORT" "$MNT" || fail "mount -o $opts failed"
	defer "umount -f $MNT"
}

nfs_umount() {
	umount "$MNT" || fail "umount $MNT failed"
}

# make_data FILE MIB: FILE gets MIB mebibytes of random data.
make_data() {
	head -c "$(($2 * 1024 * 1024))" /dev/urandom >"$1"
}

sha() {
	sha256sum "$1" | cut -d' ' -f1
}

server_sha() {
	on-server sha256sum "$1" | cut -d' ' -f1
}

# mountstats_xprts PROTO: count the "xprt: PROTO" lines of the mount on $MNT.
mountstats_xprts() {
	awk -v mnt="$MNT" -v proto="$1" '
		/^device / { cur = ($5 == mnt) }
		cur && $1 == "xprt:" && $2 == proto { n++ }
		END { print n + 0 }' /proc/self/mountstats
}

# Connected RDMA cm_ids on the server, one "SERVERADDR CLIENTADDR" line each,
# for the NFS/RDMA port.  Seen from outside: the server's own RDMA core.
server_rdma_conns() {
	on-server rdma resource show cm_id | awk -v port="$RDMA_PORT" '
		{
			st = src = dst = ""
			for (i = 1; i < NF; i++) {
				if ($i == "state") st = $(i + 1)
				if ($i == "src-addr") src = $(i + 1)
				if ($i == "dst-addr") dst = $(i + 1)
			}
		}
		st == "CONNECT" && src ~ (":" port "$") {
			sub(/:[0-9]+$/, "", src); sub(/:[0-9]+$/, "", dst)
			print src, dst
		}'
}

# Established TCP connections to the server's NFS port, "SERVER CLIENT" lines.
server_tcp_conns() {
	on-server ss -Htn state established '( sport = :2049 )' | awk '
		{
			l = $(NF - 1); p = $NF
			sub(/:[0-9]+$/, "", l); sub(/:[0-9]+$/, "", p)
			print l, p
		}'
}

# Bytes sent plus received on a client interface.
if_bytes() {
	echo $(($(cat "/sys/class/net/$1/statistics/rx_bytes") +
		$(cat "/sys/class/net/$1/statistics/tx_bytes")))
}

# rw_verify OPTIONS MIB: write MIB MiB of random data through a fresh mount,
# remount so the read comes over the wire, and compare checksums on the
# client and the server.
rw_verify() {
	local opts=$1 mib=$2 src=/tmp/nfsmp-data want got srv

	make_data "$src" "$mib"
	defer "rm -f $src"
	want=$(sha "$src")
	nfs_mount "$opts"
	dd if="$src" of="$MNT/rw-verify" bs=1M oflag=direct 2>/dev/null ||
		fail "write of $mib MiB failed"
	nfs_umount
	srv=$(server_sha "$EXPORT/rw-verify")
	nfs_mount "$opts"
	got=$(dd if="$MNT/rw-verify" bs=1M iflag=direct 2>/dev/null | sha256sum | cut -d' ' -f1)
	log "sha256 source $want"
	log "sha256 client $got"
	log "sha256 server $srv"
	[ "$want" = "$srv" ] || fail "server copy differs from the source"
	[ "$want" = "$got" ] || fail "data read back differs from the source"
	rm -f "$MNT/rw-verify"
}

# wait_for SECONDS COMMAND...: poll COMMAND once a second until it succeeds.
wait_for() {
	local n=$1

	shift
	while ! "$@"; do
		n=$((n - 1))
		[ "$n" -gt 0 ] || return 1
		sleep 1
	done
}

# touch_all_xprts: enough RPCs that the round-robin iterator has used, and
# so connected, every transport of the mount.
touch_all_xprts() {
	local i

	for i in $(seq 1 32); do
		dd if=/dev/zero of="$MNT/touch.$i" bs=4k count=1 2>/dev/null
		stat "$MNT/touch.$i" >/dev/null
	done
	rm -f "$MNT"/touch.*
}
