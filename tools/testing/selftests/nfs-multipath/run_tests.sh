#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run the nfs-multipath selftests inside the client guest, with KTAP output.
#
#   run_tests.sh [TEST...]     TEST is a script name, with or without .sh
#   run_tests.sh --list        print the tests a plain run runs
#   run_tests.sh --after PASSED FAILED SKIPPED TEST...
#                              go on with the KTAP stream of an earlier boot
#                              whose first PASSED + FAILED + SKIPPED tests
#                              ended: no header, and numbers and totals go
#                              on from there
#
# Every test also fails if the kernel logged a WARN, BUG or oops while it ran,
# unless a register dump of it holds an EFLAGS no x86-64 CPU can hold: then
# the emulator broke the guest (see emulator_fault in scripts/testbed), the
# test gets no result, and the run stops with status 123, for
# scripts/run-selftests to run that test and the rest again in a new boot.
# Exits non-zero when any test failed.

set -eu

DIR=$(cd "$(dirname "$0")" && pwd)
TIMEOUT=${TEST_TIMEOUT:-$(sed -n 's/^timeout=//p' "$DIR/settings")}
# How much slower make check-debug's KASAN/lockdep/kmemleak kernel is:
# the settings' timeout is scaled by it there, an explicit TEST_TIMEOUT
# is not
DEBUG_SLOWDOWN=${TEST_TIMEOUT:+1}
DEBUG_SLOWDOWN=${DEBUG_SLOWDOWN:-3}
BASE_TIMEOUT=$TIMEOUT
SCALE=1

# test_timeout NAME: the time test NAME may take: the settings file's
# timeout_NAME= if it has one (kselftest's runner reads only timeout=),
# else its timeout=; scaled on the debug kernel.  TEST_TIMEOUT overrides
# both.
test_timeout() {
	local t

	if [ -n "${TEST_TIMEOUT:-}" ]; then
		echo "$TEST_TIMEOUT"
		return
	fi
	t=$(sed -n "s/^timeout_$1=//p" "$DIR/settings")
	echo $((${t:-$BASE_TIMEOUT} * SCALE))
}

# The tests and their order are the Makefile's TEST_PROGS, the time each
# may take is the settings file's, as for kselftest's runner.
ALL_TESTS=$(sed -n '/^TEST_PROGS :=/,/^$/s/^[[:space:]]*\([a-z0-9_]*\.sh\).*/\1/p' "$DIR/Makefile")

# What the kernel says when something is wrong: lib.sh's KERNEL_TROUBLE
# (lib.sh itself is for the tests, and needs the testbed's environment)
KERNEL_TROUBLE=
eval "$(grep '^KERNEL_TROUBLE' "$DIR/lib.sh")"
TROUBLE=$KERNEL_TROUBLE
[ -n "$TROUBLE" ] || { echo "run_tests.sh: no KERNEL_TROUBLE in lib.sh" >&2; exit 2; }

kernel_trouble() {
	dmesg | tail -n +"$1" | grep -E "$TROUBLE" |
		grep -v 'new suspected memory leaks' || true
}

# With kmemleak (the debug kernel of make check-debug), each test is
# checked for the leaks whose allocation backtrace passes through the
# NFS and SunRPC modules; the automatic scan is off, so that what the
# rest of the kernel leaks on its own fails no test.
KMEMLEAK=/sys/kernel/debug/kmemleak
OURS='[[](sunrpc|nfs|nfsv3|nfsv4|nfs_acl|lockd|grace|auth_rpcgss|rpcrdma)[]]'

# checkers: which memory and lock checkers this kernel runs, e.g.
# "kasan=yes lockdep=yes kmemleak=yes".  A debug kernel of make
# check-debug (-nfsmp-debug) that lacks one would check nothing of it,
# so the run then stops.
checkers() {
	local kasan=no lockdep=no kmemleak=no

	grep -q ' kasan_report$' /proc/kallsyms 2>/dev/null && kasan=yes
	[ -r /proc/lockdep ] && lockdep=yes
	[ -w "$KMEMLEAK" ] && kmemleak=yes
	echo "kasan=$kasan lockdep=$lockdep kmemleak=$kmemleak"
}

