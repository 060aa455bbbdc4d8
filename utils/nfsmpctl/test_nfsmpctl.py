#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
#
# Host-side tests of nfsmpctl on made-up /sys and /proc trees (--root):
# the ways it finds a mount's switch on 6.12 (sysfs links), on 6.1 with
# multipath (mountstats' endpoint: lines) and on a stock 6.1 (addresses),
# what show prints and its JSON, and what add, del and policy write.
# The selftest mp_nfsmpctl runs it against a live kernel.
#
#   python3 utils/nfsmpctl/test_nfsmpctl.py [-v]

import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
CMD = os.path.join(HERE, "nfsmpctl")

SERVER = "10.99.0.1"
MP_OPTS = ("rw,vers=3,rsize=262144,wsize=262144,namlen=255,hard,proto=rdma,"
           "nconnect=2,remoteports=10.99.0.1-10.99.0.2,"
           "localports=10.99.0.11-10.99.0.12,remoteports_offset=1,"
           "pathpolicy=round-robin,port=20049,timeo=600,retrans=2,sec=sys,"
           "mountaddr=10.99.0.1,mountvers=3,mountproto=tcp,local_lock=none,"
           "addr=10.99.0.1")
TCP_OPTS = ("rw,vers=3,rsize=262144,wsize=262144,namlen=255,hard,proto=tcp,"
            "timeo=600,retrans=2,sec=sys,mountaddr=10.99.0.1,mountvers=3,"
            "mountport=20048,mountproto=tcp,local_lock=none,addr=10.99.0.1")


def info(main, srcport, dstport, queue=0):
    return ("last_used=4294898287\ncur_cong=0\ncong_win=16384\n"
            "max_num_slots=128\nmin_num_slots=0\nnum_reqs=0\n"
            "binding_q_len=0\nsending_q_len=0\npending_q_len=0\n"
            "backlog_q_len=0\nmain_xprt=%d\nsrc_port=%d\n"
            "tasks_queuelen=%d\ndst_port=%s\n" % (main, srcport, queue,
                                                  dstport))


class Tree:
    """A made-up root with /proc/self and /sys files."""

    def __init__(self):
        self.root = tempfile.mkdtemp(prefix="nfsmpctl-test.")
        self.mountinfo = ["22 1 0:21 / /sys rw - sysfs sysfs rw"]
        self.mountstats = ["device sysfs mounted on /sys with fstype sysfs"]

    def path(self, rel):
        return os.path.join(self.root, rel)

    def file(self, rel, text):
        p = self.path(rel)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "w") as f:
            f.write(text)

    def link(self, rel, target):
        p = self.path(rel)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        os.symlink(target, p)

    def read(self, rel):
        with open(self.path(rel)) as f:
            return f.read()

    def multipath_kernel(self):
        self.file("sys/module/sunrpc/parameters/path_timeout", "500\n")

    def switch(self, n, multipath=False, policy="round-robin"):
        d = "sys/kernel/sunrpc/xprt-switches/switch-%d" % n
        self.file(d + "/xprt_switch_info",
                  "num_xprts=2\nnum_active=2\nnum_unique_destaddr=2\n"
                  "queue_len=0\n")
        if multipath:
            self.file(d + "/policy", policy + "\n")
            self.file(d + "/xprt_switch_add_xprt",
                      "# add a path: DSTADDR [SRCADDR]\n")
        return d

    def xprt(self, switch, xid, proto, dst, src, main=False, port=2049,
             srcport=0, connected=True, health=None, queue=0, nbytes=None):
        d = "%s/xprt-%d-%s" % (switch, xid, proto)
        self.file(d + "/dstaddr", dst + "\n")
        if connected:
            self.file(d + "/srcaddr", (src or "<not a socket>") + "\n")
            self.file(d + "/xprt_info", info(main, srcport, port, queue))
            self.file(d + "/xprt_state",
                      "state= CONNECTED   BOUND       \n")
        else:
            self.file(d + "/srcaddr", "<closed>\n")
            self.file(d + "/xprt_info", "<closed>\n")
            self.file(d + "/xprt_state", "state=CLOSED\n")
        if health:
            state, downs, moved = health
            self.file(d + "/path_state", state + "\n")
            self.file(d + "/path_downs", "%d\n" % downs)
            self.file(d + "/path_moved", "%d\n" % moved)
            self.file(d + "/del_xprt", "# delete this path\n")
        if nbytes:
            self.file(d + "/path_bytes", "%d %d\n" % nbytes)
        return d

    def client(self, n, switch_n):
        self.link("sys/kernel/sunrpc/rpc-clients/clnt-%d/switch" % n,
                  "../../xprt-switches/switch-%d" % switch_n)

    def nfs_link(self, dev, clnt):
        self.link("sys/fs/nfs/%s/nfs_client" % dev,
                  "../../../kernel/sunrpc/rpc-clients/clnt-%d" % clnt)

    def mount(self, mid, dev, mnt, opts, stats=()):
        esc = mnt.replace(" ", "\\040")
        self.mountinfo.append("%d 1 %s / %s rw,relatime - nfs %s:/export %s"
                              % (mid, dev, esc, SERVER, opts))
        self.mountstats.append("device %s:/export mounted on %s with "
                               "fstype nfs statvers=1.1" % (SERVER, esc))
        self.mountstats.extend("\t" + s for s in stats)

    def done(self):
        self.file("proc/self/mountinfo", "\n".join(self.mountinfo) + "\n")
        self.file("proc/self/mountstats", "\n".join(self.mountstats) + "\n")
        return self

    def remove(self):
        shutil.rmtree(self.root)


