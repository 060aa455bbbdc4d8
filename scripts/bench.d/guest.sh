#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of `make bench` (scripts/bench): runs in the testbed's client
# guest, measures, and prints one CSV line per measurement on stdout:
#
#   BENCH,<bench>,<config>,<op>,<rep>,<value>,<unit>
#   BENCHINFO,<key>,<value>
#   BENCHFAIL,<bench>,<config>,<what>
#   BENCHWIN,<bench>,<config>,<op>,<rep>,<start>,<end>  (B5's windows)
#
# and "bench: ..." progress lines.  It asserts nothing about speed; it
# exits non-zero when a scenario could not run at all (a mount or a fio
# run failed), after running every other scenario.
#
#   guest.sh ours|stock|links8 RUNTIME RAMP REPS QUICK ONLY POLICIES [CAP_MBIT]
#
# ours:  the TCG ceiling (uncapped), then B2, B3, B4 and our side of B5.
#        CAP_MBIT (per link) is chosen from the ceiling unless given.
# stock: B1 and the stock side of B5 (Debian's modules); CAP_MBIT is the
#        one the ours run chose.
# links8: B6, in a guest of 8 links; CAP_MBIT is the B6 cap that the ours
#        run chose (b6_cap_mbit), else the smallest candidate.
# QUICK: 1 for the short run of make check (B5: fewer setups).
# ONLY:  "all", or the scenarios to run (ceiling B1 B2 B3 B4 B5 B6, separated
#        by spaces or commas); the ceiling also runs when a capped
#        scenario needs a cap and CAP_MBIT is not given.
# POLICIES: the pathpolicy= values B5 runs over every endpoint.

MNT=/mnt/bench
. "$(dirname "$0")/../../tools/testing/selftests/nfs-multipath/lib.sh"

MODE=$1
RUNTIME=$2
RAMP=$3
REPS=$4
QUICK=$5
ONLY=$(echo "$6" | tr ',' ' ')
POLICIES=$7
CAP=${8:-}

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

# B5, the client's CPU time per read: 4 KiB random reads with 64 in
# flight (NJOBS jobs of CPU_RAND_DEPTH), and 1 MiB sequential reads with
# 8 in flight (NJOBS jobs of CPU_SEQ_DEPTH; with 256 KiB RPCs, two per
# transport of nconnect=16).  Uncapped: the CPUs bound them.
CPU_RAND_DEPTH=16
CPU_SEQ_DEPTH=2
CPU_OPS="randread read"

FAILED=0

# Candidate per-link caps, mbit, best first.  Multiples of 4, so that the
# 4:2:1:1 caps of B3 stay whole.  12 mbit still bounds a link alone: one
# link carried 1.40 MiB/s of its 1.43 (2026-12-07).  At 8 mbit, before
# the testbed's larger socket buffers, writes ran at 0.3 MiB/s and
# connections were lost to retry-exceeded errors.
CAP_CANDIDATES="40 36 32 28 24 20 16 12"
# Share of the guest's uncapped ceiling that the sum of the caps may use
# at most.  Capped transfers cost the client's one vCPU more per byte
# than uncapped ones (smaller bursts), and writes more than reads (rxe
# sends the RDMA Read responses from it): at 50 % of the ceiling, 4 links
# of writes carried 95 % of their caps with that vCPU 77 to 87 % busy,
# and the ratio to one link fell to 3.8x; at 30 %, 99.5 % with it 63 %
# busy, and 3.96x (build/w20.sh, 2026-12-07).  So that B2 and B6
# measure the client and not the emulator, the caps stay below a third.
CAP_HEADROOM=33

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

# want NAME: scenario NAME is to run (see ONLY).
want() {
	case " $ONLY " in
	" all "|*" $1 "*) return 0 ;;
	esac
	return 1
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

