#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Write the seed corpus of fuzz-virtq (input layout: see tests/fuzz/fuzz-virtq.c).

Usage: tests/fuzz/fuzz-virtq-seeds.py [OUTDIR]   (default tests/fuzz/corpus/fuzz-virtq)
"""
import os
import struct
import sys

NEXT, WRITE, IND = 1, 2, 4
D, A, U = 0x100, 0x200, 0x300  # rings of the small queues


def mk(out, name, log2, flags, start, desc, avail, used, mem):
    data = struct.pack('<BBHIII', log2, flags, start, desc, avail, used)
    with open(os.path.join(out, name), 'wb') as f:
        f.write(data + bytes(mem).rstrip(b'\0'))


def setd(mem, table, i, addr, ln, fl, nx):
    struct.pack_into('<QIHH', mem, table + 16 * i, addr, ln, fl, nx)


def avail(mem, base, num, start, heads):
    for k, h in enumerate(heads):
        struct.pack_into('<H', mem, base + 4 + 2 * ((start + k) % num), h)
    struct.pack_into('<H', mem, base + 2, (start + len(heads)) & 0xffff)


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(__file__), 'corpus', 'fuzz-virtq')
    os.makedirs(out, exist_ok=True)

    # good chains: direct out+in, indirect, a buffer across regions A|B, a read-only source
    mem = bytearray(0x8000)
    setd(mem, D, 0, 0x1000, 16, NEXT, 1)
    setd(mem, D, 1, 0x1100, 32, WRITE, 0)
    setd(mem, D, 2, 0x2000, 48, IND, 0)
    setd(mem, 0x2000, 0, 0x1200, 8, NEXT, 1)
    setd(mem, 0x2000, 1, 0x1300, 8, NEXT | WRITE, 2)
    setd(mem, 0x2000, 2, 0x1400, 8, WRITE, 0)
    setd(mem, D, 3, 0x3ff0, 0x20, WRITE, 0)
    setd(mem, D, 4, 0x100000, 64, 0, 0)
    avail(mem, A, 8, 0, [0, 2, 3, 4])
    mk(out, 'good-mixed', 3, 3, 0, D, A, U, mem)

    # 16-bit index wrap
    mem = bytearray(0x2000)
    for i in range(4):
        setd(mem, D, i, 0x1000 + i * 16, 16, 0, 0)
    avail(mem, A, 4, 0xfffe, [0, 1, 2, 3])
    mk(out, 'wrap', 2, 1, 0xfffe, D, A, U, mem)

    # loop, next out of range, write then read, bad indirect length, INDIRECT|NEXT,
    # writable buffer in read-only memory, head out of range
    mem = bytearray(0x4000)
    setd(mem, D, 0, 0x1000, 16, NEXT, 1)
    setd(mem, D, 1, 0x1000, 16, NEXT, 0)
    setd(mem, D, 2, 0x1000, 16, NEXT, 99)
    setd(mem, D, 3, 0x1000, 16, WRITE | NEXT, 4)
    setd(mem, D, 4, 0x1000, 16, 0, 0)
    setd(mem, D, 5, 0x2000, 17, IND, 0)
    setd(mem, D, 6, 0x2000, 32, IND | NEXT, 0)
    setd(mem, D, 7, 0x100000, 16, WRITE, 0)
    avail(mem, 0x400, 16, 0, [0, 2, 3, 5, 6, 7, 40])
    mk(out, 'bad-chains', 4, 2, 0, D, 0x400, 0x500, mem)

    # avail index more than num ahead
    mem = bytearray(0x400)
    struct.pack_into('<H', mem, A + 2, 300)
    mk(out, 'avail-runaway', 3, 0, 0, D, A, U, mem)

    # a 600-descriptor chain in a 1024 queue
    mem = bytearray(0x8000)
    for i in range(600):
        setd(mem, 0, i, 0x6000 + i, 1, NEXT, i + 1)
    avail(mem, 0x4000, 1024, 0, [0])
    mk(out, 'too-long', 10, 1, 0, 0, 0x4000, 0x5000, mem)

    # nested indirect table, loop inside an indirect table
    mem = bytearray(0x4000)
    setd(mem, D, 0, 0x2000, 32, IND, 0)
    setd(mem, 0x2000, 0, 0x2100, 16, IND, 0)
    setd(mem, D, 1, 0x2200, 32, IND, 0)
    setd(mem, 0x2200, 0, 0x1000, 4, NEXT, 1)
    setd(mem, 0x2200, 1, 0x1000, 4, NEXT, 0)
    avail(mem, A, 2, 0, [0, 1])
    mk(out, 'indirect-bad', 1, 3, 0, D, A, U, mem)


if __name__ == '__main__':
    main()
