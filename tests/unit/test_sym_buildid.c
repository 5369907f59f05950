/*
 * test_sym_buildid.c -- kdt-extract checks that the debug files it is
 * given are the build that wrote the region (rgn.h, "Build ids";
 * consumer/kc_sym.c: kc_sym_for_region(), kc_sym_lines_for_region(),
 * kc_sym_modlines_for_region()).  The test makes its own small ELF
 * files with GNU build-id notes of its choosing: a "vmlinux" (an
 * executable linked with -Wl,--build-id=0x...) in three builds -- the
 * region's, another one, none -- and a "module" (a relocatable object
 * made with "ld -r --build-id=0x...", as a .ko is) in the same three.
 * Then: the region's vmlinux is used and said to match; another build
 * is refused, naming the file and both ids, by --vmlinux and as the
 * symbol file, and kdt-extract exits 2; a file without a build id and
 * a region that records none are used with a note; a .ko of another
 * build gets one line and no lines for its module, the right one is
 * used, one without a note is used with a note, and a region entry
 * without an id is counted as not recorded.
 */
#define _GNU_SOURCE		/* memmem */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kt_check.h"
#include "kt_addr2line.h"
#include "kt_region.h"
#include "consumer/kc_sym.h"
#include "crashdump/cd.h"

#define T_RSIZE		(128 * 1024)
#define T_CORE		0xffffffffc0100000ULL
#define T_TEXT		0x1000	/* md_text: the little text, page-aligned */

/* The ids, as "ld --build-id=0x..." takes them and readelf prints them. */
#define T_KID		"5b81e7110d237f7d98de51ca3ef6d26ddd9a4824"
#define T_KID2		"5b81e7110d237f7d98de51ca3ef6d26ddd9a4825"
#define T_MID		"0123456789abcdef00112233445566778899aabb"
#define T_MID2		"ffeeddccbbaa99887766554433221100fedcba98"

static const char t_src[] =
    "int g;\n"
    "__attribute__((noinline)) int\n"
    "tm_leaf(int x)\n"
    "{\n"
    "\treturn g += x * 3;\n"
    "}\n"
    "#ifdef T_MAIN\n"
    "int main(void) { return tm_leaf(2) != 6; }\n"
    "#endif\n";

static char t_dir[64];
static char t_vm[160], t_vm2[160], t_vmnone[160];
static char t_mods[160], t_mods2[160], t_modsnone[160];

static void
t_build(void)
{
	char cmd[2048];

	strcpy(t_dir, "/tmp/kdt-test-buildid.XXXXXX");
	kt_srcdir(t_dir, "t_mod.c", t_src);
	snprintf(t_vm, sizeof (t_vm), "%s/vmlinux", t_dir);
	snprintf(t_vm2, sizeof (t_vm2), "%s/vmlinux-other", t_dir);
	snprintf(t_vmnone, sizeof (t_vmnone), "%s/vmlinux-none", t_dir);
	snprintf(t_mods, sizeof (t_mods), "%s/mods", t_dir);
	snprintf(t_mods2, sizeof (t_mods2), "%s/mods-other", t_dir);
	snprintf(t_modsnone, sizeof (t_modsnone), "%s/mods-none", t_dir);
	snprintf(cmd, sizeof (cmd),
	    "cd %s && mkdir -p mods/kernel mods-other/a mods-none && "
	    "cc -g -O1 -DT_MAIN -Wl,--build-id=0x" T_KID " -o vmlinux "
	    "t_mod.c && "
	    "cc -g -O1 -DT_MAIN -Wl,--build-id=0x" T_KID2 " -o vmlinux-other "
	    "t_mod.c && "
	    "cc -g -O1 -DT_MAIN -Wl,--build-id=none -o vmlinux-none t_mod.c && "
	    "cc -g -O1 -fno-pie -c -o t_mod.o t_mod.c && "
	    "ld -r --build-id=0x" T_MID " -o mods/kernel/t-mod.ko t_mod.o && "
	    "ld -r --build-id=0x" T_MID2 " -o mods-other/a/t_mod.ko t_mod.o && "
	    "ld -r -o mods-none/t_mod.ko t_mod.o",
	    t_dir);
	ck_assert_msg(system(cmd) == 0, "cannot build the test files: %s",
	    cmd);
}

