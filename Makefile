# SPDX-License-Identifier: GPL-2.0
#
# nfs-multipath: NFSv3 multipath (remoteports=/localports=) for SunRPC,
# built as the replaced NFS/SunRPC module set for Debian's 6.12 kernel.
#
#   make demo       build what is missing, boot the testbed, show the paths
#   make check      everything a contributor must pass
#   make modules    build and stage our module set under build/stage-*/
#   make series     write the upstream patch series to build/series/
#   make check-series  apply, build and check that series patch by patch
#                   (BISECT=0: without a build after every patch), and
#                   with BISECT=1 also make check-configs
#   make check-configs build SunRPC and NFS with IPV6=n and SUNRPC=y/IPV6=m
#                   (make check-long and check-series BISECT=1 run it)
#   make check-long the selftests too long for make check (swap over NFS,
#                   mount cycles, TCP failover, path policies, five failure
#                   tests) and the DKMS test on both bases
#   make check-debug the lifetime selftests on a KASAN/lockdep/kmemleak
#                   client kernel built from the base (an hour or more)
#   make check-scale the scale-out selftests, over two server nodes (make
#                   check runs them too)
#   make check-numa the NUMA selftests, in a client with two NUMA nodes
#                   (make check runs them too)
#   make deps       install the host packages (idempotent, fast when done)
#   make bench      every benchmark scenario, side by side (QUICK=1: smaller)
#   make deb        the nfs-multipath-dkms package (6.12 and 6.1), in build/deb/
#   make deb-test   install it here, boot the testbed on what DKMS built for
#                   each base, remove it

# The Debian bases: 6.12 is the default and the upstream series, 6.1 is
# Debian 12's own kernel (patches/<K>/ each).  KSERIES=6.1 make modules
# builds for it; make deb and make check cover both.
KSERIES		?= 6.12
export KSERIES
BASES		:= 6.12 6.1

TOP		:= $(CURDIR)
BUILD		:= $(TOP)/build
TESTBED		:= scripts/testbed
TESTBED_OPTS	?=
TESTS		?=
BISECT		?= 1
QUICK		?=

.PHONY: all deps modules prepare unit checkpatch sparse docs series check-series check-configs check-long check-debug check-scale run-check-scale check-numa run-check-numa check-ksft check-shell selftests run-selftests bench run-bench deb deb-test check demo clean help

all: modules

help:
	@sed -n 's/^#   //p' Makefile

deps:
	@for k in $(BASES); do KSERIES=$$k scripts/install-deps >/dev/null || exit 1; done

prepare: deps
	@scripts/prepare-tree >/dev/null

modules: deps
	@scripts/build-modules

unit: deps
	@scripts/run-unit-tests

checkpatch: prepare
	@scripts/run-checkpatch

sparse: prepare
	@scripts/run-sparse

docs: deps
	@scripts/check-docs

# Every script parses; the bench and the selftests call only lib.sh
# functions that exist (seconds, where the bench would find out late).
check-shell:
	@scripts/check-shell

series: prepare
	@scripts/series >/dev/null

check-series: prepare
	@BISECT=$(BISECT) scripts/check-series
	@[ "$(BISECT)" = 0 ] || scripts/check-configs

check-configs: prepare
	@scripts/check-configs

# Selftests that do not fit in make check's time (the Makefile's
# TEST_PROGS_EXTENDED, in its order): swap over NFS (about 15 minutes),
# 100 mount cycles (7), TCP failover (4.5), the path policies under capped
# links (3), and five failure tests that make check-debug runs too (10);
# then the DKMS install test on both bases
LONG_TESTS	:= $(shell sed -n '/^TEST_PROGS_EXTENDED :=/,/^$$/s/^[[:space:]]*\([a-z0-9_]*\)\.sh.*/\1/p' \
			tools/testing/selftests/nfs-multipath/Makefile)

check-long: modules
	@[ -n "$(LONG_TESTS)" ] || { echo "check-long: no TEST_PROGS_EXTENDED in the selftests' Makefile" >&2; exit 1; }
	@scripts/check-configs
	@scripts/ksft >/dev/null
	@scripts/run-selftests --timeout 3600 $(TESTBED_OPTS) -- $(LONG_TESTS)
	@$(MAKE) --no-print-directory deb-test DEB_BASES="$(BASES)"

