#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# mp_failover.sh over TCP: links flapping on both sides under a verified
# fio load; no I/O or verify error, no request waits more than 2 s, the
# data verifies after a remount.

FAILOVER_PROTO=tcp
. ./mp_failover.sh
