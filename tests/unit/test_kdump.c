/*
 * test_kdump.c -- unit tests of kdt-extract on makedumpfile's
 * kdump-compressed format (crashdump/cd_kdump.c, cd_flat.c), on raw
 * region images (cd_raw.c) and of --merge (consumer/kc_print.c).
 *
 * Each test builds its dump at run time (no binary fixtures) around a
 * real region written by common/rgn_write.c (kt_region.h) at phys
 * 0x100000: pfns 0..63 are noise RAM, 64..255 are not RAM, 256..271 are
 * the region and 272..287 more RAM.  t_build() lays out the file as
 * makedumpfile does -- header block, sub-header block, the two bitmaps,
 * the page_desc array, page data compressed with zlib, lzo, snappy or
 * zstd (or raw when a page does not compress) -- and can exclude a page,
 * store a page whose data decompresses short or is garbage, and write
 * the whole thing as a flattened stream (out of order, with an overlap
 * that a later record overrides).  Corrupt inputs must give a clear
 * message and exit 1, never a crash (the build runs under ASan/UBSan).
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <lzo/lzo1x.h>
#include <snappy-c.h>
#include <zlib.h>
#include <zstd.h>

#include "kt_check.h"
#include "kt_region.h"
#include "crashdump/cd.h"

#define T_BS		4096U
#define T_NLOW		64
#define T_RPFN		256
#define T_RPHYS		((uint64_t)T_RPFN * T_BS)
#define T_NREG		(KT_RSIZE / T_BS)
#define T_MAXPFN	(T_RPFN + T_NREG + 16)
#define T_DESC_OFF	(4 * T_BS)	/* blocks: hdr, sub, bm1, bm2 */
#define T_MIXED		0xffu		/* cycle through every algorithm */
#define T_CHUNK		3000		/* flattened record size */

/* How to build one dump. */
struct t_kd {
	uint32_t	tk_alg;		/* page compression, or T_MIXED */
	uint64_t	tk_excl;	/* a pfn left out of the 2nd bitmap */
	uint64_t	tk_short;	/* a pfn whose data is half a page */
	uint64_t	tk_bad;		/* a pfn whose data is garbage */
					/* (pfn 0 = none: never a target) */
	int		tk_flat;
};

static char t_path[64];
static uint8_t t_out[8192], t_err[8192];

static int
t_ram(uint64_t pfn)
{
	return pfn < T_NLOW || (pfn >= T_RPFN && pfn < T_MAXPFN);
}

/* The content of RAM page pfn. */
static void
t_page(const uint8_t *rg, uint64_t pfn, uint8_t *pg)
{
	uint32_t i, x = (uint32_t)pfn * 2654435761u + 1;

	if (pfn >= T_RPFN && pfn < T_RPFN + T_NREG) {
		memcpy(pg, rg + (pfn - T_RPFN) * T_BS, T_BS);
		return;
	}
	for (i = 0; i < T_BS; i++) {
		x = x * 1103515245 + 12345;
		pg[i] = pfn < T_NLOW ? (uint8_t)(x >> 16) : 0x5a;
	}
}

/* Compress n bytes with alg into dst (room 2 * T_BS); size or 0. */
static size_t
t_compress(uint32_t alg, const uint8_t *src, size_t n, uint8_t *dst)
{
	static uint8_t wrk[LZO1X_1_MEM_COMPRESS];
	uLongf zl = 2 * T_BS;
	lzo_uint ll = 2 * T_BS;
	size_t sl = 2 * T_BS;

	switch (alg) {
	case 1:
		ck_assert_int_eq(compress2(dst, &zl, src, n, 6), Z_OK);
		return zl;
	case 2:
		ck_assert_int_eq(lzo_init(), LZO_E_OK);
		ck_assert_int_eq(lzo1x_1_compress(src, n, dst, &ll, wrk),
		    LZO_E_OK);
		return ll;
	case 4:
		ck_assert_int_eq(snappy_compress((const char *)src, n,
		    (char *)dst, &sl), SNAPPY_OK);
		return sl;
	case 0x20:
		sl = ZSTD_compress(dst, 2 * T_BS, src, n, 3);
		ck_assert(!ZSTD_isError(sl));
		return sl;
	default:
		return 0;
	}
}

