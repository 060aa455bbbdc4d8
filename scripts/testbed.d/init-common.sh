#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# PID 1 of both testbed guests (/init): mount the pseudo file systems, load
# the network/RDMA modules, read the run configuration from the "tbrun" 9p
# share, configure the data NICs (addresses, policy routing, rxe) and the
# control link, then hand over to init-server.sh or init-client.sh.
#
# /bin/sh is bash in the image (busybox sh would run its own ip/tc/modprobe
# applets ahead of PATH); this file sticks to POSIX sh plus `local`.

export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin
export HOME=/root TERM=dumb
TB=/usr/lib/testbed
IP=/usr/sbin/ip
MODPROBE=/usr/sbin/modprobe

log() {
	local up
	read -r up _ </proc/uptime
	echo "testbed: $* (+${up}s)"
}

# Tell the host and stop. The host watches the consoles for these lines.
fatal() {
	echo "testbed: FATAL: $*"
	echo "TESTBED-RC=${FATAL_RC:-125}"
	sync
	poweroff -f
	sleep 1000000
}

mount_basics() {
	mount -t proc proc /proc
	mount -t sysfs sysfs /sys
	mount -t devtmpfs devtmpfs /dev
	mkdir -p /dev/pts /dev/shm
	mount -t devpts devpts /dev/pts
	mount -t tmpfs -o mode=1777 tmpfs /dev/shm
	mount -t tmpfs -o mode=755 tmpfs /run
	mount -t tmpfs -o mode=1777 tmpfs /tmp
	mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null || true
	mkdir -p /run/rpcbind /run/lock
	chown 100:65534 /run/rpcbind
}

# ROLE: server or client; NODE: which server node (1 to 3); ROLE_NR: the
# number in the guest's MACs and addresses (role_nr in scripts/testbed):
# node 1 is 1, the client 2, node K>1 is K+1.  NOADDR=1: a node booted
# again after its addresses moved to the others comes up without them.
parse_cmdline() {
	local w
	ROLE=
	NODE=1
	NOADDR=0
	for w in $(cat /proc/cmdline); do
		case "$w" in
		testbed.role=*) ROLE=${w#testbed.role=} ;;
		testbed.node=[1-3]) NODE=${w#testbed.node=} ;;
		testbed.noaddr=1) NOADDR=1 ;;
		esac
	done
	case "$ROLE" in
	server) ROLE_NR=$((NODE == 1 ? 1 : NODE + 1)) ;;
	client) ROLE_NR=2 ;;
	*) fatal "no testbed.role= on the kernel command line" ;;
	esac
	if [ "$ROLE" = server ] && [ "$NODE" != 1 ]; then
		hostname "server$NODE"
	else
		hostname "$ROLE"
	fi
}

load_modules() {
	# crc32_generic must be there before rdma_rxe ("failed to init crc32");
	# virtio_pci and virtio_console are built in on 6.12, modules on 6.1.
	$MODPROBE -a crc32_generic virtio_pci virtio_console virtio_net 9p \
		9pnet_virtio configfs ||
		fatal "modprobe (base) failed"
	$MODPROBE -a rdma_rxe rdma_cm ib_core ib_uverbs rdma_ucm ||
		fatal "modprobe (rdma) failed"
	$MODPROBE -a sch_tbf sch_netem sch_htb sch_prio sch_ingress cls_u32 \
		cls_matchall ifb 2>/dev/null || log "warning: some qdisc modules failed"
	mount -t configfs configfs /sys/kernel/config 2>/dev/null || true
}

mount_9p() {
	local tag=$1 dir=$2
	mkdir -p "$dir"
	mount -t 9p -o trans=virtio,version=9p2000.L,ro,msize=262144 "$tag" "$dir" ||
		fatal "cannot mount 9p $tag at $dir"
}

read_config() {
	mount_9p tbrun /testbed-run
	[ -r /testbed-run/config ] || fatal "no /testbed-run/config"
	. /testbed-run/config
}

# addr ROLE_NR K: data address of NIC K of server node 1 (ROLE_NR 1), the
# client (2), server node 2 (3) or 3 (4): 10.99.0.1.., .11.., .21.., .31..
data_addr() {
	if [ "$1" = 1 ]; then
		echo "10.99.0.$((1 + $2))"
	else
		echo "10.99.0.$((($1 - 1) * 10 + 1 + $2))"
	fi
}