def run(tree, *args):
    p = subprocess.run([sys.executable, CMD, "--root", tree.root] +
                       list(args), stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, universal_newlines=True)
    return p.returncode, p.stdout, p.stderr


def rows(out, mountpoint):
    """The path rows of MOUNTPOINT in show's text, as lists of words."""
    got, cur = [], None
    for line in out.splitlines():
        if line and not line.startswith(" "):
            cur = line.split(": ")[0]
        elif cur == mountpoint and line.startswith("    ") and \
                not line.strip().startswith(("XPRT", "(")):
            got.append(line.split())
    return got


def kernel612():
    """A multipath RDMA mount and a plain TCP one on 6.12 with multipath:
    sysfs links each mount to its client and switch."""
    t = Tree()
    t.multipath_kernel()
    sw = t.switch(0, multipath=True)
    t.xprt(sw, 0, "rdma", "10.99.0.1", "10.99.0.12", port=20049,
           health=("up", 0, 0), queue=3)
    t.xprt(sw, 1, "rdma", "10.99.0.2", "10.99.0.11", main=True, port=20049,
           health=("down", 2, 17), nbytes=(1000, 2000))
    t.xprt(sw, 6, "rdma", "10.99.0.2", None, port=20049, connected=False,
           health=("probing", 1, 0))
    t.xprt(t.switch(1), 2, "local", "/var/run/rpcbind.sock", None)
    t.xprt(t.switch(2), 3, "tcp", SERVER, None, connected=False)
    t.xprt(t.switch(3), 5, "tcp", SERVER, "10.99.0.11", main=True,
           srcport=751)
    t.client(4, 0)
    t.client(3, 2)
    t.client(6, 3)
    t.nfs_link("0:31", 4)
    t.nfs_link("0:32", 6)
    t.mount(36, "0:31", "/mnt/a", MP_OPTS)
    t.mount(37, "0:32", "/mnt/b b", TCP_OPTS)
    return t.done()


