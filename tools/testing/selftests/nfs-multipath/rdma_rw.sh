#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# NFSv3 over RDMA: write 64 MiB, read it back over the wire, and compare
# the checksums of the source, the server's copy and the data read back.

. ./lib.sh

rw_verify "vers=3,proto=rdma,port=$RDMA_PORT" 64