# The IPv6 twin of data_addr: fd99::1.. on server node 1, fd99::11.. on
# the client, fd99::21.. and fd99::31.. on nodes 2 and 3.
data_addr6() {
	if [ "$1" = 1 ]; then
		echo "fd99::$((1 + $2))"
	else
		echo "fd99::$(($1 - 1))$((1 + $2))"
	fi
}

# Rename NICs by MAC: data 52:54:00:99:0R:KK -> ethK, 52:54:00:98:00:0R -> ctl0.
name_nics() {
	local d n i=0 mac
	for d in /sys/class/net/*; do
		n=${d##*/}
		# Only real (PCI) NICs: not lo, ifb*, tunnels...
		[ -e "$d/device" ] || continue
		$IP link set dev "$n" name "tbtmp$i"
		i=$((i + 1))
	done
	for d in /sys/class/net/tbtmp*; do
		[ -e "$d" ] || continue
		mac=$(cat "$d/address")
		case "$mac" in
		52:54:00:99:0$ROLE_NR:*) n=eth$((0x${mac##*:})) ;;
		52:54:00:98:00:0$ROLE_NR) n=ctl0 ;;
		*) log "warning: unexpected NIC $mac"; continue ;;
		esac
		$IP link set dev "${d##*/}" name "$n"
	done
}

set_sysctl() {
	local c
	for c in "$@"; do
		echo 1 >/proc/sys/net/ipv4/conf/$c/arp_ignore
		echo 2 >/proc/sys/net/ipv4/conf/$c/arp_announce
		echo 0 >/proc/sys/net/ipv4/conf/$c/rp_filter
	done
}

# All data NIC configuration as one `ip -batch` (each exec costs under TCG).
setup_net() {
	local k me me6 peer other b=/run/testbed-ip.batch b6=/run/testbed-ip6.batch
	$IP link set lo up
	name_nics
	set_sysctl all default
	# A floating address that testbed-move adds to a NIC with an address
	# of the same subnet is a secondary one; without this, deleting the
	# primary (moving it away) deletes the secondaries with it.
	echo 1 >/proc/sys/net/ipv4/conf/all/promote_secondaries
	echo 1 >/proc/sys/net/ipv4/conf/default/promote_secondaries
	# The peer of a p2p link (one server node only)
	other=$((ROLE_NR == 1 ? 2 : 1))
	: >$b
	: >$b6
	k=0
	while [ "$k" -lt "$LINKS" ]; do
		[ -e /sys/class/net/eth$k ] || fatal "data NIC eth$k missing"
		me=$(data_addr "$ROLE_NR" "$k")
		me6=$(data_addr6 "$ROLE_NR" "$k")
		peer=$(data_addr "$other" "$k")
		set_sysctl "eth$k"
		# Table 100+K routes what is sent from an address of ethK
		# through ethK; testbed-move gives a moved address the
		# rule of its new NIC.  NOADDR: the addresses are elsewhere.
		if [ "$NOADDR" = 1 ]; then
			echo "link set dev eth$k mtu $MTU up" >>$b
			echo "route add 10.99.0.0/24 dev eth$k table $((100 + k))" >>$b
			echo "route add fd99::/64 dev eth$k table $((100 + k))" >>$b6
			k=$((k + 1))
			continue
		fi
		{
			echo "link set dev eth$k mtu $MTU up"
			echo "addr add $me/24 dev eth$k"
			echo "rule add from $me table $((100 + k))"
			echo "route add 10.99.0.0/24 dev eth$k src $me table $((100 + k))"
			# Point-to-point links: the peer of ethK is only behind ethK.
			[ "$TOPOLOGY" = p2p ] && echo "route add $peer/32 dev eth$k src $me"
			echo "addr add $me6/64 dev eth$k nodad"
		} >>$b
		{
			echo "rule add from $me6 table $((100 + k))"
			echo "route add fd99::/64 dev eth$k src $me6 table $((100 + k))"
			[ "$TOPOLOGY" = p2p ] &&
				echo "route add $(data_addr6 "$other" "$k")/128 dev eth$k src $me6"
		} >>$b6
		k=$((k + 1))
	done
	[ -e /sys/class/net/ctl0 ] || fatal "control NIC missing"
	# on-server K reaches node K at 10.98.0.<its ROLE_NR>
	echo "addr add 10.98.0.$ROLE_NR/24 dev ctl0" >>$b
	echo "link set dev ctl0 up" >>$b
	$IP -batch $b || fatal "network setup failed ($(cat $b))"
	$IP -6 -batch $b6 || fatal "IPv6 network setup failed ($(cat $b6))"
}

