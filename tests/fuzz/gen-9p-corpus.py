#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Write the seed corpus of fuzz-9p: sequences of 9P2000.L messages (the harness has already
sent Tversion and attached fid 0 to the export root, which holds file, dir/inner and the
symlinks up -> ../canary, abs -> <outside>, dir/updir -> ../..)."""
import os
import struct
import sys

tag = [0]


def msg(mtype, body):
    tag[0] += 1
    return struct.pack("<IBH", 7 + len(body), mtype, tag[0]) + body


def s(text):
    b = text.encode() if isinstance(text, str) else text
    return struct.pack("<H", len(b)) + b


def u8(v): return struct.pack("<B", v)
def u16(v): return struct.pack("<H", v)
def u32(v): return struct.pack("<I", v)
def u64(v): return struct.pack("<Q", v)


def walk(fid, newfid, *names):
    return msg(110, u32(fid) + u32(newfid) + u16(len(names)) + b"".join(s(n) for n in names))


def lopen(fid, flags): return msg(12, u32(fid) + u32(flags))
def read(fid, off, cnt): return msg(116, u32(fid) + u64(off) + u32(cnt))
def write(fid, off, data): return msg(118, u32(fid) + u64(off) + u32(len(data)) + data)
def clunk(fid): return msg(120, u32(fid))


SEEDS = {
    "read-file": walk(0, 1, "file") + lopen(1, 0) + read(1, 0, 100) + clunk(1),
    "write-file": walk(0, 1, "file") + lopen(1, 2) + write(1, 3, b"xyz") + msg(50, u32(1)),
    "readdir": walk(0, 1) + lopen(1, 0) + msg(40, u32(1) + u64(0) + u32(200))
    + msg(40, u32(1) + u64(2) + u32(64)),
    "create": walk(0, 1) + msg(14, u32(1) + s("new") + u32(2) + u32(0o644) + u32(0))
    + write(1, 0, b"data") + read(1, 0, 10),
    "mkdir-symlink": msg(72, u32(0) + s("d2") + u32(0o755) + u32(0))
    + msg(16, u32(0) + s("ln") + s("/etc/passwd") + u32(0)) + walk(0, 2, "ln")
    + msg(22, u32(2)) + lopen(2, 0),
    "rename-unlink": walk(0, 1, "dir") + msg(74, u32(1) + s("inner") + u32(0) + s("moved"))
    + walk(0, 2, "moved") + msg(20, u32(2) + u32(1) + s("back"))
    + msg(76, u32(1) + s("back") + u32(0)) + msg(76, u32(0) + s("dir") + u32(0x200)),
    "escape-dotdot": walk(0, 1, "..", "..", "canary") + walk(0, 2, "dir", "..", "..")
    + msg(24, u32(2) + u64(0x7ff)) + walk(0, 3, "up") + lopen(3, 2) + walk(0, 4, "abs", "canary"),
    "escape-symlink-ops": walk(0, 1, "up") + msg(26, u32(1) + u32(0x9) + u32(0o777) + u32(0)
    + u32(0) + u64(0) + u64(0) * 4) + msg(70, u32(0) + u32(1) + s("hl"))
    + walk(0, 5, "dir", "updir") + msg(72, u32(5) + s("x") + u32(0o755) + u32(0)),
    "getattr-setattr": walk(0, 1, "file") + msg(24, u32(1) + u64(0x7ff))
    + msg(26, u32(1) + u32(0x1 | 0x8 | 0x20 | 0x100) + u32(0o600) + u32(0) + u32(0)
          + u64(2) + u64(0) + u64(0) + u64(12345) + u64(0)) + msg(8, u32(1)),
    "xattr": walk(0, 1, "file") + msg(32, u32(1) + s("user.k") + u64(3) + u32(0))
    + write(1, 0, b"val") + clunk(1) + walk(0, 2, "file") + msg(30, u32(2) + u32(3) + s("user.k"))
    + read(3, 0, 10) + msg(30, u32(2) + u32(4) + s("")) + read(4, 0, 100),
    "lock": walk(0, 1, "file") + lopen(1, 2) + walk(0, 2, "file") + lopen(2, 2)
    + msg(52, u32(1) + u8(1) + u32(0) + u64(0) + u64(0) + u32(1) + s("a"))
    + msg(52, u32(2) + u8(1) + u32(1) + u64(0) + u64(0) + u32(2) + s("b"))
    + msg(54, u32(2) + u8(1) + u64(0) + u64(0) + u32(2) + s("b")),
    "link-mknod-remove": walk(0, 1, "file") + msg(70, u32(0) + u32(1) + s("hard"))
    + msg(18, u32(0) + s("fifo") + u32(0o10600) + u32(0) + u32(0) + u32(0))
    + walk(0, 2, "fifo") + lopen(2, 0) + msg(122, u32(1)) + msg(122, u32(0)),
    "version-reset": msg(100, u32(8192) + s("9P2000.L")) + walk(0, 1)
    + msg(104, u32(0) + u32(0xffffffff) + s("u") + s("") + u32(1000)) + walk(0, 1, "dir"),
    "malformed": b"\x05\x00\x00\x00\x6e" + struct.pack("<IBH", 200, 110, 1) + u32(0)
    + struct.pack("<IBH", 11, 250, 2) + u32(0) + walk(0, 1, "a/b", ".", "") + msg(108, u16(1)),
    # dir is a host volume: setuid, root's and device files must not reach it (docs/9p.md).
    "hostvol-setuid": walk(0, 1, "dir") + msg(14, u32(1) + s("s") + u32(2) + u32(0o4755) + u32(0))
    + msg(26, u32(1) + u32(0x6) + u32(0) + u32(0) + u32(0) + u64(0) * 5)
    + msg(26, u32(1) + u32(0x1) + u32(0o6755) + u32(0) + u32(0) + u64(0) * 5)
    + walk(0, 2, "dir") + msg(18, u32(2) + s("c") + u32(0o20666) + u32(1) + u32(3) + u32(0))
    + msg(72, u32(2) + s("d") + u32(0o6775) + u32(0)) + walk(0, 3, "file")
    + msg(26, u32(3) + u32(0x1) + u32(0o4755) + u32(0) + u32(0) + u64(0) * 5)
    + msg(70, u32(2) + u32(3) + s("hl")) + msg(74, u32(0) + s("file") + u32(2) + s("f")),
}


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(__file__), "corpus", "fuzz-9p")
    os.makedirs(out, exist_ok=True)
    for name, data in SEEDS.items():
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
