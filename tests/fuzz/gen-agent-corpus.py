#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# Seeds for fuzz-agent-proto and fuzz-agent-env (tests/fuzz/corpus/agent-{proto,env}/).
# Run from anywhere: python3 tests/fuzz/gen-agent-corpus.py
import os
import struct

here = os.path.dirname(os.path.abspath(__file__))


def frame(t, p=b""):
    return struct.pack("<II", t, len(p)) + p


def exec_req(app, argv, tty=False, term=b"", rows=24, cols=80, version=1):
    p = struct.pack("<IIHHI", version, 1 if tty else 0, rows, cols, len(argv))
    for s in [app, term] + argv:
        p += s + b"\0"
    return frame(1, p)


def u32(v):
    return struct.pack("<I", v)


proto = {
    "exec-simple": exec_req(b"web", [b"/bin/sh", b"-c", b"id"]),
    "exec-tty": exec_req(b"my-app", [b"bash"], tty=True, term=b"xterm-256color", rows=50, cols=200),
    "exec-session": exec_req(b"a", [b"cat"]) + frame(3, b"hello") + frame(7, struct.pack("<HH", 30, 100))
    + frame(4) + frame(5, b"hello") + frame(6, b"warn\n") + frame(8, u32(0)),
    "exec-bad-version": exec_req(b"a", [b"x"], version=9),
    "exec-bad-argc": frame(1, struct.pack("<IIHHI", 1, 0, 0, 0, 5) + b"a\0\0x\0"),
    "exec-trailing": frame(1, struct.pack("<IIHHI", 1, 0, 0, 0, 1) + b"a\0\0x\0junk"),
    "stop": frame(2, u32(1)) + frame(9),
    "error": frame(10, u32(127) + b"cannot execute x: No such file or directory"),
    "error-control": frame(10, u32(1) + b"\x1b[2Jboom"),
    "exit-bad": frame(8, u32(256)),
    "huge-length": struct.pack("<II", 5, 0xFFFFFFF0) + b"abc",
    "unknown-type": frame(99, b"x"),
    "partial": exec_req(b"a", [b"x"])[:13],
}

env = {
    "layer-enter": b"\x01app=web\nroot=/opt/stage2/web/rootfs\nuid=1000\ngid=100\ngroups=4,27\ncwd=/srv\nenv=/etc/cc/env/web\n",
    "enter-bad": b"\x01uid=x\ngid=0\n",
    "env-layer": b"\x00PATH=\"/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin\"\nAC_APP_NAME=\"web\"\ncontainer=\"rkt\"\n",
    "env-quotes": b"\x00A=\"x \\\"y\\\" \\\\ \\$z\"\nB='lit $x'\nC=un\\ quoted  \n# c\n; c\nD=\"multi\nline\"\n",
    "env-bad": b"\x001A=x\nB=\"open\n",
}

for name, sub in (("agent-proto", proto), ("agent-env", env)):
    d = os.path.join(here, "corpus", name)
    os.makedirs(d, exist_ok=True)
    for k, v in sub.items():
        with open(os.path.join(d, k), "wb") as f:
            f.write(v)