/* Append one page's descriptor and data to the file image. */
static void
t_put_page(const struct t_kd *tk, uint8_t *f, uint64_t *dpos,
    uint64_t *data, uint64_t pfn, const uint8_t *pg, uint32_t alg)
{
	uint8_t c[2 * T_BS];
	uint32_t sz, fl = alg;
	int isshort = pfn != 0 && pfn == tk->tk_short;

	sz = (uint32_t)t_compress(alg, pg, isshort ? T_BS / 2 : T_BS, c);
	if (pfn != 0 && pfn == tk->tk_bad) {
		memset(c, 0xa5, 64);
		sz = 64;
		fl = 1;
	} else if (sz == 0 || (sz >= T_BS && !isshort)) {
		memcpy(c, pg, T_BS);
		sz = T_BS;
		fl = 0;
	}
	memcpy(f + *dpos, data, 8);
	memcpy(f + *dpos + 8, &sz, 4);
	memcpy(f + *dpos + 12, &fl, 4);
	memset(f + *dpos + 16, 0, 8);
	*dpos += 24;
	memcpy(f + *data, c, sz);
	*data += sz;
}

/* The kdump-compressed file image of region rg; *len gets its size. */
static uint8_t *
t_image(const struct t_kd *tk, const uint8_t *rg, uint64_t *len)
{
	static const uint32_t algs[5] = { 1, 2, 4, 0x20, 0 };
	uint64_t pfn, n = 0, dpos = T_DESC_OFF, data;
	uint8_t *f = calloc(1, T_DESC_OFF + 2 * T_BS + T_MAXPFN * 2 * T_BS);
	uint8_t pg[T_BS];
	uint32_t v;

	memcpy(f, "KDUMP   ", 8);
	v = 6, memcpy(f + 8, &v, 4);
	v = T_BS, memcpy(f + 428, &v, 4);
	v = 1, memcpy(f + 432, &v, 4);
	v = 2, memcpy(f + 436, &v, 4);
	v = T_MAXPFN, memcpy(f + 440, &v, 4);
	pfn = T_MAXPFN, memcpy(f + T_BS + 96, &pfn, 8);
	for (pfn = 0; pfn < T_MAXPFN; pfn++) {
		if (!t_ram(pfn))
			continue;
		f[2 * T_BS + pfn / 8] |= 1 << (pfn % 8);
		if (pfn == 0 || pfn != tk->tk_excl) {
			f[3 * T_BS + pfn / 8] |= 1 << (pfn % 8);
			n++;
		}
	}
	data = T_DESC_OFF + (n * 24 + T_BS - 1) / T_BS * T_BS;
	for (pfn = 0; pfn < T_MAXPFN; pfn++) {
		if (!t_ram(pfn) || (pfn != 0 && pfn == tk->tk_excl))
			continue;
		t_page(rg, pfn, pg);
		t_put_page(tk, f, &dpos, &data, pfn, pg, tk->tk_alg ==
		    T_MIXED ? algs[pfn % 5] : tk->tk_alg);
	}
	*len = data;
	return f;
}

static void
t_be64(FILE *fp, uint64_t v)
{
	int i;

	for (i = 7; i >= 0; i--)
		fputc((int)(v >> (8 * i)) & 0xff, fp);
}

