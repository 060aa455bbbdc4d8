#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the testbed guest initramfs images from the host's own Debian
# binaries and the Debian kernel's modules.
#
#   mkinitramfs.sh base ABI ROOT OUT
#	Stage a complete guest root (busybox, NFS/RDMA userland, python3,
#	stock module closure, guest scripts, nfsmpctl) in ROOT and write it
#	as a newc cpio to OUT.
#	ROOT is kept: the client overlay needs it for depmod.
#
#   mkinitramfs.sh overlay ABI BASEROOT UPDATES OUT
#	Write a cpio to OUT that, unpacked after the base image, adds our
#	modules (UPDATES = .../lib/modules/ABI/updates) and the module index
#	files regenerated so that updates/ wins.
#
# Both archives are uncompressed: building and unpacking them is faster
# than (de)compressing under TCG, and the kernel accepts concatenated
# archives, so the client image is "cat base overlay".

set -eu

HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/../.." && pwd)

# Real binaries (with their shared libraries). Missing ones are skipped.
BINS="
/usr/bin/bash
/usr/bin/mount /usr/bin/umount /usr/bin/findmnt /usr/bin/flock
/usr/sbin/mount.nfs
/usr/sbin/rpcbind /usr/sbin/rpcinfo /usr/sbin/rpc.mountd /usr/sbin/rpc.nfsd
/usr/sbin/rpc.statd /usr/sbin/sm-notify /usr/sbin/exportfs /usr/sbin/showmount
/usr/sbin/nfsstat
/usr/sbin/ip /usr/sbin/tc /usr/bin/ss /usr/bin/rdma /usr/sbin/bridge
/usr/bin/nstat
/usr/bin/kmod
/usr/bin/fio
/usr/bin/ibv_devices /usr/bin/ibv_devinfo /usr/bin/ibv_rc_pingpong
/usr/bin/rping /usr/bin/ucmatose /usr/bin/udaddy
/usr/bin/rdma_server /usr/bin/rdma_client
/usr/sbin/ethtool /usr/bin/ping /usr/bin/strace /usr/bin/tcpdump
/usr/sbin/tcpdump
/usr/bin/pgrep /usr/bin/pkill
/usr/bin/dd /usr/bin/timeout /usr/bin/sha256sum /usr/bin/md5sum
/usr/bin/sha1sum /usr/bin/stat /usr/bin/seq /usr/bin/truncate
/usr/bin/make
/usr/sbin/request-key /usr/sbin/key.dns_resolver /usr/bin/keyctl
/usr/bin/setpriv
/usr/bin/arping
/usr/bin/numactl
"

# kmod front ends (symlinks to kmod).
KMOD_LINKS="/usr/sbin/modprobe /usr/sbin/insmod /usr/sbin/lsmod /usr/sbin/rmmod
/usr/sbin/depmod /usr/sbin/modinfo"

# Kernel modules whose dependency closure goes into the image.
MODULES="
virtio_pci virtio_net virtio_console 9p 9pnet_virtio
crc32_generic crc32_pclmul rdma_rxe rdma_cm ib_core ib_uverbs rdma_ucm ib_cm iw_cm
sch_tbf sch_netem sch_htb sch_prio sch_fq_codel sch_ingress cls_u32 cls_matchall
cls_basic cls_flower act_mirred act_gact ifb
sunrpc auth_rpcgss lockd grace nfs_acl nfs nfsv3 nfsv4 rpcrdma nfsd
configfs loop inet_diag tcp_diag
virtio_blk ext4 crc32c_generic
"

# What of Python's standard library a command-line tool of the guests
# never imports: its tests, IDLE, Tk, turtle, the build configuration (a
# static libpython), 2to3, pip's bootstrap, pydoc's topics, distutils,
# venv, the database and curses bindings, unittest, and the network
# servers, protocols and formats (asyncio, http, email, xml, ...) and
# process pools.  Relative to /usr/lib/python3.X; the bytecode caches
# stay out too (see add_python).
PY_EXCLUDE="
test idlelib tkinter turtledemo turtle.py config-* lib2to3 ensurepip
pydoc_data distutils venv sqlite3 dbm curses unittest
asyncio email xml xmlrpc http html wsgiref multiprocessing concurrent
_pydecimal.py
lib-dynload/_test* lib-dynload/xxlimited* lib-dynload/_ctypes_test*
lib-dynload/_xxtestfuzz* lib-dynload/_tkinter* lib-dynload/_curses*
lib-dynload/_sqlite3* lib-dynload/_dbm* lib-dynload/_gdbm*
lib-dynload/_asyncio* lib-dynload/_multiprocessing*
lib-dynload/_posixshmem* lib-dynload/_elementtree*
"