static void
t_cleanup(void)
{
	kt_rmdir(t_dir);
}

static void
t_unhex(const char *hex, uint8_t *id, uint32_t *len)
{
	unsigned int x;

	for (*len = 0; hex[2 * *len] != '\0'; (*len)++) {
		ck_assert_int_eq(sscanf(hex + 2 * *len, "%2x", &x), 1);
		id[*len] = (uint8_t)x;
	}
}

/*
 * A region recording kernel id "kid" (NULL: none) and module t_mod with
 * module id "mid" (NULL: none).
 */
static uint8_t *
t_region(const char *kid, const char *mid)
{
	static struct kt_dofimg dof;
	struct rgn_params p;
	struct kdt_err ke;
	uint8_t id[RGN_BUILDID_MAX], *b = calloc(1, T_RSIZE);
	uint32_t len;

	ck_assert_ptr_nonnull(b);
	kt_dof(&dof);
	memset(&p, 0, sizeof (p));
	p.rp_ncpu = 2;
	p.rp_policy = DTRACEOPT_BUFPOLICY_RING;
	p.rp_probe_cap = 4;
	p.rp_epid_cap = 4;
	p.rp_modsize = 8192;
	p.rp_dof = &dof;
	p.rp_dofsz = sizeof (dof);
	p.rp_release = "6.1.0-kt-nosuchrelease";
	ck_assert_int_eq(rgn_init(b, T_RSIZE, &p, &ke), 0);
	ck_assert_int_eq(rgn_add_probe(b, 1, "dtrace", "", "", "BEGIN", &ke),
	    0);
	ck_assert_int_eq(rgn_add_epid(b, 1, 1, 0, 8, &ke), 0);
	if (kid != NULL) {
		t_unhex(kid, id, &len);
		ck_assert_int_eq(rgn_set_kbid(b, id, len), 0);
	}
	ck_assert_int_eq(rgn_mod_begin(b, "t_mod", T_CORE, 0x2000, T_TEXT,
	    0), 0);
	ck_assert_int_eq(rgn_mod_sym(b, T_CORE, 0x10, "tm_leaf"), 0);
	if (mid != NULL) {
		t_unhex(mid, id, &len);
		ck_assert_int_eq(rgn_mod_buildid(b, id, len), 0);
	}
	rgn_mod_end(b);
	kt_region_rec(b, 0, 1, 42);
	return b;
}

/*
 * kc_sym_for_region(path) then kc_sym_lines_for_region(vmlinux); when
 * that succeeds, tm_leaf's first byte must have addr2line's line.
 */
static int
t_vmlinux(const uint8_t *b, uint64_t len, const char *path,
    const char *vmlinux, int *failed, char *buf, size_t size)
{
	struct kc_symtab *t;
	char cmd[300], ours[600], want[600];
	unsigned long long a = 0;
	FILE *err, *p;
	int rv = -2;

	memset(buf, 0, size);
	err = fmemopen(buf, size, "w");
	t = kc_sym_for_region(b, len, path, 0, "kdt-extract", err, failed);
	if (!*failed)
		rv = kc_sym_lines_for_region(t, b, len, vmlinux, 0,
		    "kdt-extract", err);
	fclose(err);
	if (rv == 0) {
		snprintf(cmd, sizeof (cmd), "nm %s | grep ' tm_leaf$'",
		    vmlinux);
		p = popen(cmd, "r");
		ck_assert_ptr_nonnull(p);
		ck_assert_int_eq(fscanf(p, "%llx", &a), 1);
		pclose(p);
		kt_addr2line(vmlinux, NULL, a, want, sizeof (want));
		ck_assert_str_ne(want, "");
		ck_assert_int_eq(kc_sym_srcline(t, a, ours, sizeof (ours)), 1);
		ck_assert_str_eq(ours, want);
	}
	kc_sym_free(t);
	return rv;
}