/* Write img as a flattened stream: garbage at 0 first, chunk 0 last. */
static void
t_write_flat(FILE *fp, const uint8_t *img, uint64_t len)
{
	uint8_t hdr[4096] = "makedumpfile", junk[T_CHUNK];
	uint64_t off;

	hdr[23] = 1;
	hdr[31] = 1;
	fwrite(hdr, 1, sizeof (hdr), fp);
	memset(junk, 0xee, sizeof (junk));
	t_be64(fp, 0);
	t_be64(fp, T_CHUNK);
	fwrite(junk, 1, T_CHUNK, fp);
	for (off = T_CHUNK; off < len; off += T_CHUNK) {
		t_be64(fp, off);
		t_be64(fp, len - off < T_CHUNK ? len - off : T_CHUNK);
		fwrite(img + off, 1, len - off < T_CHUNK ? len - off :
		    T_CHUNK, fp);
	}
	t_be64(fp, 0);
	t_be64(fp, T_CHUNK);
	fwrite(img, 1, T_CHUNK, fp);
	t_be64(fp, (uint64_t)-1);
	t_be64(fp, 0);
}

/* Write bytes to a fresh temporary file; its path. */
static const char *
t_file(const void *b, uint64_t len, int flat)
{
	FILE *fp;
	int fd;

	snprintf(t_path, sizeof (t_path), "/tmp/kdt-test-kdump-XXXXXX");
	fd = mkstemp(t_path);
	ck_assert_int_ge(fd, 0);
	fp = fdopen(fd, "w");
	if (flat)
		t_write_flat(fp, b, len);
	else
		fwrite(b, 1, len, fp);
	fclose(fp);
	return t_path;
}

/* A region with one record (cpu 1, value 42) dumped as tk says. */
static const char *
t_dump(const struct t_kd *tk, uint64_t *len)
{
	uint8_t *rg = kt_region_new(T_RPHYS), *img;
	uint64_t n;
	const char *p;

	kt_region_rec(rg, 1, 1, 42);
	img = t_image(tk, rg, &n);
	p = t_file(img, n, tk->tk_flat);
	if (len != NULL)
		*len = n;
	free(img);
	free(rg);
	return p;
}

/* Run kdt-extract with up to 3 arguments into t_out and t_err. */
static int
t_run(const char *a1, const char *a2, const char *a3)
{
	char *argv[5] = { "kdt-extract", (char *)a1, (char *)a2, (char *)a3,
	    NULL };
	int argc = 1, rv;
	FILE *fo, *fe;

	memset(t_out, 0, sizeof (t_out));
	memset(t_err, 0, sizeof (t_err));
	fo = fmemopen(t_out, sizeof (t_out) - 1, "w");
	fe = fmemopen(t_err, sizeof (t_err) - 1, "w");
	while (argc < 4 && argv[argc] != NULL)
		argc++;
	rv = cd_extract_main(argc, argv, fo, fe);
	fclose(fo);
	fclose(fe);
	return rv;
}

#define T_OUT \
	"CPU     ID                    FUNCTION:NAME\n" \
	"  1      1                           :BEGIN                42\n" \
	"\n"

/* Extract path; expect status rv and a message containing "msg". */
static void
t_expect_fail(const char *path, const char *msg)
{
	ck_assert_int_eq(t_run(path, NULL, NULL), 1);
	if (strstr((char *)t_err, msg) == NULL)
		ck_abort_msg("expected \"%s\" in \"%s\"", msg, t_err);
	ck_assert_str_eq((char *)t_out, "");
}

/*
 * Extract path: a region read in part (rgn.h, struct rgn_gap), status 3,
 * stdout "out", a message containing "msg".
 */
static void
t_expect_partial(const char *path, const char *out, const char *msg)
{
	ck_assert_int_eq(t_run(path, NULL, NULL), 3);
	if (strstr((char *)t_err, msg) == NULL)
		ck_abort_msg("expected \"%s\" in \"%s\"", msg, t_err);
	ck_assert_str_eq((char *)t_out, out);
}

/* Overwrite n bytes at off of the file at path. */
static void
t_patch(const char *path, uint64_t off, const void *b, size_t n)
{
	FILE *fp = fopen(path, "r+");

	ck_assert_ptr_nonnull(fp);
	ck_assert_int_eq(fseek(fp, (long)off, SEEK_SET), 0);
	ck_assert_uint_eq(fwrite(b, 1, n, fp), n);
	fclose(fp);
}

