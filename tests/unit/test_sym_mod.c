/*
 * test_sym_mod.c -- module symbols carried by the region (rgn.h, "module
 * table"): written by common/rgn_write.c as kdt.ko does, read back by
 * consumer/kc_sym.c (kc_sym_add_region_mods(), kc_sym_for_region()) and
 * printed by the formatter as module`function+0xoff with no file at all.
 * Also: unloaded modules, a full table, damaged entries, and an image
 * from before the table existed (rm_probe_off 64).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kt_check.h"
#include "kt_region.h"
#include "consumer/kc_sym.h"
#include "consumer/kc_fmt.h"

#define T_RSIZE		(128 * 1024)
#define T_LOOP		0xffffffffc0100000ULL
#define T_EXT4		0xffffffffc0200000ULL

/* A region like kt_region_new()'s with a module table of "modsize". */
static uint8_t *
t_region(uint64_t modsize)
{
	static struct kt_dofimg dof;
	struct rgn_params p;
	struct kdt_err ke;
	uint8_t *b = calloc(1, T_RSIZE);

	kt_dof(&dof);
	memset(&p, 0, sizeof (p));
	p.rp_ncpu = 2;
	p.rp_policy = DTRACEOPT_BUFPOLICY_RING;
	p.rp_probe_cap = 4;
	p.rp_epid_cap = 4;
	p.rp_modsize = modsize;
	p.rp_dof = &dof;
	p.rp_dofsz = sizeof (dof);
	p.rp_release = "6.1.0-kt-nosuchrelease";
	ck_assert_int_eq(rgn_init(b, T_RSIZE, &p, &ke), 0);
	ck_assert_int_eq(rgn_add_probe(b, 1, "dtrace", "", "", "BEGIN", &ke),
	    0);
	ck_assert_int_eq(rgn_add_epid(b, 1, 1, 0, 8, &ke), 0);
	return b;
}

static void
t_loop_ext4(uint8_t *b)
{
	ck_assert_int_eq(rgn_mod_begin(b, "loop", T_LOOP, 0x8000, 0x5000, 0), 0);
	ck_assert_int_eq(rgn_mod_sym(b, T_LOOP + 0x1000, 0x200, "lo_ioctl"), 0);
	ck_assert_int_eq(rgn_mod_sym(b, T_LOOP + 0x1400, 0x300, "lo_rw_aio"),
	    0);
	/* outside the module, empty or too long a name: skipped */
	ck_assert_int_eq(rgn_mod_sym(b, T_LOOP + 0x8000, 4, "past_end"),
	    -EINVAL);
	ck_assert_int_eq(rgn_mod_sym(b, T_LOOP, 4, ""), -EINVAL);
	rgn_mod_end(b);
	ck_assert_int_eq(rgn_mod_begin(b, "ext4", T_EXT4, 0x40000, 0x30000, 0),
	    0);
	ck_assert_int_eq(rgn_mod_sym(b, T_EXT4 + 0x100, 0x80,
	    "ext4_file_read_iter"), 0);
	rgn_mod_end(b);
}

static void
t_name(const struct kc_symtab *t, uint64_t addr, const char *want)
{
	char buf[256];

	kc_fmt_addr2str(t, addr, buf, sizeof (buf));
	ck_assert_str_eq(buf, want);
}

