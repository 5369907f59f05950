/*
 * test_mb2.c -- unit tests of the multiboot2 information validator and
 * module finder (boot/mb2.c; format and rules in boot/mb2.h).
 *
 * The worked example of mb2.h is checked byte for byte (as t_example),
 * then MBIs are assembled tag by tag with a small builder and each of the
 * seven rules is broken once: the error must carry its MB2_* tag and the
 * offset of the offending tag.  bt_mb2_find_module() is checked for the
 * exact-name and first-word matches, for near misses, for several modules
 * and for an MBI without a cmdline.  Two real MBIs that GRUB built under
 * SeaBIOS and OVMF (annotated hex in tests/unit/fixtures/mb2/) must pass,
 * give the module and the cmdline, and fail when cut short anywhere.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kt_check.h"
#include "boot/mb2.h"

/* mb2.h's worked example, 8-aligned. */
static const uint8_t t_example[0x40] __attribute__((aligned(8))) = {
	0x40, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x01, 0x00, 0x00, 0x00, 0x0c, 0x00, 0x00, 0x00,
	0x78, 0x3d, 0x31, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x03, 0x00, 0x00, 0x00, 0x1d, 0x00, 0x00, 0x00,
	0x00, 0x50, 0x10, 0x00, 0x27, 0x50, 0x10, 0x00,
	0x6b, 0x64, 0x74, 0x2d, 0x61, 0x6e, 0x6f, 0x6e,
	0x2d, 0x64, 0x6f, 0x66, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x08, 0x00, 0x00, 0x00,
};

/* An MBI under construction, 8-aligned (uint64_t storage). */
struct t_mbi {
	uint64_t	m_q[2048];
	uint32_t	m_len;
};

static uint8_t *
t_b(struct t_mbi *m)
{
	return (uint8_t *)m->m_q;
}

static void
t_init(struct t_mbi *m)
{
	memset(m, 0, sizeof (*m));
	m->m_len = 8;
}

/* Append a tag: header, payload of "plen" bytes; returns its offset. */
static uint32_t
t_tag(struct t_mbi *m, uint32_t type, const void *payload, uint32_t plen)
{
	struct mb2_tag t = { type, 8 + plen };
	uint32_t off = m->m_len;

	memcpy(t_b(m) + off, &t, 8);
	if (plen != 0)
		memcpy(t_b(m) + off + 8, payload, plen);
	m->m_len = (off + 8 + plen + 7) & ~7U;
	return off;
}

static uint32_t
t_str(struct t_mbi *m, uint32_t type, const char *s)
{
	return t_tag(m, type, s, (uint32_t)strlen(s) + 1);
}

static uint32_t
t_mod(struct t_mbi *m, uint32_t start, uint32_t end, const char *s)
{
	uint8_t p[256];

	memcpy(p, &start, 4);
	memcpy(p + 4, &end, 4);
	strcpy((char *)p + 8, s);
	return t_tag(m, MB2_TAG_MODULE, p, 8 + (uint32_t)strlen(s) + 1);
}

/* The end tag and total_size. */
static uint32_t
t_end(struct t_mbi *m)
{
	uint32_t off = t_tag(m, MB2_TAG_END, NULL, 0);

	memcpy(t_b(m), &m->m_len, 4);
	return off;
}

/* A GRUB-like MBI: cmdline, loader name, 2 modules, meminfo, mmap. */
static void
t_grubish(struct t_mbi *m)
{
	uint8_t mmap[8 + 2 * 24];
	uint32_t mi[2] = { 639, 261120 };
	struct mb2_mmap_entry e[2] = {
		{ 0, 0x9fc00, MB2_MMAP_RAM, 0 },
		{ 0x100000, 0xfee0000, MB2_MMAP_RAM, 0 },
	};
	uint32_t es = 24, ev = 0;

	t_init(m);
	t_str(m, MB2_TAG_CMDLINE, "kdt.region=1M@0x2000000 x=1");
	t_str(m, MB2_TAG_LOADER_NAME, "GRUB 2.06-13+deb12u2");
	t_mod(m, 0x105000, 0x105400, "other");
	t_mod(m, 0x106000, 0x106438, "kdt-anon-dof extra words");
	t_tag(m, MB2_TAG_BASIC_MEMINFO, mi, 8);
	memcpy(mmap, &es, 4);
	memcpy(mmap + 4, &ev, 4);
	memcpy(mmap + 8, e, sizeof (e));
	t_tag(m, MB2_TAG_MMAP, mmap, sizeof (mmap));
	t_tag(m, MB2_TAG_LOAD_BASE, "\0\0\x10\0", 4);
	t_end(m);
}

