/*
 * test_rgn_buildid.c -- the build ids a region records (rgn.h, "Build
 * ids"): the kernel's in rgn_meta (rm_kbid_len, rm_kbid; optional, since
 * rm_probe_off 192) and each module's at the end of its module table
 * entry (md_bidlen), written by common/rgn_write.c as kdt.ko does and
 * read back by common/rgn_read.c.  Also: images from before the fields
 * (rm_probe_off 152, md_bidlen 0) read as "not recorded", and hostile
 * lengths -- a kernel id above RGN_BUILDID_MAX, a module id reaching
 * past its entry or above the limit, a zero length on an entry that
 * carries id bytes -- are refused or read as "not recorded", never
 * read out of bounds.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kt_check.h"
#include "kt_region.h"
#include "consumer/kc_sym.h"

#define T_RSIZE		(128 * 1024)
#define T_LOOP		0xffffffffc0100000ULL

static const uint8_t t_kid[20] = {
	0x5b, 0x81, 0xe7, 0x11, 0x0d, 0x23, 0x7f, 0x7d, 0x98, 0xde,
	0x51, 0xca, 0x3e, 0xf6, 0xd2, 0x6d, 0xdd, 0x9a, 0x48, 0x24
};
static const uint8_t t_mid[20] = {
	0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef, 0x00, 0x11,
	0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xaa, 0xbb
};

static uint8_t *
t_region(uint64_t modsize)
{
	static struct kt_dofimg dof;
	struct rgn_params p;
	struct kdt_err ke;
	uint8_t *b = calloc(1, T_RSIZE);

	ck_assert_ptr_nonnull(b);
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

static struct rgn_meta *
t_meta(uint8_t *b)
{
	return (struct rgn_meta *)(b + ((struct rgn_hdr *)b)->rh_meta_off);
}

/* The first module table entry of b (the test writes one). */
static struct rgn_mod *
t_entry(uint8_t *b)
{
	return (struct rgn_mod *)(b + t_meta(b)->rm_mod_off +
	    sizeof (struct rgn_modarea));
}

/* "loop" with two symbols and, when id != NULL, its build id. */
static void
t_loop(uint8_t *b, const uint8_t *id, uint32_t len)
{
	ck_assert_int_eq(rgn_mod_begin(b, "loop", T_LOOP, 0x8000, 0x5000, 0),
	    0);
	ck_assert_int_eq(rgn_mod_sym(b, T_LOOP + 0x1000, 0x200, "lo_ioctl"),
	    0);
	ck_assert_int_eq(rgn_mod_sym(b, T_LOOP + 0x1400, 0x300, "lo_rw_aio"),
	    0);
	if (id != NULL)
		ck_assert_int_eq(rgn_mod_buildid(b, id, len), 0);
	rgn_mod_end(b);
}

/* Read the entries back: symbols named, and the build id. */
static int
t_read(const uint8_t *b, const uint8_t **bid, uint32_t *bidlen,
    uint32_t *nsyms, struct kdt_err *ke)
{
	const struct rgn_modsym *ms;
	const struct rgn_mod *md;
	const char *name;
	struct rgn_view v;
	uint64_t cur = 0, scur = 0;
	int rv;

	ck_assert_int_eq(rgn_open(&v, b, T_RSIZE, RGN_PHYS_ANY, ke), 0);
	if ((rv = rgn_mod_next(&v, &cur, &md, ke)) != 1)
		return rv;
	*bid = rgn_mod_bid(md, bidlen);
	*nsyms = 0;
	while ((rv = rgn_modsym_next(md, &scur, &ms, &name, ke)) == 1) {
		ck_assert_str_eq(name, *nsyms == 0 ? "lo_ioctl" : "lo_rw_aio");
		(*nsyms)++;
	}
	return rv < 0 ? rv : 1;
}