# Our own commands, installed where the package installs them
TOOLS="utils/nfsmpctl/nfsmpctl:/usr/sbin/nfsmpctl"

die() {
	echo "mkinitramfs: $*" >&2
	exit 1
}

declare -A COPIED

# Copy one host file (dereferenced) to the same path in $ROOT.
copy_file() {
	local src=$1 dst=${2:-$1}
	[ -n "${COPIED[$dst]:-}" ] && return 0
	COPIED[$dst]=1
	mkdir -p "$ROOT$(dirname "$dst")"
	cp -L --preserve=mode "$src" "$ROOT$dst"
}

# Copy a dynamic binary and every shared library ldd reports for it.
copy_bin() {
	local bin=$1 lib
	[ -e "$bin" ] || return 0
	copy_file "$bin"
	for lib in $(ldd "$bin" 2>/dev/null | awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^\//) print $i }'); do
		copy_file "$lib"
	done
}

make_skeleton() {
	local d
	rm -rf "$ROOT"
	mkdir -p "$ROOT"
	# mktemp-like 0700 root dirs break rpcbind (it runs as _rpc).
	chmod 755 "$ROOT"
	cd "$ROOT"
	mkdir -p usr/bin usr/sbin usr/lib usr/lib64 etc proc sys dev run tmp root \
		mnt export home var/lib/nfs/sm var/lib/nfs/sm.bak var/lib/nfs/v4recovery \
		var/tmp testbed-run usr/lib/testbed
	ln -s usr/bin bin
	ln -s usr/sbin sbin
	ln -s usr/lib lib
	ln -s usr/lib64 lib64
	ln -s ../run var/run
	chmod 1777 tmp var/tmp
	chmod 700 root
	for d in etab rmtab state; do
		: >"var/lib/nfs/$d"
	done
	chown 102:65534 var/lib/nfs/sm var/lib/nfs/sm.bak var/lib/nfs/state
	cd - >/dev/null
}

add_userland() {
	local b
	for b in $BINS; do
		copy_bin "$b"
	done
	for b in $KMOD_LINKS; do
		ln -sf ../bin/kmod "$ROOT$b"
	done
	ln -sf mount.nfs "$ROOT/usr/sbin/umount.nfs"
	ln -sf mount.nfs "$ROOT/usr/sbin/mount.nfs4"
	ln -sf mount.nfs "$ROOT/usr/sbin/umount.nfs4"
	# busybox sh prefers its own applets over PATH, which would shadow
	# ip/tc/ss/modprobe/mount: the shell is bash, busybox does the rest.
	ln -sf bash "$ROOT/usr/bin/sh"

	# libibverbs providers (rxe) are dlopen()ed.
	if [ -e /etc/libibverbs.d/rxe.driver ]; then
		copy_file /etc/libibverbs.d/rxe.driver
		for b in /usr/lib/x86_64-linux-gnu/libibverbs/librxe-*.so; do
			copy_bin "$b"
		done
	else
		echo "mkinitramfs: warning: ibverbs-providers missing, no userspace verbs (rping)" >&2
	fi

	copy_file /usr/bin/busybox
	for b in $(/usr/bin/busybox --list); do
		case "$b" in
		busybox|init|linuxrc|sh) continue ;;
		esac
		[ -e "$ROOT/usr/bin/$b" ] || [ -e "$ROOT/usr/sbin/$b" ] ||
			[ -L "$ROOT/usr/bin/$b" ] || [ -L "$ROOT/usr/sbin/$b" ] ||
			ln -s busybox "$ROOT/usr/bin/$b"
	done
}