def kernel61_multipath():
    """The same multipath mount on 6.1: no link from /sys/fs/nfs, but
    the endpoint: lines of mountstats name its transports."""
    t = Tree()
    t.multipath_kernel()
    sw = t.switch(4, multipath=True)
    t.xprt(sw, 7, "rdma", "10.99.0.1", "10.99.0.12", port=20049,
           health=("up", 0, 0))
    t.xprt(sw, 8, "rdma", "10.99.0.2", "10.99.0.11", main=True, port=20049,
           health=("up", 0, 0))
    # another multipath client to the same addresses
    sw2 = t.switch(5, multipath=True)
    t.xprt(sw2, 9, "rdma", "10.99.0.1", "10.99.0.12", port=20049,
           health=("up", 0, 0))
    t.xprt(sw2, 10, "rdma", "10.99.0.2", "10.99.0.11", main=True,
           port=20049, health=("up", 0, 0))
    t.mount(36, "0:31", "/mnt/a", MP_OPTS, stats=[
        "endpoint:\t8 rdma 10.99.0.11 -> 10.99.0.2 port 20049 connected "
        "path up downs 0 moved 0",
        "endpoint:\t7 rdma 10.99.0.12 -> 10.99.0.1 port 20049 connected "
        "path up downs 0 moved 0",
        "xprt:\trdma 0 0 1 0 0 7 7 0 7 0 0 0 0 0 0 0 0 0 0 0 0 0 0 11 0 0 0",
        "xprt:\trdma 0 0 1 0 0 5 5 0 5 0 0 0 3 65664 300 0 0 0 0 0 0 0 0 "
        "11 3 0 0"])
    return t.done()


def kernel61_stock():
    """Debian 12's own 6.1: no link, no endpoint: lines, no path files.
    Two plain TCP mounts of one server with clients of their own (say,
    different rsize), lockd's client to the same server, and a client of
    another server."""
    t = Tree()
    t.xprt(t.switch(0), 0, "tcp", SERVER, "10.99.0.11", main=True,
           srcport=751)
    t.xprt(t.switch(1), 1, "tcp", SERVER, "10.99.0.11", main=True,
           srcport=802)
    t.xprt(t.switch(2), 2, "tcp", SERVER, "10.99.0.11", main=True,
           srcport=900, port=4045)
    t.xprt(t.switch(3), 3, "tcp", "10.99.0.3", "10.99.0.11", main=True,
           srcport=700)
    t.mount(36, "0:31", "/mnt/a", TCP_OPTS,
            stats=["xprt:\ttcp 802 1 2 0 0 10 10 0 10 0 2 0 0"])
    t.mount(37, "0:32", "/mnt/b", TCP_OPTS,
            stats=["xprt:\ttcp 751 1 2 0 0 10 10 0 10 0 2 0 0"])
    return t.done()


