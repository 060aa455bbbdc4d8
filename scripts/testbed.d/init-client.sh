# SPDX-License-Identifier: GPL-2.0
#
# Client half of the testbed init, sourced by init-common.sh: load the NFS
# client modules (ours unless --stock), check which sunrpc got loaded,
# mount the shared host directories, wait for the server, run the command
# with its output on the "testbed.out" virtio port (or, with --shell, an
# interactive bash on the console), report its status on the console as
# TESTBED-RC=<n> and power off.

SERVER_WAIT=${SERVER_WAIT:-240}

load_nfs_client() {
	$MODPROBE -a nfs nfsv3 rpcrdma || fatal "modprobe nfs nfsv3 rpcrdma"
	$MODPROBE -a nfsv4 2>/dev/null || true
}

# Our modules carry MODULE_VERSION("nfs-multipath-...") and a modinfo
# field nfs_multipath=<ver>; Debian's sunrpc has neither.
check_sunrpc() {
	local ver="" stamp
	[ -r /sys/module/sunrpc/version ] && ver=$(cat /sys/module/sunrpc/version)
	stamp=$(modinfo -F nfs_multipath sunrpc 2>/dev/null)
	log "client sunrpc version ${ver:-stock} (nfs_multipath=${stamp:-none}, $(modinfo -n sunrpc 2>/dev/null))"
	case "$ver" in
	nfs-multipath-*) ours=1 ;;
	*) ours=0 ;;
	esac
	if [ "$STOCK" = 1 ] && [ "$ours" = 1 ]; then
		fatal "sunrpc is ours but --stock was requested"
	fi
	if [ "$STOCK" = 0 ] && { [ "$ours" = 0 ] || [ -z "$stamp" ]; }; then
		fatal "sunrpc is not ours"
	fi
}

mount_shares() {
	local s
	mount_9p tbrepo "$REPO"
	for s in $SHARES; do
		mount_9p "${s%%=*}" "${s#*=}"
	done
}

start_client_daemons() {
	rpcbind || fatal "rpcbind"
	rpc.statd --no-notify || fatal "rpc.statd"
	# rxe fails QP1 for good on a send over a dead link (the script says
	# why).  Re-creating a device under stock xprtrdma can hang for good,
	# so only under ours; stock runs do not take client links down.
	if [ "$ours" = 1 ]; then
		"$TB/rxe-qp1-watch" </dev/null >/dev/null 2>&1 &
	fi
}

# wait_server: every server node serves NFS (node K at the first address
# of $SERVER_NODE<K>_ADDRS; one node: $SERVER)
wait_server() {
	local i=0 n=1 a
	while [ "$n" -le "$TESTBED_SERVERS" ]; do
		eval "set -- \$SERVER_NODE${n}_ADDRS"
		a=$1
		while [ "$i" -lt "$SERVER_WAIT" ]; do
			if timeout 5 rpcinfo -p "$a" 2>/dev/null | grep -qw nfs; then
				break
			fi
			sleep 1
			i=$((i + 1))
		done
		[ "$i" -lt "$SERVER_WAIT" ] ||
			fatal "server $a not serving nfs after ${SERVER_WAIT}s"
		n=$((n + 1))
	done
}

# The host's argv, as `printf %q` words, in /testbed-run/cmd.
run_cmd() {
	local port="" p rc
	for p in /sys/class/virtio-ports/*; do
		[ "$(cat "$p/name" 2>/dev/null)" = testbed.out ] && port=/dev/${p##*/}
	done
	[ -n "$port" ] || fatal "no testbed.out virtio port"
	eval "set -- $(cat /testbed-run/cmd)"
	log "running: $*"
	(cd "$REPO" && exec "$@") </dev/null >"$port" 2>&1
	rc=$?
	sync
	echo "TESTBED-RC=$rc"
	poweroff -f
	sleep 1000000
}

# --shell: bash -i on the serial console, which is the host's terminal,
# as a session leader with the console as its controlling tty (job
# control, ^C). Same environment and cwd as run_cmd; TBSHELL_TERM and
# TBSHELL_SIZE ("rows cols") come from the host.
run_shell() {
	local rc t tty=/dev/ttyS0
	for t in "${TBSHELL_TERM:-vt100}" "${TBSHELL_TERM%%-*}" vt100; do
		[ -f "/usr/lib/terminfo/${t%"${t#?}"}/$t" ] && break
	done
	export TERM=$t
	set -- $TBSHELL_SIZE
	[ $# = 2 ] && stty -F $tty rows "$1" cols "$2" 2>/dev/null
	cat >/run/testbed-shell.rc <<-'EOF'
	PS1='\u@\h:\w\$ '
	EOF
	log "server ready, starting shell (TERM=$TERM); exit it to power off"
	(cd "$REPO" && exec setsid -c bash --rcfile /run/testbed-shell.rc -i) \
		<$tty >$tty 2>&1
	rc=$?
	sync
	echo "TESTBED-RC=$rc"
	poweroff -f
	sleep 1000000
}

$MODPROBE sunrpc || fatal "modprobe sunrpc"
check_sunrpc
load_nfs_client
mount_shares
start_client_daemons
. /etc/testbed.env
log "client up, waiting for server $SERVER"
wait_server
if [ "${TBSHELL:-0}" = 1 ]; then
	run_shell
fi
log "server ready, starting command"
run_cmd