# Debian's python3 (the binary, not a pyenv or venv shim that PATH may
# find first) and its standard library less $PY_EXCLUDE, for nfsmpctl.
# No bytecode: a run as root caches what it compiled in the guest's
# rootfs, as on any installed system.
add_python() {
	local py ver lib x so excl=()

	py=$(readlink -f /usr/bin/python3) || true
	[ -x "$py" ] || die "no /usr/bin/python3 (scripts/install-deps installs it)"
	ver=${py##*/python}
	lib=/usr/lib/python$ver
	[ -f "$lib/os.py" ] || die "no standard library in $lib for $py"
	copy_bin "$py"
	ln -sf "${py##*/}" "$ROOT/usr/bin/python3"
	for x in $PY_EXCLUDE; do
		excl+=(--exclude="./$x")
	done
	mkdir -p "$ROOT$lib"
	# -h: Debian's sitecustomize.py links to /etc
	tar -C "$lib" -chf - --exclude=__pycache__ "${excl[@]}" . |
		tar -C "$ROOT$lib" -xf -
	# the libraries of the extension modules
	for so in "$ROOT$lib"/lib-dynload/*.so; do
		copy_bin "$lib/lib-dynload/${so##*/}"
	done
}

add_tools() {
	local t

	for t in $TOOLS; do
		install -D -m 755 "$TOP/${t%%:*}" "$ROOT${t#*:}"
	done
}

add_etc() {
	local f
	cd "$ROOT/etc"
	cat >passwd <<-'EOF'
	root:x:0:0:root:/root:/bin/sh
	_rpc:x:100:65534::/run/rpcbind:/usr/sbin/nologin
	statd:x:102:65534::/var/lib/nfs:/usr/sbin/nologin
	nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin
	EOF
	cat >group <<-'EOF'
	root:x:0:
	nogroup:x:65534:
	EOF
	cat >nsswitch.conf <<-'EOF'
	passwd: files
	group: files
	shadow: files
	hosts: files
	networks: files
	protocols: files
	services: files
	ethers: files
	rpc: files
	EOF
	cat >hosts <<-'EOF'
	127.0.0.1 localhost
	10.98.0.1 server
	10.98.0.2 client
	EOF
	# The kernel's DNS lookups (remoteports=dns) go to keyutils' upcall,
	# which reads /etc/hosts here: every line of a name, as Debian's
	# host.conf has glibc do
	echo "create dns_resolver * * /sbin/key.dns_resolver %k" >request-key.conf
	echo "multi on" >host.conf
	echo "search updates built-in" >depmod.conf
	: >fstab
	: >exports
	cd - >/dev/null
	for f in /etc/services /etc/rpc /etc/netconfig /etc/protocols /etc/nfs.conf; do
		[ -e "$f" ] && copy_file "$f"
	done
	[ -d /etc/iproute2 ] && cp -a /etc/iproute2 "$ROOT/etc/"
	# ncurses-base's few terminal types, for readline in --shell.
	[ -d /lib/terminfo ] && cp -a /lib/terminfo/. "$ROOT/usr/lib/terminfo/"
	mkdir -p "$ROOT/etc/ld.so.conf.d"
	echo "include /etc/ld.so.conf.d/*.conf" >"$ROOT/etc/ld.so.conf"
	ldconfig -r "$ROOT" 2>/dev/null || true
}

# Store modules uncompressed: xz under TCG costs seconds per boot.
unpack_modules() {
	find "$1" -name '*.ko.xz' -exec xz -d -f {} +
	find "$1" -name '*.ko.zst' -exec zstd -q -d --rm -f {} +
	find "$1" -name '*.ko.gz' -exec gzip -d -f {} +
}