/* Without any file: module frames by name, core frames in hex. */
START_TEST(test_region_mods)
{
	struct kc_symtab *t;
	char buf[1024];
	FILE *err;
	int failed;
	uint8_t *b = t_region(8192);

	t_loop_ext4(b);
	/* begun, not ended: a reader never sees it */
	ck_assert_int_eq(rgn_mod_begin(b, "xfs", 0xffffffffc0300000ULL,
	    0x1000, 0x1000, 0), 0);
	ck_assert_int_eq(rgn_mod_sym(b, 0xffffffffc0300010ULL, 8, "xfs_x"), 0);
	/*
	 * Zeroed first: in the clean-clone build a stream that wrote
	 * nothing left buf[0] holding old stack bytes ("AME"), though glibc
	 * documents "w" as truncating; the checks of "nothing said" below
	 * must not depend on that.
	 */
	memset(buf, 0, sizeof (buf));
	err = fmemopen(buf, sizeof (buf), "w");
	t = kc_sym_for_region(b, T_RSIZE, NULL, 0, "kdt-extract", err,
	    &failed);
	fclose(err);
	ck_assert_int_eq(failed, 0);
	ck_assert_ptr_nonnull(t);
	/* the table is the region's own: used without a word */
	ck_assert_msg(buf[0] == '\0', "%s", buf);
	t_name(t, T_LOOP + 0x1010, "loop`lo_ioctl+0x10");
	t_name(t, T_LOOP + 0x1400, "loop`lo_rw_aio");
	t_name(t, T_EXT4 + 0x17f, "ext4`ext4_file_read_iter+0x7f");
	/* inside a module, in no symbol: dtrace's module`0xaddr */
	t_name(t, T_LOOP + 0x1300, "loop`0xffffffffc0101300");
	t_name(t, T_LOOP + 0x7fff, "loop`0xffffffffc0107fff");
	t_name(t, T_LOOP + 0x8000, "0xffffffffc0108000");
	t_name(t, 0xffffffff81234567ULL, "0xffffffff81234567");
	t_name(t, 0xffffffffc0300010ULL, "0xffffffffc0300010");
	kc_fmt_sym2str(t, T_LOOP + 0x1010, buf, sizeof (buf));
	ck_assert_str_eq(buf, "loop`lo_ioctl");
	kc_fmt_mod2str(t, T_LOOP + 0x1300, buf, sizeof (buf));
	ck_assert_str_eq(buf, "loop");
	kc_sym_free(t);
	/* quiet: nothing said */
	memset(buf, 0, sizeof (buf));	/* see test_region_mods */
	err = fmemopen(buf, sizeof (buf), "w");
	t = kc_sym_for_region(b, T_RSIZE, NULL, 1, "kdt-extract", err,
	    &failed);
	fprintf(err, "%c", '\0');
	fclose(err);
	ck_assert_str_eq(buf, "");
	ck_assert_ptr_nonnull(t);
	kc_sym_free(t);
	free(b);
}
END_TEST

/* With a System.map too: core and module frames in one table. */
START_TEST(test_region_mods_and_map)
{
	char file[] = "/tmp/kdt-test-symmod.XXXXXX", buf[1024];
	struct rgn_hdr *h;
	struct kc_symtab *t;
	FILE *f, *err;
	int failed, fd;
	uint8_t *b = t_region(8192);

	t_loop_ext4(b);
	fd = mkstemp(file);
	ck_assert_int_ge(fd, 0);
	f = fdopen(fd, "w");
	fputs("ffffffff81000000 T _text\nffffffff81100000 T vfs_read\n"
	    "ffffffff81100100 T vfs_write\n", f);
	fclose(f);
	/* the KASLR offset is in the CRC'd header: rewrite it properly */
	h = (struct rgn_hdr *)b;
	h->rh_kaslr = 0x200000;
	h->rh_crc = 0;
	h->rh_crc = kenv_crc32(h, sizeof (*h));
	memset(buf, 0, sizeof (buf));	/* see test_region_mods */
	err = fmemopen(buf, sizeof (buf), "w");
	t = kc_sym_for_region(b, T_RSIZE, file, 0, "kdt-extract", err,
	    &failed);
	fclose(err);
	unlink(file);
	ck_assert_ptr_nonnull(t);
	ck_assert_ptr_nonnull(strstr(buf, "moved by its KASLR offset 0x200000"));
	ck_assert_ptr_null(strstr(buf, "module"));
	t_name(t, 0xffffffff81300010ULL, "vmlinux`vfs_read+0x10");
	/* module symbols are not moved: they carry this boot's addresses */
	t_name(t, T_LOOP + 0x1401, "loop`lo_rw_aio+0x1");
	kc_sym_free(t);
	free(b);
}
END_TEST

