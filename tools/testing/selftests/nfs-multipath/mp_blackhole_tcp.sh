#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# mp_blackhole.sh over TCP, with the black hole held 8 s longer, so that
# the probes of the dead path connect into it and their SYNs go
# unanswered: the path must still be up again within 5 s once the black
# hole is gone.

BLACKHOLE_PROTO=tcp
BLACKHOLE_HOLD=8
. ./mp_blackhole.sh