leaks_init() {
	[ -w "$KMEMLEAK" ] || return 0
	echo scan=off >"$KMEMLEAK"
}

leaks_clear() {
	[ -w "$KMEMLEAK" ] || return 0
	echo clear >"$KMEMLEAK"
}

# our_leaks: the new suspects that are ours.  An object counts once it
# has been unreferenced for 5 seconds and two scans.
our_leaks() {
	[ -w "$KMEMLEAK" ] || return 0
	echo scan >"$KMEMLEAK"
	sleep 6
	echo scan >"$KMEMLEAK"
	awk -v ours="$OURS" '
		function flush() { if (hit) printf "%s", obj; obj = ""; hit = 0 }
		/^unreferenced object/ { flush() }
		{ obj = obj $0 "\n"; if ($0 ~ ours) hit = 1 }
		END { flush() }' "$KMEMLEAK"
}

# impossible_eflags TEXT: the EFLAGS of the oops in TEXT, when it has a
# reserved bit (22-31) or VM (17, which long mode never sets) set, and
# the oops is the one QEMU's TCG causes now and then: in SLUB's
# allocation fast path, called from the rxe workqueue.  Anything else,
# a WARN above all, is the kernel's own trouble.
impossible_eflags() {
	local e

	echo "$1" | grep -q 'WARNING:' && return 1
	echo "$1" | grep -qE 'RIP: .*(__kmalloc|kmem_cache_alloc|kmalloc_node)' || return 1
	for e in $(echo "$1" | sed -n 's/.*EFLAGS: \([0-9a-f]\{1,8\}\).*/\1/p'); do
		if [ $((0x$e & 0xffc20000)) != 0 ]; then
			echo "$e"
			return 0
		fi
	done
	return 1
}

# run_test T: run test T in the background, with its output in
# /tmp/.ksft-out; its exit status in /tmp/.ksft-rc once it ended.
# TIMEOUT, then SIGKILL: a test stuck on a dead mount must end.
run_test() {
	(
		cd "$DIR"
		rc=0
		timeout -k 30 "$TIMEOUT" bash "./$1" || rc=$?
		echo "$rc" >/tmp/.ksft-rc
	) >/tmp/.ksft-out 2>&1 </dev/null &
	TEST_PID=$!
}

# wait_test: wait for the test, but not for ever: a process that even
# SIGKILL cannot end (stuck in the kernel) is left behind, and the test
# fails with TIMEOUT.  True when it ended.
wait_test() {
	local n=$((TIMEOUT + 60))

	while kill -0 "$TEST_PID" 2>/dev/null; do
		n=$((n - 1))
		[ "$n" -gt 0 ] || return 1
		# just before timeout(1) kills it: where is it waiting?
		[ "$n" != 65 ] || stuck_stacks >/tmp/.ksft-stuck
		sleep 1
	done
	wait "$TEST_PID" 2>/dev/null || true
}

# stuck_stacks: the kernel stacks of the tasks that wait in the kernel
# (D) or in SunRPC, NFS, RDMA or sysfs code
stuck_stacks() {
	local p st

	for p in /proc/[0-9]*; do
		st=$(cat "$p/stack" 2>/dev/null) || continue
		[ "$(awk '{ print $3 }' "$p/stat" 2>/dev/null)" = D ] ||
			echo "$st" | grep -Eq 'rpc|nfs|xprt|rdma|kernfs' ||
			continue
		echo "stuck: $(cat "$p/comm") ${p#/proc/}:"
		echo "$st" | head -n 16 | sed 's/^/stuck:   /'
	done
}