class Show(unittest.TestCase):

    def tearDown(self):
        self.tree.remove()

    def test_612_text(self):
        self.tree = kernel612()
        rc, out, err = run(self.tree)
        self.assertEqual((rc, err), (0, ""))
        self.assertIn("/mnt/a: 10.99.0.1:/export, nfs vers=3 proto=rdma",
                      out)
        self.assertIn("switch: switch-0 (rpc client clnt-4), 3 transports",
                      out)
        self.assertIn("multipath: yes, policy round-robin", out)
        self.assertIn("remoteports=10.99.0.1-10.99.0.2", out)
        self.assertEqual(rows(out, "/mnt/a"), [
            ["0", "rdma", "10.99.0.12", "10.99.0.1", "20049", "connected",
             "up", "3", "-", "-", "0", "0"],
            ["1*", "rdma", "10.99.0.11", "10.99.0.2", "20049", "connected",
             "down", "0", "1000", "2000", "2", "17"],
            ["6", "rdma", "-", "10.99.0.2", "-", "idle", "probing", "-",
             "-", "-", "1", "0"]])
        # the mount point with a space, and a plain mount on this kernel
        self.assertIn("/mnt/b b: 10.99.0.1:/export", out)
        self.assertIn("multipath: no, a mount without remoteports= or "
                      "localports=", out)
        self.assertEqual(rows(out, "/mnt/b b"), [
            ["5*", "tcp", "10.99.0.11", "10.99.0.1", "2049", "connected",
             "-", "0", "-", "-", "-", "-"]])

    def test_612_json(self):
        self.tree = kernel612()
        rc, out, err = run(self.tree, "show", "--json", "/mnt/a")
        self.assertEqual(rc, 0)
        doc = json.loads(out)
        self.assertTrue(doc["multipath_kernel"])
        [m] = doc["mounts"]
        self.assertEqual((m["mountpoint"], m["switch"], m["client"],
                          m["found_by"], m["multipath"], m["policy"]),
                         ("/mnt/a", "switch-0", "clnt-4", "sysfs", True,
                          "round-robin"))
        self.assertEqual(m["options"]["localports"], "10.99.0.11-10.99.0.12")
        p = m["paths"][1]
        self.assertEqual(p, {
            "xprt": 1, "name": "xprt-1-rdma", "proto": "rdma", "main": True,
            "local": "10.99.0.11", "remote": "10.99.0.2", "port": 20049,
            "state": "connected", "flags": ["CONNECTED", "BOUND"],
            "path": "down", "outstanding": 0, "sent": 1000,
            "received": 2000, "downs": 2, "moved": 17})
        self.assertIsNone(m["paths"][2]["local"])

    def test_global_json_and_default_command(self):
        self.tree = kernel612()
        rc, out, _ = run(self.tree, "--json", "/mnt/b b")
        self.assertEqual(rc, 0)
        self.assertEqual(json.loads(out)["mounts"][0]["switch"], "switch-3")

    def test_61_endpoints(self):
        self.tree = kernel61_multipath()
        rc, out, _ = run(self.tree, "--json")
        self.assertEqual(rc, 0)
        [m] = json.loads(out)["mounts"]
        self.assertEqual((m["switch"], m["found_by"], m["client"]),
                         ("switch-4", "endpoints", None))
        self.assertEqual([p["xprt"] for p in m["paths"]], [7, 8])

    def test_61_stock(self):
        self.tree = kernel61_stock()
        rc, out, err = run(self.tree)
        self.assertEqual((rc, err), (0, ""))
        self.assertEqual(out.count("multipath: not in this kernel"), 2)
        self.assertEqual(rows(out, "/mnt/a")[0][:2], ["1*", "tcp"])
        self.assertEqual(rows(out, "/mnt/b")[0][:2], ["0*", "tcp"])
        rc, out, _ = run(self.tree, "--json", "/mnt/a")
        [m] = json.loads(out)["mounts"]
        self.assertEqual((m["switch"], m["found_by"], m["multipath"]),
                         ("switch-1", "address", False))
        self.assertFalse(json.loads(out)["multipath_kernel"])

    def test_61_stock_ambiguous(self):
        """Without source ports to tell them apart: said, not guessed."""
        self.tree = kernel61_stock()
        self.tree.file("proc/self/mountstats", "")
        rc, out, _ = run(self.tree, "/mnt/a")
        self.assertEqual(rc, 0)
        self.assertIn("switch: not found (2 switches go to 10.99.0.1 over "
                      "tcp: switch-0 switch-1)", out)

    def test_no_sunrpc_sysfs(self):
        self.tree = kernel61_stock()
        shutil.rmtree(self.tree.path("sys/kernel"))
        rc, out, _ = run(self.tree)
        self.assertEqual(rc, 0)
        self.assertIn("switch: not found (this kernel has no SunRPC "
                      "directory in sysfs)", out)

    def test_no_nfs_mounts(self):
        self.tree = Tree().done()
        self.assertEqual(run(self.tree)[:2], (0, "no NFS mounts\n"))
        rc, out, _ = run(self.tree, "--json")
        self.assertEqual((rc, json.loads(out)["mounts"]), (0, []))

    def test_not_nfs(self):
        self.tree = kernel612()
        rc, out, err = run(self.tree, "show", "/sys")
        self.assertEqual(rc, 1)
        self.assertIn("/sys: not an NFS mount point", err)


