#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# mkroexport.sh IMG: build the read-only export of a multi-node testbed,
# an ext4 image that every server node exports at /ro (fsid=2), so that
# the nodes hand out the same file handles, as the nodes of a scale-out
# server do for one filesystem.
#
# data/fNN: FILES files of FILE_MIB MiB written by fio in BS blocks with
# crc32c verify headers, so that a fio read job with --verify=crc32c and
# the same --bs checks every block it reads; SHA256SUMS: their checksums,
# relative to the image's root.  No journal: the nodes mount it
# read-only and nothing is ever replayed.

set -eu

FILES=16
FILE_MIB=4
BS=64k

STAGE=

main() {
	local img=$1 stage k

	stage=$(mktemp -d "${img%/*}/roexport.XXXXXX")
	STAGE=$stage
	trap 'rm -rf "$STAGE"' EXIT
	mkdir "$stage/data"
	for ((k = 0; k < FILES; k++)); do
		fio --name=ro --filename="$(printf '%s/data/f%02d' "$stage" "$k")" \
			--rw=write --bs=$BS --size=${FILE_MIB}M --verify=crc32c \
			--do_verify=0 --verify_state_save=0 --output=/dev/null ||
			return 1
	done
	(cd "$stage" && sha256sum data/f* >SHA256SUMS)
	rm -f "$img.tmp"
	mkfs.ext4 -q -F -O ^has_journal -L nfsmp-ro \
		-U 6e66736d-702d-726f-2d65-78706f727431 -E root_owner=0:0 \
		-d "$stage" "$img.tmp" $((FILES * FILE_MIB + 32))M >/dev/null
	mv "$img.tmp" "$img"
}

main "$@"