START_TEST(test_kdump_every_compression)
{
	static const uint32_t algs[6] = { 1, 2, 4, 0x20, 0, T_MIXED };
	struct t_kd tk;
	const char *p;
	int i;

	for (i = 0; i < 6; i++) {
		memset(&tk, 0, sizeof (tk));
		tk.tk_alg = algs[i];
		p = t_dump(&tk, NULL);
		ck_assert_int_eq(t_run(p, NULL, NULL), 0);
		ck_assert_str_eq((char *)t_out, T_OUT);
		ck_assert_str_eq((char *)t_err, "");
		ck_assert_int_eq(t_run(p, "--phys", "0x100000"), 0);
		ck_assert_str_eq((char *)t_out, T_OUT);
		unlink(p);
	}
}
END_TEST

START_TEST(test_kdump_flattened)
{
	struct t_kd tk = { T_MIXED, 0, 0, 0, 1 };
	const char *p = t_dump(&tk, NULL);

	ck_assert_int_eq(t_run(p, NULL, NULL), 0);
	ck_assert_str_eq((char *)t_out, T_OUT);
	ck_assert_str_eq((char *)t_err, "");
	unlink(p);
	tk.tk_alg = 1;
	p = t_dump(&tk, NULL);
	ck_assert_int_eq(t_run("-q", p, NULL), 0);
	ck_assert_str_eq((char *)t_out, "42\n");
	unlink(p);
}
END_TEST

START_TEST(test_kdump_excluded_page)
{
	struct t_kd tk = { T_MIXED, T_RPFN + 3, 0, 0, 0 };
	const char *p = t_dump(&tk, NULL);

	/* a page of CPU 0's buffer: left out, CPU 1's record printed */
	t_expect_partial(p, T_OUT, "region at phys 0x100000: CPU 0's buffer: bytes 0x3000-0x4000 not in the dump (excluded from the dump: clear in its 2nd bitmap); its records are left out\n");
	unlink(p);
	tk.tk_flat = 1;
	p = t_dump(&tk, NULL);
	t_expect_partial(p, T_OUT, "CPU 0's buffer: bytes 0x3000-0x4000 not in the dump (excluded");
	unlink(p);
	/* a page of the metadata: nothing can be decoded */
	tk.tk_flat = 0;
	tk.tk_excl = T_RPFN + 1;
	p = t_dump(&tk, NULL);
	t_expect_fail(p, "region at phys 0x100000-0x110000 is not entirely in the dump: phys 0x101000-0x102000 is missing (excluded from the dump: clear in its 2nd bitmap)");
	unlink(p);
}
END_TEST

START_TEST(test_kdump_bad_pages)
{
	struct t_kd tk = { 0x20, 0, 0, T_RPFN + 2, 0 };
	const char *p = t_dump(&tk, NULL);

	/* CPU 0's first page: left out, CPU 1's record printed */
	t_expect_partial(p, T_OUT, "page at phys 0x102000: zlib data of 64 bytes at offset 0x");
	ck_assert_ptr_nonnull(strstr((char *)t_err, "does not decompress into 4096 bytes, the page size is 4096"));
	ck_assert_ptr_nonnull(strstr((char *)t_err, "CPU 0's buffer: bytes 0x2000-0x3000 not in the dump (unreadable: "));
	unlink(p);
	/* a damaged page before the region does not hide it */
	tk.tk_bad = 5;
	p = t_dump(&tk, NULL);
	ck_assert_int_eq(t_run(p, NULL, NULL), 0);
	ck_assert_str_eq((char *)t_out, T_OUT);
	ck_assert_ptr_nonnull(strstr((char *)t_err, "page at phys 0x5000: zlib data of 64 bytes at offset 0x"));
	unlink(p);
	tk.tk_bad = 0;
	tk.tk_short = T_RPFN + 1;
	p = t_dump(&tk, NULL);
	t_expect_fail(p, "page at phys 0x101000: zstd data of ");
	ck_assert_ptr_nonnull(strstr((char *)t_err, "decompresses to 2048 bytes, the page size is 4096"));
	unlink(p);
}
END_TEST