/* The kernel's build id: written, read, refused when too long or empty. */
START_TEST(test_kbid)
{
	const uint8_t *id;
	struct rgn_view v;
	struct kdt_err ke;
	uint8_t big[RGN_BUILDID_MAX + 1];
	uint32_t len;
	uint8_t *b = t_region(0);

	ck_assert_uint_eq(sizeof (struct rgn_meta), 192);
	ck_assert(RGN_META_HAS_KBID(t_meta(b)));
	ck_assert_int_eq(rgn_open(&v, b, T_RSIZE, RGN_PHYS_ANY, &ke), 0);
	/* not set: not recorded */
	ck_assert_int_eq(rgn_view_kbid(&v, &id, &len, &ke), 0);
	ck_assert_ptr_null(id);
	ck_assert_uint_eq(len, 0);
	memset(big, 0xab, sizeof (big));
	ck_assert_int_eq(rgn_set_kbid(b, big, 0), -EINVAL);
	ck_assert_int_eq(rgn_set_kbid(b, big, sizeof (big)), -EINVAL);
	ck_assert_uint_eq(t_meta(b)->rm_kbid_len, 0);
	ck_assert_int_eq(rgn_set_kbid(b, big, RGN_BUILDID_MAX), 0);
	ck_assert_int_eq(rgn_set_kbid(b, t_kid, sizeof (t_kid)), 0);
	ck_assert_int_eq(rgn_open(&v, b, T_RSIZE, RGN_PHYS_ANY, &ke), 0);
	ck_assert_int_eq(rgn_view_kbid(&v, &id, &len, &ke), 1);
	ck_assert_uint_eq(len, 20);
	ck_assert_mem_eq(id, t_kid, 20);
	/* the bytes after a shorter id are zero: no tail of the old one */
	ck_assert_uint_eq(t_meta(b)->rm_kbid[20], 0);
	ck_assert_uint_eq(t_meta(b)->rm_kbid[RGN_BUILDID_MAX - 1], 0);
	/* at offset 152 and 160 of rgn_meta, as rgn.h documents */
	ck_assert_uint_eq(*(uint32_t *)((uint8_t *)t_meta(b) + 152), 20);
	ck_assert_mem_eq((uint8_t *)t_meta(b) + 160, t_kid, 20);

	/* hostile: a length past the field; the region still opens */
	t_meta(b)->rm_kbid_len = RGN_BUILDID_MAX + 1;
	ck_assert_int_eq(rgn_open(&v, b, T_RSIZE, RGN_PHYS_ANY, &ke), 0);
	ck_assert_int_eq(rgn_view_kbid(&v, &id, &len, &ke), -EINVAL);
	ck_assert_ptr_null(id);
	ck_assert_msg(strstr(ke.ke_msg, "33 bytes long, above the limit of 32") !=
	    NULL, "%s", ke.ke_msg);
	t_meta(b)->rm_kbid_len = 0xffffffffu;
	ck_assert_int_eq(rgn_view_kbid(&v, &id, &len, &ke), -EINVAL);
	/* zero: not recorded, whatever the bytes */
	t_meta(b)->rm_kbid_len = 0;
	ck_assert_int_eq(rgn_view_kbid(&v, &id, &len, &ke), 0);
	ck_assert_ptr_null(id);
	free(b);

	/* a region without a module table records it all the same */
	b = kt_region_new(0);
	kt_region_rec(b, 0, 1, 42);
	ck_assert_int_eq(rgn_set_kbid(b, t_kid, 16), 0);
	ck_assert_int_eq(rgn_open(&v, b, KT_RSIZE, RGN_PHYS_ANY, &ke), 0);
	ck_assert_int_eq(rgn_view_kbid(&v, &id, &len, &ke), 1);
	ck_assert_uint_eq(len, 16);
	ck_assert_mem_eq(id, t_kid, 16);
	free(b);
}
END_TEST

