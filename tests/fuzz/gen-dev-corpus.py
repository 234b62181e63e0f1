#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Write the seed corpora of fuzz-blk and fuzz-net: guest memory images holding valid rings
and requests/packets (layouts in the header comments of fuzz-blk.c and fuzz-net.c), which
libFuzzer then mutates. Usage: gen-dev-corpus.py [CORPUS_ROOT]"""
import os
import struct
import sys

MEM = 0x2000
NEXT, WRITE, INDIRECT = 1, 2, 4


class Image:
    def __init__(self):
        self.mem = bytearray(MEM)

    def put(self, gpa, data):
        self.mem[gpa:gpa + len(data)] = data

    def desc(self, table, i, addr, length, flags=0, nxt=0):
        self.put(table + 16 * i, struct.pack("<QIHH", addr, length, flags, nxt))

    def avail(self, base, heads, flags=0):
        self.put(base, struct.pack("<HH", flags, len(heads)))
        for k, h in enumerate(heads):
            self.put(base + 4 + 2 * k, struct.pack("<H", h))

    def chain(self, table, first, bufs):
        """bufs: (addr, len, writable); descriptors first, first+1, ..."""
        for k, (addr, length, w) in enumerate(bufs):
            flags = (WRITE if w else 0) | (NEXT if k + 1 < len(bufs) else 0)
            self.desc(table, first + k, addr, length, flags, first + k + 1)
        return first

    def trimmed(self):
        end = len(self.mem)
        while end > 0 and self.mem[end - 1] == 0:
            end -= 1
        return bytes(self.mem[:end])


def blk_hdr(rtype, sector):
    return struct.pack("<IIQ", rtype, 0, sector)


def blk_seeds():
    seeds = {}
    # one request each: header at 0x300, data at 0x400, status at 0x1f00
    for name, rtype, sector, dlen, dwrite in [
            ("read", 0, 2, 1024, True), ("write", 1, 1, 512, False),
            ("flush", 4, 0, 0, False), ("get-id", 8, 0, 20, True),
            ("bad-sector", 0, 1 << 60, 512, True), ("unsupp", 13, 0, 16, False)]:
        im = Image()
        im.put(0x300, blk_hdr(rtype, sector))
        bufs = [(0x300, 16, False)]
        if dlen:
            bufs.append((0x400, dlen, dwrite))
        bufs.append((0x1f00, 1, True))
        im.avail(0x100, [im.chain(0, 0, bufs)])
        seeds[name] = bytes([0]) + im.trimmed()
    # discard with two segments
    im = Image()
    im.put(0x300, blk_hdr(11, 0))
    im.put(0x400, struct.pack("<QII", 1, 2, 0) + struct.pack("<QII", 5, 1, 0))
    im.avail(0x100, [im.chain(0, 0, [(0x300, 16, False), (0x400, 32, False), (0x1f00, 1, True)])])
    seeds["discard"] = bytes([0]) + im.trimmed()
    seeds["discard-ro"] = bytes([1]) + im.trimmed()
    # an indirect write, then a read, with EVENT_IDX
    im = Image()
    im.put(0x300, blk_hdr(1, 3))
    im.put(0x310, blk_hdr(0, 3))
    im.put(0x400, bytes(range(256)) * 2)
    im.chain(0x800, 0, [(0x300, 16, False), (0x400, 512, False), (0x1f00, 1, True)])
    im.desc(0, 0, 0x800, 48, INDIRECT)
    im.chain(0, 1, [(0x310, 16, False), (0x600, 512, True), (0x1f01, 1, True)])
    im.avail(0x100, [0, 1])
    seeds["indirect-write-read"] = bytes([6]) + im.trimmed()
    seeds["backend-fails"] = bytes([8]) + seeds["read"][1:]
    return seeds


def net_seeds():
    seeds = {}
    mrg, csum, gcsum, htso4 = 1, 2, 4, 8

    def ctl(features, n_pkts=0, lens=(0, 0, 0), indirect=0):
        return bytes([features, indirect | (n_pkts << 1)]) + struct.pack("<HHH", *lens)

    frame = bytes(12) + bytes(range(256)) * 4  # header + 1024-byte frame at 0xc00
    # tx: header and frame in two descriptors
    im = Image()
    im.put(0xc00, frame)
    im.avail(0x500, [im.chain(0x400, 0, [(0xc00, 12, False), (0xc0c, 1024, False)])])
    seeds["tx"] = ctl(0) + im.trimmed()
    # tx: checksum + TSO4 header
    im = Image()
    im.put(0xc00, struct.pack("<BBHHHHH", 1, 1, 54, 1448, 34, 16, 0) + bytes(range(256)) * 4)
    im.avail(0x500, [im.chain(0x400, 0, [(0xc00, 12, False), (0xc0c, 1024, False)])])
    seeds["tx-tso4"] = ctl(csum | htso4) + im.trimmed()
    # rx: one 1500-byte packet into one buffer
    im = Image()
    im.avail(0x100, [im.chain(0, 0, [(0x800, 1600, True)])])
    seeds["rx-single"] = ctl(0, 1, (12 + 1500, 0, 0)) + im.trimmed()
    # rx mergeable: three 2 KiB buffers (overlapping memory is fine), packets 5000 and 100
    im = Image()
    for k in range(4):
        im.chain(0, k, [(0x800, 2048, True)])
    im.avail(0x100, [0, 1, 2, 3])
    seeds["rx-mrg"] = ctl(mrg | csum | gcsum, 2, (12 + 5000, 112, 0)) + im.trimmed()
    # rx mergeable, runs out mid-packet; oversize packet first
    im = Image()
    im.chain(0, 0, [(0x800, 2048, True)])
    im.avail(0x100, [0])
    seeds["rx-mrg-short"] = ctl(mrg | 0x80, 3, (0xffff, 12 + 5000, 60)) + im.trimmed()
    # tx and rx at once
    im = Image()
    im.put(0xc00, frame)
    im.avail(0x500, [im.chain(0x400, 0, [(0xc00, 12 + 1024, False)])])
    im.avail(0x100, [im.chain(0, 0, [(0x800, 11, True), (0x80b, 3000, True)])])
    seeds["tx-rx"] = ctl(mrg, 1, (12 + 2000, 0, 0)) + im.trimmed()
    return seeds


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "corpus")
    for target, seeds in (("fuzz-blk", blk_seeds()), ("fuzz-net", net_seeds())):
        d = os.path.join(root, target)
        os.makedirs(d, exist_ok=True)
        for name, data in seeds.items():
            with open(os.path.join(d, name), "wb") as f:
                f.write(data)


if __name__ == "__main__":
    main()
