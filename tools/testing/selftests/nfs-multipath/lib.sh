# SPDX-License-Identifier: GPL-2.0
#
# Shared helpers for the nfs-multipath selftests.  Sourced by each test;
# runs inside the client guest of scripts/testbed, which exports
# SERVER_ADDRS, CLIENT_ADDRS, CLIENT_IFS, EXPORT and provides on-server.
#
# A test script exits 0 when it passes and non-zero otherwise.  Diagnostics
# go to stdout; the runner turns them into KTAP "# " lines.
#
# A helper prints its result.  One that logs as it works, or that polls
# and must not fork, gives its result to a variable of the caller whose
# name it is given (as read and printf -v do).  Names that start with
# "__" are the library's own state.

set -eu

# kselftest exit codes
ksft_pass=0
ksft_fail=1
ksft_skip=4

MNT=${MNT:-/mnt/nfsmp-test}

# The timed limits of the tests (detection, rejoin, the largest request)
# are Debian's kernel's.  make check-debug's client kernel, with KASAN,
# lockdep and kmemleak, does the same work about three times slower
# under TCG (its largest mp_carrier request took 3659 ms where Debian's
# kernel took 1041 to 1457, a client carrier loss 2.5 s to detect where
# it took 0.5 to 1.2): there each limit is three times as long, so that
# the run judges lifetimes, and still fails a stall.
TIME_SCALE=1
case "$(uname -r)" in
*-nfsmp-debug) TIME_SCALE=3 ;;
esac
# The path monitor's own time base, path_timeout, scales the same way
# there, as an administrator of so slow a machine would set it: at its
# default of 500 ms, the debug kernel's replies come late often enough
# that healthy paths are declared down under load (mp_carrier: all three
# healthy paths once while a fourth lost its cable).  Tests that set it
# restore what they found.
__pt=/sys/module/sunrpc/parameters/path_timeout
if [ "$TIME_SCALE" != 1 ] && [ -w "$__pt" ] && [ "$(cat "$__pt")" = 500 ]; then
	echo $((500 * TIME_SCALE)) >"$__pt"
fi

# limit N: the timed limit N (in any unit) on this kernel
limit() {
	echo $(($1 * TIME_SCALE))
}
RDMA_PORT=${RDMA_PORT:-20049}
SERVER=${SERVER:-${SERVER_ADDRS%% *}}

# Cleanups run in reverse order of registration on exit.  Those of defer
# may fail; those of defer_check must not: a test that passed fails when
# one of them does (a final umount that fails or hangs, say).
__cleanups=""

defer() {
	__cleanups="$*
$__cleanups"
}

defer_check() {
	__cleanups="!$*
$__cleanups"
}

__run_cleanups() {
	local rc=$? cmd

	set +e
	while IFS= read -r cmd; do
		case "$cmd" in
		"") ;;
		!*)
			if ! eval "${cmd#!}" >/tmp/.nfsmp-cleanup 2>&1; then
				sed 's/^/cleanup: /' /tmp/.nfsmp-cleanup
				echo "FAIL: cleanup failed: ${cmd#!}"
				[ "$rc" != 0 ] || rc=$ksft_fail
			fi
			;;
		*) eval "$cmd" >/dev/null 2>&1 ;;
		esac
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

# skip REASON: the test cannot run here.  run_tests.sh counts a test as
# skipped only when it said so this way: any other exit 4 is a failure.
skip() {
	echo "SKIP: $*"
	exit "$ksft_skip"
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
	defer_check "umount_left $dir"
}

# umount_left DIR: umount DIR if it is still mounted there, within 30 s;
# false when that fails.  The final umount of a test.
umount_left() {
	local rc=0

	grep -q " $1 nfs" /proc/mounts || return 0
	umount_wait "$1" 30 || rc=$?
	[ "$rc" = 0 ] && return 0
	echo "umount $1 failed ($rc); forcing it"
	umount_wait "$1" 30 -f || true
	return "$rc"
}

nfs_umount() {
	umount_wait "$MNT" 60 || fail "umount $MNT failed"
}

# umount_wait DIR SECONDS [-f]: umount DIR, but wait at most SECONDS: a
# umount stuck in the kernel cannot be killed.  Then its stack is shown
# and the status is 124.
umount_wait() {
	local dir=$1 pid p rc=0 out=/tmp/nfsmp-umount.out

	# Not on our stdout: a process stuck for good would hold it open.
	umount ${3:-} "$dir" >"$out" 2>&1 &
	pid=$!
	if ! wait_for_cs $(($2 * 100)) pid_gone "$pid"; then
		log "umount $dir still hangs after $2 s"
		for p in $(pgrep umount); do
			sed "s/^/umount $p stack: /" "/proc/$p/stack"
		done
		return 124
	fi
	wait "$pid" || rc=$?
	cat "$out"
	return $rc
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

# mount_stats [DIR]: the lines of /proc/self/mountstats about the mount on
# DIR (default: $MNT), its "device" line first.  Every reader of
# mountstats here goes through it.
mount_stats() {
	awk -v mnt="${1:-$MNT}" '/^device / { cur = ($5 == mnt) } cur' /proc/self/mountstats
}

# cm_ids: `rdma resource show cm_id` on stdin, one "DEV STATE COMM SRC DST
# IDN" line per cm_id, SRC and DST as ADDR:PORT, IDN the RDMA core's id of
# the cm_id ("-" when not shown).  The one parser of that output.
cm_ids() {
	awk '{
		dev = $2; st = comm = src = dst = idn = "-"
		sub(/\/.*/, "", dev)
		for (i = 1; i < NF; i++) {
			if ($i == "state") st = $(i + 1)
			if ($i == "comm") comm = $(i + 1)
			if ($i == "src-addr") src = $(i + 1)
			if ($i == "dst-addr") dst = $(i + 1)
			if ($i == "cm-idn") idn = $(i + 1)
		}
		if ($1 == "link") print dev, st, comm, src, dst, idn
	}'
}

# server_rdma_links [K]: the server's (node K's, default 1) connected
# cm_ids on the NFS/RDMA port, one "SERVERADDR:PORT CLIENTADDR:PORT" line
# each.  Seen from outside: the server's own RDMA core.  Leaves out the
# connections that an earlier test left behind (SERVER_PRIOR).
server_rdma_links() {
	local cms

	cms=$(server_rdma_cms "${1:-1}") || return 1
	echo "$cms" | awk -v prior=",$SERVER_PRIOR" 'NF && !index(prior, "," $3 ",") {
		print $1, $2
	}'
}

# server_rdma_cms K: all of node K's connected cm_ids on the NFS/RDMA
# port, "SERVERADDR:PORT CLIENTADDR:PORT K:DEV:IDN" (K:SERVER-CLIENT
# without an IDN): the third names the cm_id for SERVER_PRIOR, even after
# its client's port is taken again.  A cm_id's number is its device's
# (restrack counts per device): the same number names another cm_id on
# another device.
server_rdma_cms() {
	local out

	out=$(on-server "$1" rdma resource show cm_id) || return 1
	echo "$out" | cm_ids | awk -v p=":$RDMA_PORT" -v k="$1" '
		$2 == "CONNECT" && substr($4, length($4) - length(p) + 1) == p {
			print $4, $5, k ":" ($6 == "-" ? $4 "-" $5 : $1 ":" $6)
		}'
}

# server_rdma_conns [K]: connected RDMA cm_ids on the server (node K),
# one "SERVERADDR CLIENTADDR" line each, for the NFS/RDMA port.
server_rdma_conns() {
	local links

	links=$(server_rdma_links "${1:-1}") || return 1
	echo "$links" | sed -E 's/:[0-9]+( |$)/\1/g'
}

# client_rdma_links [ADDR]: the client's connected rpcrdma cm_ids from
# ADDR (default: from any), one "ADDR:PORT" each: what names one
# connection on both sides
client_rdma_links() {
	local ids

	ids=$(rdma resource show cm_id) || return 1
	echo "$ids" | cm_ids | awk -v a="${1:-}" '
		$2 == "CONNECT" && $3 == "[rpcrdma]" &&
		(a == "" || index($4, a ":") == 1) {
			print $4
		}'
}

# server_rdma_stale [K]: the connections of server node K (default 1)
# whose client end the client no longer holds, "SERVER:PORT CLIENT:PORT".
# The client's CM stops resending a DREQ once rpcrdma destroys the cm_id,
# right after rdma_disconnect(); when that one datagram is lost, the
# (stock) server keeps the connection until it next sends on it, which
# an idle one never does.
server_rdma_stale() {
	local links mine

	links=$(server_rdma_links "${1:-1}") || return 1
	mine=$(client_rdma_links) || return 1
	echo "$links" | awk -v mine=" $(echo $mine) " 'NF && !index(mine, " " $2 " ")'
}

