# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2034
#
# base.sh: which Debian kernel base a script works on.  Sourced, with TOP
# set, by the scripts that build, check or ship the patches.
#
#   KSERIES   the base: 6.12 (the default, and the upstream series) or 6.1
#             (Debian 12's own kernel)
#   PATCHES   the directory of that base's series (series and patches)
#   MODDIRS   the module directories we rebuild, in link order: every
#             module in them links to sunrpc
#   KBUILD_NODEBUG  make arguments of every build of them
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
# An older base's patches/<K>/ holds only what it needs beyond the 6.12
# series (its "backport" file says so): its series is derived from 6.12's
# by scripts/backport, into build/patches-<K>/.  The package ships the
# derived series itself, as patches/<K>/series.
if [ ! -f "$PATCHES/series" ] && [ -f "$PATCHES/backport" ]; then
	PATCHES=$TOP/build/patches-$KSERIES
	KSERIES=$KSERIES "$TOP/scripts/backport" gen "$PATCHES" >/dev/null
fi
export KSERIES
MODDIRS="net/sunrpc fs/nfs_common fs/lockd fs/nfs fs/nfsd"
# What every make of those directories passes: the modules are installed
# stripped, so debug info and BTF would cost a sixth of the build time for
# nothing.
KBUILD_NODEBUG="CONFIG_DEBUG_INFO= CONFIG_DEBUG_INFO_BTF_MODULES="

# The base's linux-source tarball (prepare-tree's TARBALL= may name another)
TARBALL=${TARBALL:-/usr/src/linux-source-$KSERIES.tar.xz}

# extract_source DIR [PATH...]: the tree of $TARBALL in DIR, or only PATHs
# of it (paths inside the tree).  Done once: DIR keeps a stamp of the
# tarball and the paths, and is made again when either changes.  Says so
# on stderr when it extracts.
extract_source() {
	local dir=$1 stamp=$1/.extracted id top p paths=()

	shift
	[ -r "$TARBALL" ] || {
		echo "${0##*/}: $TARBALL missing (run scripts/install-deps)" >&2
		return 1
	}
	id="$(stat -c %s.%Y "$TARBALL") $(echo "$@" | md5sum | cut -c1-12)"
	[ "$(cat "$stamp" 2>/dev/null)" = "$id" ] && return 0
	echo "${0##*/}: extracting $TARBALL${1:+ (part)} in ${dir#"$TOP"/}" >&2
	top=$(tar -tJf "$TARBALL" 2>/dev/null | head -n 1 | cut -d/ -f1) || true
	[ -n "$top" ] || {
		echo "${0##*/}: cannot read $TARBALL" >&2
		return 1
	}
	for p in "$@"; do
		paths+=("$top/$p")
	done
	rm -rf "$dir"
	mkdir -p "$dir"
	tar -xJf "$TARBALL" -C "$dir" --strip-components=1 "${paths[@]}" ||
		return 1
	echo "$id" >"$stamp"
}

# replaced_modules DIR: the modules that the kernel whose modules are in DIR
# (/lib/modules/<abi>) ships from MODDIRS, one name per line.  Built from
# the same config, they are the set build-modules builds and the set DKMS
# installs over.
replaced_modules() {
	local order=$1/modules.order re

	[ -r "$order" ] || return 1
	re=$(echo $MODDIRS | tr ' ' '|')
	grep -E "^kernel/($re)/" "$order" | sed 's,.*/,,; s,\.ko$,,' | sort
}

# checkpatch.pl's options for our files and patches.  Neither this repo
# nor Debian's source has the kernel's git history, so checkpatch cannot
# look up the commit ids of Fixes: tags; they are taken from the upstream
# and stable commits that cite them.
CHECKPATCH_OPTS="--strict --no-tree --quiet --show-types --no-summary"
CHECKPATCH_OPTS="$CHECKPATCH_OPTS --color=never --ignore UNKNOWN_COMMIT_ID"

# checkpatch_findings CMD...: what checkpatch (CMD) found, less the one
# thing we accept: a mount option is Opt_<name> in the fs_parser enum of
# fs/nfs/fs_context.c, as every option there and in every file system
# is, and --strict calls the new ones CamelCase.  Empty when clean; a
# checkpatch that fails without a word is a finding too.
checkpatch_findings() {
	local raw

	if raw=$("$@" 2>&1); then
		echo "$raw"
		return 0
	fi
	[ -n "$raw" ] || { echo "checkpatch failed and said nothing"; return 0; }
	echo "$raw" | awk 'BEGIN { RS = ""; ORS = "\n\n" }
		!/^CHECK:CAMELCASE: Avoid CamelCase: <Opt_[a-z0-9_]+>\n[^\n]*FILE: fs\/nfs\/fs_context\.c:/' |
		sed '${/^$/d}'
}
