#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# Writes the seed corpus of fuzz-balloon (tests/fuzz/corpus/fuzz-balloon/); the input format
# is described in fuzz-balloon.c.
import os
import struct
import sys

out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__),
                                                          "corpus", "fuzz-balloon")
os.makedirs(out, exist_ok=True)


def write(name, data):
    with open(os.path.join(out, name), "wb") as f:
        f.write(bytes(data))


def hole(gpa, size):
    return struct.pack("<II", gpa, size)


def op(code, a, length):
    return bytes([code]) + struct.pack("<II", a, length)


def pfns(*p):
    return bytes([0, len(p)]) + b"".join(struct.pack("<I", x) for x in p)


# map mode: a kernel at 16 MiB, then PFN runs, ranges across it, host ranges, high RAM
holes = hole(0x1000000, 0x1500000) + hole(0x3000123, 0x10) + hole(0, 0) + hole(0xfff0000, 0x20000)
write("map-mixed", b"\x00" + holes + pfns(0x1000, 0x1001, 0x1002, 0x5, 0x1000 + 0x500) +
      op(1, 0xfff000, 0x3000) + op(2, 0x2fff000, 0x2000) + op(3, 0xff0000, 0x20000) +
      op(1, 0x800, 0x1000) + op(1, 0xffffffff, 0xffffffff))
write("map-split-full", b"\x00" + hole(0x1000, 0x1000) + hole(0x3000, 0x1000) +
      hole(0x5000, 0x1000) + hole(0x7000, 0x1000) + op(1, 0, 0x10000) + pfns(*range(0, 16)))

# device mode
QS = 0x600


def ring(mem, q, descs, heads):
    base = QS * q
    for i, (addr, length, flags, nxt) in enumerate(descs):
        struct.pack_into("<QIHH", mem, base + 16 * i, addr, length, flags, nxt)
    struct.pack_into("<HH", mem, base + 0x100, 0, len(heads))
    for i, h in enumerate(heads):
        struct.pack_into("<H", mem, base + 0x104 + 2 * i, h)


RAM = 0x100000
for name, control in (("dev-report", 1 | 8), ("dev-report-evidx", 1 | 2 | 8),
                      ("dev-no-report", 1)):
    mem = bytearray(0x2000)
    struct.pack_into("<IIII", mem, 0x1800, RAM >> 12, (RAM >> 12) + 1, (RAM >> 12) + 2, 7)
    ring(mem, 0, [(0x1800, 16, 0, 0), (0x1800, 6, 1, 2), (0x1808, 8, 0, 0)], [0, 1])
    ring(mem, 1, [(0x1800, 8, 0, 0)], [0])
    ring(mem, 2, [(RAM, 0x2000, 2, 0), (RAM + 0x1000, 0x3000, 3, 2), (RAM + 0x4000, 0x1000, 2, 0),
                  (RAM + 0x800, 0x1000, 2, 0)], [0, 1, 3])
    write(name, bytes([control]) + bytes(mem))