static int
t_walk(struct t_mbi *m, uint64_t len, struct kdt_err *ke)
{
	memset(ke, 0, sizeof (*ke));
	return bt_mb2_walk(t_b(m), len, NULL, NULL, ke);
}

/* Expect rule failure "tag" at offset "off". */
static void
t_reject(struct t_mbi *m, const char *tag, uint64_t off)
{
	struct kdt_err ke;

	ck_assert_int_eq(t_walk(m, m->m_len, &ke), -EINVAL);
	ck_assert_str_eq(ke.ke_tag, tag);
	ck_assert_uint_eq(ke.ke_off, off);
	ck_assert_int_ne(ke.ke_msg[0], '\0');
}

static void
t_set32(struct t_mbi *m, uint32_t off, uint32_t v)
{
	memcpy(t_b(m) + off, &v, 4);
}

START_TEST(test_worked_example)
{
	struct t_mbi m;
	struct bt_mb2_mod mod;
	struct kdt_err ke;
	const char *cmd;

	/* the builder makes the very same bytes */
	t_init(&m);
	t_str(&m, MB2_TAG_CMDLINE, "x=1");
	t_mod(&m, 0x105000, 0x105027, "kdt-anon-dof");
	t_end(&m);
	ck_assert_uint_eq(m.m_len, sizeof (t_example));
	ck_assert_mem_eq(t_b(&m), t_example, sizeof (t_example));
	ck_assert_int_eq(bt_mb2_find_module(t_example, sizeof (t_example),
	    "kdt-anon-dof", &mod, &cmd, &ke), 1);
	ck_assert_uint_eq(mod.bm_start, 0x105000);
	ck_assert_uint_eq(mod.bm_size, 0x27);
	ck_assert_str_eq(mod.bm_cmdline, "kdt-anon-dof");
	ck_assert_uint_eq(mod.bm_index, 0);
	ck_assert_uint_eq(mod.bm_off, 0x18);
	ck_assert_str_eq(cmd, "x=1");
}
END_TEST

struct t_seen {
	uint32_t	s_types[16];
	uint32_t	s_offs[16];
	uint32_t	s_n;
	uint32_t	s_stop_at;
};

static int
t_cb(void *arg, const struct mb2_tag *t, uint32_t off)
{
	struct t_seen *s = arg;

	s->s_types[s->s_n] = t->mt_type;
	s->s_offs[s->s_n++] = off;
	return s->s_n == s->s_stop_at ? 42 : 0;
}

START_TEST(test_walk_order_and_stop)
{
	static const uint32_t types[] = { 1, 2, 3, 3, 4, 6, 21 };
	struct t_mbi m;
	struct t_seen s;
	struct kdt_err ke;
	unsigned i;

	t_grubish(&m);
	memset(&s, 0, sizeof (s));
	ck_assert_int_eq(bt_mb2_walk(t_b(&m), m.m_len, t_cb, &s, &ke), 0);
	ck_assert_uint_eq(s.s_n, 7);
	for (i = 0; i < 7; i++) {
		ck_assert_uint_eq(s.s_types[i], types[i]);
		ck_assert_uint_eq(s.s_offs[i] % 8, 0);
	}
	ck_assert_uint_eq(s.s_offs[0], 8);
	memset(&s, 0, sizeof (s));
	s.s_stop_at = 3;
	ck_assert_int_eq(bt_mb2_walk(t_b(&m), m.m_len, t_cb, &s, &ke), 42);
	ck_assert_uint_eq(s.s_n, 3);
	/* a larger buffer than total_size is fine; bytes after are unread */
	ck_assert_int_eq(bt_mb2_walk(t_b(&m), sizeof (m.m_q), NULL, NULL,
	    &ke), 0);
}
END_TEST

