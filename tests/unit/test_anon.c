/*
 * test_anon.c -- unit tests of kdt -A (anon/): region sizing, placement
 * on recorded /proc/iomem layouts, the kernel words and the GRUB drop-in's
 * quoting, the manifest, the cpio fragment and the -o DIR artifacts, and
 * a whole install, replacement and removal into a fake root.
 *
 * The fake root (install tests) is a temporary directory with just what
 * kdt -A looks for: /usr/share/initramfs-tools/init, /etc/default/grub,
 * /lib/modules/KVER/, and stand-ins for update-initramfs and update-grub
 * that append their command line to /calls.  A static busybox is copied
 * in as /bin/sh, so kdt -A's chroot runs them for real.  kdt.ko is a
 * small ELF object with a .modinfo section holding a vermagic (made with
 * objcopy), enough for the vermagic check.  Those tests need root (for
 * chroot) and /usr/bin/busybox; without them they fail, naming why.
 *
 * Fixtures: tests/unit/fixtures/anon/NAME.iomem are /proc/iomem of this
 * host (an EC2 machine with 24 GiB) and of the QEMU guests the VM tests
 * boot (512 MiB; 2 GiB with a memmap= reservation and crashkernel=).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <sys/wait.h>
#include <sys/resource.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "kt_check.h"
#include "anon/an_impl.h"
#include "compiler/dc.h"

#define T_FIX		"tests/unit/fixtures/anon/"
#define T_KVER		"6.1.0-56-amd64"
#define MIB		(1ULL << 20)
#define GIB		(1ULL << 30)

/* ---- helpers ---- */

static char t_errbuf[8192];

static FILE *
t_err(void)
{
	FILE *fp = fmemopen(t_errbuf, sizeof (t_errbuf), "w");

	setvbuf(fp, NULL, _IONBF, 0);
	memset(t_errbuf, 0, sizeof (t_errbuf));
	return fp;
}

static void
t_compile(const char *src, struct dc_out *o)
{
	struct dc_opts opts;

	memset(&opts, 0, sizeof (opts));
	opts.dco_btf = "/nonexistent/vmlinux";
	ck_assert_msg(dc_compile(src, strlen(src), "t.d", &opts, o) == 0,
	    "compile: %s", o->dco_diag);
}

static char *
t_read(const char *path)
{
	char *buf;

	ck_assert_msg(an_file_read(path, &buf, NULL) == 0, "read %s", path);
	return buf;
}

static void
t_iomem(const char *fixture, struct an_iomem *im)
{
	char path[256], *text;
	FILE *err = t_err();

	snprintf(path, sizeof (path), T_FIX "%s", fixture);
	text = t_read(path);
	ck_assert_msg(an_iomem_parse(text, path, im, err) == 0, "%s",
	    t_errbuf);
	free(text);
	fclose(err);
}

/* ---- sizing ---- */

START_TEST(test_cpulist)
{
	uint32_t n;

	ck_assert_int_eq(an_cpulist_count("0-1\n", &n), 0);
	ck_assert_uint_eq(n, 2);
	ck_assert_int_eq(an_cpulist_count("0-3,8-11", &n), 0);
	ck_assert_uint_eq(n, 8);
	ck_assert_int_eq(an_cpulist_count("0\n", &n), 0);
	ck_assert_uint_eq(n, 1);
	ck_assert_int_eq(an_cpulist_count("3-1", &n), -1);
	ck_assert_int_eq(an_cpulist_count("", &n), -1);
	ck_assert_int_eq(an_cpulist_count("0,x", &n), -1);
}
END_TEST

/* ---- the rehearsal's share of the boot (an_rehearse.c) ---- */

/* an_boot_tinit() of "log": its ns, or UINT64_MAX for none. */
static uint64_t
t_tinit(const char *log)
{
	uint64_t ns = 0;

	return an_boot_tinit(log, strlen(log), &ns) == 0 ? ns : UINT64_MAX;
}

START_TEST(test_boot_tinit)
{
	/* klogctl's form, the first such line counts */
	ck_assert_uint_eq(t_tinit(
	    "<6>[    0.000000] Linux version 6.1.0-56-amd64\n"
	    "<5>[    1.769000] Freeing unused kernel image memory: 2900K\n"
	    "<6>[    1.769825] Run /init as init process\n"
	    "<6>[   12.000001] Run /sbin/init as init process\n"),
	    1769825000ULL);
	/* dmesg's form, the last line without its newline, no initramfs */
	ck_assert_uint_eq(t_tinit("[ 3601.000002] Run /sbin/init as init process"),
	    3601000002000ULL);
	/* none: gone from the log, no timestamp, another line, wrong form */
	ck_assert_uint_eq(t_tinit("<6>[    1.7] Linux\n"), UINT64_MAX);
	ck_assert_uint_eq(t_tinit("<6>Run /init as init process\n"),
	    UINT64_MAX);
	ck_assert_uint_eq(t_tinit("<6>[    1.769825] Run /init as init\n"),
	    UINT64_MAX);
	ck_assert_uint_eq(t_tinit("<6>[    1.76982] Run /init as init process\n"),
	    UINT64_MAX);
	ck_assert_uint_eq(t_tinit("<6>[    1.7698251] Run /init as init process\n"),
	    UINT64_MAX);
	ck_assert_uint_eq(t_tinit("<6>[    x.769825] Run /init as init process\n"),
	    UINT64_MAX);
	ck_assert_uint_eq(t_tinit("<6>[99999999999.000000] Run /init as init process\n"),
	    UINT64_MAX);
	ck_assert_uint_eq(t_tinit("<6>[    1.769825] Run /init\n"), UINT64_MAX);
	ck_assert_uint_eq(t_tinit(""), UINT64_MAX);
}
END_TEST

START_TEST(test_size_default)
{
	struct dc_out o;
	struct an_size as;
	FILE *err = t_err();

	t_compile("BEGIN { trace(1); }", &o);
	ck_assert_int_eq(an_size_compute(o.dco_dof, o.dco_dofsz, 2, 8 * GIB,
	    0, &as, err), 0);
	ck_assert_uint_eq(as.as_bufsize, 4 * MIB);	/* default */
	ck_assert_int_eq(as.as_bufsize_set, 0);
	ck_assert_uint_eq(as.as_nprobes, 1);
	ck_assert_uint_eq(as.as_aggsize, 0);
	ck_assert_uint_eq(as.as_size % AN_ALIGN, 0);
	ck_assert(as.as_size >= as.as_need);
	ck_assert(as.as_size - as.as_need < AN_ALIGN);
	ck_assert(as.as_need > 8 * MIB);
	/* 64 CPUs: the default total stays at 64 MiB */
	ck_assert_int_eq(an_size_compute(o.dco_dof, o.dco_dofsz, 64,
	    8 * GIB, 0, &as, err), 0);
	ck_assert_uint_eq(as.as_bufsize, 1 * MIB);
	ck_assert(as.as_size < 72 * MIB);
	dc_out_free(&o);
	fclose(err);
}
END_TEST

