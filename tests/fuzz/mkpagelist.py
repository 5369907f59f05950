#!/usr/bin/env python3
"""mkpagelist.py -- seeds for the page list reader (common/rgn.h, "Page list").

usage: mkpagelist.py REGIONDIR DUMPDIR REGION...

Each REGION is a fuzz_region input ("R" + a contiguous region image, as
fuzz_dif writes them with KF_SAVE).  Each is turned into what kdt.ko
leaves in memory for a live session: the pages scattered over a 64 KiB
physical memory of noise (some consecutive, most not), a one-page table
of their frame numbers and the descriptor in page 0 (rh_pl_off, rh_phys,
both CRCs fixed), laid out exactly as rgn_pagelist_init() writes it.

REGIONDIR gets fuzz_region inputs ("P" + u32 header address + memory):
the valid layout and the broken ones the reader must refuse -- an entry
outside the memory, a page listed twice, a stale table CRC, entry 0 not
the header page, a descriptor of a newer version.  DUMPDIR gets the valid
layout as an ELF vmcore for fuzz_dump (the scan finds page 0, follows
the list).
"""
import os
import struct
import sys
import zlib

BS = 4096
NPFN = 16           # 64 KiB of "physical memory": regions of <= 12 pages
TBLPFN = 15
PL_MAGIC = 0x6c70646b
HDR_CRC = 188       # rh_crc
HDR_PHYS = 24
HDR_PLOFF = 184


def noise(n, seed):
    x = seed
    out = bytearray(n)
    for i in range(n):
        x = (x * 1103515245 + 12345) & 0xffffffff
        out[i] = (x >> 16) & 0xff
    return out


def layout(img, variant):
    """Scatter img; return (header address, memory)."""
    npages = len(img) // BS
    hdrsize = struct.unpack_from("<I", img, 8)[0]
    off = (hdrsize + 63) & ~63
    pfns = [2 + ((i * 5) % 12) for i in range(npages)]
    if npages > 2 and pfns[1] + 1 not in pfns:
        pfns[2] = pfns[1] + 1           # a run read in one request
    img = bytearray(img)
    struct.pack_into("<Q", img, HDR_PHYS, pfns[0] * BS)
    struct.pack_into("<I", img, HDR_PLOFF, off)
    struct.pack_into("<I", img, HDR_CRC, 0)
    struct.pack_into("<I", img, HDR_CRC, zlib.crc32(bytes(img[:hdrsize])))
    ent = list(pfns)
    if variant == "outside":
        ent[npages - 1] = NPFN + 3
    elif variant == "loop":
        ent[npages - 1] = ent[1]
    elif variant == "first":
        ent[0] = ent[0] + 1
    tbl = struct.pack("<%dQ" % len(ent), *ent)
    tblcrc = zlib.crc32(tbl)
    if variant == "stale":
        tblcrc ^= 1
    desc = struct.pack("<IHHQQII24sII", PL_MAGIC,
                       2 if variant == "version" else 1, 64, npages, 0, 1,
                       tblcrc, bytes(24), 0, 0)
    desc += struct.pack("<Q", TBLPFN)
    crc = zlib.crc32(desc)
    desc = desc[:60] + struct.pack("<I", crc) + desc[64:]
    img[off:off + len(desc)] = desc
    mem = noise(NPFN * BS, 4242)
    for i, p in enumerate(pfns):
        mem[p * BS:(p + 1) * BS] = img[i * BS:(i + 1) * BS]
    mem[TBLPFN * BS:TBLPFN * BS + len(tbl)] = tbl
    mem[TBLPFN * BS + len(tbl):(TBLPFN + 1) * BS] = bytes(BS - len(tbl))
    return pfns[0] * BS, bytes(mem)


def elf_core(mem):
    nph = 2
    off = 64 + nph * 56 + 64
    eh = b"\x7fELF" + bytes([2, 1, 1]) + bytes(9)
    eh += struct.pack("<HHIQQQIHHHHHH", 4, 62, 1, 0, 64, 0, 0, 64, 56,
                      nph, 0, 0, 0)
    ph = struct.pack("<IIQQQQQQ", 4, 0, off - 64, 0, 0, 64, 64, 0)
    ph += struct.pack("<IIQQQQQQ", 1, 7, off, 0, 0, len(mem), len(mem), BS)
    return eh + ph + bytes(64) + mem


def main():
    rdir, ddir = sys.argv[1], sys.argv[2]
    for path in sys.argv[3:]:
        data = open(path, "rb").read()
        if data[:1] != b"R" or (len(data) - 1) % BS or \
                (len(data) - 1) // BS > 12:
            continue
        img = data[1:]
        name = os.path.basename(path)
        for v in ("ok", "outside", "loop", "stale", "first", "version"):
            pa, mem = layout(img, v)
            with open(os.path.join(rdir, "pl-%s-%s" % (v, name)), "wb") as f:
                f.write(b"P" + struct.pack("<I", pa) + mem)
            if v == "ok":
                with open(os.path.join(ddir, "pl-elf-" + name), "wb") as f:
                    f.write(elf_core(mem))


if __name__ == "__main__":
    main()