# fio_common JSON: FIO_ARGS gets the options every fio job of the bench
# shares: its JSON report, NJOBS jobs of JOB_MIB MiB each on $MNT/$FILE,
# O_DIRECT through libaio, time based.  fio writes state files into its
# working directory: run it in /tmp.
fio_common() {
	FIO_ARGS=(--output-format=json --output="$1" --name=bench
		--filename="$MNT/$FILE" --size="${JOB_MIB}M"
		--offset_increment="${JOB_MIB}M" --numjobs="$NJOBS"
		--group_reporting --direct=1 --ioengine=libaio --time_based)
}

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
	fio_common "$json"
	(cd /tmp && exec timeout -k 20 -s INT $((RUNTIME + RAMP + 60)) \
		fio "${FIO_ARGS[@]}" --runtime="$RUNTIME" --ramp_time="$RAMP" \
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

# cap_for N ALL: the largest candidate per-link cap whose sum over N
# links stays within CAP_HEADROOM % of ALL MiB/s, the guest's ceiling;
# the smallest candidate if none does (then it says so).
cap_for() {
	local c

	for c in $CAP_CANDIDATES; do
		if awk -v c="$(mbit_mib "$c")" -v n="$1" -v all="$2" -v h="$CAP_HEADROOM" \
			'BEGIN { exit !(n * c <= all * h / 100) }'; then
			echo "$c"
			return 0
		fi
	done
	c=$(echo $CAP_CANDIDATES | awk '{ print $NF }')
	echo "bench: no cap fits $1 links within $CAP_HEADROOM% of the ceiling; using $c mbit" >&2
	echo "$c"
}

# choose_cap: CAP (unless given) gets the per-link cap of the four links
# of B2 and B3, B6_CAP that of B6's eight, from the guest's ceiling (the
# lower of read and write over 4 links).
choose_cap() {
	local one all

	one=$(printf '%s\n%s\n' "$(median ceiling "1 path" read)" \
		"$(median ceiling "1 path" write)" | sort -n | head -n 1)
	all=$(printf '%s\n%s\n' "$(median ceiling "4 links" read)" \
		"$(median ceiling "4 links" write)" | sort -n | head -n 1)
	info ceiling_1path_mib "${one:-?}"
	info ceiling_guest_mib "${all:-?}"
	[ -n "$CAP" ] || CAP=$(cap_for 4 "${all:-0}")
	B6_CAP=$(cap_for 8 "${all:-0}")
	info cap_mbit "$CAP"
	info b6_cap_mbit "$B6_CAP"
}

# B2: equal caps, our multipath mount over 1, 2, 3 and 4 links, one
# transport per link (QUICK: 1 and 4), round-robin; and 4 links with
# service-time.
b2() {
	local k

	cap_links "$CAP" "$CAP" "$CAP" "$CAP" || { bfail B2 caps "tc failed"; return 0; }
	for k in $([ "$QUICK" = 0 ] && echo 1 2 3 4 || echo 1 4); do
		series B2 "links=$k" "$(mp_opts "$k" "$k")" "read write randread"
	done
	# equal paths must not lose with the policy for unequal ones
	series B2 "links=4 service-time" "$(mp_opts 4 4),pathpolicy=service-time" \
		"read write"
}

# B3: caps 4:2:1:1 (the same sum as B2), each policy; QUICK leaves out
# round-robin, the reference.
B3_POLICIES="round-robin queue-depth service-time"

b3() {
	local p

	cap_links $((2 * CAP)) "$CAP" $((CAP / 2)) $((CAP / 2)) ||
		{ bfail B3 caps "tc failed"; return 0; }
	for p in $B3_POLICIES; do
		[ "$QUICK" = 0 ] || [ "$p" != round-robin ] || continue
		series B3 "$p" "$(mp_opts 4 4),pathpolicy=$p" "read write"
	done
}

# B6: the scaling curve over 1 to 8 links of equal caps (CAP, here the
# ours boot's b6_cap_mbit), one transport per link, in a guest of 8
# links.  Up to 4 links it has B2's load (4 jobs, one 1 MiB request in
# flight each); above, two a job, so that each link keeps at least
# 1 MiB to carry: with 0.5 MiB a link, the pause of each direct write
# for its COMMIT left 8 links of writes at 7.5 times one link, and with
# two a job 7.98 (build/w20.sh, 2026-12-07).  Not more: with two a job
# over 2 links (4 MiB a link) of 12 mbit, writes collapsed to 0.14 MiB/s
# while the links carried 1.9, the server's RDMA Reads sent again and
# again.  QUICK: 1 and 8 links.
b6() {
	local k caps="" SEQ_DEPTH

	for k in 1 2 3 4 5 6 7 8; do
		caps="$caps $CAP"
	done
	# shellcheck disable=SC2086
	cap_links $caps || { bfail B6 caps "tc failed"; return 0; }
	for k in $([ "$QUICK" = 0 ] && echo 1 2 3 4 5 6 7 8 || echo 1 8); do
		SEQ_DEPTH=$(((k + 3) / 4))
		series B6 "links=$k" "$(mp_opts "$k" "$k")" "read write"
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

# ---------------------------------------------------------------- B5

# B5: uncapped, the client's busy CPU time per read, from the guest's
# /proc/stat over a window of RUNTIME s after RAMP s of fio, and the
# reads completed in that window, from the NFS client's own count of the
# bytes the server returned.  Both are read by this shell without a new
# process at the window's edges (the awk of read_counts runs outside
# it), so that the measurement costs the window nothing but two naps.

# cpu_snap VAR: VAR gets "SECONDS BUSY TOTAL KERNEL" now: the wall clock,
# and the ticks of the client's CPUs: busy (user, nice, system, irq,
# softirq), total (those, idle, iowait and steal), kernel (system, irq,
# softirq).
cpu_snap() {
	local __t=$EPOCHREALTIME __c us ni sy id io hi si st __r

	read -r __c us ni sy id io hi si st __r </proc/stat
	printf -v "$1" '%s %d %d %d' "$__t" $((us + ni + sy + hi + si)) \
		$((us + ni + sy + id + io + hi + si + st)) $((sy + hi + si))
}

# read_counts VAR: VAR gets "BYTES RPCS": the bytes that READs of the
# mount on $MNT returned so far (serverreadbytes) and its READ calls.
read_counts() {
	printf -v "$1" '%s' "$(mount_stats "$MNT" | awk '
		$1 == "bytes:" { b = $6 }
		$1 == "READ:" { r = $2 }
		END { print b + 0, r + 0 }')"
}

# /proc/stat counts in USER_HZ ticks, 1/100 s on x86 (the guest has no
# getconf).
CPU_HZ=100

# cpu_figures BS SNAP0 SNAP1 COUNTS0 COUNTS1: RATE (IOPS for 4 KiB, MiB/s
# for larger reads), US (busy us per read), KUS (kernel us per read),
# BUSY (% of the window) and RPCS (READ calls per read) of a window.
cpu_figures() {
	local f

	f=$(awk -v bs="$1" -v hz="$CPU_HZ" -v a="$2" -v b="$3" -v p="$4" -v q="$5" '
		BEGIN {
			split(a, x, " "); split(b, y, " ")
			split(p, r0, " "); split(q, r1, " ")
			secs = y[1] - x[1]; total = y[3] - x[3]
			n = (r1[1] - r0[1]) / bs
			if (n <= 0 || secs <= 0 || total <= 0)
				exit 1
			rate = bs == 4096 ? n / secs : n * bs / 1048576 / secs
			printf "%.2f %.1f %.1f %.1f %.2f\n", rate,
				(y[2] - x[2]) * 1e6 / hz / n, (y[4] - x[4]) * 1e6 / hz / n,
				100 * (y[2] - x[2]) / total, (r1[2] - r0[2]) / n
		}') || return 1
	read -r RATE US KUS BUSY RPCS <<<"$f"
}

# cpu_run OP: one fio run of OP (randread: 4 KiB random; read: 1 MiB
# sequential) on $MNT/$FILE, measured by cpu_figures over the window;
# WINDOW gets "START,END" (s since the epoch) for the host, which leaves
# out the windows that other work on it disturbed.  fio runs on past the
# window and is stopped with SIGINT.  Returns 2 when fio does not end:
# its I/O hangs, and so will the mount's.
cpu_run() {
	local op=$1 json=/tmp/bench-cpu.json bs pid rc=0 alive=1 c0 c1 r0 r1

	case "$op" in
	randread)
		bs=4096
		set -- --rw=randread --bs=4k --iodepth=$CPU_RAND_DEPTH \
			--norandommap --randrepeat=0
		RATE_UNIT=IOPS ;;
	read)
		bs=1048576
		set -- --rw=read --bs=1M --iodepth=$CPU_SEQ_DEPTH
		RATE_UNIT=MiB/s ;;
	esac
	fio_common "$json"
	(cd /tmp && exec timeout -k 20 -s INT $((RAMP + RUNTIME + 60)) \
		fio "${FIO_ARGS[@]}" --runtime=$((RAMP + RUNTIME + 30)) \
		"$@" >"$json.out" 2>"$json.err") &
	pid=$!
	nap "$RAMP"
	read_counts r0
	cpu_snap c0
	nap "$RUNTIME"
	cpu_snap c1
	read_counts r1
	kill -0 "$pid" 2>/dev/null || alive=0
	# fio is the child of timeout ($pid)
	pkill -INT -P "$pid" -x fio 2>/dev/null || true
	if ! run_wait_pid "$pid" 60; then
		echo "bench: fio does not end 60 s after SIGINT"
		return 2
	fi
	wait "$pid" || rc=$?
	# 128: fio stopped on our SIGINT
	[ "$rc" != 128 ] || rc=0
	if [ "$rc" != 0 ] || [ "$alive" = 0 ] || [ "$(fio_errors "$json")" != 0 ]; then
		[ "$alive" = 1 ] || echo "bench: fio ended before the window did (exit $rc)"
		sed 's/^/bench: fio: /' "$json.err" | head -n 5
		return 1
	fi
	cpu_figures "$bs" "$c0" "$c1" "$r0" "$r1" ||
		{ echo "bench: no read completed in the window"; return 1; }
	WINDOW=${c0%% *},${c1%% *}
}

# cpu_idle REP: the client's busy share with no I/O, over RUNTIME s.
cpu_idle() {
	local c0 c1 v

	cpu_snap c0
	nap "$RUNTIME"
	cpu_snap c1
	v=$(awk -v a="$c0" -v b="$c1" 'BEGIN {
		split(a, x, " "); split(b, y, " ")
		printf "%.1f\n", 100 * (y[2] - x[2]) / (y[3] - x[3])
	}')
	emit B5 "$MODE idle" busy "$1" "$v" %
	echo "BENCHWIN,B5,$MODE idle,busy,$1,${c0%% *},${c1%% *}"
}

# cpu_series CONFIG OPTS REP: mount with OPTS, one cpu_run of each op of
# CPU_OPS (repetition REP), umount.  B5_HUNG becomes 1 when fio hung:
# the server has died, as Debian's svcrdma did once here (an oops in
# svc_rdma_write_info_free_async(), nconnect=64, 1 MiB reads), and the
# rest of B5 would only wait for it.
B5_HUNG=0

cpu_series() {
	local config=$1 opts=$2 rep=$3 op rc

	echo "bench: B5 $config #$rep: mount -o $opts"
	if ! bmount "$opts"; then
		bfail B5 "$config" "mount failed"
		return 0
	fi
	# A multipath mount returns once one path answered: let the others
	# join before the ramp (a plain mount has no endpoint: lines).
	case "$opts" in
	*remoteports=*)
		wait_for_cs 500 all_paths_up ||
			echo "bench: B5 $config: not every path up 5 s after the mount" ;;
	esac
	for op in $CPU_OPS; do
		rc=0
		cpu_run "$op" || rc=$?
		if [ "$rc" = 2 ]; then
			B5_HUNG=1
			bfail B5 "$config" "fio $op hung"
			timeout 10 on-server "dmesg | grep -m 3 -E 'BUG|Oops|RIP'" 2>&1 |
				sed 's/^/bench: server: /' || true
			return 0
		elif [ "$rc" = 0 ]; then
			echo "BENCH,B5,$config,$op,$rep,$RATE,$RATE_UNIT"
			echo "BENCH,B5,$config,$op-cpu,$rep,$US,us"
			echo "BENCH,B5,$config,$op-kernel,$rep,$KUS,us"
			echo "BENCH,B5,$config,$op-busy,$rep,$BUSY,%"
			echo "BENCH,B5,$config,$op-rpcs,$rep,$RPCS,RPCs"
			echo "BENCHWIN,B5,$config,$op,$rep,$WINDOW"
			echo "bench: B5 $config $op #$rep: $RATE $RATE_UNIT," \
				"$US us CPU per read ($KUS kernel), CPU $BUSY % busy"
		else
			bfail B5 "$config" "fio $op failed"
		fi
	done
	bumount || bfail B5 "$config" "umount failed"
}