START_TEST(test_size_options)
{
	struct dc_out o;
	struct an_size as, plain;
	FILE *err = t_err();

	t_compile("#pragma D option bufsize=1m\n#pragma D option aggsize=2m\n"
	    "fbt::vfs_*:entry { @[probefunc] = count(); }\n"
	    "syscall:::entry { trace(1); }", &o);
	ck_assert_int_eq(an_size_compute(o.dco_dof, o.dco_dofsz, 4, 8 * GIB,
	    0, &as, err), 0);
	ck_assert_int_eq(as.as_bufsize_set, 1);
	ck_assert_uint_eq(as.as_bufsize, 1 * MIB);
	ck_assert_uint_eq(as.as_aggsize, 2 * MIB);
	ck_assert_uint_eq(as.as_ndesc, 2);
	ck_assert_uint_eq(as.as_nprobes, 65536 + 4096);
	/* 4 x (1M + 2M) plus tables of ~70,000 probes */
	ck_assert(as.as_need > 12 * MIB + 69632ULL * 328);
	ck_assert_uint_eq(as.as_size % AN_ALIGN, 0);
	plain = as;
	/* -x regionsize: taken as is when it holds the minimum */
	ck_assert_int_eq(an_size_compute(o.dco_dof, o.dco_dofsz, 4, 8 * GIB,
	    64 * MIB, &as, err), 0);
	ck_assert_uint_eq(as.as_size, 64 * MIB);
	ck_assert_int_eq(as.as_size_set, 1);
	/* ... and refused, naming value and minimum, when it does not */
	ck_assert_int_eq(an_size_compute(o.dco_dof, o.dco_dofsz, 4, 8 * GIB,
	    4 * MIB, &as, err), -1);
	ck_assert_msg(strstr(t_errbuf, "regionsize=4194304 is below the") !=
	    NULL, "%s", t_errbuf);
	/* the limit: a quarter of RAM */
	ck_assert_int_eq(an_size_compute(o.dco_dof, o.dco_dofsz, 4,
	    plain.as_size * 2, 0, &as, err), -1);
	ck_assert_msg(strstr(t_errbuf, "exceeds the limit of") != NULL &&
	    strstr(t_errbuf, "a quarter of RAM") != NULL, "%s", t_errbuf);
	dc_out_free(&o);
	fclose(err);
}
END_TEST

/* ---- placement ---- */

START_TEST(test_place_host)
{
	struct an_iomem im;
	uint64_t a;
	FILE *err = t_err();

	t_iomem("host-ec2-24g.iomem", &im);
	ck_assert_int_eq(im.im_zeroed, 0);
	/* RAM above 4 GiB: the region goes to its start */
	ck_assert_int_eq(an_place_choose(&im, 32 * MIB, 0, 0, &a, err), 0);
	ck_assert_uint_eq(a, 0x100000000ULL);
	/* the same address is accepted as -x regionaddr ... */
	ck_assert_int_eq(an_place_check(&im, a, 32 * MIB, 0, 0, err), 0);
	/* ... the kernel image is not (Kernel code at 0x1000000) */
	ck_assert_int_eq(an_place_check(&im, 0x1000000, 32 * MIB, 0, 0, err),
	    -1);
	ck_assert_msg(strstr(t_errbuf, "overlaps \"Kernel code\"") != NULL,
	    "%s", t_errbuf);
	/* nor the PCI hole */
	ck_assert_int_eq(an_place_check(&im, 0xc0000000, 2 * MIB, 0, 0, err),
	    -1);
	ck_assert_msg(strstr(t_errbuf, "PCI Bus") != NULL, "%s", t_errbuf);
	/* low memory is accepted as given, with a note */
	ck_assert_int_eq(an_place_check(&im, 0x10000000, 32 * MIB, 0, 0, err),
	    0);
	ck_assert_msg(strstr(t_errbuf, "note: -x regionaddr=0x10000000 is below 1 GiB") != NULL,
	    "%s", t_errbuf);
	/* nor an address that is not 2 MiB-aligned */
	ck_assert_int_eq(an_place_check(&im, 0x100001000ULL, 2 * MIB, 0, 0,
	    err), -1);
	an_iomem_free(&im);
	fclose(err);
}
END_TEST

START_TEST(test_place_qemu)
{
	struct an_iomem im;
	uint64_t a;
	FILE *err = t_err();
	size_t i;

	t_iomem("qemu-512m.iomem", &im);
	/* under 1 GiB of RAM: the floor is half of it (RAM ends 0x1ffdffff) */
	ck_assert_int_eq(an_place_choose(&im, 32 * MIB, 0, 0, &a, err), 0);
	ck_assert_uint_eq(a, 0xfe00000);
	for (i = 0; i < im.im_n; i++)
		if (im.im_res[i].ir_depth > 0)
			ck_assert_msg(a + 32 * MIB - 1 < im.im_res[i].ir_start ||
			    a > im.im_res[i].ir_end, "0x%llx overlaps %s",
			    (unsigned long long)a, im.im_res[i].ir_name);
	/* the default of -o DIR (256 MiB) is valid there */
	ck_assert_int_eq(an_place_check(&im, 0x10000000, 32 * MIB, 0, 0, err),
	    0);
	/* too big for the machine */
	ck_assert_int_eq(an_place_choose(&im, 1 * GIB, 0, 0, &a, err), -1);
	ck_assert_msg(strstr(t_errbuf, "no 2 MiB-aligned range") != NULL,
	    "%s", t_errbuf);
	an_iomem_free(&im);
	fclose(err);
}
END_TEST

START_TEST(test_place_reserved)
{
	struct an_iomem im;
	uint64_t a;
	FILE *err = t_err();

	/* 2 GiB guest, memmap=32M$0x60000000 and crashkernel=64M */
	t_iomem("qemu-2g-memmap.iomem", &im);
	ck_assert_int_eq(an_place_choose(&im, 32 * MIB, 0, 0, &a, err), 0);
	ck_assert(a >= GIB);			/* the low-memory floor */
	/* the reservation is not RAM ... */
	ck_assert_int_eq(an_place_check(&im, 0x60000000, 32 * MIB, 0, 0, err),
	    -1);
	/* ... unless it is the previous install's: then it is kept */
	ck_assert_int_eq(an_place_choose(&im, 32 * MIB, 0x60000000, 32 * MIB,
	    &a, err), 0);
	ck_assert_uint_eq(a, 0x60000000);
	/* and may grow into the RAM after it */
	ck_assert_int_eq(an_place_choose(&im, 64 * MIB, 0x60000000, 32 * MIB,
	    &a, err), 0);
	ck_assert_uint_eq(a, 0x60000000);
	an_iomem_free(&im);
	fclose(err);
}
END_TEST

START_TEST(test_place_rules)
{
	static const char text[] =
	    "00000000-00000fff : Reserved\n"
	    "00001000-0009ffff : System RAM\n"
	    "00100000-bfffffff : System RAM\n"
	    "  01000000-01ffffff : Kernel code\n"
	    "  02000000-02ffffff : Kernel data\n"
	    "c0000000-ffffffff : PCI Bus 0000:00\n"
	    "100000000-23fffffff : System RAM\n"
	    "  100000000-10fffffff : Crash kernel\n"
	    "  110000000-1100fffff : ACPI Tables\n";
	static const char zeros[] =
	    "00000000-00000000 : Reserved\n"
	    "00000000-00000000 : System RAM\n"
	    "  00000000-00000000 : Kernel code\n";
	struct an_iomem im;
	uint64_t a;
	FILE *err = t_err();

	ck_assert_int_eq(an_iomem_parse(text, "t", &im, err), 0);
	ck_assert_uint_eq(im.im_n, 9);
	ck_assert_int_eq(im.im_res[3].ir_depth, 1);
	ck_assert_str_eq(im.im_res[3].ir_name, "Kernel code");
	/* above 4 GiB, past the crash kernel and the ACPI child */
	ck_assert_int_eq(an_place_choose(&im, 8 * MIB, 0, 0, &a, err), 0);
	ck_assert_uint_eq(a, 0x110200000ULL);
	/* nothing above 4 GiB fits 8 GiB: refused */
	ck_assert_int_eq(an_place_choose(&im, 8 * GIB, 0, 0, &a, err), -1);
	an_iomem_free(&im);
	/* a non-root reader sees zeros */
	ck_assert_int_eq(an_iomem_parse(zeros, "t", &im, err), 0);
	ck_assert_int_eq(im.im_zeroed, 1);
	ck_assert_int_eq(an_place_choose(&im, 8 * MIB, 0, 0, &a, err), -1);
	ck_assert_msg(strstr(t_errbuf, "only root can read") != NULL, "%s",
	    t_errbuf);
	an_iomem_free(&im);
	/* malformed text names the line */
	ck_assert_int_eq(an_iomem_parse("0-1 : a\nxyz\n", "t", &im, err), -1);
	ck_assert_msg(strstr(t_errbuf, "t:2:") != NULL, "%s", t_errbuf);
	fclose(err);
}
END_TEST