run_one() {
	local n=$1 t=$2 name=${2%.sh} start rc trouble eflags t0 leaks

	echo "# selftests: nfs-multipath: $name"
	TIMEOUT=$(test_timeout "$name")
	start=$(($(dmesg | wc -l) + 1))
	t0=$(cut -d' ' -f1 /proc/uptime)
	rm -f /tmp/.ksft-rc /tmp/.ksft-out
	leaks_clear
	run_test "$t"
	rm -f /tmp/.ksft-stuck
	if ! wait_test; then
		sed 's/^/# /' /tmp/.ksft-out
		stuck_stacks | sed 's/^/# /'
		echo "not ok $n selftests: nfs-multipath: $name # TIMEOUT $TIMEOUT seconds"
		return 1
	fi
	sed 's/^/# /' /tmp/.ksft-out
	rc=$(cat /tmp/.ksft-rc 2>/dev/null || echo 1)
	awk -v t0="$t0" -v name="$name" \
		'{ printf "# %s: %.0f s\n", name, $1 - t0 }' /proc/uptime
	leaks=$(our_leaks)
	if [ -n "$leaks" ]; then
		echo "$leaks" | sed 's/^/# kmemleak: /'
		rc=1
	fi
	trouble=$(kernel_trouble "$start")
	if [ -n "$trouble" ]; then
		echo "$trouble" | sed 's/^/# dmesg: /'
		if eflags=$(impossible_eflags "$(dmesg | tail -n +"$start")"); then
			echo "# EMULATOR FAULT: a trace with EFLAGS $eflags," \
				"which no x86-64 CPU can hold"
			return 123
		fi
		rc=1
	fi
	case "$rc" in
	0)
		echo "ok $n selftests: nfs-multipath: $name"
		return 0
		;;
	4)
		if grep -q '^SKIP: ' /tmp/.ksft-out; then
			echo "ok $n selftests: nfs-multipath: $name # SKIP"
			return 4
		fi
		echo "# exit 4 without a SKIP: line (lib.sh's skip)"
		;;
	124|137)
		sed 's/^/# /' /tmp/.ksft-stuck 2>/dev/null || true
		echo "not ok $n selftests: nfs-multipath: $name # TIMEOUT $TIMEOUT seconds"
		return 1
		;;
	esac
	echo "not ok $n selftests: nfs-multipath: $name # exit=$rc"
	return 1
}

main() {
	local tests="" t n=0 pass=0 failed=0 skip=0 header=1 rc

	case "${1:-}" in
	--list)
		echo $ALL_TESTS
		return 0
		;;
	--after)
		pass=$2
		failed=$3
		skip=$4
		n=$((pass + failed + skip))
		header=0
		shift 4
		;;
	esac
	for t in "$@"; do
		case "$t" in *.sh) ;; *) t=$t.sh ;; esac
		[ -f "$DIR/$t" ] || { echo "run_tests.sh: no test $t" >&2; exit 2; }
		tests="$tests $t"
	done
	[ -n "$tests" ] || tests=$ALL_TESTS

	if [ "$header" = 1 ]; then
		echo "TAP version 13"
		echo "1..$(echo $tests | wc -w)"
	fi
	leaks_init
	echo "# checkers: $(checkers)"
	case "$(uname -r)" in
	*-nfsmp-debug)
		[ "$(checkers)" = "kasan=yes lockdep=yes kmemleak=yes" ] || {
			echo "# the debug kernel must run all three checkers"
			return 1
		}
		# It runs everything about three times slower: the same
		# work gets three times the time before it counts as hung
		# (lib.sh's limit scales the tests' own limits the same way)
		SCALE=$DEBUG_SLOWDOWN
		TIMEOUT=$((TIMEOUT * DEBUG_SLOWDOWN))
		echo "# debug kernel: each test may take $TIMEOUT s" \
			"(or $SCALE times its own timeout)"
		;;
	esac
	for t in $tests; do
		n=$((n + 1))
		rc=0
		run_one "$n" "$t" || rc=$?
		case "$rc" in
		0) pass=$((pass + 1)) ;;
		4) skip=$((skip + 1)) ;;
		123) return 123 ;;
		*) failed=$((failed + 1)) ;;
		esac
	done
	echo "# Totals: pass:$pass fail:$failed xfail:0 xpass:0 skip:$skip error:0"
	echo "selftests: $pass passed, $failed failed, $skip skipped"
	[ "$failed" = 0 ]
}

main "$@"