setup_rxe() {
	local k=0
	while [ "$k" -lt "$LINKS" ]; do
		rdma link add "rxe$k" type rxe netdev "eth$k" ||
			fatal "rdma link add rxe$k failed"
		k=$((k + 1))
	done
}

# node_addrs N [6]: the data addresses of server node N (IPv6 with 6)
node_addrs() {
	local k=0 nr=$(($1 == 1 ? 1 : $1 + 1)) a=""
	while [ "$k" -lt "$LINKS" ]; do
		a="$a${a:+ }$(data_addr$2 "$nr" "$k")"
		k=$((k + 1))
	done
	echo "$a"
}

# numa_env: with --numa, in the client, the data NICs in NUMA node 0 and
# in node 1, as its sysfs has them (their PCI expander bridge's node), and
# their addresses, added to /etc/testbed.env.  ethK's device is the
# virtio device, which has no numa_node file: its parent, the PCI
# device, has.
numa_env() {
	local n k node i a a6

	[ "$ROLE" = client ] && [ "${NUMA:-0}" = 1 ] || return 0
	for n in 0 1; do
		i=""
		a=""
		a6=""
		k=0
		while [ "$k" -lt "$LINKS" ]; do
			read -r node <"/sys/class/net/eth$k/device/../numa_node"
			case "$node" in
			0|1) ;;
			*) fatal "--numa: eth$k is in NUMA node $node, not 0 or 1" ;;
			esac
			if [ "$node" = "$n" ]; then
				i="$i${i:+ }eth$k"
				a="$a${a:+ }$(data_addr 2 "$k")"
				a6="$a6${a6:+ }$(data_addr6 2 "$k")"
			fi
			k=$((k + 1))
		done
		{
			echo "export NUMA_NODE${n}_IFS=\"$i\""
			echo "export NUMA_NODE${n}_ADDRS=\"$a\""
			echo "export NUMA_NODE${n}_ADDRS6=\"$a6\""
		} >>/etc/testbed.env
	done
}

write_env() {
	local k n s="" c="" si="" s6="" c6="" nodes="" numa=0
	n=1
	while [ "$n" -le "${SERVERS:-1}" ]; do
		s="$s${s:+ }$(node_addrs "$n")"
		s6="$s6${s6:+ }$(node_addrs "$n" 6)"
		nodes="${nodes}export SERVER_NODE${n}_ADDRS=\"$(node_addrs "$n")\"
"
		n=$((n + 1))
	done
	k=0
	while [ "$k" -lt "$LINKS" ]; do
		c="$c${c:+ }$(data_addr 2 "$k")"
		c6="$c6${c6:+ }$(data_addr6 2 "$k")"
		si="$si${si:+ }eth$k"
		k=$((k + 1))
	done
	[ "$ROLE" != client ] || numa=${NUMA:-0}
	cat >/etc/testbed.env <<-EOF
	export PATH=$PATH
	export HOME=/root
	export SERVER_ADDRS="$s"
	${nodes}export TESTBED_SERVERS=${SERVERS:-1}
	export TESTBED_NODE=$NODE
	export CLIENT_ADDRS="$c"
	export SERVER_ADDRS6="$s6"
	export CLIENT_ADDRS6="$c6"
	export SERVER_IFS="$si"
	export CLIENT_IFS="$si"
	export SERVER=$(data_addr 1 0)
	export EXPORT=/export
	export TESTBED_STOCK=$STOCK
	export TESTBED_NUMA=$numa
	export TESTBED_LINKS=$LINKS
	export TESTBED_TOPOLOGY=$TOPOLOGY
	export TESTBED_MTU=$MTU
	export TESTBED_ROLE=$ROLE
	export TESTBED_CTL_SERVER=10.98.0.1
	export TESTBED_CTL_PORT=5555
	EOF
	numa_env
}

main() {
	mount_basics
	parse_cmdline
	log "$ROLE: init started"
	load_modules
	read_config
	log "$ROLE: modules loaded"
	setup_net
	setup_rxe
	write_env
	log "$ROLE: network up ($LINKS links, $TOPOLOGY, mtu $MTU)"
	. "$TB/init-$ROLE.sh"
	fatal "init-$ROLE.sh returned"
}

main "$@"