/* ---- the words and GRUB ---- */

START_TEST(test_words)
{
	char w[256], sz[32];

	an_size_str(sz, sizeof (sz), 32 * MIB);
	ck_assert_str_eq(sz, "32M");
	an_size_str(sz, sizeof (sz), 2 * GIB);
	ck_assert_str_eq(sz, "2G");
	an_size_str(sz, sizeof (sz), 12288);
	ck_assert_str_eq(sz, "12K");
	an_boot_words(w, sizeof (w), 32 * MIB, 0x100000000ULL, AN_Q_PLAIN);
	ck_assert_str_eq(w, "kdt.anon=1 kdt.region=32M@0x100000000 memmap=32M$0x100000000");
	an_boot_words(w, sizeof (w), 32 * MIB, 0x100000000ULL, AN_Q_GRUB);
	ck_assert_str_eq(w, "kdt.anon=1 kdt.region=32M@0x100000000 memmap=32M\\$0x100000000");
}
END_TEST

/* Source the drop-in as grub-mkconfig does; return the variable. */
static char *
t_source_dropin(const char *dropin, const char *before)
{
	char dir[] = "/tmp/kdt-anon-XXXXXX", cmd[1024], path[512];
	static char val[512];
	FILE *fp;
	size_t n;

	ck_assert(mkdtemp(dir) != NULL);
	snprintf(path, sizeof (path), "%s/kdt.cfg", dir);
	fp = fopen(path, "w");
	fputs(dropin, fp);
	fclose(fp);
	snprintf(cmd, sizeof (cmd),
	    "sh -c 'GRUB_CMDLINE_LINUX_DEFAULT=\"%s\"; . %s; printf %%s \"$GRUB_CMDLINE_LINUX_DEFAULT\"'",
	    before, path);
	fp = popen(cmd, "r");
	n = fread(val, 1, sizeof (val) - 1, fp);
	val[n] = '\0';
	ck_assert_int_eq(pclose(fp), 0);
	unlink(path);
	rmdir(dir);
	return val;
}

START_TEST(test_dropin)
{
	char *d = an_boot_dropin(32 * MIB, 0x100000000ULL), *g;

	/* after the shell, the '$' is still escaped for GRUB */
	ck_assert_str_eq(t_source_dropin(d, "quiet"),
	    "quiet kdt.anon=1 kdt.region=32M@0x100000000 memmap=32M\\$0x100000000");
	ck_assert_str_eq(t_source_dropin(d, ""),
	    "kdt.anon=1 kdt.region=32M@0x100000000 memmap=32M\\$0x100000000");
	/* the menuentry of -o DIR has the same words */
	g = an_boot_grubcfg(32 * MIB, 0x100000000ULL, "/boot/vmlinuz",
	    "/boot/initrd.img /boot/anon.cpio", NULL);
	ck_assert_msg(strstr(g, "\tlinux /boot/vmlinuz kdt.anon=1 kdt.region=32M@0x100000000 memmap=32M\\$0x100000000\n") != NULL, "%s", g);
	ck_assert(strstr(g, "\tinitrd /boot/initrd.img /boot/anon.cpio\n") !=
	    NULL);
	free(d);
	free(g);
}
END_TEST

/* ---- manifest ---- */

START_TEST(test_manifest)
{
	struct an_manifest mn, back;
	char *text;
	FILE *err = t_err();

	memset(&mn, 0, sizeof (mn));
	mn.mn_size = 32 * MIB;
	mn.mn_addr = 0x100000000ULL;
	mn.mn_ints = AN_INT_INITRAMFS_TOOLS | AN_INT_GRUB;
	mn.mn_nkernels = 2;
	strcpy(mn.mn_kernels[0], T_KVER);
	strcpy(mn.mn_kernels[1], "6.1.0-57-amd64");
	ck_assert_int_eq(an_manifest_add(&mn, "/var/lib/kdt/anon/anon.dof",
	    0644, "abc", 3, err), 0);
	ck_assert_int_eq(an_manifest_add(&mn, "/etc/initramfs-tools/hooks/kdt",
	    0755, "", 0, err), 0);
	text = an_manifest_format(&mn);
	ck_assert_int_eq(an_manifest_parse(text, "m", &back, err), 0);
	ck_assert_int_eq(memcmp(&mn, &back, sizeof (mn)), 0);
	ck_assert_uint_eq(back.mn_files[0].mf_crc, 0x352441c2);	/* "abc" */
	free(text);
	ck_assert_int_eq(an_manifest_parse("kdt-anon-manifest 1\nregion 1 2\nfile 0644 x 0 /a\n",
	    "m", &back, err), -1);
	ck_assert_msg(strstr(t_errbuf, "m:3: unrecognised") != NULL, "%s",
	    t_errbuf);
	ck_assert_int_eq(an_manifest_parse("kdt-anon-manifest 1\nfile 0644 1 0 /../etc/passwd\n",
	    "m", &back, err), -1);
	ck_assert_int_eq(an_manifest_parse("something else\n", "m", &back,
	    err), -1);
	fclose(err);
}
END_TEST

/* ---- cpio ---- */

static unsigned
t_hex8(const uint8_t *p)
{
	char b[9];

	memcpy(b, p, 8);
	b[8] = '\0';
	return (unsigned)strtoul(b, NULL, 16);
}

START_TEST(test_cpio)
{
	static const char *const names[] = { "lib", "lib/firmware",
	    "lib/firmware/kdt", "lib/firmware/kdt/anon.dof", "TRAILER!!!" };
	struct an_cpio cp;
	size_t off = 0, i;
	unsigned nsz, fsz;

	memset(&cp, 0, sizeof (cp));
	ck_assert_int_eq(an_cpio_dir(&cp, "lib"), 0);
	ck_assert_int_eq(an_cpio_dir(&cp, "lib/firmware"), 0);
	ck_assert_int_eq(an_cpio_dir(&cp, "lib/firmware/kdt"), 0);
	ck_assert_int_eq(an_cpio_file(&cp, "lib/firmware/kdt/anon.dof", 0644,
	    "12345", 5), 0);
	ck_assert_int_eq(an_cpio_finish(&cp), 0);
	for (i = 0; i < 5; i++) {
		size_t m = off;

		ck_assert(off + 110 <= cp.cp_len);
		ck_assert_int_eq(memcmp(cp.cp_buf + m, "070701", 6), 0);
		fsz = t_hex8(cp.cp_buf + m + 54);
		nsz = t_hex8(cp.cp_buf + m + 94);
		ck_assert_uint_eq(nsz, strlen(names[i]) + 1);
		ck_assert_str_eq((char *)cp.cp_buf + m + 110, names[i]);
		off = (off + 110 + nsz + 3) & ~(size_t)3;
		if (i < 3)
			ck_assert_uint_eq(t_hex8(cp.cp_buf + m + 14) & 0170000,
			    S_IFDIR);
		if (i == 3) {
			ck_assert_uint_eq(t_hex8(cp.cp_buf + m + 14),
			    S_IFREG | 0644);
			ck_assert_uint_eq(fsz, 5);
			ck_assert_int_eq(memcmp(cp.cp_buf + off, "12345", 5),
			    0);
		}
		off = (off + fsz + 3) & ~(size_t)3;
	}
	ck_assert_uint_eq(off, cp.cp_len);
	ck_assert_uint_eq(cp.cp_len % 4, 0);
	an_cpio_free(&cp);
}
END_TEST

