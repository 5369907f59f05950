#!/usr/bin/env python3
"""mkdumps.py -- wrap region images into the dump formats kdt-extract reads.

usage: mkdumps.py OUTDIR REGION...

Each REGION is a fuzz_region input ("R" + a region image, as fuzz_dif
writes them with KF_SAVE).  For each, OUTDIR gets the seeds of the dump
target (fuzz_dump.c): the raw image; an ELF vmcore (ET_CORE, a PT_NOTE, a
noise PT_LOAD at 0 and the region's PT_LOAD at 0x10000); a kdump-compressed
file (crashdump/cd_kdump.c's layout: header block, sub-header block, the
two bitmaps, page descriptors, pages zlib-compressed or raw); and the same
as a makedumpfile flattened stream.  Small on purpose: 4 noise pages, the
region, 1 page after it.
"""
import os
import struct
import sys
import zlib

BS = 4096
RPFN = 16           # region at phys 0x10000


def noise(pfn):
    x = (pfn * 2654435761 + 1) & 0xffffffff
    out = bytearray(BS)
    for i in range(BS):
        x = (x * 1103515245 + 12345) & 0xffffffff
        out[i] = (x >> 16) & 0xff
    return bytes(out)


def elf_core(rg):
    low = b"".join(noise(p) for p in range(4))
    segs = [(0, low), (RPFN * BS, rg)]
    nph = len(segs) + 1
    off = 64 + nph * 56 + 64
    eh = b"\x7fELF" + bytes([2, 1, 1]) + bytes(9)
    eh += struct.pack("<HHIQQQIHHHHHH", 4, 62, 1, 0, 64, 0, 0, 64, 56,
                      nph, 0, 0, 0)
    ph = struct.pack("<IIQQQQQQ", 4, 0, off - 64, 0, 0, 64, 64, 0)
    for pa, data in segs:
        ph += struct.pack("<IIQQQQQQ", 1, 7, off, pa, pa, len(data),
                          len(data), BS)
        off += len(data)
    return eh + ph + bytes(64) + b"".join(d for _, d in segs)


def kdump(rg, compress):
    nreg = (len(rg) + BS - 1) // BS
    rg = rg + bytes(nreg * BS - len(rg)) + b"\x5a" * BS
    maxpfn = RPFN + nreg + 1
    ram = [p for p in range(maxpfn) if p < 4 or p >= RPFN]
    hdr = bytearray(BS)
    hdr[0:8] = b"KDUMP   "
    struct.pack_into("<I", hdr, 8, 6)
    struct.pack_into("<IIII", hdr, 428, BS, 1, 2, maxpfn)
    sub = bytearray(BS)
    struct.pack_into("<Q", sub, 96, maxpfn)
    bm = bytearray(BS)
    for p in ram:
        bm[p // 8] |= 1 << (p % 8)
    descoff = 4 * BS
    data = descoff + (len(ram) * 24 + BS - 1) // BS * BS
    descs, pages = bytearray(), bytearray()
    for p in ram:
        pg = rg[(p - RPFN) * BS:(p - RPFN + 1) * BS] if p >= RPFN \
            else noise(p)
        c = zlib.compress(pg, 6) if compress else pg
        fl = 1 if compress and len(c) < BS else 0
        if not fl:
            c = pg
        descs += struct.pack("<QIIQ", data + len(pages), len(c), fl, 0)
        pages += c
    img = bytes(hdr) + bytes(sub) + bytes(bm) + bytes(bm)
    img += bytes(descs) + bytes(data - descoff - len(descs)) + bytes(pages)
    return img


def flat(img):
    hdr = bytearray(BS)
    hdr[0:12] = b"makedumpfile"
    hdr[23] = 1
    hdr[31] = 1
    out = bytearray(hdr)
    chunk = 3000
    for off in range(0, len(img), chunk):
        part = img[off:off + chunk]
        out += struct.pack(">QQ", off, len(part)) + part
    out += struct.pack(">qQ", -1, 0)
    return bytes(out)


def main():
    outdir = sys.argv[1]
    os.makedirs(outdir, exist_ok=True)
    for path in sys.argv[2:]:
        with open(path, "rb") as f:
            b = f.read()
        if not b.startswith(b"R"):
            continue
        rg = b[1:]
        name = os.path.basename(path)
        k = kdump(rg, True)
        for suffix, data in (("raw", rg), ("elf", elf_core(rg)),
                             ("kdump", k), ("kdump-raw", kdump(rg, False)),
                             ("flat", flat(k))):
            with open(os.path.join(outdir, f"{name}.{suffix}"), "wb") as f:
                f.write(data)


if __name__ == "__main__":
    main()
