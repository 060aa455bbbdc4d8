#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of `make bench` (scripts/bench): runs in the testbed's client
# guest, measures, and prints one CSV line per measurement on stdout:
#
#   BENCH,<bench>,<config>,<op>,<rep>,<value>,<unit>
#   BENCHINFO,<key>,<value>
#   BENCHFAIL,<bench>,<config>,<what>
#
# and "bench: ..." progress lines.  It asserts nothing about speed; it
# exits non-zero when a scenario could not run at all (a mount or a fio
# run failed), after running every other scenario.
#
#   guest.sh ours|stock RUNTIME RAMP REPS [CAP_MBIT]
#
# ours:  the TCG ceiling (uncapped), then B2, B3, B4 and our side of B5.
#        CAP_MBIT (per link) is chosen from the ceiling unless given.
# stock: B1 and the stock side of B5 (Debian's modules); CAP_MBIT is the
#        one the ours run chose.

MNT=/mnt/bench
. "$(dirname "$0")/../../tools/testing/selftests/nfs-multipath/lib.sh"

MODE=$1
RUNTIME=$2
RAMP=$3
REPS=$4
CAP=${5:-}

# The data file, pre-made on the server: NJOBS jobs each work on their own
# JOB_MIB slice, sequential or random.
NJOBS=4
JOB_MIB=64
FILE=bench.dat

# The fio runs: 1 MiB sequential with 4 requests in flight, 4 KiB random
# reads with 64 in flight.  More sequential ones only make the completions
# come in batches (a 1 MiB write is four 256 KiB RPCs that the nfsd
# threads pull in parallel through one capped link), and an 8 s window
# then counts one batch more or less: 16 in flight measured 4.5 MiB/s
# through a 3.8 MiB/s cap.
SEQ_DEPTH=1
RAND_DEPTH=16

FAILED=0

# Candidate per-link caps, mbit, best first.  Even numbers, so that the
# 4:2:1:1 caps of B3 stay whole.  Below 24 mbit rxe under TCG stops
# being bounded by the link alone (8 mbit: writes at 0.3 MiB/s, and
# connections lost to retry-exceeded errors).
CAP_CANDIDATES="40 36 32 28 24"
# Share of the guest's ceiling that the sum of the caps may use at most.
CAP_HEADROOM=75

# mbit_mib MBIT: MBIT megabits/s in MiB/s.
mbit_mib() {
	awk -v m="$1" 'BEGIN { printf "%.2f", m * 1e6 / 8 / 1048576 }'
}

emit() {
	echo "BENCH,$1,$2,$3,$4,$5,$6"
	echo "bench: $1 $2 $3 #$4: $5 $6"
}

info() {
	echo "BENCHINFO,$1,$2"
	echo "bench: $1 = $2"
}

# bfail BENCH CONFIG WHAT: a scenario could not run; go on with the rest.
bfail() {
	echo "BENCHFAIL,$1,$2,$3"
	echo "bench: FAIL: $1 $2: $3"
	FAILED=$((FAILED + 1))
}

# ---------------------------------------------------------------- links

# first_n N LIST SEP: the first N words of LIST joined by SEP.
first_n() {
	echo $2 | awk -v n="$1" -v s="$3" '
		{ for (i = 1; i <= n && i <= NF; i++) printf "%s%s", (i > 1 ? s : ""), $i }'
}

# mp_opts N NCONNECT: the options of a multipath mount over the first N
# links (client ethK to server ethK) with NCONNECT transports.
mp_opts() {
	echo "$MP_RDMA,nconnect=$2,remoteports=$(first_n "$1" "$SERVER_ADDRS" '~')" \
	     ",localports=$(first_n "$1" "$CLIENT_ADDRS" '~'),remoteports_offset=0" | tr -d ' '
}

# ---------------------------------------------------------------- mount

# bmount OPTS: mount $EXPORT on $MNT, without failing the script.
bmount() {
	mkdir -p "$MNT"
	if ! mount -t nfs -o "$1" "$SERVER:$EXPORT" "$MNT" >/tmp/bench.mount 2>&1; then
		sed 's/^/bench: mount: /' /tmp/bench.mount
		return 1
	fi
}

bumount() {
	umount_wait "$MNT" 60 >/dev/null
}

# ---------------------------------------------------------------- fio

