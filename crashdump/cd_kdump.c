/*
 * cd_kdump.c -- makedumpfile's kdump-compressed format as a memory
 * source (cd.h), plain or flattened (cd_flat.c supplies the bytes).
 *
 * The file is made of blocks of block_size bytes (the page size):
 *
 *   block 0          disk_dump_header: "KDUMP   ", header_version @8,
 *                    block_size @428, sub_hdr_size @432 (blocks),
 *                    bitmap_blocks @436, max_mapnr (u32) @440
 *   block 1          kdump_sub_header (max_mapnr_64 @96 from version 6)
 *   1+sub_hdr_size   bitmap_blocks blocks: 1st bitmap (pfns that are RAM)
 *                    then 2nd bitmap (pfns dumped), LSB first per byte
 *   1+sub+bitmaps    page_desc { u64 offset; u32 size; u32 flags;
 *                    u64 page_flags } (24 B), one per set bit of the
 *                    2nd bitmap, in pfn order
 *
 * A page_desc's data is "size" bytes at "offset", compressed by flags
 * (1 zlib, 2 lzo, 4 snappy, 0x20 zstd) or raw (0, size == block_size).
 * We never read phys_base from the sub-header (QEMU writes a wrong one,
 * see reference/vm-recipes.md): the region scan works on physical
 * addresses, pfn * block_size.
 *
 * Opening streams the 2nd bitmap in 64 KiB chunks and turns each run of
 * set bits into one cd_range whose cr_off is the index of the run's first
 * page_desc, so a read is: range -> descriptor index -> one pread of the
 * descriptor -> one pread of the data -> decompress into the page buffer
 * (the last page is kept).  A pfn whose bit is clear is not in any range:
 * cd_read_phys() reports it missing and the locator names the hole as
 * excluded from the dump (cs_hole) -- never zeros.  Validation (loud once
 * the magic matched): block size a power of two in [4 KiB, 64 KiB], the
 * bitmaps and the descriptor array inside the file, and per page the data
 * inside the file, size <= block_size, a known compression, and exactly
 * block_size bytes after decompression.  Called by cd_open().
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <lzo/lzo1x.h>
#include <snappy-c.h>
#include <zlib.h>
#include <zstd.h>

#include "crashdump/cd.h"

#define CD_KD_ZLIB	0x1
#define CD_KD_LZO	0x2
#define CD_KD_SNAPPY	0x4
#define CD_KD_ZSTD	0x20
#define CD_KD_DESC	24
#define CD_KD_BMCHUNK	(64U * 1024)
#define CD_KD_BSMIN	4096U
#define CD_KD_BSMAX	65536U

/* The open dump. */
struct cd_kd {
	struct cd_file	kd_f;
	uint32_t	kd_bsize;	/* block (= page) size */
	uint64_t	kd_maxpfn;	/* max_mapnr */
	uint64_t	kd_bm2;		/* logical offset of the 2nd bitmap */
	uint64_t	kd_desc;	/* logical offset of page_desc[0] */
	uint64_t	kd_ndesc;	/* set bits in the 2nd bitmap */
	uint64_t	kd_cpfn;	/* pfn in kd_page, or CD_NOADDR */
	uint8_t		*kd_page;	/* one decompressed page */
	uint8_t		*kd_cbuf;	/* its compressed data */
};

/* One page descriptor as read from the file. */
struct cd_kd_desc {
	uint64_t	pd_off;
	uint32_t	pd_size;
	uint32_t	pd_flags;
};

static const char *
cd_kd_alg(uint32_t flags)
{
	switch (flags) {
	case CD_KD_ZLIB: return "zlib";
	case CD_KD_LZO: return "lzo";
	case CD_KD_SNAPPY: return "snappy";
	case CD_KD_ZSTD: return "zstd";
	default: return "raw";
	}
}

