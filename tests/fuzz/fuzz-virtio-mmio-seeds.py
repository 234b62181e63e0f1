#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Write the seed corpus of fuzz-virtio-mmio (input layout: see tests/fuzz/fuzz-virtio-mmio.c).

Usage: tests/fuzz/fuzz-virtio-mmio-seeds.py [OUTDIR]
(default tests/fuzz/corpus/fuzz-virtio-mmio)
"""
import os
import struct
import sys

MEM = 0x2000
READ, WRITE, KICK, NARROW = 0, 1, 2, 3


def op(kind, off, value=0):
    return struct.pack('<BBI', kind, off // 2, value & 0xffffffff)


def setd(mem, table, i, addr, ln, fl, nx):
    struct.pack_into('<QIHH', mem, table + 16 * i, addr, ln, fl, nx)


def queue(q, num, desc, avail, used):
    return (op(WRITE, 0x30, q) + op(READ, 0x34) + op(WRITE, 0x38, num) +
            op(WRITE, 0x80, desc) + op(WRITE, 0x84, 0) + op(WRITE, 0x90, avail) +
            op(WRITE, 0x94, 0) + op(WRITE, 0xa0, used) + op(WRITE, 0xa4, 0) +
            op(WRITE, 0x44, 1) + op(READ, 0x44))


def negotiate(low=0, high=1):
    return (op(WRITE, 0x70, 0) + op(WRITE, 0x70, 1) + op(WRITE, 0x70, 3) +
            op(WRITE, 0x14, 1) + op(READ, 0x10) + op(WRITE, 0x24, 0) + op(WRITE, 0x20, low) +
            op(WRITE, 0x24, 1) + op(WRITE, 0x20, high) + op(WRITE, 0x70, 11) + op(READ, 0x70))


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(__file__), 'corpus', 'fuzz-virtio-mmio')
    os.makedirs(out, exist_ok=True)

    mem = bytearray(MEM)
    # transmitq0: rings at 0x100/0x200/0x300, one chain of two buffers
    setd(mem, 0x100, 0, 0x1000, 6, 1, 1)
    setd(mem, 0x100, 1, 0x1006, 7, 0, 0)
    mem[0x1000:0x100d] = b'hello, world\n'
    struct.pack_into('<HHH', mem, 0x200, 0, 1, 0)
    # receiveq0: rings at 0x400/0x500/0x600, one 64-byte buffer
    setd(mem, 0x400, 0, 0x1800, 64, 2, 0)
    struct.pack_into('<HHH', mem, 0x500, 0, 1, 0)

    ident = op(READ, 0x0) + op(READ, 0x4) + op(READ, 0x8) + op(READ, 0xc)
    up = (negotiate(low=(1 << 28) | (1 << 29)) + queue(0, 8, 0x400, 0x500, 0x600) +
          queue(1, 8, 0x100, 0x200, 0x300) + op(WRITE, 0x70, 15) + op(READ, 0x70))
    run = (op(KICK, 0, 1) + op(KICK, 0, 0) + op(READ, 0x60) + op(WRITE, 0x64, 3) +
           op(NARROW, 0x100, 2) + op(NARROW | 4, 0x104, 3) + op(READ, 0xfc))
    seeds = {
        'console-up': ident + up + run,
        'console-reset': ident + up + run + op(WRITE, 0x70, 0) + up + run,
        'console-event-idx-off': ident + negotiate() + queue(1, 8, 0x100, 0x200, 0x300) +
        op(WRITE, 0x70, 15) + run,
        'bad-queue': ident + negotiate() + queue(1, 3, 0x108, 0x200, 0x300) +
        queue(0, 2048, 0x400, 0x500, 0x10000) + op(WRITE, 0x70, 15) + op(READ, 0x70) + run,
        'no-version-1': ident + negotiate(high=0) + op(WRITE, 0x70, 15) + run,
    }
    for name, ops in seeds.items():
        with open(os.path.join(out, name), 'wb') as f:
            f.write(bytes(mem) + ops)


if __name__ == '__main__':
    main()
