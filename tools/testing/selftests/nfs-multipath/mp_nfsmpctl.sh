#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# nfsmpctl, the command that shows and edits the paths of a mount (the
# project's utils/nfsmpctl, installed in the guests as the package
# installs it): over RPC/RDMA, a mount with two paths writes with crc32c
# verify while nfsmpctl adds a path to a third server address from a
# third client address, and one to a fourth through an interface name,
# changes the policy and back, and deletes both paths, by addresses and
# by transport id.  Each time the server holds the new connection (rdma
# resource show), and none of it after the delete.  What show prints,
# and its --json, match sysfs field by field, under the writes and after
# them; a user who is not root gets the same, and cannot edit.  Bad
# input exits non-zero with the kernel's reason.  fio sees no error.
# Over TCP the same add and delete, seen with ss.  Then on Debian's own
# modules (loaded in place of ours) show lists plain TCP and RDMA mounts
# and says that multipath is not there, with status 0, and add is
# refused.

. ./lib.sh

S=($SERVER_ADDRS)
C=($CLIENT_ADDRS)
I=($CLIENT_IFS)
OPTS="$MP_RDMA,nconnect=2,remoteports=${S[0]}~${S[1]},localports=${C[0]}~${C[1]}"
TCP_OPTS="$MP_TCP,nconnect=2,remoteports=${S[0]}~${S[1]},localports=${C[0]}~${C[1]}"
MNT2=/mnt/nfsmp-test2
# As mp_sysfs_paths: a new RPC/RDMA path came up within 2.6 s, or 5 to 9
ADD_S=$(limit 10)
DEL_S=$(limit 5)
JSON=/tmp/nfsmp-nfsmpctl.json
OUT=/tmp/nfsmp-nfsmpctl.out
FIO_JOB="--name=nfsmpctl --directory=$MNT --rw=randwrite --bs=64k --size=16M
	--numjobs=2 --direct=1 --ioengine=libaio --iodepth=16 --verify=crc32c
	--verify_backlog=64 --rate=1m,1m --time_based --runtime=$(limit 300)
	--group_reporting"
USER_RUN="setpriv --reuid=_rpc --regid=nogroup --clear-groups"

# xprts: the transport directories of the mount's switch $SW
xprts() {
	ls -d "$SW"/xprt-* 2>/dev/null | sort
}

# val FILE: the first line of FILE, or "-" when it cannot be read
val() {
	local v

	v=$(head -n 1 "$1" 2>/dev/null) || v=-
	echo "${v:--}"
}

# sysfs_row DIR: the transport DIR in the columns of nfsmpctl show,
# from its own files: XPRT (* for the main one) PROTO LOCAL REMOTE PORT
# STATE PATH REQS SENT RECEIVED DOWNS MOVED
sysfs_row() {
	local x=$1 id info loc port reqs st bytes

	id=${x##*/xprt-}
	info=$(cat "$x/xprt_info" 2>/dev/null) || return 0
	echo "$info" | grep -qx 'main_xprt=1' && id=${id%%-*}\*-${id#*-}
	port=$(echo "$info" | sed -n 's/^dst_port=//p')
	reqs=$(echo "$info" | sed -n 's/^tasks_queuelen=//p')
	loc=$(val "$x/srcaddr")
	case "$loc" in "<"*) loc=- ;; esac
	st=" $(val "$x/xprt_state" | sed 's/^state=//') "
	case "$st" in
	*" OFFLINE "*) st=offline ;;
	*" CONNECTED "*) st=connected ;;
	*" CONNECTING "*) st=connecting ;;
	*) st=idle ;;
	esac
	bytes="- -"
	[ ! -e "$x/path_bytes" ] || bytes=$(val "$x/path_bytes")
	echo "${id%%-*} ${id#*-} $loc $(val "$x/dstaddr") ${port:--} $st" \
	     "$(val "$x/path_state") ${reqs:--} $bytes $(val "$x/path_downs")" \
	     "$(val "$x/path_moved")"
}

sysfs_rows() {
	local x

	for x in $(xprts); do
		sysfs_row "$x"
	done | sort -k1,1n
}

# text_rows: the path rows of nfsmpctl show for one mount, on stdin
text_rows() {
	awk '/^    / && $1 != "XPRT" && $1 != "(*" { $1 = $1; print }' |
		sort -k1,1n
}