/* Decompress pd's data in kd_cbuf into kd_page; bytes out or -1. */
static int64_t
cd_kd_inflate(struct cd_kd *kd, const struct cd_kd_desc *pd)
{
	uLongf zl = kd->kd_bsize;
	lzo_uint ll = kd->kd_bsize;
	size_t sl = kd->kd_bsize;
	size_t zs;

	switch (pd->pd_flags) {
	case CD_KD_ZLIB:
		return uncompress(kd->kd_page, &zl, kd->kd_cbuf,
		    pd->pd_size) == Z_OK ? (int64_t)zl : -1;
	case CD_KD_LZO:
		return lzo1x_decompress_safe(kd->kd_cbuf, pd->pd_size,
		    kd->kd_page, &ll, NULL) == LZO_E_OK ? (int64_t)ll : -1;
	case CD_KD_SNAPPY:
		return snappy_uncompress((const char *)kd->kd_cbuf,
		    pd->pd_size, (char *)kd->kd_page, &sl) == SNAPPY_OK ?
		    (int64_t)sl : -1;
	case CD_KD_ZSTD:
		zs = ZSTD_decompress(kd->kd_page, kd->kd_bsize, kd->kd_cbuf,
		    pd->pd_size);
		return ZSTD_isError(zs) ? -1 : (int64_t)zs;
	default:
		memcpy(kd->kd_page, kd->kd_cbuf, pd->pd_size);
		return pd->pd_size;
	}
}

/* Read and check descriptor idx (for pfn); 0 or -EIO after saying why. */
static int
cd_kd_desc(struct cd_kd *kd, uint64_t idx, uint64_t pfn,
    struct cd_kd_desc *pd)
{
	const struct cd_file *f = &kd->kd_f;
	uint64_t at = kd->kd_desc + idx * CD_KD_DESC, pa = pfn * kd->kd_bsize;
	uint8_t b[16];

	if (cd_file_read(f, at, b, sizeof (b)) != 0) {
		fprintf(f->cf_err, "%s: %s: page at phys 0x%llx: cannot read page_desc %llu at offset 0x%llx of %llu bytes\n",
		    f->cf_prog, f->cf_name, (unsigned long long)pa,
		    (unsigned long long)idx, (unsigned long long)at,
		    (unsigned long long)f->cf_size);
		return -EIO;
	}
	memcpy(&pd->pd_off, b, 8);
	memcpy(&pd->pd_size, b + 8, 4);
	memcpy(&pd->pd_flags, b + 12, 4);
	if (pd->pd_size == 0 || pd->pd_size > kd->kd_bsize ||
	    (pd->pd_flags == 0 && pd->pd_size != kd->kd_bsize)) {
		fprintf(f->cf_err, "%s: %s: page at phys 0x%llx: page_desc %llu at offset 0x%llx has data size %u; the limit is 1..%u (exactly %u for a raw page)\n",
		    f->cf_prog, f->cf_name, (unsigned long long)pa,
		    (unsigned long long)idx, (unsigned long long)at,
		    pd->pd_size, kd->kd_bsize, kd->kd_bsize);
		return -EIO;
	}
	if (pd->pd_flags != 0 && pd->pd_flags != CD_KD_ZLIB &&
	    pd->pd_flags != CD_KD_LZO && pd->pd_flags != CD_KD_SNAPPY &&
	    pd->pd_flags != CD_KD_ZSTD) {
		fprintf(f->cf_err, "%s: %s: page at phys 0x%llx: page_desc %llu at offset 0x%llx has compression flags 0x%x; supported: 0 (raw), 0x1 (zlib), 0x2 (lzo), 0x4 (snappy), 0x20 (zstd)\n",
		    f->cf_prog, f->cf_name, (unsigned long long)pa,
		    (unsigned long long)idx, (unsigned long long)at,
		    pd->pd_flags);
		return -EIO;
	}
	return 0;
}