check-debug: deps
	@scripts/check-debug $(TESTS)

# The scale-out selftests (the selftests' Makefile's TEST_PROGS_EXTENDED +=
# block) in a testbed of two server nodes with two links each; make check
# runs them after the others, in a boot of their own (about 7 min)
SCALE_TESTS	:= $(shell sed -n '/^SCALE_PROGS :=/,/^$$/s/^[[:space:]]*\([a-z0-9_]*\)\.sh.*/\1/p' \
			tools/testing/selftests/nfs-multipath/Makefile)

check-scale: modules
	@$(MAKE) --no-print-directory run-check-scale

run-check-scale: deps
	@[ -n "$(SCALE_TESTS)" ] || { echo "check-scale: no TEST_PROGS_EXTENDED += in the selftests' Makefile" >&2; exit 1; }
	@scripts/ksft >/dev/null
	@scripts/run-selftests --timeout 3600 --servers 2 --links 2 $(TESTBED_OPTS) -- $(SCALE_TESTS)

# The NUMA selftests (NUMA_PROGS of the selftests' Makefile) in a client
# with two NUMA nodes, two data NICs on each; make check runs them after
# the scale-out ones, in a boot of their own
NUMA_TESTS	:= $(shell sed -n '/^NUMA_PROGS :=/,/^$$/s/^[[:space:]]*\([a-z0-9_]*\)\.sh.*/\1/p' \
			tools/testing/selftests/nfs-multipath/Makefile)

check-numa: modules
	@$(MAKE) --no-print-directory run-check-numa

run-check-numa: deps
	@[ -n "$(NUMA_TESTS)" ] || { echo "check-numa: no NUMA_PROGS in the selftests' Makefile" >&2; exit 1; }
	@scripts/ksft >/dev/null
	@scripts/run-selftests --timeout 1800 --numa --links 4 $(TESTBED_OPTS) -- $(NUMA_TESTS)

# The selftests run inside the client guest; TESTS= picks some by name.
selftests: modules
	@$(MAKE) --no-print-directory run-selftests

run-selftests: deps
	@scripts/ksft >/dev/null
	@scripts/run-selftests --timeout 5400 $(TESTBED_OPTS) -- $(TESTS)

# Two selftests through kselftest's own runner in the client:
# make -C tools/testing/selftests TARGETS=nfs-multipath run_tests
check-ksft: deps
	@scripts/check-ksft $(TESTBED_OPTS)

# The bench reports, it asserts no speed; it fails only when a scenario
# cannot run.  check runs its QUICK form so that it never rots.
bench: modules
	@$(MAKE) --no-print-directory run-bench

run-bench: deps
	@QUICK=$(QUICK) scripts/bench

# The package carries sources only: DKMS builds them (make deb-test).
deb: deps
	@scripts/deb

# DEB_BASES: the kernels the DKMS install test boots (make check-long:
# both)
DEB_BASES	?= $(BASES)
deb-test: deb
	@BASES="$(DEB_BASES)" scripts/deb-test

# timed T: make T, then say how long it took.
timed = s=$$(date +%s); $(MAKE) --no-print-directory $(1) && \
	echo "check: $(1): $$(($$(date +%s) - s)) s"

check: deps
	@$(call timed,check-shell)
	@$(call timed,unit)
	@$(call timed,checkpatch)
	@$(call timed,docs)
	@$(call timed,modules)
	@$(call timed,modules KSERIES=6.1)
	@$(call timed,sparse)
	@$(call timed,check-series BISECT=0 KSERIES=6.1)
	@$(call timed,check-series BISECT=0)
	@$(call timed,run-selftests)
	@$(call timed,run-check-scale)
	@$(call timed,run-check-numa)
	@$(call timed,check-ksft)
	@$(call timed,run-bench QUICK=1)

demo: modules
	@scripts/demo

clean:
	rm -rf $(BUILD)