/* How many lines of buf contain "s". */
static int
t_lines_with(const char *buf, const char *s)
{
	const char *p = buf, *nl;
	int n = 0;

	for (; *p != '\0'; p = nl + 1) {
		nl = strchr(p, '\n');
		if (nl == NULL)
			nl = p + strlen(p);
		if (memmem(p, (size_t)(nl - p), s, strlen(s)) != NULL)
			n++;
		if (*nl == '\0')
			break;
	}
	return n;
}

START_TEST(test_vmlinux)
{
	char buf[4096];
	int failed;
	uint8_t *b = t_region(T_KID, T_MID);

	/* the region's build: used, and said so */
	ck_assert_int_eq(t_vmlinux(b, T_RSIZE, t_vm, t_vm, &failed, buf,
	    sizeof (buf)), 0);
	ck_assert_int_eq(failed, 0);
	ck_assert_msg(strstr(buf, "its build id " T_KID " is the region's") !=
	    NULL, "%s", buf);

	/* another build as the symbol file (kdt-extract --vmlinux alone) */
	ck_assert_int_eq(t_vmlinux(b, T_RSIZE, t_vm2, t_vm2, &failed, buf,
	    sizeof (buf)), -2);
	ck_assert_int_eq(failed, 1);
	ck_assert_msg(strstr(buf, t_vm2) != NULL &&
	    strstr(buf, "not the build of kernel 6.1.0-kt-nosuchrelease that wrote the region") != NULL &&
	    strstr(buf, "the file's build id is " T_KID2) != NULL &&
	    strstr(buf, "the region records " T_KID) != NULL &&
	    strstr(buf, "-dbg package") != NULL, "%s", buf);

	/* another build for the lines only (--symbols the right one) */
	ck_assert_int_eq(t_vmlinux(b, T_RSIZE, t_vm, t_vm2, &failed, buf,
	    sizeof (buf)), -1);
	ck_assert_msg(strstr(buf, "kdt-extract: --vmlinux ") != NULL &&
	    strstr(buf, "the file's build id is " T_KID2 ", the region records "
	    T_KID) != NULL, "%s", buf);
	ck_assert_msg(strstr(buf, "source lines of kernel frames") == NULL,
	    "%s", buf);

	/* a file without a build id: used, not checked, said */
	ck_assert_int_eq(t_vmlinux(b, T_RSIZE, t_vm, t_vmnone, &failed, buf,
	    sizeof (buf)), 0);
	ck_assert_msg(strstr(buf, "build id not checked: the file has no GNU build id note (the region records "
	    T_KID ")") != NULL, "%s", buf);
	free(b);

	/* a region from before build ids: used, "not recorded" */
	b = t_region(NULL, NULL);
	ck_assert_int_eq(t_vmlinux(b, T_RSIZE, t_vm2, t_vm2, &failed, buf,
	    sizeof (buf)), 0);
	ck_assert_int_eq(failed, 0);
	ck_assert_msg(strstr(buf, "build id not checked: the region does not record the kernel's (not recorded)") !=
	    NULL, "%s", buf);
	free(b);
	/* nor does one without a module table */
	b = kt_region_new(0);
	ck_assert_int_eq(t_vmlinux(b, KT_RSIZE, t_vm2, t_vm2, &failed, buf,
	    sizeof (buf)), 0);
	ck_assert_msg(strstr(buf, "(not recorded)") != NULL, "%s", buf);
	free(b);
}
END_TEST

/* --modules DIR with a module of each build. */
static int
t_modlines(const uint8_t *b, const char *dir, char *buf, size_t size)
{
	struct kc_symtab *t;
	char why[512];
	FILE *err;
	int rv;

	t = kc_sym_new();
	ck_assert_int_eq(kc_sym_add_region_mods(t, b, T_RSIZE, NULL, why,
	    sizeof (why)), 1);
	memset(buf, 0, size);
	err = fmemopen(buf, size, "w");
	rv = kc_sym_modlines_for_region(t, b, T_RSIZE, dir, 0, "kdt-extract",
	    err);
	fclose(err);
	kc_sym_free(t);
	return rv;
}