/* Make kd_page hold pfn, whose descriptor is number idx. */
static int
cd_kd_page(struct cd_kd *kd, uint64_t idx, uint64_t pfn)
{
	const struct cd_file *f = &kd->kd_f;
	struct cd_kd_desc pd;
	int64_t got;

	if (kd->kd_cpfn == pfn)
		return 0;
	kd->kd_cpfn = CD_NOADDR;
	if (cd_kd_desc(kd, idx, pfn, &pd) != 0)
		return -EIO;
	if (cd_file_read(f, pd.pd_off, kd->kd_cbuf, pd.pd_size) != 0) {
		fprintf(f->cf_err, "%s: %s: page at phys 0x%llx: %s data of %u bytes at offset 0x%llx is past the end of the dump (%llu bytes)\n",
		    f->cf_prog, f->cf_name,
		    (unsigned long long)(pfn * kd->kd_bsize),
		    cd_kd_alg(pd.pd_flags), pd.pd_size,
		    (unsigned long long)pd.pd_off,
		    (unsigned long long)f->cf_size);
		return -EIO;
	}
	got = cd_kd_inflate(kd, &pd);
	if (got != (int64_t)kd->kd_bsize) {
		fprintf(f->cf_err, "%s: %s: page at phys 0x%llx: %s data of %u bytes at offset 0x%llx %s %lld bytes, the page size is %u\n",
		    f->cf_prog, f->cf_name,
		    (unsigned long long)(pfn * kd->kd_bsize),
		    cd_kd_alg(pd.pd_flags), pd.pd_size,
		    (unsigned long long)pd.pd_off,
		    got < 0 ? "does not decompress into" : "decompresses to",
		    (long long)(got < 0 ? kd->kd_bsize : got), kd->kd_bsize);
		return -EIO;
	}
	kd->kd_cpfn = pfn;
	return 0;
}

static int
cd_kd_read(struct cd_src *s, const struct cd_range *r, uint64_t roff,
    void *buf, uint64_t n)
{
	struct cd_kd *kd = s->cs_priv;
	uint64_t bs = kd->kd_bsize, pa = r->cr_pa + roff, pfn, po, k;

	while (n > 0) {
		pfn = pa / bs;
		po = pa % bs;
		if (cd_kd_page(kd, r->cr_off + (pfn - r->cr_pa / bs), pfn))
			return -EIO;
		k = bs - po < n ? bs - po : n;
		memcpy(buf, kd->kd_page + po, k);
		buf = (uint8_t *)buf + k;
		pa += k;
		n -= k;
	}
	return 0;
}

static void
cd_kd_close(struct cd_src *s)
{
	struct cd_kd *kd = s->cs_priv;

	if (kd == NULL)
		return;
	free(kd->kd_f.cf_recs);
	free(kd->kd_page);
	free(kd->kd_cbuf);
	free(kd);
	s->cs_priv = NULL;
}

static const struct cd_ops cd_kd_ops = { cd_kd_read, cd_kd_close };

static uint32_t
cd_le32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

/* Check the block geometry against the file; 0 or 1 after saying why. */
static int
cd_kd_geometry(struct cd_kd *kd, uint32_t sub, uint32_t bmb)
{
	const struct cd_file *f = &kd->kd_f;
	uint64_t bs = kd->kd_bsize, bmend = (1ULL + sub + bmb) * bs;

	if (kd->kd_maxpfn > (1ULL << 52) / bs) {
		fprintf(f->cf_err, "%s: %s: kdump header: max_mapnr %llu pfns of %u bytes is beyond 2^52 bytes of physical memory\n",
		    f->cf_prog, f->cf_name, (unsigned long long)kd->kd_maxpfn,
		    kd->kd_bsize);
		return 1;
	}
	if (bmb == 0 || bmb % 2 != 0 ||
	    (uint64_t)bmb / 2 * bs * 8 < kd->kd_maxpfn) {
		fprintf(f->cf_err, "%s: %s: kdump header: bitmap_blocks %u (at offset 436) is not an even count of blocks covering max_mapnr %llu pfns\n",
		    f->cf_prog, f->cf_name, bmb,
		    (unsigned long long)kd->kd_maxpfn);
		return 1;
	}
	if (bmend > f->cf_size) {
		fprintf(f->cf_err, "%s: %s: kdump bitmaps at offset 0x%llx-0x%llx (%u blocks of %u bytes) run past the end of the dump (%llu bytes)\n",
		    f->cf_prog, f->cf_name,
		    (unsigned long long)((1ULL + sub) * bs),
		    (unsigned long long)bmend, bmb, kd->kd_bsize,
		    (unsigned long long)f->cf_size);
		return 1;
	}
	kd->kd_bm2 = (1ULL + sub + bmb / 2) * bs;
	kd->kd_desc = bmend;
	return 0;
}