/* ---- embedded texts ---- */

START_TEST(test_texts)
{
	static const char *const names[] = { "initramfs-tools/hook",
	    "initramfs-tools/init-top" };
	char path[256], *f;
	size_t i;

	for (i = 0; i < sizeof (names) / sizeof (names[0]); i++) {
		snprintf(path, sizeof (path), "boot/%s", names[i]);
		f = t_read(path);
		ck_assert_msg(an_text(names[i]) != NULL, "%s", names[i]);
		ck_assert_msg(strcmp(an_text(names[i]), f) == 0,
		    "boot/%s differs from the text compiled into kdt",
		    names[i]);
		free(f);
	}
}
END_TEST

/* ---- install, replace, remove in a fake root ---- */

static char t_root[64];

static void
t_sh(const char *fmt, const char *a, const char *b)
{
	char cmd[2048];

	snprintf(cmd, sizeof (cmd), fmt, a, b);
	ck_assert_msg(system(cmd) == 0, "%s", cmd);
}

/* A "kdt.ko" whose .modinfo says vermagic=KVER. */
static void
t_fake_ko(const char *path, const char *kver)
{
	char cmd[1024];

	snprintf(cmd, sizeof (cmd),
	    "cd %s && printf 'license=GPL\\000vermagic=%s SMP preempt mod_unload modversions \\000' > mi && "
	    "objcopy -I binary -O elf64-x86-64 --rename-section .data=.modinfo mi %s && rm -f mi",
	    t_root, kver, path);
	ck_assert_msg(system(cmd) == 0, "%s", cmd);
}

static void
t_fake_root(void)
{
	ck_assert_msg(geteuid() == 0, "the install tests chroot: run them as root");
	ck_assert_msg(access("/usr/bin/busybox", X_OK) == 0,
	    "the install tests need a static /usr/bin/busybox as the fake root's /bin/sh");
	strcpy(t_root, "/tmp/kdt-anon-root-XXXXXX");
	ck_assert(mkdtemp(t_root) != NULL);
	t_sh("cd %s && mkdir -p usr/share/initramfs-tools etc/default "
	    "lib/modules/" T_KVER " usr/sbin bin boot/grub && "
	    "touch usr/share/initramfs-tools/init etc/default/grub && "
	    "cp /usr/bin/busybox bin/busybox && ln -s busybox bin/sh%s", t_root,
	    "");
	t_sh("cd %s && for t in update-initramfs update-grub; do "
	    "printf '#!/bin/sh\\necho \"'$t' $*\" >> /calls\\n' > usr/sbin/$t && "
	    "chmod +x usr/sbin/$t; done%s", t_root, "");
	t_fake_ko("kdt.ko", T_KVER);
}

static int
t_install(const char *src, int dry, const char *module, char *outbuf,
    size_t outsz)
{
	struct an_opts ao;
	struct dc_out o;
	char modpath[256];
	FILE *out = fmemopen(outbuf, outsz, "w"), *err = t_err();
	int rv;

	memset(outbuf, 0, outsz);
	snprintf(modpath, sizeof (modpath), "%s/%s", t_root, module);
	memset(&ao, 0, sizeof (ao));
	ao.ao_root = t_root;
	ao.ao_module = modpath;
	ao.ao_dry_run = dry;
	if (src != NULL)
		t_compile(src, &o);
	rv = an_main(&ao, src != NULL ? &o : NULL, out, err);
	fclose(out);
	fclose(err);
	if (src != NULL)
		dc_out_free(&o);
	return rv;
}

static int
t_exists(const char *rel)
{
	char p[512];

	snprintf(p, sizeof (p), "%s%s", t_root, rel);
	return access(p, F_OK) == 0;
}

static const char *
t_path_in_root(const char *rel)
{
	static char p[512];

	snprintf(p, sizeof (p), "%s%s", t_root, rel);
	return p;
}

static char *
t_root_read(const char *rel)
{
	char p[512];

	snprintf(p, sizeof (p), "%s%s", t_root, rel);
	return t_read(p);
}

static const char *const t_files[] = {
	"/var/lib/kdt/anon/anon.dof",
	"/var/lib/kdt/anon/modules/" T_KVER "/kdt.ko",
	"/var/lib/kdt/anon/cmdline",
	"/etc/initramfs-tools/hooks/kdt",
	"/etc/initramfs-tools/scripts/init-top/00kdt",
	"/etc/default/grub.d/kdt.cfg",
	"/var/lib/kdt/anon/manifest",
};
#define T_NFILES	(sizeof (t_files) / sizeof (t_files[0]))

START_TEST(test_install_remove)
{
	static char out[16384];
	char *calls, *m1, *m2, *c1, *c2;
	size_t i;

	t_fake_root();
	/* dry run: a plan, no file */
	ck_assert_msg(t_install("BEGIN { trace(1); }", 1, "kdt.ko", out,
	    sizeof (out)) == 0, "%s%s", out, t_errbuf);
	ck_assert(strstr(out, "would write: ") != NULL);
	ck_assert(strstr(out, "would run: chroot ") != NULL);
	for (i = 0; i < T_NFILES; i++)
		ck_assert_msg(!t_exists(t_files[i]), "%s", t_files[i]);
	ck_assert(!t_exists("/calls"));
	/* install */
	ck_assert_msg(t_install("BEGIN { trace(1); }", 0, "kdt.ko", out,
	    sizeof (out)) == 0, "%s%s", out, t_errbuf);
	for (i = 0; i < T_NFILES; i++)
		ck_assert_msg(t_exists(t_files[i]), "%s missing", t_files[i]);
	calls = t_root_read("/calls");
	ck_assert_str_eq(calls, "update-initramfs -c -k " T_KVER "\nupdate-grub \n");
	free(calls);
	ck_assert(strstr(out, "ran: chroot ") != NULL);
	ck_assert(strstr(out, "next boot: ") != NULL);
	m1 = t_root_read("/var/lib/kdt/anon/manifest");
	c1 = t_root_read("/var/lib/kdt/anon/cmdline");
	/* a second install with another size replaces the first */
	ck_assert_msg(t_install("#pragma D option bufsize=8m\nBEGIN { trace(2); }",
	    0, "kdt.ko", out, sizeof (out)) == 0, "%s%s", out, t_errbuf);
	m2 = t_root_read("/var/lib/kdt/anon/manifest");
	c2 = t_root_read("/var/lib/kdt/anon/cmdline");
	ck_assert_str_ne(m1, m2);
	ck_assert_str_ne(c1, c2);
	/* same address (kept), bigger region */
	*strchr(strchr(c1, '@'), ' ') = '\0';
	*strchr(strchr(c2, '@'), ' ') = '\0';
	ck_assert_str_eq(strchr(c1, '@'), strchr(c2, '@'));
	free(m1);
	free(m2);
	free(c1);
	free(c2);
	/* removal: every file goes, the tools run again */
	ck_assert_msg(t_install(NULL, 0, "kdt.ko", out, sizeof (out)) == 0,
	    "%s%s", out, t_errbuf);
	for (i = 0; i < T_NFILES; i++)
		ck_assert_msg(!t_exists(t_files[i]), "%s left", t_files[i]);
	ck_assert(!t_exists("/var/lib/kdt"));
	ck_assert(t_exists("/etc/initramfs-tools/hooks"));
	calls = t_root_read("/calls");
	ck_assert_str_eq(calls, "update-initramfs -c -k " T_KVER "\nupdate-grub \n"
	    "update-initramfs -c -k " T_KVER "\nupdate-grub \n"
	    "update-initramfs -c -k " T_KVER "\nupdate-grub \n");
	free(calls);
	ck_assert(strstr(out, "is removed") != NULL);
	/* nothing installed: says so */
	ck_assert_int_eq(t_install(NULL, 0, "kdt.ko", out, sizeof (out)), 0);
	ck_assert(strstr(out, "nothing to remove") != NULL);
	t_sh("rm -rf %s%s", t_root, "");
}
END_TEST