/* An unloaded module keeps its entry unless a later one took its place. */
START_TEST(test_gone)
{
	struct kc_symtab *t;
	char why[256];
	uint8_t *b = t_region(8192);

	t_loop_ext4(b);
	rgn_mod_gone(b, "loop", T_LOOP);
	t = kc_sym_new();
	ck_assert_int_eq(kc_sym_add_region_mods(t, b, T_RSIZE, NULL, why,
	    sizeof (why)), 2);
	t_name(t, T_LOOP + 0x1010, "loop`lo_ioctl+0x10");
	kc_sym_free(t);
	/* null_blk loads where loop was */
	ck_assert_int_eq(rgn_mod_begin(b, "null_blk", T_LOOP, 0x6000, 0x4000, 0),
	    0);
	ck_assert_int_eq(rgn_mod_sym(b, T_LOOP + 0x1000, 0x100,
	    "null_queue_rq"), 0);
	rgn_mod_end(b);
	t = kc_sym_new();
	ck_assert_int_eq(kc_sym_add_region_mods(t, b, T_RSIZE, NULL, why,
	    sizeof (why)), 2);
	t_name(t, T_LOOP + 0x1010, "null_blk`null_queue_rq+0x10");
	t_name(t, T_LOOP + 0x1400, "null_blk`0xffffffffc0101400");
	t_name(t, T_EXT4 + 0x100, "ext4`ext4_file_read_iter");
	kc_sym_free(t);
	free(b);
}
END_TEST

/*
 * A module's init text: its own entry, flagged gone once the module is
 * live; its functions still resolve until a later module takes the place.
 */
START_TEST(test_init_text)
{
	struct kc_symtab *t;
	char why[256];
	uint8_t *b = t_region(8192);
	const uint64_t init = 0xffffffffc0500000ULL;

	ck_assert_int_eq(rgn_mod_begin(b, "xor", T_LOOP, 0x3000, 0x2000, 0),
	    0);
	ck_assert_int_eq(rgn_mod_sym(b, T_LOOP + 0x40, 0x100, "xor_avx_2"), 0);
	rgn_mod_end(b);
	ck_assert_int_eq(rgn_mod_begin(b, "xor", init, 0x1000, 0x400,
	    RGN_MOD_F_INIT), 0);
	ck_assert_int_eq(rgn_mod_sym(b, init + 0xc3, 0x200,
	    "xor_init"), 0);
	/* an alias after it in the table: the kernel names the first */
	ck_assert_int_eq(rgn_mod_sym(b, init + 0xc3, 0x200, "init_module"),
	    0);
	rgn_mod_end(b);
	rgn_mod_gone(b, "xor", init);	/* MODULE_STATE_LIVE */
	t = kc_sym_new();
	ck_assert_int_eq(kc_sym_add_region_mods(t, b, T_RSIZE, NULL, why,
	    sizeof (why)), 2);
	t_name(t, init + 0xc3 + 0x51, "xor`xor_init+0x51");
	t_name(t, T_LOOP + 0x41, "xor`xor_avx_2+0x1");
	kc_sym_free(t);
	/* the freed init text is reused by the next module */
	ck_assert_int_eq(rgn_mod_begin(b, "crc7", init, 0x1000, 0x800, 0), 0);
	ck_assert_int_eq(rgn_mod_sym(b, init + 0x100, 0x40, "crc7_be"), 0);
	rgn_mod_end(b);
	t = kc_sym_new();
	ck_assert_int_eq(kc_sym_add_region_mods(t, b, T_RSIZE, NULL, why,
	    sizeof (why)), 2);
	t_name(t, init + 0x1c3, "crc7`0xffffffffc05001c3");
	t_name(t, init + 0x101, "crc7`crc7_be+0x1");
	kc_sym_free(t);
	free(b);
}
END_TEST

