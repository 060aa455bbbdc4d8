#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# mp_stale_write.sh over RPC/RDMA, with 1 KiB blocks: their WRITEs go
# inline in the Send, so the server needs nothing of the client's memory
# to execute them, and a copy its queue pair still delivers would land.

STALE_PROTO=rdma
STALE_BS=1024
. ./mp_stale_write.sh