# json_rows: the same from nfsmpctl show --json for one mount, on stdin,
# after a "mount SWITCH MULTIPATH POLICY MULTIPATH_KERNEL FOUND_BY" line
json_rows() {
	python3 -c '
import json, sys
doc = json.load(sys.stdin)
[m] = doc["mounts"]
d = lambda v: "-" if v is None else str(v)
print("mount", d(m["switch"]), m["multipath"], d(m["policy"]),
      doc["multipath_kernel"], d(m["found_by"]))
for p in sorted(m["paths"], key=lambda p: p["xprt"]):
    print("%d%s" % (p["xprt"], "*" if p["main"] else ""), p["proto"],
          d(p["local"]), d(p["remote"]), d(p["port"]), p["state"],
          d(p["path"]), d(p["outstanding"]), d(p["sent"]),
          d(p["received"]), d(p["downs"]), d(p["moved"]))
'
}

# load_mask: the REQS, SENT and RECEIVED columns, which move under load,
# as "N" when they are numbers (they still must be in both, or "-" in
# both); at rest they are compared as they are
load_mask() {
	awk '{ for (i = 8; i <= 10; i++) if ($i ~ /^[0-9]+$/) $i = "N"; print }'
}

# show_diff LABEL A B: the diff of texts A and B, for the record (the
# guest has no /dev/fd for <(...))
show_diff() {
	echo "$2" >"$OUT.a"
	echo "$3" >"$OUT.b"
	diff "$OUT.a" "$OUT.b" | sed "s/^/diff $1: /" || true
	rm -f "$OUT.a" "$OUT.b"
}

# check_show MASK MULTIPATH: nfsmpctl show and show --json of $MNT say
# what sysfs says of each transport of $SW, through MASK (cat, or
# load_mask under load), and the mount's header says MULTIPATH
# (a "multipath: ..." text).  sysfs is read before and after the
# command, until it held still in between.
check_show() {
	local mask=$1 multipath=$2 a b text json i=0 rc got n

	while :; do
		a=$(sysfs_rows | $mask)
		rc=0
		text=$(nfsmpctl show "$MNT" 2>&1) || rc=$?
		[ "$rc" = 0 ] || fail "nfsmpctl show exited $rc: $text"
		json=$(nfsmpctl show --json "$MNT" 2>&1) || rc=$?
		[ "$rc" = 0 ] || fail "nfsmpctl show --json exited $rc: $json"
		b=$(sysfs_rows | $mask)
		[ "$a" != "$b" ] || break
		i=$((i + 1))
		[ "$i" -lt 5 ] || fail "sysfs kept changing while nfsmpctl read it"
	done
	[ -n "$a" ] || fail "sysfs shows no transport in $SW"
	if ! echo "$text" | grep -qxF "  multipath: $multipath"; then
		echo "$text" | sed 's/^/show: /'
		fail "show does not say 'multipath: $multipath'"
	fi
	if ! echo "$text" | grep -qE "^  switch: ${SW##*/}( |,)"; then
		echo "$text" | sed 's/^/show: /'
		fail "show does not name ${SW##*/}"
	fi
	got=$(echo "$text" | text_rows | $mask)
	if [ "$got" != "$a" ]; then
		echo "$text" | sed 's/^/show: /'
		show_diff "sysfs show" "$a" "$got"
		fail "the rows of nfsmpctl show differ from sysfs"
	fi
	got=$(echo "$json" | json_rows) || fail "show --json is no JSON of one mount: $json"
	if [ "$(echo "$got" | sed 1d | $mask)" != "$a" ]; then
		show_diff "sysfs json" "$a" "$(echo "$got" | sed 1d | $mask)"
		fail "the paths of nfsmpctl show --json differ from sysfs"
	fi
	JSON_MOUNT=$(echo "$got" | head -n 1)
	case "$JSON_MOUNT" in
	"mount ${SW##*/} "*) ;;
	*) fail "show --json says '$JSON_MOUNT', not of ${SW##*/}" ;;
	esac
	n=$(echo "$a" | wc -l)
	log "ok: show and --json match sysfs, field by field, for" \
	    "$n path$([ "$n" = 1 ] || echo s)$([ "$mask" = cat ] || echo " (REQS as numbers)")"
}

# refused WORDS TEXT...: nfsmpctl WORDS (one string) exits 1, and its
# message says each TEXT
refused() {
	local words=$1 err rc=0 t

	shift
	# shellcheck disable=SC2086
	err=$(nfsmpctl $words 2>&1 >/dev/null) || rc=$?
	[ "$rc" = 1 ] || fail "nfsmpctl $words exited $rc, not 1: $err"
	for t in "$@"; do
		echo "$err" | grep -qF -- "$t" ||
			fail "nfsmpctl $words: the message does not say \"$t\": $err"
	done
	log "ok: nfsmpctl $words refused: $(echo "$err" | tail -n 1)"
}