/* A rule broken in the first tag must stop the walk before any callback. */
START_TEST(test_validate_before_callback)
{
	struct t_mbi m;
	struct t_seen s;
	struct kdt_err ke;
	uint32_t off;

	t_init(&m);
	t_str(&m, MB2_TAG_CMDLINE, "ok");
	off = t_mod(&m, 0x2000, 0x1000, "kdt-anon-dof");
	t_end(&m);
	memset(&s, 0, sizeof (s));
	ck_assert_int_eq(bt_mb2_walk(t_b(&m), m.m_len, t_cb, &s, &ke),
	    -EINVAL);
	ck_assert_str_eq(ke.ke_tag, "MB2_MODULE_RANGE");
	ck_assert_uint_eq(ke.ke_off, off);
	ck_assert_uint_eq(s.s_n, 0);
}
END_TEST

START_TEST(test_rule1_align)
{
	struct t_mbi m;
	struct kdt_err ke;

	t_grubish(&m);
	memmove(t_b(&m) + 4, t_b(&m), m.m_len);
	ck_assert_int_eq(bt_mb2_walk(t_b(&m) + 4, m.m_len, NULL, NULL, &ke),
	    -EINVAL);
	ck_assert_str_eq(ke.ke_tag, "MB2_ALIGN");
}
END_TEST

START_TEST(test_rule2_total_size)
{
	struct t_mbi m;
	struct kdt_err ke;

	t_grubish(&m);
	ck_assert_int_eq(t_walk(&m, 7, &ke), -EINVAL);
	ck_assert_str_eq(ke.ke_tag, "MB2_SIZE");
	ck_assert_int_eq(t_walk(&m, m.m_len - 8, &ke), -EINVAL);
	ck_assert_str_eq(ke.ke_tag, "MB2_SIZE");
	ck_assert_ptr_nonnull(strstr(ke.ke_msg, "in [16, "));
	t_set32(&m, 0, m.m_len + 4);
	t_reject(&m, "MB2_SIZE", 0);
	t_set32(&m, 0, 8);
	t_reject(&m, "MB2_SIZE", 0);
	t_set32(&m, 0, 0);
	t_reject(&m, "MB2_SIZE", 0);
	t_set32(&m, 0, 0xfffffff8u);
	ck_assert_int_eq(t_walk(&m, (uint64_t)-1, &ke), -EINVAL);
	ck_assert_str_eq(ke.ke_tag, "MB2_SIZE");
	/* the smallest valid MBI: the end tag alone */
	t_init(&m);
	t_end(&m);
	ck_assert_uint_eq(m.m_len, 16);
	ck_assert_int_eq(t_walk(&m, 16, &ke), 0);
}
END_TEST

START_TEST(test_rule3_tag_size)
{
	struct t_mbi m;
	uint32_t off;

	t_init(&m);
	t_str(&m, MB2_TAG_CMDLINE, "a");
	off = t_tag(&m, 99, "xyz", 3);
	t_end(&m);
	t_set32(&m, off + 4, 7);
	t_reject(&m, "MB2_TAG_SIZE", off);
	t_set32(&m, off + 4, 0);
	t_reject(&m, "MB2_TAG_SIZE", off);
	/* ends past total_size by one byte */
	t_set32(&m, off + 4, m.m_len - off + 1);
	t_reject(&m, "MB2_TAG_SIZE", off);
	t_set32(&m, off + 4, 0xffffffffu);
	t_reject(&m, "MB2_TAG_SIZE", off);
	/* a size that lands exactly on total_size: no room for the end */
	t_set32(&m, off + 4, m.m_len - off);
	t_reject(&m, "MB2_NO_END", m.m_len);
}
END_TEST

START_TEST(test_rule4_end_tag)
{
	struct t_mbi m;
	struct kdt_err ke;
	uint32_t off;

	t_init(&m);
	t_str(&m, MB2_TAG_CMDLINE, "a");
	off = t_end(&m);
	/* end tag of 16 bytes */
	t_set32(&m, off + 4, 16);
	m.m_len += 8;
	t_set32(&m, 0, m.m_len);
	t_reject(&m, "MB2_TAG_SIZE", off);
	/* no end tag: total_size stops after the cmdline */
	t_set32(&m, 0, off);
	ck_assert_int_eq(t_walk(&m, off, &ke), -EINVAL);
	ck_assert_str_eq(ke.ke_tag, "MB2_NO_END");
	ck_assert_uint_eq(ke.ke_off, off);
	/* bytes after the end tag, inside total_size, are ignored */
	t_set32(&m, off + 4, 8);
	memset(t_b(&m) + off + 8, 0xff, 8);
	t_set32(&m, 0, off + 16);
	ck_assert_int_eq(t_walk(&m, off + 16, &ke), 0);
}
END_TEST

