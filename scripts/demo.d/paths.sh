#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of `make demo`: runs in the testbed's client guest.

set -eu

MNT=/mnt/demo
SIZE=${DEMO_SIZE:-192M}
PORT=20049

# "eth0 123 eth1 456 ...": rx+tx bytes of each data NIC, here or on the server
nic_bytes() {
	local i

	for i in $1; do
		printf '%s %s\n' "$i" $(($(cat /sys/class/net/$i/statistics/rx_bytes) +
					 $(cat /sys/class/net/$i/statistics/tx_bytes)))
	done
}

# on-server runs its arguments as one shell command line
server_nic_bytes() {
	on-server 'for i in $(ls /sys/class/net | grep "^eth"); do
		echo $i $(($(cat /sys/class/net/$i/statistics/rx_bytes) +
			   $(cat /sys/class/net/$i/statistics/tx_bytes))); done'
}

# table TITLE BEFORE AFTER NAMES LABELS: MiB per interface and its share
table() {
	local title=$1

	echo "$title"
	printf '%s\n%s\n' "$2" "$3" | awk -v labels="$4" '
		BEGIN { n = split(labels, l, " ") }
		{ if ($1 in a) d[$1] = $2 - a[$1]; else { a[$1] = $2; o[++k] = $1 } }
		END {
			for (i = 1; i <= k; i++) t += d[o[i]]
			printf "  %-8s %-12s %10s %6s\n", "nic", "address", "MiB", "share"
			for (i = 1; i <= k; i++)
				printf "  %-8s %-12s %10.1f %5.0f%%  %s\n", o[i], l[i],
					d[o[i]] / 1048576, t ? 100 * d[o[i]] / t : 0,
					substr("########################################", 1,
					       t ? int(40 * d[o[i]] / t) : 0)
		}'
}

run() {
	local title=$1 opts=$2 cb sb ca sa mbs

	mkdir -p "$MNT"
	mount -t nfs -o "vers=3,proto=rdma,port=$PORT,$opts" "$SERVER:$EXPORT" "$MNT"
	echo
	echo "== $title"
	echo "   mount -o vers=3,proto=rdma,port=$PORT,$opts"
	cb=$(nic_bytes "$CLIENT_IFS")
	sb=$(server_nic_bytes)
	fio --name=write --filename="$MNT/demo" --rw=write --bs=1M --size="$SIZE" \
		--direct=1 --ioengine=libaio --iodepth=16 --output-format=terse \
		--terse-version=3 >/tmp/demo.w
	fio --name=read --filename="$MNT/demo" --rw=read --bs=1M --size="$SIZE" \
		--direct=1 --ioengine=libaio --iodepth=16 --output-format=terse \
		--terse-version=3 >/tmp/demo.r
	ca=$(nic_bytes "$CLIENT_IFS")
	sa=$(server_nic_bytes)
	mbs=$(awk -F';' '{ printf "%.1f", $7 / 1024 }' /tmp/demo.r)
	echo "   fio: write $(awk -F';' '{ printf "%.1f", $48 / 1024 }' /tmp/demo.w) MiB/s, read $mbs MiB/s"
	grep -E '^[[:space:]]+endpoint:' /proc/self/mountstats | sed 's/^[[:space:]]*/   /'
	table "   bytes per client NIC" "$cb" "$ca" "$CLIENT_ADDRS"
	table "   bytes per server address" "$sb" "$sa" "$SERVER_ADDRS"
	rm -f "$MNT/demo"
	umount "$MNT"
}

main() {
	local rp lp

	rp=$(echo $SERVER_ADDRS | awk '{ print $1 "-" $NF }')
	lp=$(echo $CLIENT_ADDRS | tr ' ' '~')
	run "one path: a plain NFSv3/RDMA mount" "nconnect=1"
	run "all paths: remoteports= and localports=" \
		"remoteports=$rp,localports=$lp"
}

main "$@"