# b5_configs: the B5 setups of this boot, "CONFIG|OPTIONS" a line.
# stock: (1) nconnect=16 to one address.  ours: (2) the same, a plain
# mount; (3) remoteports= and localports= of one address each, so that
# the path monitor and the policy work, over one rxe device each side;
# (4) nconnect=16 over every endpoint (4 by 4), and (5) nconnect=64, each
# with every policy of POLICIES.  QUICK: (1) to (3), what the goal needs.
b5_configs() {
	local p

	if [ "$MODE" = stock ]; then
		echo "stock nconnect=16|$MP_RDMA,nconnect=16"
		return 0
	fi
	echo "ours nconnect=16|$MP_RDMA,nconnect=16"
	echo "ours nconnect=16 1x1|$(mp_opts 1 16)"
	[ "$QUICK" = 0 ] || return 0
	for p in $POLICIES; do
		echo "ours nconnect=16 4x4 $p|$(mp_opts 4 16),pathpolicy=$p"
	done
	for p in $POLICIES; do
		echo "ours nconnect=64 4x4 $p|$(mp_opts 4 64),pathpolicy=$p"
	done
}

# B5: every setup of b5_configs once a round, REPS rounds, each round
# after a look at the idle CPU (not in QUICK).  The testbed's
# rxe-qp1-watch, which the client runs under our modules only (it forks
# rdma every 5 s), is stopped meanwhile, so that both boots' clients run
# the same background; no link goes down here.
b5() {
	local rep config opts watch

	uncap_links
	watch=$(pgrep -f 'rxe-qp1-watch$' || true)
	if [ -n "$watch" ]; then
		kill -STOP $watch
		defer "kill -CONT $watch"
	fi
	for rep in $(seq 1 "$REPS"); do
		[ "$QUICK" = 1 ] || cpu_idle "$rep"
		while IFS='|' read -r -u 3 config opts; do
			cpu_series "$config" "$opts" "$rep"
			[ "$B5_HUNG" = 0 ] || break
		done 3<<-EOF
		$(b5_configs)
		EOF
		if [ "$B5_HUNG" = 1 ]; then
			bfail B5 rest "left out after fio hung"
			break
		fi
	done
	[ -z "$watch" ] || kill -CONT $watch
}

