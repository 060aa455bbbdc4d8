#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# B5's goal: the client's CPU per READ with Debian's modules on a plain
# nconnect=16 mount (S) against ours with remoteports= and localports= of
# one address each (O), nconnect=16, over the same one rxe device each
# side, in one boot: the modules are swapped between windows (lib.sh's
# stack_reload), in the order S O O S, ROUNDS times (default 3).  Each
# window: 4 KiB random reads (64 in flight), then 1 MiB sequential
# reads (8 in flight), WINDOW s (default 8) of one fio run after a RAMP s
# ramp (default 3); make check's QUICK bench takes 3 and 1, to run it,
# not to measure.
#
# make bench boots the client with --icount 2 for it: the guest's clock
# then counts its instructions (4 ns each), so that its busy time per
# READ measures the work done, not the speed of a busy host.  Under
# multi-threaded TCG the same window varied by 10 to 20 % from one to
# the next; under icount by about 2 %.
#
# Prints "BENCH,B5,stock icount|ours 1x1 icount,randread-cpu|read-cpu,
# REP,US,us" for make bench; the NULL calls (the path monitor's pings,
# over ours), READs sent again and paths taken down in each window as
# BENCH lines too; and "bench: ..." progress lines.  By hand:
#
#   scripts/testbed --icount 2 --timeout 1200 -- $PWD/scripts/bench.d/b5-one-boot.sh [ROUNDS [WINDOW RAMP]]

set -eu

. "$(dirname "$0")/../../tools/testing/selftests/nfs-multipath/lib.sh"

M=/mnt/nfsmp-b5
STOCK_OPTS="vers=3,proto=rdma,port=20049,nconnect=16"
OURS_OPTS="$STOCK_OPTS,remoteports=${SERVER_ADDRS%% *},localports=${CLIENT_ADDRS%% *}"

# reload S|O: Debian's NFS/SunRPC modules (S) or ours (O)
reload() {
	case "$1" in
	S) stack_reload stock ;;
	*) stack_reload ours ;;
	esac || fail "cannot load the modules of $1"
}

# counts: "READS READ_TRANS NULLS DOWNS" of the mount, from one read of
# its mountstats: READ's calls and transmissions, NULL's calls (the path
# monitor's pings, over ours), and the downs of its paths
counts() {
	awk -v m="$M" '
		/^device / { c = ($5 == m) }
		c && $1 == "READ:" { r += $2; t += $3 }
		c && $1 == "NULL:" { p += $2 }
		c && $1 == "endpoint:" { d += $13 }
		END { print r + 0, t + 0, p + 0, d + 0 }' /proc/self/mountstats
}

busy() {
	awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 }' /proc/stat
}

# snap VAR: VAR gets "BUSY READS READ_TRANS NULLS DOWNS" now
snap() {
	printf -v "$1" '%s %s' "$(busy)" "$(counts)"
}

# window S|O REP OP BS DEPTH: one measurement of fio's OP: WINDOW s of
# one fio run, after a RAMP s ramp, so that fio's start and end fall
# outside
window() {
	local a b pid cfg us s0 r0 t0 p0 d0 s1 r1 t1 p1 d1

	fio --name=b5 --filename="$M/b5" --rw="$3" --bs="$4" --direct=1 \
	    --ioengine=libaio --iodepth="$5" --time_based \
	    --runtime=$((RAMP + WINDOW + 2)) \
	    --output-format=terse >/dev/null &
	pid=$!
	sleep "$RAMP"
	snap a
	sleep "$WINDOW"
	snap b
	wait "$pid" || fail "fio $3 failed"
	read -r s0 r0 t0 p0 d0 <<<"$a"
	read -r s1 r1 t1 p1 d1 <<<"$b"
	[ "$r1" -gt "$r0" ] || fail "no READ in the window"
	[ "$1" = S ] && cfg="stock icount" || cfg="ours 1x1 icount"
	# /proc/stat counts USER_HZ ticks of 10 ms
	us=$(awk -v t=$((s1 - s0)) -v r=$((r1 - r0)) 'BEGIN { printf "%.1f", t * 10000 / r }')
	echo "BENCH,B5,$cfg,$3-cpu,$2,$us,us"
	echo "BENCH,B5,$cfg,$3-rpcs,$2,$((r1 - r0)),RPCs"
	echo "BENCH,B5,$cfg,$3-pings,$2,$((p1 - p0)),RPCs"
	echo "BENCH,B5,$cfg,$3-resends,$2,$((t1 - t0 - (r1 - r0))),RPCs"
	echo "BENCH,B5,$cfg,$3-downs,$2,$((d1 - d0)),downs"
	echo "bench: B5 icount $cfg $3 #$2: $us us/READ, $((r1 - r0)) READs," \
	     "$((p1 - p0)) NULL calls, $((t1 - t0 - (r1 - r0))) READs sent again," \
	     "$((d1 - d0)) path downs"
}

main() {
	local rounds=${1:-3} cur=O mode o rep=0 order="" r watch

	WINDOW=${2:-8}
	RAMP=${3:-3}

	mkdir -p "$M"
	# The testbed's rxe-qp1-watch forks rdma every 5 s: stopped, as
	# guest.sh's B5 does
	watch=$(pgrep -f 'rxe-qp1-watch$' || true)
	if [ -n "$watch" ]; then
		kill -STOP $watch
		defer_check "kill -CONT $watch"
	fi
	# Ours again at the end, as the testbed's other commands expect
	defer_check "reload O"
	defer_check "if grep -qs ' $M ' /proc/mounts; then umount $M; fi"
	for r in $(seq "$rounds"); do
		order="$order S O O S"
	done
	for mode in $order; do
		if [ "$mode" != "$cur" ]; then
			reload "$mode"
			cur=$mode
		fi
		case "$mode" in
		S) o=$STOCK_OPTS ;;
		*) o=$OURS_OPTS ;;
		esac
		rep=$((rep + 1))
		mount -t nfs -o "$o" "$SERVER:$EXPORT" "$M"
		[ -f "$M/b5" ] || dd if=/dev/zero of="$M/b5" bs=1M count=256 \
				  oflag=direct status=none
		# each mode twice a round: S is windows 1 and 4, O 2 and 3
		window "$mode" $(((rep + 1) / 2)) randread 4k 64
		window "$mode" $(((rep + 1) / 2)) read 1M 8
		umount "$M"
	done
}

main "$@"