# server_rdma_stale_cms K: server_rdma_cms of node K whose client end the
# client no longer holds, SERVER_PRIOR or not
server_rdma_stale_cms() {
	local cms mine

	cms=$(server_rdma_cms "$1") || return 1
	mine=$(client_rdma_links) || return 1
	echo "$cms" | awk -v mine=" $(echo $mine) " 'NF && !index(mine, " " $2 " ")'
}

# server_holds LINKS...: how many of the client's LINKS (client_rdma_links)
# the server still holds connected; -1 when it cannot be asked
server_holds() {
	local links

	links=$(server_rdma_links) || { echo -1; return 1; }
	echo "$links" | awk -v want=" $* " 'index(want, " " $2 " ")' | wc -l
}

# server_holds_none LINKS...: for wait_for
server_holds_none() {
	[ "$(server_holds "$@")" -eq 0 ]
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

# wait_for SECONDS COMMAND...: wait_for_cs, once a second.
wait_for() {
	local s=$1

	shift
	wait_for_cs -i 1 $((s * 100)) "$@"
}

# pid_gone PID: process PID has ended.
pid_gone() {
	! kill -0 "$1" 2>/dev/null
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
	mountstats_endpoints "${1:-}" | awk '{ print $6, $4 }'
}

# mountstats_endpoints [DIR]: the endpoint: lines of the mount on DIR.
mountstats_endpoints() {
	mount_stats "${1:-}" | awk '$1 == "endpoint:"'
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

# rdma_conns_from [ADDR]: how many RDMA connections the server holds from
# client address ADDR (default: from any)
rdma_conns_from() {
	local conns

	# -1 when the server cannot be asked: no comparison holds then
	conns=$(server_rdma_conns) || { echo -1; return 1; }
	echo "$conns" | awk -v a="${1:-}" 'NF && (a == "" || $2 == a)' | wc -l
}

# rdma_conns_cmp OP N [ADDR]: rdma_conns_from ADDR compares to N by test's
# OP (-eq, -ge, -gt), for wait_for
rdma_conns_cmp() {
	[ "$(rdma_conns_from "${3:-}")" "$1" "$2" ]
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
		dump_paths
		fail "server does not see $2 conns per server, $3 per client address"
	fi
	server_conns "$1" | sort | uniq -c | sed 's/^/server conn: /'
	log "ok: server sees $2 $1 conns per server address, $3 per client address"
}

# What the kernel says when something is wrong: a WARN, a BUG or an oops,
# slab corruption found by slub_debug, a KFENCE report, a hung task, a
# lockdep splat, a leak.  run_tests.sh judges every test by it, and
# takes it from the lines that start with KERNEL_TROUBLE, as the host's
# scripts/testbed does for the consoles.
KERNEL_TROUBLE='WARNING:|BUG:|BUG [^ ]+ \(|Oops|general protection|Call Trace|RIP:'
KERNEL_TROUBLE+='|Poison overwritten|Redzone|KFENCE:|INFO: task .* blocked'
KERNEL_TROUBLE+='|possible circular locking|kmemleak:|Kernel panic'

# kernel_trouble_since MARK [ERE]: print the kernel log lines since MARK
# that show trouble, or match ERE too; true when there are any.
kernel_trouble_since() {
	dmesg_since "$1" | grep -E "$KERNEL_TROUBLE${2:+|$2}"
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
	bytes_shares "$(echo "$1 $2" | awk '
		{
			h = NF / 2
			for (i = 1; i < h; i += 2)
				print $i, $(h + i + 1) - $(i + 1)
		}')"
}

# bytes_shares LINES: "IF BYTES PERCENT" lines from "IF BYTES" LINES
bytes_shares() {
	echo "$1" | awk '{ i[NR] = $1; b[NR] = $2; t += $2 } END {
		for (k = 1; k <= NR; k++)
			printf "%s %d %.1f\n", i[k], b[k], t ? 100 * b[k] / t : 0 }'
}

# shares_all_at_least PCT: every interface in nic_shares output on stdin
# carried at least PCT percent.
shares_all_at_least() {
	awk -v p="$1" '$3 < p { bad = 1 } END { exit bad || !NR }'
}

# chunk_sums FILE MIB STREAMS [KIB]: the sha256 of each chunk, in order,
# read KIB KiB at a time (default 1024), as par_read_sums reads them.
chunk_sums() {
	local bs=${4:-1024} k chunk

	chunk=$(($2 * 1024 / bs / $3))
	for k in $(seq 0 $(($3 - 1))); do
		dd if="$1" bs=${bs}k skip=$((k * chunk)) count=$chunk 2>/dev/null |
			sha256sum | cut -d' ' -f1
	done
}

# par_write SRC DST MIB STREAMS [KIB]: copy SRC to DST with STREAMS
# parallel O_DIRECT writers, one chunk each, so that many RPCs are in
# flight; each write is KIB KiB (default 1024), one RPC up to the wsize.
par_write() {
	local bs=${5:-1024} k pids="" p rc=0 chunk

	chunk=$(($3 * 1024 / bs / $4))
	for k in $(seq 0 $(($4 - 1))); do
		dd if="$1" of="$2" bs=${bs}k skip=$((k * chunk)) seek=$((k * chunk)) \
		   count=$chunk conv=notrunc oflag=direct 2>/dev/null &
		pids="$pids $!"
	done
	for p in $pids; do
		wait "$p" || rc=1
	done
	return $rc
}

# par_read_sums FILE MIB STREAMS [KIB]: read FILE with STREAMS parallel
# O_DIRECT readers, KIB KiB a read (default 1024), and print the sha256
# of each chunk, in order.
par_read_sums() {
	local bs=${4:-1024} k pids="" p rc=0 chunk

	chunk=$(($2 * 1024 / bs / $3))
	for k in $(seq 0 $(($3 - 1))); do
		dd if="$1" bs=${bs}k skip=$((k * chunk)) count=$chunk iflag=direct \
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

# mp_transfer VAR OPTIONS MIB: through a mount with OPTIONS, write MIB
# MiB of random data with 8 parallel streams, remount, read it back over
# the wire, and check the data at the source, the server and the read.
# VAR gets the per-NIC byte shares of the transfer (nic_shares); the
# mount is gone afterwards.
mp_transfer() {
	local -n __shares=$1
	local opts=$2 mib=$3 src=/tmp/nfsmp-data file want got srv sum before
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
	__shares=$(nic_shares "$before" "$(nic_counters)")
	srv=$(server_sha "$EXPORT/mp-transfer")
	sum=$(sha "$src")
	log "sha256 source $sum"
	log "sha256 server $srv"
	[ "$sum" = "$srv" ] || fail "server copy differs from the source"
	[ "$want" = "$got" ] || fail "data read back differs from the source"
	log "ok: $mib MiB verified at the source, the server and read back"
	echo "$__shares" | sed 's/^/nic share: /; s/$/ %/'
	rm -f "$file"
	nfs_umount
}

# ---------------------------------------------------------------- path health
#
# An endpoint: line, split by white space:
#   endpoint: ID NETID SRC -> DST port PORT XPRTSTATE path STATE downs N moved M
#             node NODE near N far M
# $2 the transport's id (its xprt-ID-* directory in sysfs), $4 local
# address ("*" while not connected), $6 remote address, $9 the transport
# state (connected, idle, connecting, offline...), $11 the path health
# state (up, down, probing), $13 how often it went down, $15 how many
# requests it handed to other paths, $17 the NUMA node of its device (-1:
# none), $19 and $21 the requests it sent that came from that node and
# from another one.

# rdma_paths_from VAR ADDR: VAR gets the endpoint ids of the mount's paths
# from local address ADDR, taken while they are connected (the endpoint
# line shows a local address of a connected transport only).  Fails the
# test when there is none, or when the server sees fewer connections from
# ADDR than there are paths; it may see more, which an earlier test left.
rdma_paths_from() {
	local -n __ids=$1
	local n

	__ids=$(mountstats_endpoints | awk -v l="$2" '$4 == l { print $2 }' | xargs)
	[ -n "$__ids" ] || fail "no path of the mount leaves $2"
	n=$(echo $__ids | wc -w)
	rdma_conns_cmp -ge "$n" "$2" ||
		fail "the server sees $(rdma_conns_from "$2") connections from $2, not $n"
}

# now_var VAR: VAR gets the centiseconds since boot, without a fork.
now_var() {
	local __up __

	read -r __up __ </proc/uptime
	printf -v "$1" '%d' $((10#${__up%.*}${__up#*.}))
}

# now_cs: the same, printed.
now_cs() {
	local t

	now_var t
	echo "$t"
}

# secs CS: CS centiseconds as seconds, "12.34".
secs() {
	printf '%d.%02d' $(($1 / 100)) $(($1 % 100))
}

# endpoint_field ADDR N [DIR]: field N of the endpoint: line of the path to
# remote address ADDR of the mount on DIR (default: $MNT).
endpoint_field() {
	mountstats_endpoints "${3:-$MNT}" | awk -v a="$1" -v n="$2" '$6 == a { print $n }'
}

xprt_state() {
	endpoint_field "$1" 9 "${2:-}"
}

path_state() {
	endpoint_field "$1" 11 "${2:-}"
}

# path_local ADDR [DIR]: the local address of the path to ADDR.
path_local() {
	endpoint_field "$1" 4 "${2:-}"
}

# path_remote LOCAL: the remote address of the path from local address LOCAL
path_remote() {
	mountstats_pairs | awk -v l="$1" '$2 == l { print $1 }'
}

# paths_sum N [DIR]: the sum of field N over the endpoint: lines.
paths_sum() {
	mountstats_endpoints "${2:-$MNT}" | awk -v n="$1" '{ s += $n } END { print s + 0 }'
}

# show_endpoints [PREFIX]: log the endpoint: lines of the mount on $MNT.
show_endpoints() {
	mountstats_endpoints | sed "s/^[[:space:]]*/${1:-client }/"
}

# in_states STATE "A|B|...": STATE is one of the alternatives.
in_states() {
	case "|$2|" in
	*"|$1|"*) return 0 ;;
	esac
	return 1
}

# path_in ADDR STATES: the path to ADDR is in one of STATES.
path_in() {
	in_states "$(path_state "$1")" "$2"
}

# wait_path [-t VAR] ADDR STATES SECONDS: wait until the path to ADDR is
# in one of STATES ("up", "down|probing"...), polling every 0.1 s.  VAR
# gets the time it took in centiseconds.  Returns 1 after SECONDS.
wait_path() {
	local t=()

	if [ "$1" = -t ]; then
		t=(-t "$2")
		shift 2
	fi
	wait_for_cs "${t[@]}" $(($3 * 100)) path_in "$1" "$2"
}

# path_online ADDR: the path to ADDR is up and its transport is not offline.
path_online() {
	[ "$(path_state "$1")" = up ] &&
		in_states "$(xprt_state "$1")" "connected|idle|connecting"
}

# all_paths_up: every path of the mount on $MNT is up and not offline.
all_paths_up() {
	mountstats_endpoints | awk '
		{ n++ }
		$11 != "up" || $9 == "offline" { bad = 1 }
		END { exit bad || !n }'
}

# rdma_leftovers: the cm_ids and RC QPs of the client's RDMA core, none
# once every RDMA mount is gone
rdma_leftovers() {
	local ids qps

	ids=$(rdma resource show cm_id) || ids="(rdma resource show cm_id failed)"
	qps=$(rdma resource show qp) || qps="(rdma resource show qp failed) type RC"
	echo "$ids" | grep -v '^$' || true
	echo "$qps" | grep -w 'type RC' || true
}

no_rdma_leftovers() {
	[ -z "$(rdma_leftovers)" ]
}

# rxe_recreated: how often the testbed's rxe-qp1-watch re-created a
# client rxe device
rxe_recreated() {
	cat /run/testbed/rxe-recreated 2>/dev/null || echo 0
}

# rxe_wait_recreated: if the testbed's rxe-qp1-watch is re-creating a
# client rxe device (a stand-in for hardware, whose QP1 does not fail
# that way), wait until it is back, and say how long that took; true if
# it waited.  A test that times a rejoin calls it first: what the watch
# takes (80 s once on the debug kernel) is not the path's to answer for.
rxe_wait_recreated() {
	local f=/run/testbed/rxe-recreating what waited

	[ -e "$f" ] || return 1
	what=$(cat "$f" 2>/dev/null) || return 1
	wait_for_cs -t waited $(($(limit 120) * 100)) test ! -e "$f" ||
		fail "the testbed's re-creation of $what did not end"
	log "the testbed re-created $what meanwhile; back $(secs "$waited") s later"
}

# wait_path_rxe VAR ADDR STATES SECONDS: wait_path -t VAR, but a
# re-creation of a client rxe device by the testbed that starts meanwhile
# is waited out first (rxe_wait_recreated), and the time counts from its
# end: it can start seconds after a link came back
wait_path_rxe() {
	local __wv=$1 addr=$2 states=$3 secs=$4

	while :; do
		wait_for_cs -t "$__wv" $((secs * 100)) __path_or_rxe "$addr" "$states" ||
			return 1
		rxe_wait_recreated || return 0
	done
}

__path_or_rxe() {
	path_in "$1" "$2" || [ -e /run/testbed/rxe-recreating ]
}

# rxe_restore [K...]: the client's rxe devices rxeK (default: all) that a
# test deleted are back, each on its netdev; the others are left alone
rxe_restore() {
	local k ks

	ks=${*:-$(seq 0 $(($(echo $CLIENT_IFS | wc -w) - 1)))}
	for k in $ks; do
		[ -e "/sys/class/infiniband/rxe$k" ] && continue
		rdma link add "rxe$k" type rxe netdev "$(word_at "$k" "$CLIENT_IFS")" ||
			return 1
	done
}

# word_at K LIST: word K (from 0) of LIST.
word_at() {
	local k=$1

	set -- $2
	[ "$k" -lt $# ] || return 0
	shift "$k"
	echo "$1"
}

# index_of WORD LIST: the position (from 0) of WORD in LIST.
index_of() {
	local w=$1 i=0 x

	for x in $2; do
		if [ "$x" = "$w" ]; then
			echo "$i"
			return 0
		fi
		i=$((i + 1))
	done
}

# client_if ADDR, server_if ADDR: the data interface that holds ADDR.
client_if() {
	word_at "$(index_of "$1" "$CLIENT_ADDRS")" "$CLIENT_IFS"
}

server_if() {
	word_at "$(index_of "$1" "$SERVER_ADDRS")" "$SERVER_IFS"
}

# if_up_cmd IF ADDR ADDR6: a command line that brings data interface IF back
# up as the testbed configured it, in one ip process.  Taking an interface
# down drops its routes, also the one in its policy table, and its IPv6
# address.
if_up_cmd() {
	local k=${1#eth}

	echo "printf '%s\\n' 'link set $1 up'" \
	     "'route replace ${2%.*}.0/24 dev $1 src $2 table $((100 + k))'" \
	     "'addr replace $3/64 dev $1 nodad'" \
	     "'route replace ${3%::*}::/64 dev $1 src $3 table $((100 + k))'" \
	     "| /usr/sbin/ip -batch -"
}

client_link_down() {
	/usr/sbin/ip link set "$1" down
}

client_link_up() {
	local k=${1#eth}

	sh -c "$(if_up_cmd "$1" "$(word_at "$k" "$CLIENT_ADDRS")" \
		"$(word_at "$k" "$CLIENT_ADDRS6")")"
}

# server_link_down IF (mp_carrier calls it, and server_link_up, as
# server_link_$HOW)
server_link_down() {
	on-server "/usr/sbin/ip link set $1 down"
}

server_link_up() {
	local k=${1#eth}

	on-server "$(if_up_cmd "$1" "$(word_at "$k" "$SERVER_ADDRS")" \
		"$(word_at "$k" "$SERVER_ADDRS6")")"
}

# tbf_args RATE: the tbf of one link at RATE mbit.  Its queue is large:
# a write makes the server pull up to a few MiB at once (RDMA Reads of
# the nfsd threads) through the client's egress, and a drop there costs
# rxe a retransmit timeout, seven of them the connection.  One transport
# per link drains its queue in order, so that the sender sees progress.
tbf_args() {
	echo "tbf rate ${1}mbit burst 64kb limit $((16 << 20))"
}

# cap_links R0 R1 ...: tbf at RK mbit on the egress of client ethK and of
# server ethK, so that both writes (client egress) and reads (server
# egress) are bounded.  uncap_links takes them off again.
cap_links() {
	local k=0 r ifc cmds=""

	for r in "$@"; do
		ifc=$(word_at "$k" "$CLIENT_IFS")
		/usr/sbin/tc qdisc replace dev "$ifc" root $(tbf_args "$r") || return 1
		ifc=$(word_at "$k" "$SERVER_IFS")
		cmds="$cmds /usr/sbin/tc qdisc replace dev $ifc root $(tbf_args "$r") &&"
		k=$((k + 1))
	done
	on-server "$cmds true" >/dev/null
}

# stack_reload WHICH: unload the NFS/SunRPC modules, load ours or stock
# (Debian's, once updates/ is moved out of the modules directory, which
# depmod reads whole).  For the tests that compare with stock modules.
# Returns 1, saying why, when that fails: also for a cleanup, where a
# fail would go unheard.
stack_reload() {
	local abi moddir left m

	abi=$(uname -r)
	moddir=/lib/modules/$abi
	/sbin/modprobe -r nfsv3 nfsv4 nfs lockd rpcrdma ||
		{ echo "stack_reload: cannot unload the NFS modules" >&2; return 1; }
	for m in rpcsec_gss_krb5 auth_rpcgss nfs_acl grace sunrpc; do
		/sbin/modprobe -r "$m" 2>/dev/null || true
	done
	left=$(awk '$1 ~ /^(sunrpc|auth_rpcgss|rpcsec_gss_krb5|nfs|nfsv3)$/ ||
		$1 ~ /^(nfsv4|lockd|rpcrdma|grace|nfs_acl)$/' /proc/modules)
	if [ -n "$left" ]; then
		echo "$left" | sed 's/^/still loaded: /' >&2
		echo "stack_reload: the NFS/SunRPC modules did not all unload" >&2
		return 1
	fi
	case "$1" in
	stock) [ ! -d "$moddir/updates" ] || mv "$moddir/updates" "$moddir.updates-ours" ;;
	ours) [ ! -d "$moddir.updates-ours" ] || mv "$moddir.updates-ours" "$moddir/updates" ;;
	esac
	/usr/sbin/depmod -a "$abi" || { echo "stack_reload: depmod failed" >&2; return 1; }
	/sbin/modprobe -a nfs nfsv3 nfsv4 rpcrdma ||
		{ echo "stack_reload: cannot load the NFS modules" >&2; return 1; }
	case "$1:$(cat /sys/module/sunrpc/version 2>/dev/null || true)" in
	ours:nfs-multipath-*|stock:) log "ok: $1 modules loaded" ;;
	*) echo "stack_reload: the sunrpc loaded is not the $1 one" >&2; return 1 ;;
	esac
}

# uncap_links: no qdisc on the data interfaces of either side (the tbf
# of mp_policy, the netem and ifb redirect of mp_stale_write).
uncap_links() {
	local ifc cmds=""

	for ifc in $CLIENT_IFS; do
		/usr/sbin/tc qdisc del dev "$ifc" root 2>/dev/null || true
	done
	for ifc in $SERVER_IFS; do
		cmds="$cmds /usr/sbin/tc qdisc del dev $ifc root 2>/dev/null;"
		cmds="$cmds /usr/sbin/tc qdisc del dev $ifc ingress 2>/dev/null;"
	done
	on-server "$cmds /usr/sbin/tc qdisc del dev ifb0 root 2>/dev/null; true" >/dev/null
}

# restore_links: every data interface up on both sides, with its routes,
# and no netem.  For cleanups.
restore_links() {
	local i cmds=""

	uncap_links
	for i in $CLIENT_IFS; do
		if [ "$(cat "/sys/class/net/$i/operstate")" != up ]; then
			client_link_up "$i" || true
		fi
	done
	for i in $SERVER_IFS; do
		cmds="$cmds [ \$(cat /sys/class/net/$i/operstate) = up ] ||"
		cmds="$cmds { $(if_up_cmd "$i" "$(word_at "${i#eth}" "$SERVER_ADDRS")" \
			"$(word_at "${i#eth}" "$SERVER_ADDRS6")"); };"
	done
	on-server "$cmds true"
}

# -------------------------------------------------------------------- fio
#
# fio runs in /tmp (the repository is read-only and fio writes verify
# state files into its working directory) with JSON output.

# fio_json JSON [FIO ARGS...]: run fio, results in JSON, errors in JSON.err;
# returns fio's status.  With FIO_NODE=N, fio runs with its CPUs and its
# memory on NUMA node N.
fio_json() {
	local json=$1

	shift
	# Not on our stdout: a fio stuck in the kernel would hold it open.
	(cd /tmp &&
		if [ "$__prio_boosted" = 1 ]; then
			renice 0 -p "$BASHPID" >/dev/null
		fi &&
		exec ${FIO_NODE:+numactl --cpunodebind="$FIO_NODE" --membind="$FIO_NODE"} \
		fio --output-format=json --output="$json" \
		--verify_state_save=0 "$@" >"$json.out" 2>"$json.err")
}

# fio_max_ms JSON DIR KIND: the largest KIND (clat_ns, lat_ns) latency of
# direction DIR (read, write) over all jobs, in ms.
fio_max_ms() {
	awk -v dir="$2" -v kind="$3" '
		/^ *"(read|write|trim|sync)" : \{/ {
			d = $1; gsub(/"/, "", d); k = ""
		}
		/^ *"(slat_ns|clat_ns|lat_ns)" : \{/ {
			k = $1; gsub(/"/, "", k)
		}
		/^ *"max" : / && d == dir && k == kind {
			v = $3; sub(/,$/, "", v)
			if (v + 0 > m) m = v + 0
		}
		END { printf "%.0f\n", m / 1e6 }' "$1"
}

# fio_errors JSON: the sum of the jobs' error fields and of the verify and
# I/O error lines fio printed.
fio_errors() {
	local e v

	e=$(awk '/^ *"(error|total_err)" : / { v = $3; sub(/,$/, "", v); s += v }
		END { print s + 0 }' "$1")
	v=$(grep -ciE 'verify|crc32c|bad magic|bad header|err=|error' "$1.err" || true)
	echo $((e + v))
}

# fio_io_mib JSON DIR: MiB moved in direction DIR.
fio_io_mib() {
	awk -v dir="$2" '
		/^ *"(read|write|trim|sync)" : \{/ { d = $1; gsub(/"/, "", d) }
		/^ *"io_kbytes" : / && d == dir { v = $3; sub(/,$/, "", v); s += v }
		END { printf "%.0f\n", s / 1024 }' "$1"
}

# fio_max_lat JSON DIRS: the largest completion or total latency over
# DIRS ("read write"), in ms.
fio_max_lat() {
	local d m=0 v

	for d in $2; do
		for v in $(fio_max_ms "$1" "$d" clat_ns) $(fio_max_ms "$1" "$d" lat_ns); do
			[ "$v" -le "$m" ] || m=$v
		done
	done
	echo "$m"
}

# fio_check NAME RC JSON DIRS: log what a fio run did and fail on errors.
fio_check() {
	local name=$1 rc=$2 json=$3 dirs=$4 d errs

	for d in $dirs; do
		log "fio $name: $d $(fio_io_mib "$json" "$d") MiB," \
		    "max clat $(fio_max_ms "$json" "$d" clat_ns) ms," \
		    "max lat $(fio_max_ms "$json" "$d" lat_ns) ms"
	done
	errs=$(fio_errors "$json")
	if [ "$rc" != 0 ] || [ "$errs" != 0 ]; then
		sed 's/^/fio: /' "$json.err" | head -20
		fail "fio $name: exit $rc, $errs errors"
	fi
	log "ok: fio $name: exit 0, no I/O or verify errors"
}

# ------------------------------------------------------------ sysfs, evidence

# mount_switch: the xprt-switch directory in sysfs of the mount on $MNT,
# the one whose transports go to the remote addresses of its endpoints.
mount_switch() {
	local want s got

	want=$(mountstats_endpoints | awk '{ print $6 }' | sort | tr '\n' ' ')
	for s in /sys/kernel/sunrpc/xprt-switches/switch-*; do
		got=$(cat "$s"/xprt-*/dstaddr 2>/dev/null | sort | tr '\n' ' ')
		if [ "$got" = "$want" ]; then
			echo "$s"
			return 0
		fi
	done
	return 1
}

# rw_here MIB: MIB MiB written to $MNT, without a remount, and read back
rw_here() {
	local src=/tmp/nfsmp-rw-here.src

	make_data "$src" "$1"
	dd if="$src" of="$MNT/rw-here" bs=1M oflag=direct 2>/dev/null ||
		fail "cannot write $MNT/rw-here"
	[ "$(dd if="$MNT/rw-here" bs=1M iflag=direct 2>/dev/null | sha256sum |
	     cut -d' ' -f1)" = "$(sha "$src")" ] ||
		fail "$MNT/rw-here reads back different"
	rm -f "$MNT/rw-here" "$src"
	log "ok: $1 MiB written and read back"
}

# fio_verify_only JSON [FIO ARGS...]: a verify-only pass of the fio job
# in FIO ARGS over what it wrote, within 180 s, judged by fio_check (the
# caller remounted, so that it reads over the wire)
fio_verify_only() {
	local json=$1 fpid rc=0

	shift
	fio_bg fpid "$json" "$@" --verify_only
	fio_wait "$fpid" 180 || rc=$?
	fio_check "verify-only after remount" "$rc" "$json" read
}

# fio_done PID JSON LIMIT_MS: the fio_bg PID ended without an I/O or
# verify error, and no write waited more than LIMIT_MS (else the trace of
# trace_start is shown and the test fails later)
fio_done() {
	local rc=0 max

	fio_wait "$1" $(limit 300) || rc=$?
	fio_check "write+verify" "$rc" "$2" "write"
	max=$(fio_max_lat "$2" "write")
	log "largest fio latency: $max ms (limit $3 ms)"
	[ "$max" -le "$3" ] ||
		{ trace_show; fail_later "a request waited $max ms"; }
}

# xprt_pairs: "SERVERADDR CLIENTADDR" of each transport of the switch
# $SW, sorted
xprt_pairs() {
	local x

	for x in "$SW"/xprt-*; do
		echo "$(cat "$x/dstaddr" 2>/dev/null) $(cat "$x/srcaddr" 2>/dev/null)"
	done | sort
}

# server_xprt_pairs: the same, of the NFS connections the server holds
# over $PROTO
server_xprt_pairs() {
	if [ "$PROTO" = rdma ]; then
		server_rdma_conns | sort
	else
		server_tcp_conns | sort
	fi
}

# switch_all_up: every transport of the switch $SW is up and online
switch_all_up() {
	local x

	for x in "$SW"/xprt-*; do
		[ "$(cat "$x/path_state" 2>/dev/null)" = up ] || return 1
		! grep -q OFFLINE "$x/xprt_state" 2>/dev/null || return 1
	done
}

# server_holds_xprts: the server holds exactly the connections of the
# transports of $SW
server_holds_xprts() {
	[ "$(server_xprt_pairs)" = "$(xprt_pairs)" ]
}

# xprt_dir ADDR: the sysfs directory of the mount's transport to ADDR.
xprt_dir() {
	local x

	for x in $(mount_switch)/xprt-*; do
		if [ "$(cat "$x/dstaddr")" = "$1" ]; then
			echo "$x"
			return 0
		fi
	done
	return 1
}

# dump_paths: the endpoint: lines and what sysfs says of each transport
# of the mount, for the record when something went wrong.
dump_paths() {
	local s x

	show_endpoints "endpoint now: "
	s=$(mount_switch) || return 0
	for x in "$s"/xprt-*; do
		echo "sysfs ${x##*/}: $(cat "$x/dstaddr") $(cat "$x/xprt_state")" \
		     "$(path_health_text "$x")"
	done
	rdma resource show cm_id 2>&1 | sed 's/^/client rdma: /'
	rdma resource show qp lqpn 1 2>&1 | sed 's/^/client qp1: /'
	on-server "/usr/sbin/ip -br link; rdma link; rdma resource show cm_id" 2>&1 |
		sed 's/^/server: /'
	server_rdma_stale 2>&1 | sed 's/^/server, its client end gone: /'
	kernel_stacks
}

# kernel_stacks: the stacks of the threads and processes that are in
# SunRPC, RPC/RDMA or NFS code right now.
kernel_stacks() {
	local p

	for p in /proc/[0-9]*; do
		grep -qE 'rpcrdma|xprt|rpc_|nfs_' "$p/stack" 2>/dev/null || continue
		echo "stack of $(cat "$p/comm") ${p#/proc/} ($(awk '{ print $3 }' "$p/stat")):"
		head -n 10 "$p/stack" | sed 's/^/  /'
	done
}

# ------------------------------------------------------------ tracing

__tr=""			# tracefs, once trace_start found it

# trace_dir: the tracefs directory that trace_start set up, or nothing
trace_dir() {
	echo "$__tr"
}

# trace_open: trace_mark and trace_event write to tracefs from now on,
# and the trace is emptied; false when there is no tracefs.  trace_start
# does it too, for the path events, which a stock kernel does not have.
trace_open() {
	__tr=$(tracefs)
	[ -n "$__tr" ] || return 1
	echo >"$__tr/trace"
}

# trace_mark TEXT: a line in the trace, next to the path events
trace_mark() {
	[ -z "$__tr" ] || echo "$*" >"$__tr/trace_marker" 2>/dev/null || true
}

# trace_start MS: record path state changes, requests that moved, and
# requests that took more than half of MS (rpc_stats_latency, in us), for
# the story of a slow request.
trace_start() {
	__tr=$(tracefs)
	[ -n "$__tr" ] && [ -d "$__tr/events/sunrpc/rpc_path_move" ] || { __tr=""; return 0; }
	echo 4096 >"$__tr/buffer_size_kb"
	echo >"$__tr/trace"
	trace_event sunrpc/rpc_path_state
	trace_event sunrpc/rpc_path_move
	if [ -d "$__tr/events/sunrpc/rpc_stats_latency" ]; then
		echo "execute > $(($1 * 500))" \
			>"$__tr/events/sunrpc/rpc_stats_latency/filter"
		defer "echo 0 >$__tr/events/sunrpc/rpc_stats_latency/filter"
		trace_event sunrpc/rpc_stats_latency
	fi
	# How long a dead path's connection takes to end, after which
	# its sent requests move
	trace_event sunrpc/xprt_disconnect_auto
	trace_event sunrpc/xprt_disconnect_done
	trace_event rpcrdma/xprtrdma_disconnect
	# What the RDMA CM tells the transports (UNREACHABLE: the peer's
	# link-layer address changed)
	trace_event rdma_cma/cm_event_handler
}

# trace_event SYS/EVENT [FILTER]: record it too, when the kernel has it;
# only the events that FILTER passes, when one is given
trace_event() {
	[ -d "$__tr/events/$1" ] || return 0
	if [ -n "${2:-}" ]; then
		# A diagnostic: a kernel that refuses the filter goes without
		echo "$2" >"$__tr/events/$1/filter" 2>/dev/null || return 0
		defer "echo 0 >$__tr/events/$1/filter"
	fi
	echo 1 >"$__tr/events/$1/enable"
	defer "echo 0 >$__tr/events/$1/enable"
}

# wait_within WHAT SECS MARK COMMAND...: wait for COMMAND (at most three
# times SECS), then judge the time it took against SECS: a poll that ends
# late fails, though COMMAND succeeded.  A slow or missing WHAT shows the
# trace since trace_mark MARK.
wait_within() {
	local what=$1 secs=$2 mark=$3 waited

	shift 3
	if ! wait_for_cs -t waited $((secs * 300)) "$@"; then
		trace_since "$mark"
		fail_later "$what: not within $((secs * 3)) s"
		return 1
	fi
	if [ "$waited" -le $((secs * 100)) ]; then
		log "ok: $what after $(secs "$waited") s (limit $secs s)"
	else
		trace_since "$mark"
		fail_later "$what after $(secs "$waited") s, more than $secs s"
	fi
}

# trace_since MARK [LINES]: the first LINES (80) of the trace after the
# trace_mark MARK, without the moves, for the story of a slow rejoin
trace_since() {
	[ -n "$__tr" ] || return 0
	awk -v m="tracing_mark_write: $1" 'index($0, m) { on = 1; next }
		on && !/rpc_path_move:/' "$__tr/trace" | head -n "${2:-80}" | trace_lines
}

# trace_lines: trace lines without task, CPU and flags, as "trace: ..."
trace_lines() {
	sed 's/^ *[^ ]* *\[[0-9]*\] [^ ]* */trace: /'
}

# trace_show: what the trace saw, when a request took too long
trace_show() {
	[ -n "$__tr" ] || return 0
	log "trace: path events, requests over half the limit (moves counted):"
	grep -v '^#' "$__tr/trace" | grep -v 'rpc_path_move:' | trace_lines
	log "trace: $(grep -c 'rpc_path_move:' "$__tr/trace" || true) rpc_path_move events"
}

# ------------------------------------------------------------ NFSv3 counts

# proc3_counts FILE-CONTENT: "name count" for the procedures in $PROCS,
# from a proc3 line (null getattr setattr lookup access readlink read
# write create mkdir symlink mknod remove rmdir rename link ...)
proc3_counts() {
	echo "$1" | awk '$1 == "proc3" {
		names = "null getattr setattr lookup access readlink read write"
		split(names " create mkdir symlink mknod remove rmdir rename link", n, " ")
		for (i = 1; i <= 16; i++) print n[i], $(i + 2)
	}'
}

# proc_count COUNTS PROC: the count of PROC in proc3_counts' output COUNTS
proc_count() {
	echo "$1" | awk -v p="$2" '$1 == p { print $2 }'
}

# have_counts WHAT COUNTS: COUNTS has a line for each of $PROCS, or fail
have_counts() {
	local p

	for p in $PROCS; do
		[ -n "$(proc_count "$2" "$p")" ] || fail "$1 has no count of $p"
	done
}

client_counts() {
	proc3_counts "$(cat /proc/net/rpc/nfs)"
}

server_counts() {
	proc3_counts "$(on-server cat /proc/net/rpc/nfsd)"
}

# trans_counts: "name count" of the transmissions of the mount's requests,
# from the per-op lines of mountstats (NAME: ops trans timeouts ...)
trans_counts() {
	mount_stats | awk '$1 ~ /^[A-Z]+:$/ && NF >= 9 {
		n = tolower(substr($1, 1, length($1) - 1)); print n, $3
	}'
}

# counts_take NAME: NAME_c, NAME_s and NAME_t get the client's calls, the
# server's counts and the mount's transmissions, each "name count"; fails
# when one has no count of a procedure of $PROCS
counts_take() {
	local -n c=${1}_c s=${1}_s t=${1}_t

	c=$(client_counts)
	s=$(server_counts)
	t=$(trans_counts)
	have_counts "/proc/net/rpc/nfs" "$c"
	have_counts "the server's /proc/net/rpc/nfsd" "$s"
	have_counts "mountstats" "$t"
}

# counts_check VAR BEFORE AFTER: between two counts_take, the client
# called each of $PROCS, and the server received it at least as often as
# the client called it and at most as often as the client transmitted it.
# VAR gets what the server received beyond the calls, in all.
counts_check() {
	local -n __extra=$1 c0=${2}_c s0=${2}_s t0=${2}_t c1=${3}_c s1=${3}_s t1=${3}_t
	local p cd sd td

	__extra=0
	for p in $PROCS; do
		cd=$(($(proc_count "$c1" "$p") - $(proc_count "$c0" "$p")))
		sd=$(($(proc_count "$s1" "$p") - $(proc_count "$s0" "$p")))
		td=$(($(proc_count "$t1" "$p") - $(proc_count "$t0" "$p")))
		log "$p: client called $cd, transmitted $td, server received $sd"
		[ "$sd" -ge "$cd" ] || fail "the server counted fewer ${p}s than the client called"
		[ "$sd" -le "$td" ] ||
			fail "the server counted more ${p}s than the client transmitted"
		[ "$cd" -gt 0 ] || fail "the client made no $p calls"
		__extra=$((__extra + sd - cd))
	done
}

# ------------------------------------------------------------ load, timing

# The rate of load_start, reads and writes.  The server guest has one
# vCPU under TCG, and an unbounded load keeps it 88 to 100 % busy
# (measured); a path whose replies are then lost makes its rxe QP
# retransmit, the other paths' requests wait for CPU, and their replies
# took up to 2.1 s (traced in mp_blackhole), which timed the emulator,
# not the failover.  At 2+2 MiB/s, about as much as mp_failover carried
# unbounded (1024 MiB of writes and verify reads in 211 s), the server
# was 5 to 25 % idle.  Less is no better: a path then carries so few
# requests that it may be idle when it fails, and is found dead later.
LOAD_RATE=${LOAD_RATE:-2m,2m}

# The first seconds of load_start's job, which fio leaves out of its
# figures, and which load_start lets pass before it returns.  fio laid
# its file out with buffered writes and an fsync; that flush (hundreds of
# WRITEs on every path at once) took up to 3.2 s on every path, before
# any fault (traced in mp_carrier).  load_start now creates the file
# sparse, so that fio writes nothing before the job, and the ramp keeps
# the job's first requests out of the figures too.
LOAD_RAMP=3

# load_start SECONDS [FIO ARGS...]: random 64 KiB reads and writes at
# iodepth 16 and at most LOAD_RATE on a 64 MiB file in $MNT, in the
# background, for at most SECONDS after LOAD_RAMP (scaled by limit, as
# the steps it has to outlast are).  load_stop ends it.
load_start() {
	local secs=$1

	shift
	__load_json=/tmp/nfsmp-load.json
	truncate -s 64M "$MNT/load.0.0" || fail "cannot create $MNT/load.0.0"
	fio_json "$__load_json" --name=load --directory="$MNT" --rw=randrw \
		--bs=64k --size=64M --direct=1 --ioengine=libaio --iodepth=16 \
		--rate="$LOAD_RATE" --ramp_time="$LOAD_RAMP" --time_based \
		--runtime="$(limit "$secs")" "$@" >/dev/null 2>&1 &
	__load_pid=$!
	defer "load_signal INT; run_wait 20 rm -f $MNT/load.0.0"
	# The file is there already; wait until fio runs, and its ramp.
	wait_for 30 load_running || fail "fio did not start its I/O in 30 s"
	nap $((LOAD_RAMP + 1))
}

# load_alive: the fio of load_start still runs
load_alive() {
	kill -0 "$__load_pid" 2>/dev/null
}

load_running() {
	local size

	load_alive || fail "fio ended early"
	size=$(stat -c %s "$MNT/load.0.0" 2>/dev/null) || size=0
	[ "${size:-0}" -ge $((64 << 20)) ] && sleep 1
}

# load_signal SIG: signal the fio of load_start.  Its PID is the
# subshell of fio_json; fio is its child.
load_signal() {
	pkill "-$1" -P "$__load_pid" -x fio 2>/dev/null || true
}

# load_stop: end the fio of load_start and check it: exit 0 (or stopped
# by us), no I/O error.
load_stop() {
	fio_stop "$__load_pid" "$__load_json" load "read write"
	rm -f "$MNT/load.0.0"
}

# fio_stop PID JSON NAME DIRS: stop the fio_json started in the
# background as PID with SIGINT, and fio_check what it did (as NAME).
fio_stop() {
	local rc=0

	pkill -INT -P "$1" -x fio 2>/dev/null || true
	if ! run_wait_pid "$1" 60; then
		hang_evidence
		fail "fio $3 did not end in 60 s after SIGINT: its I/O hangs"
	fi
	wait "$1" || rc=$?
	# 128: fio stopped on our SIGINT
	[ "$rc" = 128 ] && rc=0
	fio_check "$3" "$rc" "$2" "$4"
}

# latency_check MS: after load_stop, fio's largest latency is at most MS;
# if not, the trace tells the story.
latency_check() {
	local max

	max=$(fio_max_lat "$__load_json" "read write")
	log "largest fio latency: $max ms (limit $1 ms)"
	if [ "$max" -le "$1" ]; then
		log "ok: no request waited more than $1 ms"
	else
		fail_later "a request waited $max ms, more than $1 ms"
		trace_show
	fi
}

# window_shares VAR SECONDS: VAR gets the client NIC shares over the next
# SECONDS (nic_shares), which are logged too.
window_shares() {
	local -n __ws=$1
	local before

	before=$(nic_counters)
	sleep "$2"
	__ws=$(nic_shares "$before" "$(nic_counters)")
	echo "$__ws" | awk '{ printf "nic share: %s %.1f MiB %s %%\n", $1, $2 / 1048576, $3 }'
}

# share_of SHARES IF: the share of IF in SHARES, in percent.
share_of() {
	echo "$1" | awk -v i="$2" '$1 == i { print $3 }'
}

# WINDOW_MIN_BYTES: what the client NICs must carry in all over a window
# of window_shares for its shares to say anything: a window in which the
# I/O stopped gives every NIC 0 % of nothing
WINDOW_MIN_BYTES=$((1 << 20))

# share_below SHARES IF PCT: IF carried less than PCT percent of a window
# in which the NICs carried at least WINDOW_MIN_BYTES
share_below() {
	echo "$1" | awk -v i="$2" -v p="$3" -v min="$WINDOW_MIN_BYTES" '
		{ tot += $2 } $1 == i { s = $3 }
		END { exit !(tot >= min && s < p) }'
}

# share_at_least SHARES IF PCT: IF carried at least PCT percent of a
# window in which the NICs carried at least WINDOW_MIN_BYTES
share_at_least() {
	echo "$1" | awk -v i="$2" -v p="$3" -v min="$WINDOW_MIN_BYTES" '
		{ tot += $2 } $1 == i { s = $3 }
		END { exit !(tot >= min && s >= p) }'
}

# window_mib SHARES: the MiB all client NICs carried in that window
window_mib() {
	echo "$1" | awk '{ tot += $2 } END { printf "%.1f", tot / 1048576 }'
}

# path_health_text XPRTDIR: "path STATE downs N moved M" from the path
# health files of a transport in sysfs (a multipath mount's only).
path_health_text() {
	[ -r "$1/path_state" ] || return 0
	echo "path $(cat "$1/path_state") downs $(cat "$1/path_downs")" \
	     "moved $(cat "$1/path_moved")"
}

# nap SECONDS: sleep without a process: a poll loop of a boosted test
# shell that forks sleep every 0.1 s takes CPU from the kernel threads it
# measures.
__nap_fd=""
nap() {
	local f=/tmp/nfsmp-nap.$BASHPID

	if [ -z "$__nap_fd" ]; then
		# A FIFO nobody writes, open for reading and writing: read -t
		# waits on it for the whole timeout.  (The guest has no /dev/fd
		# for <(...).)
		rm -f "$f"
		mkfifo "$f" || fail "cannot make $f"
		exec {__nap_fd}<>"$f"
		rm -f "$f"
	fi
	read -r -t "$1" -u "$__nap_fd" _ || true
}

# path_downs ADDR: how often the path to ADDR went down, from sysfs: to
# read before the command that takes it down, for wait_down
path_downs() {
	local hf

	hf=$(xprt_dir "$1") && cat "$hf/path_downs"
}

# wait_down ADDR IF SECONDS [DOWNS]: poll about every 0.1 s until the path
# to ADDR has gone down (state down, or its downs counter in sysfs grew
# past DOWNS, by default its value now: too late when the command that
# takes it down is already under way), watching meanwhile the bytes
# received on IF, the client interface of the path.  Prints "AT PREV RX":
# the time (centiseconds) of the sample that saw the path down, of the
# sample before, and of the last sample in which more than 1500 bytes had
# arrived since the one before.  Returns 1 after SECONDS.
wait_down() {
	local addr=$1 ifc=$2 hf d0 rx0 prev at rx_at

	hf=$(xprt_dir "$addr") && [ -r "$hf/path_state" ] || {
		echo "FAIL: no path health in sysfs for $addr" >&2
		return 2
	}
	read -r d0 <"$hf/path_downs"
	d0=${4:-$d0}
	read -r rx0 <"/sys/class/net/$ifc/statistics/rx_bytes"
	now_var prev
	rx_at=$prev
	wait_for_cs $(($3 * 100)) __down_sample || return 1
	echo "$at $prev $rx_at"
}

# __down_sample: one sample of wait_down, on its variables; true once the
# path is down.  No fork.
__down_sample() {
	local state downs rx now

	read -r state <"$hf/path_state" || state=""
	read -r downs <"$hf/path_downs" || downs=0
	read -r rx <"/sys/class/net/$ifc/statistics/rx_bytes"
	now_var now
	[ $((rx - rx0)) -le 1500 ] || rx_at=$now
	rx0=$rx
	if [ "$state" = down ] || [ "$downs" -gt "$d0" ]; then
		at=$now
		return 0
	fi
	prev=$now
	return 1
}

# boost_priority: this shell and what it starts run at nice -10, ahead
# of the kernel's NFS and RDMA threads, so that under TCG the timing of
# the test's own steps stays close to the events it measures.  fio_json
# starts fio at nice 0 again.
__prio_boosted=0
boost_priority() {
	renice -10 -p $$ >/dev/null
	__prio_boosted=1
}

# tracefs: the tracing directory, mounted if need be; empty if none.
tracefs() {
	local d

	for d in /sys/kernel/tracing /sys/kernel/debug/tracing; do
		if [ -d "$d/events" ]; then
			echo "$d"
			return 0
		fi
	done
	mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null || true
	[ -d /sys/kernel/tracing/events ] && echo /sys/kernel/tracing
	return 0
}

# fail_later MESSAGE: log a failure and go on measuring; fail_if_any ends
# the test if there was one.
__failures=0

fail_later() {
	echo "FAIL: $*"
	__failures=$((__failures + 1))
}

fail_if_any() {
	[ "$__failures" = 0 ] || fail "$__failures check(s) failed, see above"
}

# nic_total: bytes sent and received on all client data interfaces.
nic_total() {
	local i n=0

	for i in $CLIENT_IFS; do
		n=$((n + $(if_bytes "$i")))
	done
	echo "$n"
}

# hang_evidence: what the kernel holds when I/O stopped: the paths, the
# RPC tasks still pending, the stacks of fio.
hang_evidence() {
	local f p

	dump_paths
	for f in /sys/kernel/debug/sunrpc/rpc_clnt/*/tasks; do
		[ -e "$f" ] || continue
		head -n 20 "$f" | sed "s|^|rpc task ${f#/sys/kernel/debug/sunrpc/}: |"
	done
	for p in $(pgrep fio); do
		sed "s/^/fio $p stack: /" "/proc/$p/stack" 2>/dev/null | head -n 12
	done
}

# fio_bg VAR JSON [FIO ARGS...]: fio_json in the background; VAR gets
# its PID.
fio_bg() {
	local -n __pid=$1

	shift
	fio_json "$@" >/dev/null 2>&1 &
	__pid=$!
	defer "pkill -INT -P $__pid -x fio"
}

# fio_wait PID SECONDS: wait for the fio_bg PID and return its status.
# Fail, with evidence, when the client NICs moved less than 1 MiB in 30 s
# (the I/O hangs) or fio is still running after SECONDS.
fio_wait() {
	local pid=$1 last t_last

	last=$(nic_total)
	now_var t_last
	if ! wait_for_cs -i 1 $(($2 * 100)) __fio_done; then
		hang_evidence
		fail "fio still runs after $2 s"
	fi
	wait "$pid"
}

# __fio_done: one look of fio_wait, on its variables: true once fio
# ended; fails the test when the I/O stopped for 30 s.
__fio_done() {
	local bytes t

	pid_gone "$pid" && return 0
	now_var t
	bytes=$(nic_total)
	if [ $((bytes - last)) -gt 1048576 ]; then
		last=$bytes
		t_last=$t
	fi
	if [ $((t - t_last)) -ge 3000 ]; then
		hang_evidence
		fail "I/O hangs: the client NICs moved less than 1 MiB in 30 s"
	fi
	return 1
}

# run_wait SECONDS COMMAND...: run COMMAND, but wait for it at most
# SECONDS (a process stuck in the kernel cannot be killed); then 124.
# For cleanups on a mount that may hang.
run_wait() {
	local s=$1 pid

	shift
	"$@" >/dev/null 2>&1 &
	pid=$!
	wait_for_cs $((s * 100)) pid_gone "$pid" || return 124
	wait "$pid"
}

# run_wait_pid PID SECONDS: wait until background process PID ended, at
# most SECONDS; 1 if it still runs.
run_wait_pid() {
	wait_for_cs $(($2 * 100)) pid_gone "$1"
}

# check_fresh: every path of the mount on $MNT is up, as it must be on a
# new mount with every link up; an earlier test may have left a broken
# client that this mount shares.  Within the 5 s of a rejoin: the mount
# returns once one path answered, and a path whose first connect failed
# is probed again within 2 s (RPC_PATH_PROBE_MAX_DELAY).
check_fresh() {
	local t

	if all_paths_up; then
		return 0
	fi
	if wait_for_cs -t t 500 all_paths_up; then
		log "every path of the new mount up after $(secs "$t") s more"
	else
		dump_paths
		fail "a new mount with every link up does not have every path up in 5 s"
	fi
}

# detect_report WHAT START AT PREV: log how long after START (all in
# centiseconds) the path was seen down, at AT, with the uncertainty of
# the sampling: the sample before was at PREV (wait_down prints both).
detect_report() {
	log "$1: down after $(secs $(($3 - $2))) s" \
	    "(between $(secs $(($4 - $2))) and $(secs $(($3 - $2))) s)"
}

# balanced_load: within three 3 s windows, one in which every client NIC
# carried at least 10% of the bytes (rxe is uneven at times).
balanced_load() {
	local i shares

	for i in 1 2 3; do
		window_shares shares 3
		echo "$shares" | shares_all_at_least 10 && return 0
	done
	return 1
}

# server_ctl_priority: the server's on-server handlers run at nice -10
# from now on, ahead of nfsd and RDMA threads: under load on-server takes
# seconds otherwise, and a link would stay down longer than meant.  Not
# for the tests that time requests: the handler's forks and execs then
# stall every path of the one-vCPU server (traced: all paths' WRITEs
# waited 1 to 2.8 s from the moment on-server began, before the fault
# itself took effect).
server_ctl_priority() {
	on-server 'for p in $(pidof nc); do renice -10 -p $p; done' >/dev/null || true
}

# wait_for_cs [-i SECONDS] [-t VAR] CS COMMAND...: the one poller.  Run
# COMMAND every SECONDS (default 0.1) until it succeeds, for at most CS
# centiseconds; returns 1 when the time ran out.  VAR gets the time it
# waited, in centiseconds.  The poller itself does not fork.
wait_for_cs() {
	local __iv=0.1 __tv="" __t0 __now __end

	while :; do
		case "$1" in
		-i) __iv=$2 ;;
		-t) __tv=$2 ;;
		*) break ;;
		esac
		shift 2
	done
	now_var __t0
	__end=$((__t0 + $1))
	shift
	until "$@"; do
		now_var __now
		if [ "$__now" -ge "$__end" ]; then
			[ -z "$__tv" ] || printf -v "$__tv" '%d' $((__now - __t0))
			return 1
		fi
		nap "$__iv"
	done
	now_var __now
	[ -z "$__tv" ] || printf -v "$__tv" '%d' $((__now - __t0))
}

# ------------------------------------------------------------ server nodes
#
# A testbed of several server nodes (scripts/testbed --servers N): node K
# has the addresses $SERVER_NODE<K>_ADDRS, on-server K reaches it, and
# testbed-move and testbed-node move its addresses and kill or boot it.
# Every node exports the same read-only image at $RO_EXPORT: data/fNN,
# RO_FILES files of 4 MiB written by fio in 64 KiB blocks with crc32c
# verify headers (scripts/testbed.d/mkroexport.sh), and SHA256SUMS.

RO_EXPORT=/ro
RO_FILES=16

# need_nodes N: skip unless the testbed has at least N server nodes
need_nodes() {
	[ "${TESTBED_SERVERS:-1}" -ge "$1" ] ||
		skip "needs scripts/testbed --servers $1 (make check-scale)"
}

# node_addrs K: the addresses of server node K
node_addrs() {
	local v=SERVER_NODE$1_ADDRS

	echo "${!v}"
}

# node_conns_per_addr K: "ADDR N" for each address that server node K
# holds RDMA connections to, sorted
node_conns_per_addr() {
	local conns

	conns=$(server_rdma_conns "$1") || return 1
	echo "$conns" | awk 'NF { n[$1]++ } END { for (a in n) print a, n[a] }' | sort
}

# nodes_carry N K...: each of node K's own addresses, for each K, carries
# exactly N RDMA connections, and node K holds no others
nodes_carry() {
	local n=$1 k

	shift
	for k in "$@"; do
		node_carries "$k" "$n" $(node_addrs "$k") || return 1
	done
}

# node_carries K N ADDR...: server node K holds exactly N RDMA connections
# to each ADDR and none to others
node_carries() {
	local k=$1 n=$2 want a

	shift 2
	want=$(for a in "$@"; do echo "$a $n"; done | sort)
	[ "$(node_conns_per_addr "$k")" = "$want" ]
}

# node_tx K: bytes sent by the data NICs of server node K, "ethJ BYTES ..."
# on one line, then the total: the NIC counters of the node itself
node_tx() {
	on-server "$1" 'for d in /sys/class/net/eth*; do
		printf "%s %s " ${d##*/} $(cat $d/statistics/tx_bytes); done' |
		awk '{ for (i = 2; i <= NF; i += 2) t += $i; print $0, "total", t }'
}

# node_tx_total K: the total of node_tx K
node_tx_total() {
	node_tx "$1" | awk '{ print $NF }'
}

# ro_fio_args DIR: fio jobs that read every file of the read-only export
# mounted on DIR at random, in the blocks it was written in, and check
# each block's crc32c: 8 readers of one request each.  Not libaio: fio
# (3.33) reads with verify through an asynchronous engine only once,
# whatever --time_based or --loops say.
ro_fio_args() {
	local files k

	files=$(for ((k = 0; k < RO_FILES; k++)); do printf 'f%02d:' "$k"; done)
	echo "--name=roread --directory=$1/data --filename=${files%:}" \
	     "--readonly --rw=randread --bs=64k --size=$((RO_FILES * 4))M" \
	     "--direct=1 --ioengine=psync --numjobs=8 --group_reporting --verify=crc32c"
}

# ro_sums DIR: the read-only export on DIR reads back as its SHA256SUMS
# says, with O_DIRECT (over the wire)
ro_sums() {
	local f want got

	while read -r want f; do
		got=$(dd if="$1/$f" bs=1M iflag=direct 2>/dev/null | sha256sum | cut -d' ' -f1)
		[ "$got" = "$want" ] || { echo "$f reads back as $got, not $want"; return 1; }
	done <"$1/SHA256SUMS"
}

# lat_log_args PREFIX: fio options that log each request's issue-to-end
# latency, stamped with the time it ended (ms since the epoch), to
# PREFIX_lat.N.log
lat_log_args() {
	echo "--write_lat_log=$1 --log_avg_msec=0 --log_unix_epoch=1"
}

# judge_answers WHAT PREFIX EPOCHS: lat_after_answers PREFIX EPOCHS,
# logged; the I/O of WHAT must have gone on from 5 s before the first
# answer to 5 s after the last, and no request may have waited more than
# MAX_LAT_MS after an answer (fail_later, with the trace)
judge_answers() {
	local what=$1 prefix=$2 max reqs spanned before after first last

	shift 2
	max=$(lat_after_answers "$prefix" "$@" 2>/tmp/nfsmp-answers.spans)
	read -r reqs spanned before after first last </tmp/nfsmp-answers.spans
	rm -f /tmp/nfsmp-answers.spans
	log "$what: requests: $reqs logged, $spanned in flight while an address" \
	    "answered again, $before ended 5 s before the first answer, $after 5 s after the last" \
	    "(the I/O ended from $first s around the first answer to $last s around the last)"
	[ "$before" -gt 0 ] && [ "$after" -gt 0 ] ||
		fail_later "$what: the I/O did not go on all along"
	log "$what: largest wait after an address answered again: $max ms (limit $MAX_LAT_MS ms)"
	if [ "$max" -gt "$MAX_LAT_MS" ]; then
		trace_show
		fail_later "$what: a request waited $max ms after its address answered again"
	fi
}

# lat_after_answers PREFIX EPOCHS: the largest latency of the requests in
# PREFIX's lat logs, in ms, each measured from the later of its issue and
# the last of EPOCHS (seconds since the epoch, when a moved address
# answered again) before it ended: how long the I/O waited once the
# address was back.  Also "REQUESTS SPANNED BEFORE AFTER FIRST LAST" on
# stderr: how many requests were logged, how many were in flight across
# an answer, how many ended 5 s or more before the first answer and after
# the last (the I/O went on all along), and when the first request ended
# relative to the first answer and the last relative to the last, in s.
lat_after_answers() {
	local prefix=$1

	shift
	cat "$prefix"_lat.*.log | awk -v answers="$*" '
		BEGIN { n = split(answers, a, " "); for (i = 1; i <= n; i++) a[i] *= 1000 }
		{
			end = $1 + 0; sub(/,$/, "", $2); lat = $2 / 1e6; start = end - lat
			from = start
			for (i = 1; i <= n; i++)
				if (a[i] <= end && a[i] > from) from = a[i]
			if (from > start) spanned++
			if (end - from > max) max = end - from
			if (n && end < a[1] - 5000) before++
			if (n && end > a[n] + 5000) after++
			if (!reqs || end < first) first = end
			if (end > last) last = end
			reqs++
		}
		END {
			printf "%d %d %d %d %.1f %.1f\n", reqs, spanned, before, after,
			       n ? (first - a[1]) / 1000 : 0,
			       n ? (last - a[n]) / 1000 : 0 > "/dev/stderr"
			printf "%.0f\n", max
		}'
}

# ------------------------------------------------------------------- NUMA
#
# scripts/testbed --numa gives the client two NUMA nodes, with the first
# half of its data NICs on node 0 and the rest on node 1; TESTBED_NUMA=1
# then.

# if_node IF: the NUMA node of interface IF's device (-1: none).  A
# virtio NIC's device has no numa_node file; its parent, the PCI
# device, has.
if_node() {
	local d=/sys/class/net/$1/device

	cat "$d/numa_node" 2>/dev/null || cat "$d/../numa_node" 2>/dev/null ||
		echo -1
}

# numa_ifs NODE: the client's data interfaces whose device is on NODE
numa_ifs() {
	local i out=""

	for i in $CLIENT_IFS; do
		[ "$(if_node "$i")" = "$1" ] && out="$out $i"
	done
	echo $out
}

# numa_addrs NODE: the addresses of those interfaces, one per line
numa_addrs() {
	local i

	for i in $(numa_ifs "$1"); do
		word_at "$(index_of "$i" "$CLIENT_IFS")" "$CLIENT_ADDRS"
	done
}

# need_numa: the client has data NICs on NUMA nodes 0 and 1, and numactl;
# else the test is skipped, or fails in a testbed booted with --numa
need_numa() {
	[ -n "$(numa_ifs 0)" ] && [ -n "$(numa_ifs 1)" ] &&
		command -v numactl >/dev/null && return 0
	[ "${TESTBED_NUMA:-0}" = 1 ] &&
		fail "a --numa testbed without data NICs on nodes 0 and 1, or without numactl"
	skip "the client has no data NICs on two NUMA nodes (scripts/testbed --numa)"
}

# on_node NODE COMMAND...: run COMMAND with its CPUs and memory on NODE
on_node() {
	local n=$1

	shift
	numactl --cpunodebind="$n" --membind="$n" "$@"
}

# node_share SHARES NODE: the percent of SHARES (nic_shares) that the
# interfaces of NODE carried
node_share() {
	echo "$1" | awk -v ifs=" $(numa_ifs "$2") " '
		index(ifs, " " $1 " ") { s += $3 } END { printf "%.1f\n", s }'
}

# node_share_at_least SHARES NODE PCT: the interfaces of NODE carried at
# least PCT percent of a window in which the NICs carried at least
# WINDOW_MIN_BYTES
node_share_at_least() {
	echo "$1" | awk -v ifs=" $(numa_ifs "$2") " -v p="$3" \
		-v min="$WINDOW_MIN_BYTES" '
		{ tot += $2 } index(ifs, " " $1 " ") { s += $3 }
		END { exit !(tot >= min && s >= p) }'
}

# note_server_prior: SERVER_PRIOR gets the connections of every server
# node that outlived their client's cm_id (server_rdma_stale_cms), as
# "K:DEV:IDN," each, for server_rdma_links to leave out, and each is logged.
# Done once as a test begins: what the test's own mounts leave behind
# still counts.
note_server_prior() {
	local k stale srv cl id

	SERVER_PRIOR=""
	for k in $(seq 1 "${TESTBED_SERVERS:-1}"); do
		stale=$(server_rdma_stale_cms "$k") || return 1
		[ -n "$stale" ] || continue
		SERVER_PRIOR="$SERVER_PRIOR$(echo "$stale" | awk '{ printf "%s,", $3 }')"
		echo "$stale" | while read -r srv cl id; do
			log "left out: server node $k holds $srv <- $cl (cm_id $id)," \
			    "whose client end is gone"
		done
	done
}

SERVER_PRIOR=""
if [ "${TESTBED_ROLE:-}" = client ]; then
	note_server_prior || SERVER_PRIOR=""
fi