/* A full table: symbols cut short, then modules left out, both counted. */
START_TEST(test_full)
{
	const struct rgn_modarea *a;
	struct rgn_view v;
	struct kdt_err ke;
	struct kc_symtab *t;
	char name[32], why[256], buf[512];
	uint32_t i, notes;
	int rv = 0, failed;
	FILE *err;
	uint8_t *b = t_region(4096);

	ck_assert_int_eq(rgn_mod_begin(b, "big", T_LOOP, 0x100000, 0x100000, 0),
	    0);
	for (i = 0; i < 1000 && rv == 0; i++) {
		snprintf(name, sizeof (name), "big_function_%u", i);
		rv = rgn_mod_sym(b, T_LOOP + i * 0x100, 0x100, name);
	}
	ck_assert_int_eq(rv, -ENOSPC);
	ck_assert_int_gt(i, 50);
	rgn_mod_end(b);
	/* no room for another entry */
	ck_assert_int_eq(rgn_mod_begin(b, "next", T_EXT4, 0x1000, 0x1000, 0),
	    -ENOSPC);
	ck_assert_int_eq(rgn_open(&v, b, T_RSIZE, RGN_PHYS_ANY, &ke), 0);
	ck_assert_int_eq(rgn_mod_first(&v, &a, &ke), 0);
	ck_assert_ptr_nonnull(a);
	ck_assert_uint_eq(a->ma_trunc, 1);
	ck_assert_uint_eq(a->ma_lost, 1);
	ck_assert_uint_eq(a->ma_nmods, 1);
	ck_assert_uint_le(a->ma_used, 4096 - sizeof (*a));
	t = kc_sym_new();
	ck_assert_int_eq(kc_sym_add_region_mods(t, b, T_RSIZE, &notes, why,
	    sizeof (why)), 1);
	ck_assert_uint_eq(notes, 2);
	ck_assert_uint_eq(t->kb_nsyms, i - 1);
	t_name(t, T_LOOP + 0x101, "big`big_function_1+0x1");
	/* a symbol that did not fit: the module is still named */
	snprintf(name, sizeof (name), "big`0x%llx",
	    (unsigned long long)(T_LOOP + 0x100 * (i + 5)));
	t_name(t, T_LOOP + 0x100 * (i + 5), name);
	kc_sym_free(t);
	/* what was left out is said */
	memset(buf, 0, sizeof (buf));	/* see test_region_mods */
	err = fmemopen(buf, sizeof (buf), "w");
	t = kc_sym_for_region(b, T_RSIZE, NULL, 0, "kdt-extract", err,
	    &failed);
	fclose(err);
	ck_assert_ptr_nonnull(t);
	ck_assert_msg(strstr(buf, "kdt-extract: region's module table: 2 modules' symbols were cut short or left out by kdt.ko for lack of room") != NULL, "%s", buf);
	kc_sym_free(t);
	free(b);
}
END_TEST

/* The bytes of rgn.h's worked example. */
START_TEST(test_worked_example)
{
	static const uint8_t area[32] = {
		0x6b, 0x6d, 0x6f, 0x64, 0x01, 0, 0, 0,
		0x78, 0, 0, 0, 0, 0, 0, 0,
	};
	static const uint8_t entry[44] = {
		0x00, 0x00, 0x10, 0xc0, 0xff, 0xff, 0xff, 0xff,
		0x00, 0x80, 0, 0, 0, 0, 0, 0, 0x00, 0x50, 0, 0, 0, 0, 0, 0,
		0x78, 0, 0, 0, 0x01, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
		0x6c, 0x6f, 0x6f, 0x70,
	};
	static const uint8_t sym[24] = {
		0x00, 0x10, 0, 0, 0x00, 0x02, 0, 0,
		0x6c, 0x6f, 0x5f, 0x69, 0x6f, 0x63, 0x74, 0x6c,
	};
	const struct rgn_meta *m;
	const uint8_t *a;
	uint32_t i;
	uint8_t *b = t_region(8192);

	ck_assert_int_eq(rgn_mod_begin(b, "loop", T_LOOP, 0x8000, 0x5000, 0), 0);
	ck_assert_int_eq(rgn_mod_sym(b, T_LOOP + 0x1000, 0x200, "lo_ioctl"), 0);
	rgn_mod_end(b);
	m = (const struct rgn_meta *)(b + ((struct rgn_hdr *)b)->rh_meta_off);
	a = b + m->rm_mod_off;
	ck_assert_mem_eq(a, area, sizeof (area));
	ck_assert_mem_eq(a + 32, entry, sizeof (entry));
	for (i = 44; i < 96; i++)	/* the rest of md_name */
		ck_assert_uint_eq(a[32 + i], 0);
	ck_assert_mem_eq(a + 32 + 96, sym, sizeof (sym));
	free(b);
}
END_TEST