/*
 * A root with Debian's kdump-tools: kdt -A adds the kdump hook (the
 * script and the systemd drop-in, boot/kdump/) and rebuilds the capture
 * initramfs with kdump-tools' own postinst script (stand-in here, which
 * records its call), without reloading anything (a chroot); removal
 * takes the hook away and rebuilds again.
 */
START_TEST(test_install_kdump)
{
	static char out[16384];
	static const char *const kfiles[] = {
		"/usr/lib/kdt/kdt-kdump-save",
		"/etc/systemd/system/kdump-tools-dump.service.d/kdt.conf",
	};
	char *calls;
	size_t i;

	t_fake_root();
	t_sh("cd %s && mkdir -p lib/systemd/system etc/kernel/postinst.d "
	    "var/lib/kdump && touch lib/systemd/system/kdump-tools-dump.service "
	    "var/lib/kdump/initrd.img-" T_KVER " && "
	    "printf '#!/bin/sh\nexit 0\n' > usr/sbin/kdump-config && "
	    "printf '#!/bin/sh\necho \"kdump-tools-postinst $*\" >> /calls\n' "
	    "> etc/kernel/postinst.d/kdump-tools && "
	    "chmod +x usr/sbin/kdump-config etc/kernel/postinst.d/kdump-tools%s",
	    t_root, "");
	ck_assert_msg(t_install("BEGIN { trace(1); }", 0, "kdt.ko", out,
	    sizeof (out)) == 0, "%s%s", out, t_errbuf);
	ck_assert_msg(strstr(out, "integrations: initramfs-tools kdump-tools grub") != NULL,
	    "%s", out);
	for (i = 0; i < 2; i++)
		ck_assert_msg(t_exists(kfiles[i]), "%s missing\n%s", kfiles[i],
		    out);
	calls = t_root_read("/calls");
	ck_assert_str_eq(calls, "update-initramfs -c -k " T_KVER "\nupdate-grub \n"
	    "kdump-tools-postinst " T_KVER "\n");
	free(calls);
	ck_assert_msg(strstr(out, "ran: chroot ") != NULL &&
	    strstr(out, " kdt-kdump-setup regen / --no-reload: exit status 0") != NULL,
	    "%s", out);
	/* the hook is the embedded text, executable */
	calls = t_root_read("/usr/lib/kdt/kdt-kdump-save");
	ck_assert_str_eq(calls, an_text("kdump/kdt-kdump-save"));
	free(calls);
	ck_assert(access(t_path_in_root("/usr/lib/kdt/kdt-kdump-save"), X_OK) == 0);
	/* removal */
	ck_assert_msg(t_install(NULL, 0, "kdt.ko", out, sizeof (out)) == 0,
	    "%s%s", out, t_errbuf);
	for (i = 0; i < 2; i++)
		ck_assert_msg(!t_exists(kfiles[i]), "%s left", kfiles[i]);
	calls = t_root_read("/calls");
	ck_assert_msg(strstr(calls, "kdump-tools-postinst " T_KVER "\n"
	    "update-initramfs") != NULL || strstr(strstr(calls,
	    "kdump-tools-postinst") + 1, "kdump-tools-postinst") != NULL,
	    "%s", calls);
	free(calls);
	t_sh("rm -rf %s%s", t_root, "");
}
END_TEST

/*
 * A Fedora/RHEL-like root: dracut builds the initramfs and kdumpctl runs
 * kdump (a stand-in that records its calls).  kdt -A installs the
 * post.d script kdumpctl's capture initramfs runs after saving the
 * vmcore (the embedded kdt-kdump-post, executable) and, this being a
 * chroot, runs kdt-kdump-setup without reloading, which leaves kdumpctl
 * alone (it prints how to rebuild its initramfs); removal takes the
 * script away.  The script itself runs in a capture
 * kernel on kdumpctl's directory layout in tst.extract-kdump-dir.
 */
START_TEST(test_install_kdumpctl)
{
	static char out[16384];
	char *calls;

	t_fake_root();
	t_sh("cd %s && rm -f usr/share/initramfs-tools/init usr/sbin/update-initramfs && "
	    "mkdir -p usr/lib/dracut usr/bin && "
	    "touch usr/lib/dracut/dracut-functions.sh && "
	    "printf '#!/bin/sh\necho \"dracut $*\" >> /calls\n' > usr/sbin/dracut && "
	    "printf '#!/bin/sh\necho \"kdumpctl $*\" >> /calls\n' > usr/bin/kdumpctl && "
	    "chmod +x usr/sbin/dracut usr/bin/kdumpctl%s", t_root, "");
	t_sh("mkdir -p %s && cp boot/dracut/module-setup.sh "
	    "boot/dracut/kdt-load.sh boot/dracut/kdt-load.service %s",
	    t_path_in_root(AN_DRACUT_DIR), t_path_in_root(AN_DRACUT_DIR));
	ck_assert_msg(t_install("BEGIN { trace(1); }", 0, "kdt.ko", out,
	    sizeof (out)) == 0, "%s%s", out, t_errbuf);
	ck_assert_msg(strstr(out, "integrations: dracut kdumpctl grub") != NULL,
	    "%s", out);
	calls = t_root_read("/etc/kdump/post.d/kdt-region");
	ck_assert_str_eq(calls, an_text("kdump/kdt-kdump-post"));
	free(calls);
	ck_assert(access(t_path_in_root("/etc/kdump/post.d/kdt-region"),
	    X_OK) == 0);
	ck_assert_msg(strstr(out, " kdt-kdump-setup regen / --no-reload: exit status 0") != NULL,
	    "%s", out);
	calls = t_root_read("/calls");
	ck_assert_msg(strstr(calls, "kdumpctl") == NULL, "%s", calls);
	free(calls);
	/* removal */
	ck_assert_msg(t_install(NULL, 0, "kdt.ko", out, sizeof (out)) == 0,
	    "%s%s", out, t_errbuf);
	ck_assert(!t_exists("/etc/kdump/post.d/kdt-region"));
	ck_assert(!t_exists("/var/lib/kdt"));
	t_sh("rm -rf %s%s", t_root, "");
}
END_TEST