# server_has SERVERADDR CLIENTADDR N: the server holds exactly N
# connected NFS connections from CLIENTADDR to SERVERADDR, over $PROTO
server_has() {
	local got

	if [ "$PROTO" = rdma ]; then
		got=$(server_rdma_conns) || return 1
	else
		got=$(server_tcp_conns) || return 1
	fi
	[ "$(echo "$got" | grep -cx "$1 $2")" -eq "$3" ]
}

# ctl_add DST SRC LOCAL: nfsmpctl add $MNT DST SRC --wait: one new
# transport to DST, named in what it printed, its path up; the server
# then holds a connection from LOCAL.  Its directory goes to $ADDED.
ctl_add() {
	local before out rc=0 name new t0

	before=$(xprts)
	t0=$(now_cs)
	out=$(nfsmpctl add "$MNT" "$1" $2 --wait "$ADD_S" 2>&1) || rc=$?
	echo "$out" | sed 's/^/nfsmpctl: /'
	[ "$rc" = 0 ] || fail "nfsmpctl add $1 $2 exited $rc"
	new=$(xprts | grep -vxF "$before" || true)
	[ "$(echo "$new" | grep -c .)" = 1 ] ||
		fail "nfsmpctl add $1 $2 left new transports '$new', not one"
	name=$(echo "$out" | sed -n 's/^.*: added \(xprt-[0-9]*-[a-z0-9]*\) .*/\1/p')
	[ "$name" = "${new##*/}" ] ||
		fail "nfsmpctl add said it added '$name', sysfs has ${new##*/}"
	[ "$(cat "$new/dstaddr")" = "$1" ] || fail "$name goes to $(cat "$new/dstaddr"), not $1"
	[ "$(cat "$new/path_state")" = up ] || fail "$name is not up after add --wait"
	wait_for_cs $((ADD_S * 100)) server_has "$1" "$3" 1 ||
		fail "the server holds no connection from $3 to $1," \
		     "$(secs $(($(now_cs) - t0))) s after nfsmpctl add"
	log "ok: $name up, and the server holds $3 -> $1" \
	    "($(secs $(($(now_cs) - t0))) s after the add)"
	ADDED=$new
}

# ctl_del DIR WORDS...: nfsmpctl del $MNT WORDS --wait: DIR is gone, and
# the server lets go of its connection
ctl_del() {
	local dir=$1 dst src rc=0 out t0

	shift
	dst=$(cat "$dir/dstaddr")
	src=$(cat "$dir/srcaddr")
	t0=$(now_cs)
	out=$(nfsmpctl del "$MNT" "$@" --wait "$DEL_S" 2>&1) || rc=$?
	echo "$out" | sed 's/^/nfsmpctl: /'
	[ "$rc" = 0 ] || fail "nfsmpctl del $* exited $rc"
	[ ! -e "$dir" ] || fail "${dir##*/} is still there after del --wait"
	wait_for_cs $((DEL_S * 100)) server_has "$dst" "$src" 0 ||
		fail "the server still holds $src -> $dst" \
		     "$(secs $(($(now_cs) - t0))) s after nfsmpctl del"
	log "ok: ${dir##*/} gone, and the server let go of $src -> $dst" \
	    "($(secs $(($(now_cs) - t0))) s after the del)"
}

# as_user: nfsmpctl show as _rpc prints what root's did, and an edit as
# _rpc is refused for want of root
as_user() {
	local mine theirs rc=0

	# The path monitor's NULL calls move the byte counters between the
	# two runs: those columns only have to be numbers in both
	mine=$(nfsmpctl show "$MNT" | load_mask)
	theirs=$($USER_RUN nfsmpctl show "$MNT" 2>&1) || rc=$?
	[ "$rc" = 0 ] || fail "nfsmpctl show as _rpc exited $rc: $theirs"
	theirs=$(echo "$theirs" | load_mask)
	[ "$theirs" = "$mine" ] || {
		show_diff "root user" "$mine" "$theirs"
		fail "nfsmpctl show as _rpc differs from root's"
	}
	$USER_RUN nfsmpctl show --json "$MNT" >/dev/null ||
		fail "nfsmpctl show --json as _rpc failed"
	rc=0
	theirs=$($USER_RUN nfsmpctl add "$MNT" "${S[2]}" 2>&1) || rc=$?
	[ "$rc" = 1 ] && echo "$theirs" | grep -q "needs root" ||
		fail "nfsmpctl add as _rpc: exit $rc, '$theirs'"
	log "ok: as _rpc, show prints what root's does, and add is refused: $theirs"
}