/* Damaged tables are reported with the place; nothing is misread. */
START_TEST(test_damaged)
{
	struct rgn_meta *m;
	struct rgn_modarea *a;
	struct rgn_mod *md;
	struct kc_symtab *t;
	char why[512];
	uint8_t *b = t_region(8192);

	t_loop_ext4(b);
	m = (struct rgn_meta *)(b + ((struct rgn_hdr *)b)->rh_meta_off);
	a = (struct rgn_modarea *)(b + m->rm_mod_off);
	md = (struct rgn_mod *)(a + 1);
	md->md_len = 12;	/* not 8-aligned, shorter than an entry */
	t = kc_sym_new();
	ck_assert_int_eq(kc_sym_add_region_mods(t, b, T_RSIZE, NULL, why,
	    sizeof (why)), -1);
	ck_assert_msg(strstr(why, "module table entry at offset 0x") != NULL &&
	    strstr(why, "(length 12, 2 symbols") != NULL, "%s", why);
	kc_sym_free(t);
	md->md_len = 96 + 8;	/* too short for its two symbols */
	t = kc_sym_new();
	ck_assert_int_eq(kc_sym_add_region_mods(t, b, T_RSIZE, NULL, why,
	    sizeof (why)), -1);
	kc_sym_free(t);
	md->md_len = 96 + 24 + 24;
	a->ma_magic = 0x12345678;
	t = kc_sym_new();
	ck_assert_int_eq(kc_sym_add_region_mods(t, b, T_RSIZE, NULL, why,
	    sizeof (why)), -1);
	ck_assert_msg(strstr(why, "magic 0x12345678, expected 0x646f6d6b") !=
	    NULL, "%s", why);
	kc_sym_free(t);
	a->ma_magic = RGN_MOD_MAGIC;
	m->rm_mod_off = 4096 + 1;
	t = kc_sym_new();
	ck_assert_int_eq(kc_sym_add_region_mods(t, b, T_RSIZE, NULL, why,
	    sizeof (why)), -1);
	ck_assert_msg(strstr(why, "must be whole pages between") != NULL,
	    "%s", why);
	kc_sym_free(t);
	free(b);
}
END_TEST

/*
 * An image from before the module table: rgn_meta of 64 bytes, the
 * probe table at 64 where rm_mod_off would be.  It opens, and no module
 * table is read out of the probe table's bytes.
 */