/*
 * A dracut root (dracut-functions.sh and a stand-in dracut that records
 * its call, no initramfs-tools).  The dracut module 90kdt is kdt's own
 * ("make install" puts boot/dracut/ there): kdt -A refuses a root without
 * it, writes only the state with it and runs dracut -f, and its removal
 * leaves the module.  An older kdt -A wrote 90kdt itself and listed it in
 * its manifest: while those are its bytes, kdt -A still refuses (they
 * are not the installed module) and removal takes them; once the
 * installed module replaced them, removal leaves them without a failure.
 */
static const char *const t_dracut[] = { "module-setup.sh", "kdt-load.sh",
    "kdt-load.service" };

/* Add 90kdt files with the bytes "text" to the root's manifest. */
static void
t_old_manifest(const char *text)
{
	struct an_manifest mn;
	char path[256], *m;
	FILE *err = t_err();
	size_t i;

	m = t_root_read("/var/lib/kdt/anon/manifest");
	ck_assert_int_eq(an_manifest_parse(m, "manifest", &mn, err), 0);
	free(m);
	for (i = 0; i < 3; i++) {
		snprintf(path, sizeof (path), AN_DRACUT_DIR "/%s", t_dracut[i]);
		ck_assert_int_eq(an_manifest_add(&mn, path, 0755, text,
		    strlen(text), err), 0);
	}
	fclose(err);
	m = an_manifest_format(&mn);
	ck_assert_ptr_nonnull(m);
	ck_assert_int_eq(an_file_write(t_path_in_root(AN_MANIFEST), m,
	    strlen(m), 0644, stderr), 0);
	free(m);
}

START_TEST(test_install_dracut)
{
	static char out[16384];
	char *calls, *f, *m, rel[256];
	size_t i;

	t_fake_root();
	t_sh("cd %s && rm -f usr/share/initramfs-tools/init usr/sbin/update-initramfs && "
	    "mkdir -p usr/lib/dracut && touch usr/lib/dracut/dracut-functions.sh && "
	    "printf '#!/bin/sh\necho \"dracut $*\" >> /calls\n' > usr/sbin/dracut && "
	    "chmod +x usr/sbin/dracut%s", t_root, "");
	/* no 90kdt: refused before anything is written */
	ck_assert_int_eq(t_install("BEGIN { trace(1); }", 0, "kdt.ko", out,
	    sizeof (out)), 1);
	ck_assert_msg(strstr(t_errbuf, "builds its initramfs with dracut, but kdt's dracut module is not installed (no ") != NULL &&
	    strstr(t_errbuf, AN_DRACUT_SETUP ", or only the copy an older kdt -A wrote)") != NULL,
	    "%s", t_errbuf);
	ck_assert(!t_exists("/var/lib/kdt"));
	ck_assert(!t_exists("/calls"));
	/* installed as make install does: kdt -A writes the state only */
	t_sh("mkdir -p %s && cp boot/dracut/module-setup.sh "
	    "boot/dracut/kdt-load.sh boot/dracut/kdt-load.service %s",
	    t_path_in_root(AN_DRACUT_DIR), t_path_in_root(AN_DRACUT_DIR));
	ck_assert_msg(t_install("BEGIN { trace(1); }", 0, "kdt.ko", out,
	    sizeof (out)) == 0, "%s%s", out, t_errbuf);
	ck_assert_msg(strstr(out, "integrations: dracut grub") != NULL &&
	    strstr(out, "dracut module: " AN_DRACUT_DIR " (installed with kdt") != NULL,
	    "%s", out);
	ck_assert_msg(strstr(out, "modules.d/90kdt/") == NULL, "%s", out);
	ck_assert(t_exists("/var/lib/kdt/anon/anon.dof"));
	ck_assert(t_exists("/var/lib/kdt/anon/modules/" T_KVER "/kdt.ko"));
	m = t_root_read(AN_MANIFEST);
	ck_assert_msg(strstr(m, "dracut") == NULL, "%s", m);
	free(m);
	calls = t_root_read("/calls");
	ck_assert_str_eq(calls, "dracut -f --kver " T_KVER "\nupdate-grub \n");
	free(calls);
	/* removal: the state goes, the module stays as installed */
	ck_assert_msg(t_install(NULL, 0, "kdt.ko", out, sizeof (out)) == 0,
	    "%s%s", out, t_errbuf);
	ck_assert(!t_exists("/var/lib/kdt"));
	for (i = 0; i < 3; i++) {
		snprintf(rel, sizeof (rel), "boot/dracut/%s", t_dracut[i]);
		f = t_read(rel);
		snprintf(rel, sizeof (rel), AN_DRACUT_DIR "/%s", t_dracut[i]);
		m = t_root_read(rel);
		ck_assert_msg(strcmp(f, m) == 0, "%s changed", rel);
		free(f);
		free(m);
	}
	/* an older kdt -A's 90kdt, its bytes still there: refused, removed */
	ck_assert_int_eq(t_install("BEGIN { trace(1); }", 0, "kdt.ko", out,
	    sizeof (out)), 0);
	t_old_manifest("# 90kdt of an older kdt -A\n");
	t_sh("cd %s && for f in module-setup.sh kdt-load.sh kdt-load.service; do "
	    "echo '# 90kdt of an older kdt -A' > %s/$f; done", t_root,
	    t_path_in_root(AN_DRACUT_DIR));
	ck_assert_int_eq(t_install("BEGIN { trace(2); }", 0, "kdt.ko", out,
	    sizeof (out)), 1);
	ck_assert_msg(strstr(t_errbuf, "or only the copy an older kdt -A wrote") != NULL,
	    "%s", t_errbuf);
	ck_assert_msg(t_install(NULL, 0, "kdt.ko", out, sizeof (out)) == 0,
	    "%s%s", out, t_errbuf);
	ck_assert(!t_exists(AN_DRACUT_SETUP));
	ck_assert(!t_exists(AN_DRACUT_DIR));
	ck_assert(!t_exists("/var/lib/kdt"));
	/* ... and replaced by the installed module: left, exit status 0 */
	t_sh("mkdir -p %s && cp boot/dracut/module-setup.sh "
	    "boot/dracut/kdt-load.sh boot/dracut/kdt-load.service %s",
	    t_path_in_root(AN_DRACUT_DIR), t_path_in_root(AN_DRACUT_DIR));
	ck_assert_int_eq(t_install("BEGIN { trace(1); }", 0, "kdt.ko", out,
	    sizeof (out)), 0);
	t_old_manifest("# 90kdt of an older kdt -A\n");
	ck_assert_msg(t_install(NULL, 0, "kdt.ko", out, sizeof (out)) == 0,
	    "%s%s", out, t_errbuf);
	ck_assert_msg(strstr(out, "left in place: ") != NULL &&
	    strstr(out, AN_DRACUT_SETUP " (now kdt's installed dracut module)") != NULL,
	    "%s", out);
	ck_assert_str_eq(t_errbuf, "");
	ck_assert(t_exists(AN_DRACUT_SETUP));
	ck_assert(t_exists(AN_DRACUT_DIR "/kdt-load.sh"));
	ck_assert(!t_exists("/var/lib/kdt"));
	t_sh("rm -rf %s%s", t_root, "");
}
END_TEST