/* Read disk_dump_header and kdump_sub_header; 0 or 1 after saying why. */
static int
cd_kd_header(struct cd_kd *kd)
{
	const struct cd_file *f = &kd->kd_f;
	uint8_t h[448], sh[104];
	uint32_t ver, sub;

	if (cd_file_read(f, 0, h, sizeof (h)) != 0) {
		fprintf(f->cf_err, "%s: %s: truncated kdump header: the dump is %llu bytes, the disk_dump_header needs %zu\n",
		    f->cf_prog, f->cf_name, (unsigned long long)f->cf_size,
		    sizeof (h));
		return 1;
	}
	if (memcmp(h, "KDUMP   ", 8) != 0) {
		fprintf(f->cf_err, "%s: %s: the flattened stream holds neither a kdump-compressed dump nor an ELF vmcore (logical offset 0 is not \"KDUMP   \" or \"\\177ELF\")\n",
		    f->cf_prog, f->cf_name);
		return 1;
	}
	ver = cd_le32(h + 8);
	kd->kd_bsize = cd_le32(h + 428);
	sub = cd_le32(h + 432);
	kd->kd_maxpfn = cd_le32(h + 440);
	if (kd->kd_bsize < CD_KD_BSMIN || kd->kd_bsize > CD_KD_BSMAX ||
	    (kd->kd_bsize & (kd->kd_bsize - 1)) != 0) {
		fprintf(f->cf_err, "%s: %s: kdump header: block_size %u (at offset 428) is not a power of two in [%u, %u]\n",
		    f->cf_prog, f->cf_name, kd->kd_bsize, CD_KD_BSMIN,
		    CD_KD_BSMAX);
		return 1;
	}
	if (sub == 0 || sub > 1024) {
		fprintf(f->cf_err, "%s: %s: kdump header: sub_hdr_size %u (at offset 432) is outside [1, 1024] blocks\n",
		    f->cf_prog, f->cf_name, sub);
		return 1;
	}
	if (ver >= 6 && cd_file_read(f, kd->kd_bsize, sh, sizeof (sh)) == 0 &&
	    cd_le32(sh + 96) | cd_le32(sh + 100))
		memcpy(&kd->kd_maxpfn, sh + 96, 8);
	return cd_kd_geometry(kd, sub, cd_le32(h + 436));
}

/* Turn set-bit runs of one bitmap chunk into ranges. */
static int
cd_kd_runs(struct cd_src *s, struct cd_kd *kd, const uint8_t *b,
    uint64_t pfn0, uint64_t nbits, uint64_t *run)
{
	uint64_t i, pfn, bs = kd->kd_bsize;

	for (i = 0; i < nbits; i++) {
		pfn = pfn0 + i;
		if (b[i / 8] & (1U << (i % 8))) {
			if (*run == CD_NOADDR)
				*run = pfn;
			continue;
		}
		if (*run != CD_NOADDR && cd_src_add(s, *run * bs,
		    (pfn - *run) * bs, kd->kd_ndesc) != 0)
			return -ENOMEM;
		if (*run != CD_NOADDR)
			kd->kd_ndesc += pfn - *run;
		*run = CD_NOADDR;
	}
	return 0;
}