/* An image from before the field (rm_probe_off 152): not recorded. */
START_TEST(test_kbid_old_image)
{
	const uint8_t *id;
	struct rgn_view v;
	struct kdt_err ke;
	struct rgn_meta *m;
	uint32_t len;
	uint8_t *b = t_region(8192), *mb;

	ck_assert_int_eq(rgn_set_kbid(b, t_kid, sizeof (t_kid)), 0);
	mb = b + ((struct rgn_hdr *)b)->rh_meta_off;
	m = (struct rgn_meta *)mb;
	/* the probe table moves down to where the old rgn_meta ended */
	memmove(mb + 152, mb + m->rm_probe_off,
	    (size_t)m->rm_probe_cap * sizeof (struct rgn_probe));
	m->rm_probe_off = 152;
	ck_assert(!RGN_META_HAS_KBID(m));
	ck_assert(RGN_META_HAS_AGGTOT(m));
	ck_assert_int_eq(rgn_open(&v, b, T_RSIZE, RGN_PHYS_ANY, &ke), 0);
	ck_assert_str_eq(rgn_find_probe(&v, 1)->rp_name, "BEGIN");
	/* rm_kbid_len's bytes are the probe table's now: not read */
	ck_assert_int_eq(rgn_view_kbid(&v, &id, &len, &ke), 0);
	ck_assert_ptr_null(id);
	ck_assert_uint_eq(len, 0);
	free(b);
}
END_TEST

/* A module's build id: written after its symbols, read back. */
START_TEST(test_mod_bid)
{
	const uint8_t *id;
	struct kdt_err ke;
	struct rgn_mod *md;
	uint32_t len, nsyms;
	uint8_t *b = t_region(8192);

	t_loop(b, t_mid, sizeof (t_mid));
	md = t_entry(b);
	ck_assert_uint_eq(md->md_bidlen, 20);
	/* 96 + two symbols of 24 bytes + 24 bytes of id */
	ck_assert_uint_eq(md->md_len, 96 + 24 + 24 + 24);
	ck_assert_mem_eq((uint8_t *)md + 96 + 48, t_mid, 20);
	ck_assert_int_eq(t_read(b, &id, &len, &nsyms, &ke), 1);
	ck_assert_uint_eq(nsyms, 2);
	ck_assert_uint_eq(len, 20);
	ck_assert_mem_eq(id, t_mid, 20);

	/* the writer's rules: one id, after the symbols, 1..32 bytes */
	ck_assert_int_eq(rgn_mod_begin(b, "ext4", 0xffffffffc0200000ULL,
	    0x1000, 0x1000, 0), 0);
	ck_assert_int_eq(rgn_mod_buildid(b, t_mid, 0), -EINVAL);
	ck_assert_int_eq(rgn_mod_buildid(b, t_mid, RGN_BUILDID_MAX + 1),
	    -EINVAL);
	ck_assert_int_eq(rgn_mod_buildid(b, t_mid, 3), 0);
	ck_assert_int_eq(rgn_mod_buildid(b, t_mid, 3), -EINVAL);
	ck_assert_int_eq(rgn_mod_sym(b, 0xffffffffc0200010ULL, 8, "late"),
	    -EINVAL);
	rgn_mod_end(b);
	free(b);

	/* no room for the id: not recorded, the entry still published */
	b = t_region(4096);
	ck_assert_int_eq(rgn_mod_begin(b, "big", T_LOOP, 0x8000, 0x8000, 0),
	    0);
	{
		char name[64];
		int i, rv;

		for (i = 0; i < 1000; i++) {
			snprintf(name, sizeof (name),
			    "a_long_symbol_name_for_filling_%04d", i);
			rv = rgn_mod_sym(b, T_LOOP + (uint64_t)i * 8, 8, name);
			if (rv == -ENOSPC)
				break;
			ck_assert_int_eq(rv, 0);
		}
		ck_assert_int_eq(rv, -ENOSPC);
	}
	md = t_entry(b);
	if (4096 - 32 - md->md_len >= 24) {
		/* room for a 20-byte id may remain: fill it */
		ck_assert_int_eq(rgn_mod_buildid(b, t_mid, 20), 0);
		ck_assert_uint_eq(md->md_bidlen, 20);
	} else {
		ck_assert_int_eq(rgn_mod_buildid(b, t_mid, 20), -ENOSPC);
		ck_assert_uint_eq(md->md_bidlen, 0);
	}
	rgn_mod_end(b);
	free(b);
}
END_TEST