# libicudata (31 MB of tables) is only NEEDED through fio's storage
# back ends (gluster, ceph, nbd), none of which the testbed uses: replace
# it by a stub that defines the one symbol libicuuc links against.
stub_icudata() {
	local lib
	lib=$(find "$ROOT/usr/lib/x86_64-linux-gnu" -maxdepth 1 -name 'libicudata.so.*' | head -n 1)
	[ -n "$lib" ] && command -v gcc >/dev/null || return 0
	local sym=icudt${lib##*.so.}_dat
	echo "const char ${sym}[64] __attribute__((aligned(16)));" >"$ROOT/.stub.c"
	if gcc -shared -o "$ROOT/.stub.so" -Wl,-soname,"${lib##*/}" "$ROOT/.stub.c" 2>/dev/null; then
		mv "$ROOT/.stub.so" "$lib"
	fi
	rm -f "$ROOT/.stub.c" "$ROOT/.stub.so"
}

# Module closure of $MODULES from the host's copy of the Debian kernel.
add_modules() {
	local m f
	local src=/lib/modules/$ABI
	[ -d "$src/kernel" ] || die "no $src: is linux-image-$ABI installed?"
	for m in $MODULES; do
		modprobe -S "$ABI" --show-depends "$m" 2>/dev/null ||
			echo "mkinitramfs: warning: no module $m" >&2
	done | awk '$1 == "insmod" { print $2 }' | sort -u >"$ROOT/.mods"
	while read -r f; do
		# The base is Debian's modules: one that the host has in
		# updates/ (our DKMS package, say) comes from kernel/.
		case "$f" in
		*/updates/*)
			f=$(find "$src/kernel" -name "$(basename "${f%.ko*}").ko*" | head -n 1)
			[ -n "$f" ] || continue
			;;
		esac
		copy_file "$f" "/usr${f#/usr}"
	done <"$ROOT/.mods"
	rm -f "$ROOT/.mods"
	unpack_modules "$ROOT/usr/lib/modules/$ABI"
	for f in modules.order modules.builtin modules.builtin.modinfo; do
		copy_file "$src/$f"
	done
	depmod -b "$ROOT" -C "$ROOT/etc/depmod.conf" "$ABI"
}

add_scripts() {
	local f
	for f in init-common.sh init-server.sh init-client.sh ctl-handler rxe-qp1-watch; do
		install -m 755 "$HERE/$f" "$ROOT/usr/lib/testbed/$f"
	done
	install -m 755 "$HERE/on-server" "$ROOT/usr/bin/on-server"
	install -m 755 "$HERE/testbed-link" "$ROOT/usr/bin/testbed-link"
	install -m 755 "$HERE/testbed-move" "$ROOT/usr/bin/testbed-move"
	ln -s testbed-move "$ROOT/usr/bin/testbed-node"
	ln -s usr/lib/testbed/init-common.sh "$ROOT/init"
}

write_cpio() {
	local root=$1 out=$2
	(cd "$root" && find . -mindepth 1 | LC_ALL=C sort | cpio -o -H newc --quiet) >"$out.tmp"
	mv "$out.tmp" "$out"
}

build_base() {
	ABI=$1 ROOT=$2 OUT=$3
	make_skeleton
	add_userland
	add_python
	add_tools
	stub_icudata
	add_etc
	add_modules
	add_scripts
	write_cpio "$ROOT" "$OUT"
}

# The overlay: updates/ plus the regenerated index. depmod needs the whole
# module tree, so stage it as hard links to the base root's files.
build_overlay() {
	local base=$2 upd=$3 tmp m
	ABI=$1 OUT=$4
	tmp=$OUT.d
	[ -d "$upd" ] || die "no $upd"
	rm -rf "$tmp"
	mkdir -p "$tmp/usr/lib/modules"
	cp -al "$base/usr/lib/modules/$ABI" "$tmp/usr/lib/modules/$ABI"
	cp -a "$upd" "$tmp/usr/lib/modules/$ABI/updates"
	unpack_modules "$tmp/usr/lib/modules/$ABI/updates"
	ln -s usr/lib "$tmp/lib"
	depmod -b "$tmp" -C "$base/etc/depmod.conf" "$ABI"
	# Keep only what differs from the base: updates/ and the index files.
	find "$tmp/usr/lib/modules/$ABI/kernel" -depth -delete
	rm "$tmp/lib"
	chmod 755 "$tmp"
	for m in sunrpc; do
		grep -q -E "^updates/(.*/)?$m\.ko:" "$tmp/usr/lib/modules/$ABI/modules.dep" ||
			echo "mkinitramfs: warning: $m.ko not in $upd" >&2
	done
	write_cpio "$tmp" "$OUT"
	rm -rf "$tmp"
}

case "${1:-}" in
base)
	[ $# = 4 ] || die "usage: $0 base ABI ROOT OUT"
	build_base "$2" "$3" "$4" ;;
overlay)
	[ $# = 5 ] || die "usage: $0 overlay ABI BASEROOT UPDATES OUT"
	build_overlay "$2" "$3" "$4" "$5" ;;
*)
	die "usage: $0 base|overlay ..." ;;
esac
