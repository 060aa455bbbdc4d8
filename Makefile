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
#   make deps       install the host packages (idempotent, fast when done)

KSERIES		?= 6.12
export KSERIES

TOP		:= $(CURDIR)
BUILD		:= $(TOP)/build
SELFTESTS	:= tools/testing/selftests/nfs-multipath
TESTBED		:= scripts/testbed
TESTBED_OPTS	?=
TESTS		?=

.PHONY: all deps modules prepare unit checkpatch sparse docs series check-series selftests run-selftests check demo clean help

all: modules

help:
	@sed -n 's/^#   //p' Makefile

deps:
	@scripts/install-deps >/dev/null

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

series: prepare
	@scripts/series >/dev/null

check-series: prepare
	@scripts/check-series

# The selftests run inside the client guest; TESTS= picks some by name.
selftests: modules
	@$(MAKE) --no-print-directory run-selftests

run-selftests: deps
	@$(MAKE) -s -C $(SELFTESTS) helpers
	@$(TESTBED) --timeout 2700 $(TESTBED_OPTS) -- $(TOP)/$(SELFTESTS)/run_tests.sh $(TESTS)

check: deps
	@$(MAKE) --no-print-directory unit
	@$(MAKE) --no-print-directory checkpatch
	@$(MAKE) --no-print-directory docs
	@$(MAKE) --no-print-directory modules
	@$(MAKE) --no-print-directory sparse
	@$(MAKE) --no-print-directory check-series
	@$(MAKE) --no-print-directory run-selftests

demo: modules
	@scripts/demo

clean:
	rm -rf $(BUILD)