START_TEST(test_rule5_strings)
{
	struct t_mbi m;
	uint32_t off;

	t_init(&m);
	off = t_tag(&m, MB2_TAG_CMDLINE, "abcd", 4);	/* no NUL */
	t_end(&m);
	t_reject(&m, "MB2_STRING", off);
	t_init(&m);
	off = t_tag(&m, MB2_TAG_LOADER_NAME, NULL, 0);	/* size 8 */
	t_end(&m);
	t_reject(&m, "MB2_STRING", off);
	/* the NUL sits in the padding, outside the tag: still no NUL */
	t_init(&m);
	off = t_tag(&m, MB2_TAG_CMDLINE, "abc", 3);
	t_end(&m);
	ck_assert_int_eq(t_b(&m)[off + 8 + 3], 0);
	t_reject(&m, "MB2_STRING", off);
}
END_TEST

START_TEST(test_rule6_module)
{
	struct t_mbi m;
	struct kdt_err ke;
	uint32_t off;
	uint8_t p[12];

	t_init(&m);
	off = t_mod(&m, 0x1000, 0x1000, "");		/* empty: valid */
	t_end(&m);
	ck_assert_int_eq(t_walk(&m, m.m_len, &ke), 0);
	t_set32(&m, off + 8, 0x1001);
	t_reject(&m, "MB2_MODULE_RANGE", off);
	memset(p, 'x', sizeof (p));
	t_init(&m);
	off = t_tag(&m, MB2_TAG_MODULE, p, 8);		/* size 16 */
	t_end(&m);
	t_reject(&m, "MB2_MODULE_STRING", off);
	t_init(&m);
	off = t_tag(&m, MB2_TAG_MODULE, p, 12);		/* no NUL */
	t_end(&m);
	t_reject(&m, "MB2_MODULE_STRING", off);
}
END_TEST

START_TEST(test_rule7_meminfo_mmap)
{
	struct t_mbi m;
	struct kdt_err ke;
	uint32_t off, hdr[2];

	t_init(&m);
	off = t_tag(&m, MB2_TAG_BASIC_MEMINFO, "12345678", 4);
	t_end(&m);
	t_reject(&m, "MB2_TAG_SIZE", off);
	t_init(&m);
	hdr[0] = 20;
	hdr[1] = 0;
	off = t_tag(&m, MB2_TAG_MMAP, hdr, 8);
	t_end(&m);
	t_reject(&m, "MB2_MMAP", off);
	t_set32(&m, off + 8, 28);
	t_reject(&m, "MB2_MMAP", off);
	t_set32(&m, off + 8, 32);
	ck_assert_int_eq(t_walk(&m, m.m_len, &ke), 0);
	t_init(&m);
	off = t_tag(&m, MB2_TAG_MMAP, hdr, 4);		/* size 12 */
	t_end(&m);
	t_reject(&m, "MB2_MMAP", off);
}
END_TEST

START_TEST(test_find_module)
{
	struct t_mbi m;
	struct bt_mb2_mod mod;
	struct kdt_err ke;
	const char *cmd;

	t_grubish(&m);
	ck_assert_int_eq(bt_mb2_find_module(t_b(&m), m.m_len, "kdt-anon-dof",
	    &mod, &cmd, &ke), 1);
	ck_assert_uint_eq(mod.bm_start, 0x106000);
	ck_assert_uint_eq(mod.bm_size, 0x438);
	ck_assert_uint_eq(mod.bm_index, 1);
	ck_assert_str_eq(mod.bm_cmdline, "kdt-anon-dof extra words");
	ck_assert_str_eq(cmd, "kdt.region=1M@0x2000000 x=1");
	ck_assert_int_eq(bt_mb2_find_module(t_b(&m), m.m_len, "other", &mod,
	    NULL, &ke), 1);
	ck_assert_uint_eq(mod.bm_index, 0);
	/* near misses */
	ck_assert_int_eq(bt_mb2_find_module(t_b(&m), m.m_len, "kdt-anon",
	    &mod, &cmd, &ke), 0);
	ck_assert_int_eq(bt_mb2_find_module(t_b(&m), m.m_len,
	    "kdt-anon-dof extra wordsX", &mod, &cmd, &ke), 0);
	ck_assert_int_eq(bt_mb2_find_module(t_b(&m), m.m_len, "oth", &mod,
	    &cmd, &ke), 0);
	/* no cmdline tag; the first of two equal modules wins */
	t_init(&m);
	t_mod(&m, 0x3000, 0x3010, "kdt-anon-dof");
	t_mod(&m, 0x4000, 0x4010, "kdt-anon-dof");
	t_end(&m);
	cmd = "unchanged?";
	ck_assert_int_eq(bt_mb2_find_module(t_b(&m), m.m_len, "kdt-anon-dof",
	    &mod, &cmd, &ke), 1);
	ck_assert_ptr_null(cmd);
	ck_assert_uint_eq(mod.bm_start, 0x3000);
	/* an invalid MBI is an error, not "not found" */
	t_set32(&m, 0, 12);
	ck_assert_int_eq(bt_mb2_find_module(t_b(&m), m.m_len, "kdt-anon-dof",
	    &mod, &cmd, &ke), -EINVAL);
	ck_assert_str_eq(ke.ke_tag, "MB2_SIZE");
}
END_TEST

