#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# B5's goal in one boot: the client's CPU per READ with Debian's modules
# on a plain nconnect=16 mount (S) against ours with remoteports= and
# localports= of one address each (O), nconnect=16, over the same one rxe
# device each side.  The bench runs stock in a boot of its own, and boots
# differ by more than the goal's 2 %; here the modules are swapped between
# windows instead (lib.sh's stack_reload), in the order S O O S,
# three times.  Each window: 4 KiB random reads (64 in flight), then
# 1 MiB sequential reads (8 in flight), 8 s after a 3 s ramp.  Prints
# "PROBE S|O 4k|1M READs N ticks T us/READ U" per window, and the
# medians.  Runs in the testbed's client guest:
#
#   scripts/testbed --timeout 1200 -- $PWD/scripts/bench.d/b5-one-boot.sh

set -eu

. "$(dirname "$0")/../../tools/testing/selftests/nfs-multipath/lib.sh"

M=/mnt/nfsmp-b5
STOCK_OPTS="vers=3,proto=rdma,port=20049,nconnect=16"
OURS_OPTS="$STOCK_OPTS,remoteports=${SERVER_ADDRS%% *},localports=${CLIENT_ADDRS%% *}"
OUT=/tmp/b5-one-boot.txt

# reload S|O: Debian's NFS/SunRPC modules (S) or ours (O)
reload() {
	case "$1" in
	S) stack_reload stock ;;
	*) stack_reload ours ;;
	esac || fail "cannot load the modules of $1"
}

reads() {
	awk -v m="$M" '/^device /{ c = ($5 == m) } c && $1 == "READ:" { print $2 }' \
		/proc/self/mountstats
}

busy() {
	awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 }' /proc/stat
}

# window S|O LABEL RW BS DEPTH: one measurement, after a ramp
window() {
	local r0 r1 s0 s1 job

	job=(--name=b5 --filename="$M/b5" --rw="$3" --bs="$4" --direct=1
	     --ioengine=libaio --iodepth="$5" --time_based --output-format=terse)
	fio "${job[@]}" --runtime=3 >/dev/null
	r0=$(reads)
	s0=$(busy)
	fio "${job[@]}" --runtime=8 >/dev/null
	s1=$(busy)
	r1=$(reads)
	[ "$r1" -gt "$r0" ] || { echo "b5-one-boot: no READ in the window" >&2; exit 1; }
	# /proc/stat counts USER_HZ ticks of 10 ms
	echo "PROBE $1 $2 READs $((r1 - r0)) ticks $((s1 - s0))" \
	     "us/READ $(((s1 - s0) * 10000 / (r1 - r0)))" | tee -a "$OUT"
}

median() {
	awk -v w="$1 $2" '$2 " " $3 == w { print $NF }' "$OUT" | sort -n |
		awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] :
					  (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

main() {
	local cur=O mode o sz

	: >"$OUT"
	mkdir -p "$M"
	# Ours again at the end, as the testbed's other commands expect
	defer_check "reload O"
	defer_check "if grep -qs ' $M ' /proc/mounts; then umount $M; fi"
	for mode in S O O S S O O S S O O S; do
		if [ "$mode" != "$cur" ]; then
			reload "$mode"
			cur=$mode
		fi
		case "$mode" in
		S) o=$STOCK_OPTS ;;
		*) o=$OURS_OPTS ;;
		esac
		mount -t nfs -o "$o" "$SERVER:$EXPORT" "$M"
		[ -f "$M/b5" ] || dd if=/dev/zero of="$M/b5" bs=1M count=256 \
				  oflag=direct status=none
		window "$mode" 4k randread 4k 64
		window "$mode" 1M read 1M 8
		umount "$M"
	done
	for sz in 4k 1M; do
		echo "b5-one-boot: $sz: stock $(median S "$sz") us/READ," \
		     "ours $(median O "$sz") us/READ (medians of 6)"
	done
}

main
