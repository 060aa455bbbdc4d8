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
	nfs_mount_on "$MNT" "$@"
}

# nfs_mount_on DIR OPTIONS [SERVER [PATH]]: the same on DIR, of PATH
# (default: $EXPORT).
nfs_mount_on() {
	local dir=$1 opts=$2 srv=${3:-$SERVER} path=${4:-$EXPORT}

	mkdir -p "$dir"
	log "mount -t nfs -o $opts $srv:$path $dir"
	mount -t nfs -o "$opts" "$srv:$path" "$dir" || fail "mount -o $opts failed"
	defer "umount -f $dir"
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
	on-server "ss -Htn state established '( sport = :2049 )'" | awk '
		{
			l = $(NF - 1); p = $NF
			sub(/:[0-9]+$/, "", l); sub(/:[0-9]+$/, "", p)
			gsub(/\[|\]/, "", l); gsub(/\[|\]/, "", p)
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

# Multipath option prefixes and the testbed's endpoint sets: the server
# addresses as one range, the client addresses as a list.
MP_RDMA="vers=3,proto=rdma,port=$RDMA_PORT"
MP_TCP="vers=3,proto=tcp"
SERVER_RANGE=$(echo $SERVER_ADDRS | awk '{ print $1 "-" $NF }')
CLIENT_LIST=$(echo $CLIENT_ADDRS | tr ' ' '~')

# mountstats_pairs [DIR]: "REMOTE LOCAL" for each endpoint: line of the
# mount on DIR (default: $MNT), the same form as server_*_conns.
mountstats_pairs() {
	awk -v mnt="${1:-$MNT}" '
		/^device / { cur = ($5 == mnt) }
		cur && $1 == "endpoint:" { print $6, $4 }' /proc/self/mountstats
}

# mountstats_endpoints [DIR]: the endpoint: lines of the mount on DIR.
mountstats_endpoints() {
	awk -v mnt="${1:-$MNT}" '
		/^device / { cur = ($5 == mnt) }
		cur && $1 == "endpoint:"' /proc/self/mountstats
}

# mount_opts [DIR]: the options /proc/mounts shows for DIR.
mount_opts() {
	awk -v mnt="${1:-$MNT}" '$2 == mnt { print $4 }' /proc/mounts
}

# mount_opt NAME [DIR]: the value of option NAME of the mount on DIR.
mount_opt() {
	mount_opts "${2:-$MNT}" | tr ',' '\n' | sed -n "s/^$1=//p"
}

# each_n_times N COLUMN VALUE...: on stdin, each VALUE is in COLUMN of
# exactly N lines, and no other value is.
each_n_times() {
	local n=$1 col=$2

	shift 2
	awk -v n="$n" -v col="$col" -v want="$*" '
		{ seen[$col]++ }
		END {
			k = split(want, w, " ")
			for (i = 1; i <= k; i++) {
				if (seen[w[i]] != n)
					bad = 1
				delete seen[w[i]]
			}
			for (v in seen)
				bad = 1
			exit bad
		}'
}

# Server-side view of the connections of one protocol, "SERVER CLIENT".
server_conns() {
	case "$1" in
	rdma) server_rdma_conns ;;
	*) server_tcp_conns ;;
	esac
}

# conns_spread PROTO N_PER_SERVER N_PER_CLIENT: the server holds exactly
# N connections per server address and per client address.
conns_spread() {
	local conns

	conns=$(server_conns "$1")
	echo "$conns" | each_n_times "$2" 1 $SERVER_ADDRS &&
		echo "$conns" | each_n_times "$3" 2 $CLIENT_ADDRS
}

# wait_spread PROTO N_PER_SERVER N_PER_CLIENT: poll for conns_spread.
wait_spread() {
	if ! wait_for 30 conns_spread "$@"; then
		server_conns "$1" | sort | sed 's/^/server conn: /'
		fail "server does not see $2 conns per server, $3 per client address"
	fi
	server_conns "$1" | sort | uniq -c | sed 's/^/server conn: /'
	log "ok: server sees $2 $1 conns per server address, $3 per client address"
}

# dmesg_mark: the number of the next kernel log line, for dmesg_since.
dmesg_mark() {
	echo $(($(dmesg | wc -l) + 1))
}

dmesg_since() {
	dmesg | tail -n +"$1"
}