bad_input() {
	local main n add

	n=$(xprts | wc -l)
	main=$(grep -l '^main_xprt=1' "$SW"/xprt-*/xprt_info | xargs dirname)
	main=${main##*/xprt-}
	main=${main%%-*}
	add="kernel: RPC: ${SW##*/} xprt_switch_add_xprt:"
	refused "add $MNT fd99::1" "refused by the kernel: Invalid argument" \
		"$add address family differs from the server's: 'fd99::1'"
	refused "add $MNT ${S[2]} nosuch0" "unknown interface: 'nosuch0'"
	refused "add $MNT 10.99.0.300" "'10.99.0.300'"
	refused "del $MNT --xprt $main" "the main transport stays"
	refused "del $MNT xprt-$main" "the main transport stays"
	refused "del $MNT 10.99.7.7" "no path goes to 10.99.7.7"
	refused "policy $MNT fastest" "Invalid argument" "round-robin, queue-depth"
	refused "add /proc ${S[2]}" "/proc: not an NFS mount point"
	[ "$(xprts | wc -l)" = "$n" ] ||
		fail "the bad input left $(xprts | wc -l) transports, not $n"
	[ "$(cat "$SW/policy")" = round-robin ] || fail "the policy changed"
}

# ctl_policy POLICY: nfsmpctl policy sets it, and it reads back
ctl_policy() {
	local old out

	old=$(cat "$SW/policy")
	out=$(nfsmpctl policy "$MNT" "$1") || fail "nfsmpctl policy $1 failed"
	[ "$out" = "$MNT: $1 (was $old)" ] || fail "nfsmpctl policy $1 said '$out'"
	[ "$(cat "$SW/policy")" = "$1" ] || fail "the policy reads $(cat "$SW/policy"), not $1"
	[ "$(nfsmpctl policy "$MNT")" = "$MNT: $1" ] || fail "nfsmpctl policy does not read $1"
	log "ok: $out"
}

rdma_case() {
	local pid x y

	PROTO=rdma
	log "--- RDMA: $OPTS"
	nfs_mount "$OPTS"
	touch_all_xprts
	check_fresh
	SW=$(mount_switch) || fail "no xprt switch in sysfs goes to ${S[0]} and ${S[1]}"
	check_show cat "yes, policy round-robin"
	[ "$JSON_MOUNT" = "mount ${SW##*/} True round-robin True $(found_by "$MNT" endpoints)" ] ||
		fail "show --json says '$JSON_MOUNT'"
	as_user
	bad_input

	fio_bg pid "$JSON" $FIO_JOB
	sleep 3
	pid_gone "$pid" && fail "fio ended before the first add"
	ctl_add "${S[2]}" "${C[2]}" "${C[2]}"
	x=$ADDED
	ctl_add "${S[3]}" "${I[3]}" "${C[3]}"
	y=$ADDED
	check_show load_mask "yes, policy round-robin"
	ctl_policy queue-depth
	check_show load_mask "yes, policy queue-depth"
	ctl_policy round-robin
	sleep 3
	ctl_del "$x" "${S[2]}/${C[2]}"
	ctl_del "$y" "${y##*/}"
	check_show load_mask "yes, policy round-robin"
	pid_gone "$pid" && fail "fio ended before the last delete"
	sleep 2
	fio_stop "$pid" "$JSON" "write+verify" write
	check_show cat "yes, policy round-robin"
	nfs_umount
}

tcp_case() {
	local x

	PROTO=tcp
	log "--- TCP: $TCP_OPTS"
	nfs_mount "$TCP_OPTS"
	touch_all_xprts
	check_fresh
	SW=$(mount_switch) || fail "no xprt switch in sysfs for the TCP mount"
	ctl_add "${S[2]}" "${C[2]}" "${C[2]}"
	x=$ADDED
	rw_here 8
	check_show cat "yes, policy round-robin"
	ctl_del "$x" "${S[2]}"
	check_show cat "yes, policy round-robin"
	nfs_umount
}


# client_link DIR: sysfs' link from the superblock of the mount on DIR
# to its RPC client (6.12 has it, 6.1 not)
client_link() {
	echo "/sys/fs/nfs/$(awk -v m="$1" '$5 == m { d = $3 } END { print d }' \
		/proc/self/mountinfo)/nfs_client"
}

# found_by DIR OTHERWISE: how nfsmpctl must find the switch of the mount
# on DIR: through sysfs' link where there is one, else OTHERWISE
found_by() {
	if [ -e "$(client_link "$1")" ]; then
		echo sysfs
	else
		echo "$2"
	fi
}

# plain_switch DIR PROTO: the switch of the plain mount on DIR: the one
# sysfs links to its RPC client, or without that link the one switch
# whose transports go to the server over PROTO on port PORT (the test
# mounts one a protocol).  Over TCP, its transport's source port must be
# the one of the mount's xprt: line in mountstats.
plain_switch() {
	local link sw port x

	link=$(client_link "$1")
	if [ -e "$link" ]; then
		sw=$(readlink -f "$link/switch") && [ -d "$sw" ] ||
			fail "no switch linked from $link"
	else
		port=$(mount_opt port "$1")
		[ -n "$port" ] || port=2049
		sw=$(for x in /sys/kernel/sunrpc/xprt-switches/switch-*/xprt-*-"$2"; do
			[ "$(val "$x/dstaddr")" = "$SERVER" ] &&
				grep -qx "dst_port=$port" "$x/xprt_info" &&
				dirname "$x"
			done | sort -u)
		[ "$(echo "$sw" | grep -c .)" = 1 ] ||
			fail "not one switch goes to $SERVER:$port over $2: '$sw'"
	fi
	port=$(mount_stats "$1" | awk '$1 == "xprt:" && $2 == "tcp" { print $3 }')
	if [ -n "$port" ]; then
		grep -qx "src_port=$port" "$sw"/xprt-*/xprt_info ||
			fail "$sw has no transport from port $port, as mountstats says"
	fi
	echo "$sw"
}

# plain_mounts WHICH MULTIPATH KERNEL WHY: plain NFSv3 mounts over TCP
# ($MNT) and RDMA ($MNT2): nfsmpctl with no mount point shows both, with
# status 0, each with MULTIPATH, and their rows match sysfs; --json says
# multipath_kernel KERNEL (True, False); add is refused for WHY
plain_mounts() {
	local which=$1 multipath=$2 kernel=$3 why=$4 out rc=0 n mp

	log "--- plain mounts, $which modules"
	nfs_mount "$MP_TCP"
	nfs_mount_on "$MNT2" "$MP_RDMA"
	touch_all_xprts
	out=$(nfsmpctl 2>&1) || rc=$?
	echo "$out" | sed 's/^/show: /'
	[ "$rc" = 0 ] || fail "$which: nfsmpctl exited $rc"
	n=$(echo "$out" | grep -cxF "  multipath: $multipath") || true
	[ "$n" = 2 ] || fail "$which: nfsmpctl says 'multipath: $multipath' $n times, not 2"
	for mp in "$MNT:tcp" "$MNT2:rdma"; do
		SW=$(plain_switch "${mp%:*}" "${mp#*:}")
		mp=${mp%:*}
		MNT=$mp check_show cat "$multipath"
		[ "$JSON_MOUNT" = "mount ${SW##*/} False - $kernel $(found_by "$mp" address)" ] ||
			fail "$which: show --json of $mp says '$JSON_MOUNT'"
	done
	out=$($USER_RUN nfsmpctl --json 2>&1) || fail "$which: nfsmpctl --json as _rpc failed: $out"
	refused "add $MNT ${S[2]}" "its paths cannot be edited: $why"
	nfs_umount
	umount_wait "$MNT2" 60 || fail "umount $MNT2 failed"
}

main() {
	if ! command -v nfsmpctl >/dev/null; then
		# The project's testbed installs it; elsewhere it may be missing
		[ -z "${TESTBED_ROLE:-}" ] || fail "no nfsmpctl in the guest's PATH"
		skip "no nfsmpctl in PATH"
	fi
	boost_priority
	rdma_case
	tcp_case
	plain_mounts ours "no, a mount without remoteports= or localports=" \
		True "not a multipath mount"
	# our modules again at the end, whatever happened
	defer_check "stack_reload ours"
	stack_reload stock || fail "cannot load the stock modules"
	plain_mounts stock "not in this kernel (its sunrpc has no path monitor)" \
		False "multipath is not in this kernel"
	fail_if_any
}

main