# With a cap given, the ceiling runs last: it only reports then, and the
# uncapped transfers are the ones that have crashed the server guest under
# TCG (a spurious #DB in rxe, then an oops in net_rx_action), which would
# lose every scenario after them.
run_ours() {
	local given=$CAP capped=0

	if want B1 || want B2 || want B3; then
		capped=1
	fi
	if [ -z "$given" ] && { [ "$capped" = 1 ] || want ceiling; }; then
		ceiling
		choose_cap
	fi
	if [ "$capped" = 1 ]; then
		info cap_mbit "$CAP"
		info cap_mib "$(mbit_mib "$CAP")"
		# B3's slow links are half the cap
		[ "$CAP" -ge 24 ] || slow_links B3
	fi
	if want B2; then b2; fi
	if want B3; then b3; fi
	slow_links_end
	if want B4; then b4; fi
	if want B5; then b5; fi
	if [ -n "$given" ] && want ceiling; then
		ceiling
		choose_cap
	fi
}

# slow_links BENCH: path_timeout for links of 12 mbit and less, as the
# rst (Detection) tells an administrator of such links to set it; OLD_PT
# gets the value to put back (slow_links_end).  At 12 mbit a 256 KiB
# WRITE takes 175 ms of its link, and a NULL call queued behind 2 MiB of
# them waits 1.4 s, past the longest ping time of the default 500 ms
# (1 s).  With that default, B6's 2 links of writes stalled: the server
# ran 96 WRITEs in 14 s and the client saw none end, and fio gave up
# after 71 s.
SLOW_PATH_TIMEOUT=5000
PT_FILE=/sys/module/sunrpc/parameters/path_timeout
OLD_PT=""