START_TEST(test_old_image)
{
	const struct rgn_modarea *a = NULL;
	struct rgn_view v;
	struct kdt_err ke;
	struct rgn_meta *m;
	struct kc_symtab *t;
	char why[256];
	uint8_t *b = t_region(8192), *mb;

	t_loop_ext4(b);
	mb = b + ((struct rgn_hdr *)b)->rh_meta_off;
	m = (struct rgn_meta *)mb;
	ck_assert_uint_eq(m->rm_probe_off, sizeof (struct rgn_meta));
	memmove(mb + RGN_META_V1SIZE, mb + m->rm_probe_off,
	    sizeof (struct rgn_probe));
	m->rm_probe_off = RGN_META_V1SIZE;
	ck_assert_int_eq(rgn_open(&v, b, T_RSIZE, RGN_PHYS_ANY, &ke), 0);
	ck_assert_str_eq(rgn_find_probe(&v, 1)->rp_name, "BEGIN");
	ck_assert_int_eq(rgn_mod_first(&v, &a, &ke), 0);
	ck_assert_ptr_null(a);
	t = kc_sym_new();
	ck_assert_int_eq(kc_sym_add_region_mods(t, b, T_RSIZE, NULL, why,
	    sizeof (why)), 0);
	ck_assert_uint_eq(t->kb_nsyms, 0);
	kc_sym_free(t);
	/* and a region written without a table (as the dump tests make) */
	free(b);
	b = kt_region_new(0);
	kt_region_rec(b, 0, 1, 42);
	ck_assert_int_eq(rgn_mod_begin(b, "loop", T_LOOP, 0x10, 0x10, 0),
	    -EINVAL);
	ck_assert_int_eq(rgn_open(&v, b, T_RSIZE, RGN_PHYS_ANY, &ke), 0);
	ck_assert_int_eq(rgn_mod_first(&v, &a, &ke), 0);
	ck_assert_ptr_null(a);
	free(b);
}
END_TEST

/*
 * Seeds for tests/fuzz/fuzz_region.c (which reads the module table):
 * with KT_SYMMOD_SEEDS=DIR set, a region with two modules, intact and
 * with a damaged symbol, is written to DIR (tests/fuzz/mkcorpus does
 * this).  Without it the test checks only that the images are as meant.
 */
static void
t_seed(const char *dir, const char *name, const uint8_t *b)
{
	char path[512];
	FILE *f;

	if (dir == NULL)
		return;
	snprintf(path, sizeof (path), "%s/rgn-modsym-%s", dir, name);
	f = fopen(path, "wb");
	ck_assert_msg(f != NULL, "cannot write %s", path);
	fputc('R', f);
	ck_assert_uint_eq(fwrite(b, 1, T_RSIZE, f), T_RSIZE);
	ck_assert_int_eq(fclose(f), 0);
}

START_TEST(test_fuzz_seeds)
{
	const char *dir = getenv("KT_SYMMOD_SEEDS");
	struct kc_symtab *t;
	struct rgn_meta *m;
	char why[512];
	uint8_t *b = t_region(4096);

	t_loop_ext4(b);
	kt_region_rec(b, 0, 1, 42);
	t = kc_sym_new();
	ck_assert_int_eq(kc_sym_add_region_mods(t, b, T_RSIZE, NULL, why,
	    sizeof (why)), 2);
	kc_sym_free(t);
	t_seed(dir, "ok", b);
	m = (struct rgn_meta *)(b + ((struct rgn_hdr *)b)->rh_meta_off);
	/* lo_ioctl's name loses its NUL: it runs into the next symbol */
	memset(b + m->rm_mod_off + 32 + 96 + 8, 'x', 16);
	t = kc_sym_new();
	ck_assert_int_eq(kc_sym_add_region_mods(t, b, T_RSIZE, NULL, why,
	    sizeof (why)), -1);
	kc_sym_free(t);
	t_seed(dir, "badsym", b);
	free(b);
}
END_TEST

static Suite *
sym_mod_suite(void)
{
	Suite *s = suite_create("sym_mod");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_region_mods);
	tcase_add_test(tc, test_region_mods_and_map);
	tcase_add_test(tc, test_gone);
	tcase_add_test(tc, test_init_text);
	tcase_add_test(tc, test_full);
	tcase_add_test(tc, test_worked_example);
	tcase_add_test(tc, test_damaged);
	tcase_add_test(tc, test_old_image);
	tcase_add_test(tc, test_fuzz_seeds);
	suite_add_tcase(s, tc);
	return s;
}

KT_MAIN(sym_mod_suite)