START_TEST(test_kdump_bad_descriptors)
{
	struct t_kd tk = { 1, 0, 0, 0, 0 };
	uint64_t at = T_DESC_OFF + (T_NLOW + 1) * 24, big = 1ULL << 40;
	uint32_t fl = 8, sz = 5000;
	const char *p = t_dump(&tk, NULL);

	t_patch(p, at + 12, &fl, 4);
	t_expect_fail(p, "page at phys 0x101000: page_desc 65 at offset 0x4618 has compression flags 0x8; supported: 0 (raw), 0x1 (zlib)");
	fl = 1;
	t_patch(p, at + 12, &fl, 4);
	t_patch(p, at, &big, 8);
	t_expect_fail(p, "page at phys 0x101000: zlib data of ");
	ck_assert_ptr_nonnull(strstr((char *)t_err, "at offset 0x10000000000 is past the end of the dump"));
	t_patch(p, at + 8, &sz, 4);
	t_expect_fail(p, "page_desc 65 at offset 0x4618 has data size 5000; the limit is 1..4096");
	unlink(p);
}
END_TEST

START_TEST(test_kdump_bad_headers)
{
	struct t_kd tk = { 4, 0, 0, 0, 0 };
	uint8_t hdr[108] = "KDUMP   ";
	uint32_t bs = 1000;
	uint64_t len;
	const char *p = t_file(hdr, sizeof (hdr), 0);
	char want[256];

	t_expect_fail(p, "truncated kdump header: the dump is 108 bytes, the disk_dump_header needs 448");
	unlink(p);
	p = t_dump(&tk, &len);
	ck_assert_int_eq(truncate(p, 3 * T_BS), 0);
	t_expect_fail(p, "kdump bitmaps at offset 0x2000-0x4000 (2 blocks of 4096 bytes) run past the end of the dump (12288 bytes)");
	unlink(p);
	p = t_dump(&tk, &len);
	ck_assert_int_eq(truncate(p, T_DESC_OFF + 100), 0);
	snprintf(want, sizeof (want), "the page_desc array at offset 0x4000 (%d descriptors of 24 bytes, one per dumped page) runs past the end of the dump (%d bytes)",
	    T_NLOW + T_NREG + 16, T_DESC_OFF + 100);
	t_expect_fail(p, want);
	unlink(p);
	p = t_dump(&tk, &len);
	t_patch(p, 428, &bs, 4);
	t_expect_fail(p, "kdump header: block_size 1000 (at offset 428) is not a power of two in [4096, 65536]");
	unlink(p);
}
END_TEST

START_TEST(test_flattened_truncated)
{
	struct t_kd tk = { 2, 0, 0, 0, 1 };
	const char *p = t_dump(&tk, NULL);
	uint8_t stream[16] = "makedumpfile";

	ck_assert_int_eq(truncate(p, 4096 + 16 + 1000), 0);
	t_expect_fail(p, "flattened record 0 at file offset 0x1000: 3000 data bytes for logical offset 0x0 run past the end of the file (5112 bytes)");
	ck_assert_int_eq(truncate(p, 4096 + 16 + T_CHUNK), 0);
	t_expect_fail(p, "flattened record 1 at file offset 0x1bc8: the file ends at 0x1bc8 before the record header (16 bytes) and no end marker was seen");
	unlink(p);
	p = t_file(stream, sizeof (stream), 0);
	ck_assert_int_eq(truncate(p, 4096), 0);
	t_expect_fail(p, "flattened record 0 at file offset 0x1000: the file ends at 0x1000");
	unlink(p);
}
END_TEST