slow_links() {
	OLD_PT=$(cat "$PT_FILE")
	echo "$SLOW_PATH_TIMEOUT" >"$PT_FILE" ||
		{ bfail "$1" setup "cannot set path_timeout"; return 0; }
	info "$(echo "$1" | tr 'A-Z' 'a-z')_path_timeout_ms" "$SLOW_PATH_TIMEOUT"
}

slow_links_end() {
	[ -z "$OLD_PT" ] || echo "$OLD_PT" >"$PT_FILE" || true
	OLD_PT=""
}

# B6 in its own guest of 8 links, at the cap that the ours boot chose
# for it (b6_cap_mbit); without one, at the smallest candidate.  It runs
# no ceiling of its own: the report's ceiling and caps stay the ours
# boot's.
run_links8() {
	if [ "$(echo $CLIENT_ADDRS | wc -w)" -lt 8 ]; then
		bfail B6 setup "the guest has fewer than 8 links"
		return 0
	fi
	if [ -z "$CAP" ]; then
		CAP=$(echo $CAP_CANDIDATES | awk '{ print $NF }')
		echo "bench: B6: no cap from the ours boot; using $CAP mbit"
	fi
	slow_links B6
	info b6_cap_mbit "$CAP"
	info b6_cap_mib "$(mbit_mib "$CAP")"
	b6
	slow_links_end
}

run_stock() {
	if want B1; then
		[ -n "$CAP" ] || CAP=32
		info cap_mbit "$CAP"
		cap_links "$CAP" "$CAP" "$CAP" "$CAP" || bfail B1 caps "tc failed"
		series B1 "stock nconnect=4" "$MP_RDMA,nconnect=4" "read write randread"
	fi
	if want B5; then b5; fi
}

main() {
	info mode "$MODE"
	info sunrpc "$(cat /sys/module/sunrpc/version 2>/dev/null || echo stock)"
	info guest_kernel "$(uname -r)"
	info only "$ONLY"
	info policies "$POLICIES"
	make_file || exit 1
	case "$MODE" in
	ours) run_ours ;;
	stock) run_stock ;;
	links8) run_links8 ;;
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