# fio_run OP: one fio run of OP (read, write: 1 MiB sequential; randread:
# 4 KiB random) on $MNT/$FILE.  VALUE gets MiB/s or IOPS, UNIT the unit.
fio_run() {
	local op=$1 json=/tmp/bench.json rc=0 dir=$1 field=bw_bytes

	case "$op" in
	read|write)
		set -- --rw="$op" --bs=1M --iodepth=$SEQ_DEPTH
		UNIT=MiB/s ;;
	randread)
		set -- --rw=randread --bs=4k --iodepth=$RAND_DEPTH \
			--norandommap --randrepeat=0
		dir=read
		field=iops
		UNIT=IOPS ;;
	esac
	# fio writes state files into its working directory: /tmp.
	(cd /tmp && exec timeout -k 20 -s INT $((RUNTIME + RAMP + 60)) \
		fio --output-format=json --output="$json" --name=bench \
		--filename="$MNT/$FILE" --size=${JOB_MIB}M \
		--offset_increment=${JOB_MIB}M --numjobs=$NJOBS \
		--group_reporting --direct=1 --ioengine=libaio \
		--time_based --runtime="$RUNTIME" --ramp_time="$RAMP" \
		"$@" >"$json.out" 2>"$json.err") || rc=$?
	if [ "$rc" != 0 ] || [ "$(fio_errors "$json")" != 0 ]; then
		sed 's/^/bench: fio: /' "$json.err" | head -n 5
		return 1
	fi
	VALUE=$(awk -v dir="$dir" -v f="$field" '
		/^ *"(read|write|trim|sync)" : \{/ { d = $1; gsub(/"/, "", d) }
		d == dir && $1 == "\"" f "\"" { v = $3; sub(/,$/, "", v); s += v }
		END {
			if (f == "bw_bytes")
				printf "%.2f\n", s / 1048576
			else
				printf "%.0f\n", s
		}' "$json")
}

# series BENCH CONFIG OPTS OPS: mount with OPTS, run every op of OPS once
# per round for REPS rounds (so that the repetitions of one op are spread
# over the series), umount.
series() {
	local bench=$1 config=$2 opts=$3 ops=$4 rep op

	echo "bench: $bench $config: mount -o $opts"
	if ! bmount "$opts"; then
		bfail "$bench" "$config" "mount failed"
		return 0
	fi
	for rep in $(seq 1 "$REPS"); do
		for op in $ops; do
			if fio_run "$op"; then
				emit "$bench" "$config" "$op" "$rep" "$VALUE" "$UNIT"
			else
				bfail "$bench" "$config" "fio $op failed"
			fi
		done
	done
	bumount || bfail "$bench" "$config" "umount failed"
}

# ---------------------------------------------------------------- scenarios

make_file() {
	on-server "dd if=/dev/zero of=$EXPORT/$FILE bs=1M count=$((NJOBS * JOB_MIB)) 2>/dev/null &&
		chmod 666 $EXPORT/$FILE" >/dev/null || {
		bfail setup file "cannot make $EXPORT/$FILE on the server"
		return 1
	}
}

# median BENCH CONFIG OP: the median of what this run emitted, from the
# log kept in BENCH_LOG; empty if none.
BENCH_LOG=/tmp/bench.log

median() {
	awk -F, -v b="$1" -v c="$2" -v o="$3" '
		$1 == "BENCH" && $2 == b && $3 == c && $4 == o { print $6 }' "$BENCH_LOG" |
		sort -n | awk '{ v[NR] = $1 }
			END {
				if (NR)
					printf "%.2f\n", NR % 2 ? v[(NR + 1) / 2] :
						(v[NR / 2] + v[NR / 2 + 1]) / 2
			}'
}

# ceiling: uncapped, the TCG CPU ceiling of one rxe path (a plain mount,
# one transport) and of the whole guest (every link).
ceiling() {
	uncap_links
	series ceiling "1 path" "$MP_RDMA,nconnect=1" "read write"
	series ceiling "4 links" "$(mp_opts 4 4)" "read write"
}

# choose_cap: the largest candidate per-link cap whose sum over the four
# links stays within CAP_HEADROOM % of the guest's ceiling (the lower of
# read and write); the smallest candidate if none does.
choose_cap() {
	local one all c

	one=$(printf '%s\n%s\n' "$(median ceiling "1 path" read)" \
		"$(median ceiling "1 path" write)" | sort -n | head -n 1)
	all=$(printf '%s\n%s\n' "$(median ceiling "4 links" read)" \
		"$(median ceiling "4 links" write)" | sort -n | head -n 1)
	info ceiling_1path_mib "${one:-?}"
	info ceiling_guest_mib "${all:-?}"
	if [ -n "$CAP" ]; then
		info cap_mbit "$CAP"
		return 0
	fi
	if [ -n "$all" ]; then
		for c in $CAP_CANDIDATES; do
			if awk -v c="$(mbit_mib "$c")" -v all="$all" -v h="$CAP_HEADROOM" \
				'BEGIN { exit !(4 * c <= all * h / 100) }'; then
				CAP=$c
				break
			fi
		done
	fi
	if [ -z "$CAP" ]; then
		CAP=$(echo $CAP_CANDIDATES | awk '{ print $NF }')
		echo "bench: no cap fits within $CAP_HEADROOM% of the ceiling; using $CAP mbit"
	fi
	info cap_mbit "$CAP"
}

# B2: equal caps, our multipath mount over 1, 2, 3 and 4 links, one
# transport per link.
b2() {
	local k

	cap_links "$CAP" "$CAP" "$CAP" "$CAP" || { bfail B2 caps "tc failed"; return 0; }
	for k in 1 2 3 4; do
		series B2 "links=$k" "$(mp_opts "$k" "$k")" "read write randread"
	done
}

# B3: caps 4:2:1:1 (the same sum as B2), round-robin against queue-depth.
b3() {
	local p

	cap_links $((2 * CAP)) "$CAP" $((CAP / 2)) $((CAP / 2)) ||
		{ bfail B3 caps "tc failed"; return 0; }
	for p in round-robin queue-depth; do
		series B3 "$p" "$(mp_opts 4 4),pathpolicy=$p" "read write"
	done
}

# mount_ms OPTS: MS gets how long mount(8) took, in ms.
mount_ms() {
	local t0=$EPOCHREALTIME t1

	bmount "$1" || return 1
	t1=$EPOCHREALTIME
	MS=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.0f", (b - a) * 1000 }')
	bumount
}

# B4: uncapped, mount time of nconnect=16 over every endpoint against a
# plain nconnect=1 mount, alternating.
b4() {
	local rep config opts

	uncap_links
	for rep in $(seq 1 $((REPS + 2))); do
		for config in nconnect=1 nconnect=16; do
			if [ "$config" = nconnect=1 ]; then
				opts="$MP_RDMA,nconnect=1"
			else
				opts=$(mp_opts 4 16)
			fi
			if mount_ms "$opts"; then
				emit B4 "$config" mount "$rep" "$MS" ms
			else
				bfail B4 "$config" "mount failed"
			fi
		done
	done
}

# With a cap given, the ceiling runs last: it only reports then, and the
# uncapped transfers are the ones that have crashed the server guest under
# TCG (a spurious #DB in rxe, then an oops in net_rx_action), which would
# lose every scenario after them.
run_ours() {
	local given=$CAP

	[ -n "$given" ] || ceiling
	[ -n "$given" ] || choose_cap
	info cap_mbit "$CAP"
	info cap_mib "$(mbit_mib "$CAP")"
	b2
	b3
	b4
	uncap_links
	series B5 "ours nconnect=64" "$(mp_opts 4 64)" randread
	[ -z "$given" ] || ceiling
	[ -z "$given" ] || choose_cap
}

run_stock() {
	[ -n "$CAP" ] || CAP=32
	info cap_mbit "$CAP"
	cap_links "$CAP" "$CAP" "$CAP" "$CAP" || bfail B1 caps "tc failed"
	series B1 "stock nconnect=4" "$MP_RDMA,nconnect=4" "read write randread"
	uncap_links
	series B5 "stock nconnect=16" "$MP_RDMA,nconnect=16" randread
}

main() {
	info mode "$MODE"
	info sunrpc "$(cat /sys/module/sunrpc/version 2>/dev/null || echo stock)"
	info guest_kernel "$(uname -r)"
	make_file || exit 1
	case "$MODE" in
	ours) run_ours ;;
	stock) run_stock ;;
	*) echo "bench: unknown mode $MODE"; exit 2 ;;
	esac
	echo "bench: $MODE done, $FAILED failure(s)"
	[ "$FAILED" = 0 ]
}

# The cleanups run in this shell: main runs in a subshell of the pipeline.
defer uncap_links
defer "run_wait 30 umount -f $MNT"
main 2>&1 | tee "$BENCH_LOG"
exit "${PIPESTATUS[0]}"