START_TEST(test_modules)
{
	char buf[4096];
	uint8_t *b = t_region(T_KID, T_MID);

	ck_assert_int_eq(t_modlines(b, t_mods, buf, sizeof (buf)), 1);
	ck_assert_msg(strstr(buf, "1 of the region's 1 modules (1 had a .ko there); build ids: 1 the region's, 0 of another build, 0 not recorded") !=
	    NULL && strstr(buf, "--modules:") == NULL, "%s", buf);

	/* another build: one line naming file, module and ids; not used */
	ck_assert_int_eq(t_modlines(b, t_mods2, buf, sizeof (buf)), 0);
	ck_assert_int_eq(t_lines_with(buf, "--modules:"), 1);
	ck_assert_msg(strstr(buf, "kdt-extract: --modules: ") != NULL &&
	    strstr(buf, "/mods-other/a/t_mod.ko: another build of module t_mod (build id "
	    T_MID2 ", the region records " T_MID "); no source lines for module t_mod\n") != NULL &&
	    strstr(buf, "0 of the region's 1 modules (1 had a .ko there); build ids: 0 the region's, 1 of another build") !=
	    NULL, "%s", buf);

	/* no note in the file: used, not checked, said */
	ck_assert_int_eq(t_modlines(b, t_modsnone, buf, sizeof (buf)), 1);
	ck_assert_msg(strstr(buf, "/mods-none/t_mod.ko: no GNU build id note in the file: not checked against the region's "
	    T_MID " for module t_mod") != NULL, "%s", buf);
	free(b);

	/* a region entry without an id (older kdt.ko): counted, used */
	b = t_region(T_KID, NULL);
	ck_assert_int_eq(t_modlines(b, t_mods2, buf, sizeof (buf)), 1);
	ck_assert_msg(strstr(buf, "build ids: 0 the region's, 0 of another build, 1 not recorded") !=
	    NULL && strstr(buf, "--modules:") == NULL, "%s", buf);
	free(b);
}
END_TEST

/* kdt-extract on a raw image: exit 2 for another build's vmlinux. */
static int
t_extract(const uint8_t *b, const char *opt1, const char *opt2, char *err,
    size_t errsz)
{
	char img[160], out[8192] = "";
	char *argv[] = { "kdt-extract", (char *)opt1, (char *)opt2, img,
	    NULL };
	FILE *f, *fo, *fe;
	int rv;

	snprintf(img, sizeof (img), "%s/region.img", t_dir);
	f = fopen(img, "w");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(b, 1, T_RSIZE, f), T_RSIZE);
	fclose(f);
	memset(err, 0, errsz);
	fo = fmemopen(out, sizeof (out), "w");
	fe = fmemopen(err, errsz, "w");
	rv = cd_extract_main(4, argv, fo, fe);
	fclose(fo);
	fclose(fe);
	ck_assert_msg(rv == 2 || strstr(out, "42") != NULL, "%s", out);
	return rv;
}

START_TEST(test_extract)
{
	char err[4096], o1[200], o2[200];
	uint8_t *b = t_region(T_KID, T_MID);

	snprintf(o1, sizeof (o1), "--vmlinux=%s", t_vm);
	snprintf(o2, sizeof (o2), "--modules=%s", t_mods2);
	ck_assert_int_eq(t_extract(b, o1, o2, err, sizeof (err)), 0);
	ck_assert_msg(strstr(err, "another build of module t_mod") != NULL,
	    "%s", err);
	snprintf(o1, sizeof (o1), "--vmlinux=%s", t_vm2);
	snprintf(o2, sizeof (o2), "--modules=%s", t_mods);
	ck_assert_int_eq(t_extract(b, o1, o2, err, sizeof (err)), 2);
	ck_assert_msg(strstr(err, t_vm2) != NULL &&
	    strstr(err, "the file's build id is " T_KID2) != NULL, "%s", err);
	free(b);
}
END_TEST

static Suite *
sym_buildid_suite(void)
{
	Suite *s = suite_create("sym_buildid");
	TCase *tc = tcase_create("core");

	tcase_add_unchecked_fixture(tc, t_build, t_cleanup);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_vmlinux);
	tcase_add_test(tc, test_modules);
	tcase_add_test(tc, test_extract);
	suite_add_tcase(s, tc);
	return s;
}

KT_MAIN(sym_buildid_suite)
