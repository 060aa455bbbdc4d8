# SPDX-License-Identifier: GPL-2.0
#
# Server half of the testbed init, sourced by init-common.sh: stock
# modules, tmpfs export, NFSv3 over TCP 2049 and RDMA 20049, and the
# on-server control service on ctl0. Stays up until the host kills it.
# Each node of a multi-node testbed runs it; those also export /ro.

EXPORT_SIZE=${EXPORT_SIZE:-1200M}

start_nfs_server() {
	local i
	# lockd first, so that it gets the short grace period.
	$MODPROBE lockd nlm_grace_period=10 || fatal "modprobe lockd"
	$MODPROBE -a nfsd rpcrdma || fatal "modprobe nfsd rpcrdma"
	mount -t nfsd nfsd /proc/fs/nfsd || fatal "mount nfsd fs"
	# nfsd's (v4) grace period also holds back NLM locks: 90 s by default.
	echo 10 >/proc/fs/nfsd/nfsv4leasetime
	echo 10 >/proc/fs/nfsd/nfsv4gracetime
	mount -t tmpfs -o "size=$EXPORT_SIZE,mode=1777" tmpfs /export
	echo "/export *(rw,no_root_squash,insecure,no_subtree_check,fsid=1,sync)" >/etc/exports
	# Several nodes: the image that each of them serves alike, with the
	# same fsid=, so that their file handles are the same
	if [ "${SERVERS:-1}" != 1 ]; then
		$MODPROBE -a crc32c_generic virtio_blk ext4 || fatal "modprobe ext4"
		i=0
		while [ ! -b /dev/vda ] && [ "$i" -lt 50 ]; do
			sleep 0.1
			i=$((i + 1))
		done
		[ -b /dev/vda ] || fatal "no /dev/vda for the read-only export"
		mkdir -p /ro
		mount -t ext4 -o ro,noload /dev/vda /ro || fatal "mount /dev/vda /ro"
		echo "/ro *(ro,no_root_squash,insecure,no_subtree_check,fsid=2)" >>/etc/exports
	fi

	rpcbind || fatal "rpcbind"
	rpc.statd --no-notify || fatal "rpc.statd"
	exportfs -ra || fatal "exportfs"
	rpc.mountd -p 20048 -N 4 || fatal "rpc.mountd"
	rpc.nfsd -N 4.0 --rdma=20049 8 || fatal "rpc.nfsd"
}

start_ctl_server() {
	# -ll: keep listening; one handler process per connection.
	nc -ll -p "$TESTBED_CTL_PORT" -e "$TB/ctl-handler" </dev/null >/dev/console 2>&1 &
}

. /etc/testbed.env
# The control service first: the client starts CMD as soon as nfs is
# registered with rpcbind, and CMD may call on-server at once.
# rxe fails QP1 for good on a send over a dead link; the script says why
# and why only here.
"$TB/rxe-qp1-watch" </dev/null >/dev/null 2>&1 &
start_ctl_server
start_nfs_server
log "server ready: $(cat /proc/fs/nfsd/versions) portlist: $(tr '\n' ' ' </proc/fs/nfsd/portlist)"
while :; do
	sleep 3600
done