START_TEST(test_install_refusals)
{
	static char out[16384];

	t_fake_root();
	/* a kdt.ko for another kernel */
	t_fake_ko("other.ko", "6.1.0-99-amd64");
	ck_assert_int_eq(t_install("BEGIN { trace(1); }", 0, "other.ko", out,
	    sizeof (out)), 1);
	ck_assert_msg(strstr(t_errbuf, "built for kernel 6.1.0-99-amd64, which is not installed") != NULL,
	    "%s", t_errbuf);
	/* an edited file is left in place on removal, exit status 1 */
	ck_assert_int_eq(t_install("BEGIN { trace(1); }", 0, "kdt.ko", out,
	    sizeof (out)), 0);
	t_sh("echo '# mine' >> %s/etc/default/grub.d/kdt.cfg%s", t_root, "");
	ck_assert_int_eq(t_install(NULL, 0, "kdt.ko", out, sizeof (out)), 1);
	ck_assert_msg(strstr(t_errbuf, "kdt.cfg was changed since kdt -A wrote it") != NULL,
	    "%s", t_errbuf);
	ck_assert(t_exists("/etc/default/grub.d/kdt.cfg"));
	ck_assert(!t_exists("/var/lib/kdt/anon/anon.dof"));
	/* a file of ours that no manifest lists is not overwritten */
	t_sh("rm -f %s/var/lib/kdt/anon/manifest%s", t_root, "");
	ck_assert_int_eq(t_install("BEGIN { trace(1); }", 0, "kdt.ko", out,
	    sizeof (out)), 1);
	ck_assert_msg(strstr(t_errbuf, "exists and was not written by kdt -A") != NULL,
	    "%s", t_errbuf);
	/* without --module: every kernel of the root that has a kdt.ko */
	t_sh("cd %s && mkdir -p lib/modules/" T_KVER "/extra lib/modules/6.1.0-57-amd64 && cp kdt.ko lib/modules/" T_KVER "/extra/%s",
	    t_root, "");
	{
		struct an_opts ao;
		struct an_kernel ks[AN_MAXKERNELS];
		uint32_t n;
		FILE *err = t_err();

		memset(&ao, 0, sizeof (ao));
		ao.ao_root = t_root;
		ck_assert_msg(an_kernels_find(&ao, ks, &n, err) == 0, "%s",
		    t_errbuf);
		ck_assert_uint_eq(n, 1);
		ck_assert_str_eq(ks[0].ak_kver, T_KVER);
		ck_assert(strstr(ks[0].ak_module, "/lib/modules/" T_KVER "/extra/kdt.ko") != NULL);
		fclose(err);
	}
	/* a missing tool: named, with the command, exit status 1 */
	t_sh("rm -f %s/etc/default/grub.d/kdt.cfg %s/usr/sbin/update-grub",
	    t_root, t_root);
	ck_assert_int_eq(t_install("BEGIN { trace(1); }", 0, "kdt.ko", out,
	    sizeof (out)), 1);
	ck_assert_msg(strstr(out, "NOT regenerated: grub.cfg") != NULL, "%s",
	    out);
	/* a grub-mkconfig that does not read /etc/default/grub.d: grubby */
	t_sh("cd %s && rm -rf var/lib/kdt etc/initramfs-tools etc/default/grub.d && printf '#!/bin/sh\\n. /etc/default/grub\\n' > usr/sbin/grub-mkconfig && chmod +x usr/sbin/grub-mkconfig%s",
	    t_root, "");
	ck_assert_int_eq(t_install("BEGIN { trace(1); }", 0, "kdt.ko", out,
	    sizeof (out)), 1);
	ck_assert_msg(strstr(out, "does not read /etc/default/grub.d") != NULL &&
	    strstr(out, "grubby --update-kernel=ALL --args='kdt.anon=1 ") != NULL,
	    "%s", out);
	ck_assert(!t_exists("/etc/default/grub.d/kdt.cfg"));
	t_sh("rm -rf %s%s", t_root, "");
}
END_TEST

/* ---- -o DIR ---- */

/*
 * kdt -A killed at every point of an install: a child installs under
 * RLIMIT_FSIZE, so the write that crosses the limit kills it with SIGXFSZ
 * (a real kill, in the middle of a temporary file, before or after any
 * rename); limits from 1 byte to more than the whole install cover every
 * step, the first install and one replacing another.  Afterwards
 * "kdt -A" must leave nothing of kdt's behind (no file, no temporary
 * file), and "kdt -A -s" must install cleanly again.
 */
static int
t_install_limited(const char *src, rlim_t limit)
{
	static char out[16384];
	struct rlimit rl = { limit, limit };
	char modpath[256];
	struct an_opts ao;
	struct dc_out o;
	pid_t pid;
	int st;

	/*
	 * Compiled here: the child must not call check's assertions, whose
	 * bookkeeping file would be the first write to cross the limit.
	 */
	t_compile(src, &o);
	snprintf(modpath, sizeof (modpath), "%s/kdt.ko", t_root);
	memset(&ao, 0, sizeof (ao));
	ao.ao_root = t_root;
	ao.ao_module = modpath;
	fflush(NULL);
	pid = fork();
	ck_assert(pid >= 0);
	if (pid == 0) {
		FILE *fo = fmemopen(out, sizeof (out), "w");
		FILE *fe = fmemopen(t_errbuf, sizeof (t_errbuf), "w");

		signal(SIGXFSZ, SIG_DFL);
		setrlimit(RLIMIT_FSIZE, &rl);
		_exit(an_main(&ao, &o, fo, fe));
	}
	ck_assert(waitpid(pid, &st, 0) == pid);
	dc_out_free(&o);
	return WIFSIGNALED(st) ? -WTERMSIG(st) : WEXITSTATUS(st);
}

static int
t_leftovers(void)
{
	char cmd[1024];

	snprintf(cmd, sizeof (cmd),
	    "cd %s && test -z \"$(find var etc usr/lib -name '*kdt*' 2>/dev/null)\"",
	    t_root);
	return system(cmd) == 0;
}

START_TEST(test_install_killed)
{
	static char out[16384];
	static const rlim_t limits[] = { 1, 100, 300, 600, 900, 1200, 1600,
	    2000, 2600, 3200, 4000, 6000, 9000, 16000, 64000 };
	const char *v1 = "BEGIN { trace(1); }";
	const char *v2 = "#pragma D option bufsize=8m\nBEGIN { trace(2); }";
	uint32_t i, r, killed = 0, whole = 0;
	int rv;

	for (r = 0; r < 2; r++) {
		for (i = 0; i < sizeof (limits) / sizeof (limits[0]); i++) {
			t_fake_root();
			/* r == 1: the killed install replaces a whole one */
			if (r == 1)
				ck_assert_msg(t_install(v1, 0, "kdt.ko", out,
				    sizeof (out)) == 0, "%s%s", out, t_errbuf);
			rv = t_install_limited(v2, limits[i]);
			if (rv == -SIGXFSZ)
				killed++;
			else if (rv == 0)
				whole++;
			/* removal after the kill: nothing of kdt's left */
			ck_assert_msg(t_install(NULL, 0, "kdt.ko", out,
			    sizeof (out)) == 0,
			    "limit %u, %s: removal failed: %s%s",
			    (unsigned)limits[i], r ? "replacing" : "first",
			    out, t_errbuf);
			ck_assert_msg(t_leftovers(),
			    "limit %u, %s: files left after removal: %s",
			    (unsigned)limits[i], r ? "replacing" : "first", out);
			/* and a killed install does not block the next one */
			if (r == 1)
				ck_assert_msg(t_install(v1, 0, "kdt.ko", out,
				    sizeof (out)) == 0, "%s%s", out, t_errbuf);
			rv = t_install_limited(v2, limits[i]);
			ck_assert_msg(t_install(v2, 0, "kdt.ko", out,
			    sizeof (out)) == 0,
			    "limit %u: install after a killed one failed: %s%s",
			    (unsigned)limits[i], out, t_errbuf);
			ck_assert_msg(t_install(NULL, 0, "kdt.ko", out,
			    sizeof (out)) == 0, "%s%s", out, t_errbuf);
			ck_assert(t_leftovers());
			t_sh("rm -rf %s%s", t_root, "");
		}
	}
	/* the limits did kill installs at many points, and let some finish */
	ck_assert_msg(killed >= 10, "only %u installs were killed", killed);
	ck_assert_msg(whole >= 1, "no install finished under the largest limit");
}
END_TEST