/* A raw image: the region bytes, as dd copies them from /dev/mem. */
START_TEST(test_raw_image)
{
	uint8_t *rg = kt_region_new(T_RPHYS);
	const char *p;

	kt_region_rec(rg, 1, 1, 42);
	p = t_file(rg, KT_RSIZE, 0);
	ck_assert_int_eq(t_run(p, NULL, NULL), 0);
	ck_assert_str_eq((char *)t_out, T_OUT);
	ck_assert_ptr_nonnull(strstr((char *)t_err, ": raw region image written by kernel 6.1.0-kt-test, boot id 0123456789abcdeffedcba9876543210, region was at phys 0x100000\n"));
	ck_assert_int_eq(t_run("-q", p, NULL), 0);
	ck_assert_str_eq((char *)t_out, "42\n");
	ck_assert_str_eq((char *)t_err, "");
	ck_assert_int_eq(truncate(p, KT_RSIZE / 2), 0);
	t_expect_partial(p, "\n", "CPU 1's buffer: bytes 0x9000-0x10000 not in the dump (beyond the end of the image (file truncated?))");
	ck_assert_ptr_nonnull(strstr((char *)t_err, "raw region image is truncated: its header says 65536 bytes, the file has 32768: what it holds is printed"));
	ck_assert_int_eq(truncate(p, 0x1100), 0);
	t_expect_fail(p, "raw region image is truncated: its header says 65536 bytes, the file has 4352");
	unlink(p);
	free(rg);
}
END_TEST

/* --merge: both cpus' records by timestamp; the default is per cpu. */
START_TEST(test_merge)
{
	uint8_t *rg = kt_region_new(T_RPHYS);
	const char *p;
	const char *byts = "BEGIN                 1\n", *q;

	kt_region_rec(rg, 1, 5, 4);
	kt_region_rec(rg, 0, 10, 1);
	kt_region_rec(rg, 1, 20, 2);
	kt_region_rec(rg, 0, 30, 3);
	p = t_file(rg, KT_RSIZE, 0);
	ck_assert_int_eq(t_run(p, NULL, NULL), 0);
	q = strstr((char *)t_out, byts);
	ck_assert_ptr_nonnull(q);
	ck_assert_ptr_nonnull(strstr(q, "BEGIN                 3\n"));
	q = strstr(strstr(q, "BEGIN                 3\n"),
	    "BEGIN                 4\n");
	ck_assert_ptr_nonnull(q);
	ck_assert_ptr_nonnull(strstr(q, "BEGIN                 2\n"));
	ck_assert_int_eq(t_run(p, "--merge", NULL), 0);
	q = strstr((char *)t_out, "  1      1                           :BEGIN                 4\n");
	ck_assert_ptr_nonnull(q);
	q = strstr(q, "  0      1                           :BEGIN                 1\n");
	ck_assert_ptr_nonnull(q);
	q = strstr(q, "  1      1                           :BEGIN                 2\n");
	ck_assert_ptr_nonnull(q);
	q = strstr(q, "  0      1                           :BEGIN                 3\n");
	ck_assert_ptr_nonnull(q);
	unlink(p);
	free(rg);
}
END_TEST

static Suite *
kdump_suite(void)
{
	Suite *s = suite_create("kdump");
	TCase *tc = tcase_create("kdump");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_kdump_every_compression);
	tcase_add_test(tc, test_kdump_flattened);
	tcase_add_test(tc, test_kdump_excluded_page);
	tcase_add_test(tc, test_kdump_bad_pages);
	tcase_add_test(tc, test_kdump_bad_descriptors);
	tcase_add_test(tc, test_kdump_bad_headers);
	tcase_add_test(tc, test_flattened_truncated);
	tcase_add_test(tc, test_raw_image);
	tcase_add_test(tc, test_merge);
	suite_add_tcase(s, tc);
	return s;
}

KT_MAIN(kdump_suite)
