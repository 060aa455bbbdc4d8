# SPDX-License-Identifier: GPL-2.0
#
# base.sh: which Debian kernel base a script works on.  Sourced, with TOP
# set, by the scripts that build, check or ship the patches.
#
#   KSERIES   the base: 6.12 (the default, and the upstream series) or 6.1
#             (Debian 12's own kernel)
#   PATCHES   that base's patch directory, patches/<K>/, with its series
#
# The overlay (our new files) is the same for every base; only the small
# patches that hook it into upstream files differ.

KSERIES=${KSERIES:-6.12}
case "$KSERIES" in
6.12|6.1) ;;
*)
	echo "${0##*/}: no base $KSERIES: patches/ has 6.12 and 6.1" >&2
	exit 1 ;;
esac
PATCHES=$TOP/patches/$KSERIES
export KSERIES