/* dir (a mkdtemp template) made and t_root; a fake kdt.ko there, at path. */
static void
t_ko_dir(char *dir, char *path, size_t pathsz)
{
	ck_assert(mkdtemp(dir) != NULL);
	snprintf(t_root, sizeof (t_root), "%s", dir);
	t_fake_ko("kdt.ko", T_KVER);
	snprintf(path, pathsz, "%s/kdt.ko", dir);
}

START_TEST(test_outdir)
{
	static char outbuf[8192];
	char dir[] = "/tmp/kdt-anon-out-XXXXXX", path[256], *s;
	struct an_opts ao;
	struct dc_out o;
	FILE *out, *err = t_err();
	size_t len;

	t_ko_dir(dir, path, sizeof (path));
	memset(&ao, 0, sizeof (ao));
	ao.ao_module = path;
	ao.ao_outdir = dir;
	t_compile("#pragma D option regionaddr=0x20000000\nBEGIN { trace(1); }", &o);
	out = fmemopen(outbuf, sizeof (outbuf), "w");
	ck_assert_msg(an_main(&ao, &o, out, err) == 0, "%s", t_errbuf);
	fclose(out);
	snprintf(path, sizeof (path), "%s/cmdline", dir);
	s = t_read(path);
	ck_assert_msg(strstr(s, "@0x20000000 memmap=") != NULL &&
	    strstr(s, "$0x20000000\n") != NULL, "%s", s);
	free(s);
	snprintf(path, sizeof (path), "%s/anon.trailer", dir);
	ck_assert_int_eq(an_file_read(path, &s, &len), 0);
	ck_assert_uint_eq(len, o.dco_dofsz + 32);
	ck_assert_int_eq(memcmp(s, o.dco_dof, o.dco_dofsz), 0);
	ck_assert_int_eq(memcmp(s + len - 8, "#KDTDOF\n", 8), 0);
	free(s);
	snprintf(path, sizeof (path), "%s/anon.cpio", dir);
	ck_assert_int_eq(an_file_read(path, &s, &len), 0);
	ck_assert(memmem(s, len, "lib/firmware/kdt/anon.dof", 26) != NULL);
	ck_assert(memmem(s, len, "lib/modules/kdt.ko", 19) != NULL);
	ck_assert(memmem(s, len, o.dco_dof, o.dco_dofsz) != NULL);
	free(s);
	snprintf(path, sizeof (path), "%s/grub.cfg", dir);
	s = t_read(path);
	ck_assert(strstr(s, "memmap=") != NULL && strstr(s, "\\$0x20000000") != NULL);
	free(s);
	snprintf(path, sizeof (path), "%s/README.txt", dir);
	ck_assert_int_eq(access(path, R_OK), 0);
	/* no program: usage */
	ck_assert_int_eq(an_main(&ao, NULL, stdout, err), 2);
	dc_out_free(&o);
	fclose(err);
	t_sh("rm -rf %s%s", dir, "");
}
END_TEST

/*
 * A kdt.ko with debug sections: kdt -A says how much of it they are
 * (every boot reads them); a kdt.ko without them, nothing.
 */
START_TEST(test_module_debug)
{
	static char outbuf[8192];
	char dir[] = "/tmp/kdt-anon-dbg-XXXXXX", path[256], odir[300];
	uint64_t dbg, size;
	struct an_opts ao;
	struct dc_out o;
	FILE *out, *err = t_err();
	int i;

	t_ko_dir(dir, path, sizeof (path));
	ck_assert_int_eq(an_module_debug(path, &dbg, &size), 0);
	ck_assert_uint_eq(dbg, 0);
	ck_assert_uint_gt(size, 0);
	t_compile("#pragma D option regionaddr=0x20000000\nBEGIN { trace(1); }", &o);
	for (i = 0; i < 2; i++) {
		if (i == 1)	/* 200,000 + 100,000 bytes of debug sections */
			t_sh("cd %s && head -c 200000 /dev/zero > a && "
			    "head -c 100000 /dev/zero > b && objcopy "
			    "--add-section .debug_info=a "
			    "--add-section .rela.debug_info=b kdt.ko && "
			    "rm a b%s", dir, "");
		memset(&ao, 0, sizeof (ao));
		ao.ao_module = path;
		snprintf(odir, sizeof (odir), "%s/out%d", dir, i);
		ao.ao_outdir = odir;
		out = fmemopen(outbuf, sizeof (outbuf), "w");
		ck_assert_msg(an_main(&ao, &o, out, err) == 0, "%s", t_errbuf);
		fclose(out);
		ck_assert_msg((strstr(outbuf, "are debug sections") != NULL) == i,
		    "%s", outbuf);
	}
	ck_assert_int_eq(an_module_debug(path, &dbg, &size), 0);
	ck_assert_uint_eq(dbg, 300000);
	ck_assert_msg(strstr(outbuf, "  note: 0.3 MiB of kdt.ko's 0.3 MiB are debug sections, which the initramfs carries and every boot reads before kdt.ko loads;") != NULL,
	    "%s", outbuf);
	/* not ELF */
	snprintf(path, sizeof (path), "%s/out0/cmdline", dir);
	ck_assert_int_eq(an_module_debug(path, &dbg, &size), -1);
	dc_out_free(&o);
	fclose(err);
	t_sh("rm -rf %s%s", dir, "");
}
END_TEST

static Suite *
anon_suite(void)
{
	Suite *s = suite_create("anon");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_cpulist);
	tcase_add_test(tc, test_boot_tinit);
	tcase_add_test(tc, test_size_default);
	tcase_add_test(tc, test_size_options);
	tcase_add_test(tc, test_place_host);
	tcase_add_test(tc, test_place_qemu);
	tcase_add_test(tc, test_place_reserved);
	tcase_add_test(tc, test_place_rules);
	tcase_add_test(tc, test_words);
	tcase_add_test(tc, test_dropin);
	tcase_add_test(tc, test_manifest);
	tcase_add_test(tc, test_cpio);
	tcase_add_test(tc, test_texts);
	tcase_add_test(tc, test_install_remove);
	tcase_add_test(tc, test_install_kdump);
	tcase_add_test(tc, test_install_kdumpctl);
	tcase_add_test(tc, test_install_dracut);
	tcase_add_test(tc, test_install_refusals);
	tcase_add_test(tc, test_install_killed);
	tcase_add_test(tc, test_outdir);
	tcase_add_test(tc, test_module_debug);
	suite_add_tcase(s, tc);
	return s;
}

KT_MAIN(anon_suite)