# nic_counters: "IF BYTES" for each client data interface, on one line.
nic_counters() {
	local i

	for i in $CLIENT_IFS; do
		printf '%s %s ' "$i" "$(if_bytes "$i")"
	done
	echo
}

# nic_shares BEFORE AFTER: "IF BYTES PERCENT" lines from two nic_counters.
nic_shares() {
	echo "$1 $2" | awk '
		{
			h = NF / 2
			for (i = 1; i < h; i += 2) {
				d[i] = $(h + i + 1) - $(i + 1)
				tot += d[i]
			}
			for (i = 1; i < h; i += 2)
				printf "%s %d %.1f\n", $i, d[i],
				       tot ? 100 * d[i] / tot : 0
		}'
}

# shares_all_at_least PCT: every interface in nic_shares output on stdin
# carried at least PCT percent.
shares_all_at_least() {
	awk -v p="$1" '$3 < p { bad = 1 } END { exit bad || !NR }'
}

# shares_one_over PCT: one interface carried more than PCT percent.
shares_one_over() {
	awk -v p="$1" '$3 > p { ok = 1 } END { exit !ok }'
}

# chunk_sums FILE MIB STREAMS: the sha256 of each chunk, in order.
chunk_sums() {
	local chunk=$(($2 / $3)) k

	for k in $(seq 0 $(($3 - 1))); do
		dd if="$1" bs=1M skip=$((k * chunk)) count=$chunk 2>/dev/null |
			sha256sum | cut -d' ' -f1
	done
}

# par_write SRC DST MIB STREAMS: copy SRC to DST with STREAMS parallel
# O_DIRECT writers, one chunk each, so that many RPCs are in flight.
par_write() {
	local chunk=$(($3 / $4)) k pids="" p rc=0

	for k in $(seq 0 $(($4 - 1))); do
		dd if="$1" of="$2" bs=1M skip=$((k * chunk)) seek=$((k * chunk)) \
		   count=$chunk conv=notrunc oflag=direct 2>/dev/null &
		pids="$pids $!"
	done
	for p in $pids; do
		wait "$p" || rc=1
	done
	return $rc
}

# par_read_sums FILE MIB STREAMS: read FILE with STREAMS parallel O_DIRECT
# readers and print the sha256 of each chunk, in order.
par_read_sums() {
	local chunk=$(($2 / $3)) k pids="" p rc=0

	for k in $(seq 0 $(($3 - 1))); do
		dd if="$1" bs=1M skip=$((k * chunk)) count=$chunk iflag=direct \
		   2>/dev/null | sha256sum | cut -d' ' -f1 >"/tmp/nfsmp-sum.$k" &
		pids="$pids $!"
	done
	for p in $pids; do
		wait "$p" || rc=1
	done
	for k in $(seq 0 $(($3 - 1))); do
		cat "/tmp/nfsmp-sum.$k"
	done
	rm -f /tmp/nfsmp-sum.*
	return $rc
}

# mp_transfer OPTIONS MIB PROTO: through a mount with OPTIONS, write MIB
# MiB of random data with 8 parallel streams, remount, read it back over
# the wire, and check the data at the source, the server and the read.
# The per-NIC byte shares of the transfer are left in NIC_SHARES; the
# mount is gone afterwards.
mp_transfer() {
	local opts=$1 mib=$2 src=/tmp/nfsmp-data file want got srv sum before
	local streams=8

	file=$MNT/mp-transfer
	make_data "$src" "$mib"
	defer "rm -f $src"
	want=$(chunk_sums "$src" "$mib" $streams)
	nfs_mount "$opts"
	touch_all_xprts
	before=$(nic_counters)
	par_write "$src" "$file" "$mib" $streams || fail "parallel write failed"
	nfs_umount
	nfs_mount "$opts"
	got=$(par_read_sums "$file" "$mib" $streams) || fail "parallel read failed"
	NIC_SHARES=$(nic_shares "$before" "$(nic_counters)")
	srv=$(server_sha "$EXPORT/mp-transfer")
	sum=$(sha "$src")
	log "sha256 source $sum"
	log "sha256 server $srv"
	[ "$sum" = "$srv" ] || fail "server copy differs from the source"
	[ "$want" = "$got" ] || fail "data read back differs from the source"
	log "ok: $mib MiB verified at the source, the server and read back"
	echo "$NIC_SHARES" | sed 's/^/nic share: /; s/$/ %/'
	rm -f "$file"
	nfs_umount
}