/* Read an annotated hex fixture ("#" comments) into m. */
static void
t_hex(struct t_mbi *m, const char *name)
{
	char path[256], line[512], *p, *c;
	unsigned v;
	FILE *f;
	int n;

	t_init(m);
	m->m_len = 0;
	snprintf(path, sizeof (path), "tests/unit/fixtures/mb2/%s", name);
	f = fopen(path, "r");
	ck_assert_msg(f != NULL, "%s: cannot open (run from the top)", path);
	while (fgets(line, sizeof (line), f) != NULL) {
		if ((c = strchr(line, '#')) != NULL)
			*c = '\0';
		for (p = line; sscanf(p, " %2x%n", &v, &n) == 1; p += n) {
			ck_assert_uint_lt(m->m_len, sizeof (m->m_q));
			t_b(m)[m->m_len++] = (uint8_t)v;
		}
	}
	fclose(f);
}

static void
t_grub_real(const char *name, uint32_t total, uint32_t modstart)
{
	struct t_mbi m;
	struct bt_mb2_mod mod;
	struct kdt_err ke;
	const char *cmd;
	uint32_t t;

	t_hex(&m, name);
	ck_assert_uint_eq(m.m_len, total);
	ck_assert_int_eq(bt_mb2_find_module(t_b(&m), m.m_len, "kdt-anon-dof",
	    &mod, &cmd, &ke), 1);
	ck_assert_uint_eq(mod.bm_start, modstart);
	ck_assert_uint_eq(mod.bm_size, 0xac0);
	ck_assert_str_eq(cmd, "kdt.region=1M@0x2000000 kdt.mb2dump");
	/* the end tag is last: any shorter total_size loses it */
	for (t = 16; t < total; t += 8) {
		t_set32(&m, 0, t);
		ck_assert_int_eq(t_walk(&m, total, &ke), -EINVAL);
		ck_assert_msg(strcmp(ke.ke_tag, "MB2_NO_END") == 0 ||
		    strcmp(ke.ke_tag, "MB2_TAG_SIZE") == 0, "%u: %s", t,
		    ke.ke_tag);
	}
	t_set32(&m, 0, total);
	ck_assert_int_eq(t_walk(&m, total, &ke), 0);
}

START_TEST(test_grub_bios_mbi)
{
	t_grub_real("good-grub-bios.hex", 1576, 0xd76000);
}
END_TEST

START_TEST(test_grub_efi_mbi)
{
	t_grub_real("good-grub-efi.hex", 7688, 0x54000);
}
END_TEST

static Suite *
mb2_suite(void)
{
	Suite *s = suite_create("mb2");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_worked_example);
	tcase_add_test(tc, test_walk_order_and_stop);
	tcase_add_test(tc, test_validate_before_callback);
	tcase_add_test(tc, test_rule1_align);
	tcase_add_test(tc, test_rule2_total_size);
	tcase_add_test(tc, test_rule3_tag_size);
	tcase_add_test(tc, test_rule4_end_tag);
	tcase_add_test(tc, test_rule5_strings);
	tcase_add_test(tc, test_rule6_module);
	tcase_add_test(tc, test_rule7_meminfo_mmap);
	tcase_add_test(tc, test_find_module);
	tcase_add_test(tc, test_grub_bios_mbi);
	tcase_add_test(tc, test_grub_efi_mbi);
	suite_add_tcase(s, tc);
	return s;
}

KT_MAIN(mb2_suite)