/* Stream the 2nd bitmap into ranges; 0 or 1 after saying why. */
static int
cd_kd_bitmap(struct cd_src *s, struct cd_kd *kd)
{
	const struct cd_file *f = &kd->kd_f;
	uint64_t pfn = 0, run = CD_NOADDR, nbits, end;
	uint8_t *b = malloc(CD_KD_BMCHUNK);
	int rv = 0;

	while (b != NULL && rv == 0 && pfn < kd->kd_maxpfn) {
		nbits = kd->kd_maxpfn - pfn < CD_KD_BMCHUNK * 8ULL ?
		    kd->kd_maxpfn - pfn : CD_KD_BMCHUNK * 8ULL;
		if (cd_file_read(f, kd->kd_bm2 + pfn / 8, b,
		    (nbits + 7) / 8) != 0)
			rv = -EIO;
		else
			rv = cd_kd_runs(s, kd, b, pfn, nbits, &run);
		pfn += nbits;
	}
	if (b == NULL)
		rv = -ENOMEM;
	free(b);
	if (rv == 0 && run != CD_NOADDR) {
		rv = cd_src_add(s, run * kd->kd_bsize,
		    (kd->kd_maxpfn - run) * kd->kd_bsize, kd->kd_ndesc);
		kd->kd_ndesc += kd->kd_maxpfn - run;
	}
	if (rv == -ENOMEM) {
		fprintf(f->cf_err, "%s: %s: no memory for the range list (%u runs of dumped pages so far)\n",
		    f->cf_prog, f->cf_name, s->cs_nranges);
		return 1;
	}
	if (rv != 0) {
		fprintf(f->cf_err, "%s: %s: cannot read the 2nd bitmap at offset 0x%llx (pfn %llu of %llu)\n",
		    f->cf_prog, f->cf_name, (unsigned long long)kd->kd_bm2,
		    (unsigned long long)pfn, (unsigned long long)kd->kd_maxpfn);
		return 1;
	}
	end = kd->kd_desc + kd->kd_ndesc * CD_KD_DESC;
	if (end > f->cf_size) {
		fprintf(f->cf_err, "%s: %s: the page_desc array at offset 0x%llx (%llu descriptors of %u bytes, one per dumped page) runs past the end of the dump (%llu bytes)\n",
		    f->cf_prog, f->cf_name, (unsigned long long)kd->kd_desc,
		    (unsigned long long)kd->kd_ndesc, CD_KD_DESC,
		    (unsigned long long)f->cf_size);
		return 1;
	}
	return 0;
}

/* Open the bytes: plain size, or the flattened index. */
static int
cd_kd_file(struct cd_kd *kd, int fd, const char *path, const char *prog,
    int flat, FILE *err)
{
	off_t end;

	kd->kd_f.cf_fd = fd;
	kd->kd_f.cf_name = path;
	kd->kd_f.cf_prog = prog;
	kd->kd_f.cf_err = err;
	if (flat)
		return cd_flat_index(&kd->kd_f);
	end = lseek(fd, 0, SEEK_END);
	if (end < 0) {
		fprintf(err, "%s: %s: cannot find the file size: %s\n", prog,
		    path, strerror(errno));
		return 1;
	}
	kd->kd_f.cf_size = (uint64_t)end;
	return 0;
}

int
cd_kdump_open(int fd, const char *path, const char *prog, int flat,
    struct cd_src **out, FILE *err)
{
	struct cd_kd *kd = calloc(1, sizeof (*kd));
	struct cd_file f;
	uint8_t magic[4];
	struct cd_src *s = cd_src_new(path, flat ?
	    "kdump-compressed (flattened)" : "kdump-compressed", &cd_kd_ops,
	    fd);

	if (kd == NULL || s == NULL) {
		fprintf(err, "%s: %s: out of memory\n", prog, path);
		free(kd);
		free(s);
		close(fd);
		return 1;
	}
	s->cs_priv = kd;
	s->cs_hole = "excluded from the dump: clear in its 2nd bitmap";
	kd->kd_cpfn = CD_NOADDR;
	if (cd_kd_file(kd, fd, path, prog, flat, err) != 0)
		goto fail;
	if (flat && cd_file_read(&kd->kd_f, 0, magic, sizeof (magic)) == 0 &&
	    memcmp(magic, "\177ELF", 4) == 0) {
		/* makedumpfile -F -E: the stream holds an ELF vmcore */
		f = kd->kd_f;
		kd->kd_f.cf_recs = NULL;
		s->cs_fd = -1;
		cd_close(s);
		return cd_elf_open_flat(&f, out);
	}
	if (cd_kd_header(kd) != 0 || cd_kd_bitmap(s, kd) != 0)
		goto fail;
	kd->kd_page = malloc(kd->kd_bsize);
	kd->kd_cbuf = malloc(kd->kd_bsize);
	if (kd->kd_page == NULL || kd->kd_cbuf == NULL ||
	    lzo_init() != LZO_E_OK) {
		fprintf(err, "%s: %s: cannot set up page buffers\n", prog,
		    path);
		goto fail;
	}
	*out = s;
	return 0;
fail:
	cd_close(s);
	return 1;
}