class Edit(unittest.TestCase):

    def tearDown(self):
        self.tree.remove()

    def test_add(self):
        self.tree = kernel612()
        f = "sys/kernel/sunrpc/xprt-switches/switch-0/xprt_switch_add_xprt"
        rc, out, err = run(self.tree, "add", "/mnt/a", "10.99.0.3", "eth2")
        self.assertEqual((rc, err), (0, ""))
        self.assertEqual(self.tree.read(f), "10.99.0.3 eth2\n")
        rc, out, err = run(self.tree, "add", "/mnt/a")
        self.assertEqual(self.tree.read(f), "\n")

    def test_add_plain(self):
        self.tree = kernel612()
        rc, out, err = run(self.tree, "add", "/mnt/b b", "10.99.0.3")
        self.assertEqual(rc, 1)
        self.assertIn("its paths cannot be edited: not a multipath mount",
                      err)
        self.tree = kernel61_stock()
        rc, out, err = run(self.tree, "add", "/mnt/a", "10.99.0.3")
        self.assertEqual(rc, 1)
        self.assertIn("multipath is not in this kernel", err)

    def test_del(self):
        self.tree = kernel612()
        x = "sys/kernel/sunrpc/xprt-switches/switch-0/xprt-%d-rdma/del_xprt"
        rc, out, err = run(self.tree, "del", "/mnt/a", "10.99.0.1")
        self.assertEqual((rc, err), (0, ""))
        self.assertIn("deleting xprt-0-rdma (10.99.0.12 -> 10.99.0.1)", out)
        self.assertEqual(self.tree.read(x % 0), "1\n")
        # two paths go to 10.99.0.2
        rc, out, err = run(self.tree, "del", "/mnt/a", "10.99.0.2")
        self.assertEqual(rc, 1)
        self.assertIn("2 paths match 10.99.0.2", err)
        rc, out, err = run(self.tree, "del", "/mnt/a",
                           "10.99.0.2/10.99.0.11")
        self.assertEqual(rc, 0)
        self.assertEqual(self.tree.read(x % 1), "1\n")
        for how in (["xprt-6-rdma"], ["xprt-6"], ["--xprt", "6"]):
            self.tree.file(x % 6, "")
            rc, out, err = run(self.tree, "del", "/mnt/a", *how)
            self.assertEqual((rc, self.tree.read(x % 6)), (0, "1\n"), how)
        rc, out, err = run(self.tree, "del", "/mnt/a", "--xprt", "9")
        self.assertEqual(rc, 1)
        self.assertIn("switch-0 has no transport 9", err)
        rc, out, err = run(self.tree, "del", "/mnt/a", "10.99.0.7")
        self.assertEqual(rc, 1)
        self.assertIn("no path goes to 10.99.0.7", err)

    def test_policy(self):
        self.tree = kernel612()
        rc, out, _ = run(self.tree, "policy", "/mnt/a")
        self.assertEqual((rc, out), (0, "/mnt/a: round-robin\n"))
        rc, out, _ = run(self.tree, "policy", "/mnt/a", "queue-depth")
        self.assertEqual((rc, out),
                         (0, "/mnt/a: queue-depth (was round-robin)\n"))
        self.assertEqual(self.tree.read(
            "sys/kernel/sunrpc/xprt-switches/switch-0/policy"),
            "queue-depth\n")
        rc, out, _ = run(self.tree, "policy", "/mnt/b b")
        self.assertEqual(rc, 0)
        self.assertIn("no policy", out)

    def test_usage(self):
        self.tree = kernel612()
        rc, _, err = run(self.tree, "del", "/mnt/a")
        self.assertEqual(rc, 2)
        rc, _, err = run(self.tree, "policy", "--json", "/mnt/a")
        self.assertEqual(rc, 2)
        rc, _, err = run(self.tree, "add", "/mnt/a", "10.99.0.3 eth2")
        self.assertEqual(rc, 2)


if __name__ == "__main__":
    unittest.main()