/* Entries from before build ids (md_pad, zero): not recorded. */
START_TEST(test_mod_bid_old)
{
	const uint8_t *id = (const uint8_t *)"x";
	struct kdt_err ke;
	uint32_t len = 7, nsyms;
	uint8_t *b = t_region(8192);

	t_loop(b, NULL, 0);
	ck_assert_uint_eq(t_entry(b)->md_len, 96 + 48);
	ck_assert_int_eq(t_read(b, &id, &len, &nsyms, &ke), 1);
	ck_assert_ptr_null(id);
	ck_assert_uint_eq(len, 0);
	ck_assert_uint_eq(nsyms, 2);
	free(b);
}
END_TEST

/* Hostile md_bidlen: past the entry, above the limit, zero. */
START_TEST(test_mod_bid_hostile)
{
	const uint8_t *id;
	struct kdt_err ke;
	struct kc_symtab *t;
	struct rgn_mod *md;
	uint32_t len, nsyms;
	char why[600];
	uint8_t *b = t_region(8192);

	t_loop(b, t_mid, sizeof (t_mid));
	md = t_entry(b);

	/* past the entry: the id would cover the symbols and more */
	md->md_bidlen = md->md_len;
	ck_assert_int_eq(t_read(b, &id, &len, &nsyms, &ke), -EINVAL);
	ck_assert_msg(strstr(ke.ke_msg, "build id of 168 bytes") != NULL &&
	    strstr(ke.ke_msg, "a build id of at most 32 bytes") != NULL,
	    "%s", ke.ke_msg);
	/* an id of 32 bytes would cut the last symbol's name short */
	md->md_bidlen = 32;
	ck_assert_int_eq(t_read(b, &id, &len, &nsyms, &ke), -EINVAL);
	ck_assert_str_eq(ke.ke_tag, "RGN_MODSYM");
	/* above the limit though inside the entry */
	md->md_nsyms = 0;
	md->md_bidlen = 40;
	ck_assert_int_eq(t_read(b, &id, &len, &nsyms, &ke), -EINVAL);
	md->md_bidlen = 0xffffffffu;
	ck_assert_int_eq(t_read(b, &id, &len, &nsyms, &ke), -EINVAL);
	/* a symbol reader never sees the id as a symbol */
	md->md_nsyms = 2;
	md->md_bidlen = 20;
	ck_assert_int_eq(t_read(b, &id, &len, &nsyms, &ke), 1);
	ck_assert_uint_eq(nsyms, 2);
	/* damaged entries cost the table, named, never a crash */
	md->md_bidlen = md->md_len;
	t = kc_sym_new();
	ck_assert_int_eq(kc_sym_add_region_mods(t, b, T_RSIZE, NULL, why,
	    sizeof (why)), -1);
	ck_assert_msg(strstr(why, "region's module table: module table entry at offset 0x") !=
	    NULL, "%s", why);
	kc_sym_free(t);

	/*
	 * Zero on an entry that holds id bytes: not recorded; readers that
	 * count md_nsyms symbols (kc_sym.c, and those from before build
	 * ids) still get both symbols.
	 */
	md->md_bidlen = 0;
	{
		struct rgn_view v;
		const struct rgn_mod *rm;
		uint64_t cur = 0;

		ck_assert_int_eq(rgn_open(&v, b, T_RSIZE, RGN_PHYS_ANY, &ke), 0);
		ck_assert_int_eq(rgn_mod_next(&v, &cur, &rm, &ke), 1);
		ck_assert_ptr_null(rgn_mod_bid(rm, &len));
		ck_assert_uint_eq(len, 0);
	}
	t = kc_sym_new();
	ck_assert_int_eq(kc_sym_add_region_mods(t, b, T_RSIZE, NULL, why,
	    sizeof (why)), 1);
	ck_assert_uint_eq(t->kb_nsyms, 2);
	kc_sym_free(t);
	free(b);
}
END_TEST

static Suite *
rgn_buildid_suite(void)
{
	Suite *s = suite_create("rgn_buildid");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_kbid);
	tcase_add_test(tc, test_kbid_old_image);
	tcase_add_test(tc, test_mod_bid);
	tcase_add_test(tc, test_mod_bid_old);
	tcase_add_test(tc, test_mod_bid_hostile);
	suite_add_tcase(s, tc);
	return s;
}

KT_MAIN(rgn_buildid_suite)
