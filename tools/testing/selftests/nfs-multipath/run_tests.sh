#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Run the nfs-multipath selftests inside the client guest, with KTAP output.
#
#   run_tests.sh [TEST...]     TEST is a script name, with or without .sh
#   run_tests.sh --list        print the tests a plain run runs
#   run_tests.sh --after PASSED FAILED TEST...
#                              go on with the KTAP stream of an earlier boot
#                              whose first PASSED + FAILED tests ended: no
#                              header, and numbers and totals go on from there
#
# Every test also fails if the kernel logged a WARN, BUG or oops while it ran,
# unless a register dump of it holds an EFLAGS no x86-64 CPU can hold: then
# the emulator broke the guest (see emulator_fault in scripts/testbed), the
# test gets no result, and the run stops with status 123, for
# scripts/run-selftests to run that test and the rest again in a new boot.
# Exits non-zero when any test failed.

set -eu

DIR=$(cd "$(dirname "$0")" && pwd)
TIMEOUT=${TEST_TIMEOUT:-600}

# Test order: the baseline first; each later issue appends its own.
# mp_nfsd_restart goes last: stopping the stock server's nfsd can leave an
# rdma_cm id behind (see that test), and a later re-creation of its rxe
# device by rxe-qp1-watch would then hang for the rest of the boot.
ALL_TESTS="
modules_ours.sh
rdma_rw.sh
tcp_rw.sh
rdma_nconnect.sh
rdma_each_addr.sh
mp_rdma_spread.sh
mp_localports_matters.sh
mp_tcp_spread.sh
mp_ifnames.sh
mp_proc_mounts.sh
mp_bad_input.sh
mp_ipv6.sh
mp_dead_endpoint.sh
mp_sysfs_offline.sh
mp_all_down.sh
mp_carrier.sh
mp_blackhole.sh
mp_failover.sh
mp_failover_tcp.sh
mp_policy.sh
mp_mount_cycles.sh
mp_nfsd_restart.sh
"

kernel_trouble() {
	dmesg | tail -n +"$1" | grep -E 'WARNING:|BUG:|Oops|general protection|Call Trace|RIP:' || true
}

# impossible_eflags TEXT: the first EFLAGS of a register dump in TEXT with
# a reserved bit (22-31) or VM (17, which long mode never sets) set.
# QEMU's TCG delivers such values now and then, in the rxe workqueue.
impossible_eflags() {
	local e

	for e in $(echo "$1" | sed -n 's/.*EFLAGS: \([0-9a-f]\{1,8\}\).*/\1/p'); do
		if [ $((0x$e & 0xffc20000)) != 0 ]; then
			echo "$e"
			return 0
		fi
	done
	return 1
}

run_one() {
	local n=$1 t=$2 name=${2%.sh} start rc trouble eflags t0

	echo "# selftests: nfs-multipath: $name"
	start=$(($(dmesg | wc -l) + 1))
	t0=$(cut -d' ' -f1 /proc/uptime)
	rm -f /tmp/.ksft-rc
	(
		cd "$DIR"
		rc=0
		timeout "$TIMEOUT" sh "./$t" || rc=$?
		echo "$rc" >/tmp/.ksft-rc
	) 2>&1 | sed 's/^/# /'
	rc=$(cat /tmp/.ksft-rc 2>/dev/null || echo 1)
	awk -v t0="$t0" -v name="$name" \
		'{ printf "# %s: %.0f s\n", name, $1 - t0 }' /proc/uptime
	trouble=$(kernel_trouble "$start")
	if [ -n "$trouble" ]; then
		echo "$trouble" | sed 's/^/# dmesg: /'
		if eflags=$(impossible_eflags "$(dmesg | tail -n +"$start")"); then
			echo "# EMULATOR FAULT: a trace with EFLAGS $eflags, which no x86-64 CPU can hold"
			return 123
		fi
		rc=1
	fi
	if [ "$rc" = 0 ]; then
		echo "ok $n selftests: nfs-multipath: $name"
		return 0
	fi
	echo "not ok $n selftests: nfs-multipath: $name # exit=$rc"
	return 1
}

main() {
	local tests="" t n=0 pass=0 failed=0 header=1 rc

	case "${1:-}" in
	--list)
		echo $ALL_TESTS
		return 0
		;;
	--after)
		pass=$2
		failed=$3
		n=$((pass + failed))
		header=0
		shift 3
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
	for t in $tests; do
		n=$((n + 1))
		rc=0
		run_one "$n" "$t" || rc=$?
		case "$rc" in
		0) pass=$((pass + 1)) ;;
		123) return 123 ;;
		*) failed=$((failed + 1)) ;;
		esac
	done
	echo "# Totals: pass:$pass fail:$failed xfail:0 xpass:0 skip:0 error:0"
	echo "selftests: $pass passed, $failed failed"
	[ "$failed" = 0 ]
}

main "$@"
