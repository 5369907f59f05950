/*
 * an_out.c -- kdt -A -o DIR: the boot artifacts, without touching the
 * system, for custom boot setups, image builders and CI.
 *
 *	DIR/anon.dof      the enabling (DOF)
 *	DIR/cmdline       the kernel words, one line (an_boot.c)
 *	DIR/anon.ksym     kernel symbol hints (common/ksh.h, an_ksym.c): the
 *	                  fbt functions' offsets in the vmlinux given with
 *	                  --btf (or $KDT_BTF), when it is an ELF file, else
 *	                  in the running kernel's /proc/kallsyms when the
 *	                  target is the running kernel (no --module for
 *	                  another); kdt.ko uses them only on that very kernel
 *	DIR/anon.cpio     an initrd fragment (newc, an_cpio.c) with
 *	                  lib/firmware/kdt/anon.dof (and anon.ksym, when
 *	                  written) and, when a kdt.ko is
 *	                  given (--module) or found for the running kernel,
 *	                  lib/modules/kdt.ko: load it as a second initrd
 *	DIR/anon.trailer  the initrd trailer (common/itrl.h, written by
 *	                  boot/'s bt_trailer_write()): "cat initrd.img
 *	                  anon.trailer > initrd-kdt.img" for built-in mode
 *	DIR/grub.cfg      a menuentry with the same words as the GRUB drop-in,
 *	                  booting /boot/vmlinuz with the initrds
 *	                  /boot/initrd.img and /boot/anon.cpio
 *	DIR/README.txt    what these are
 *
 * The target machine is not this one, so its /proc/iomem is unknown: the
 * address is -x regionaddr, else the compiler's default (256 MiB, which
 * every machine with 512 MiB or more has as RAM); the size is computed as
 * for an install, for this machine's CPU count unless -x regionsize says
 * otherwise.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/utsname.h>

#include "anon/an_impl.h"
#include "boot/bt.h"

static const char an_readme[] =
"kdt anonymous enabling: boot artifacts written by \"kdt -A -o DIR\"\n"
"\n"
"anon.dof      the compiled enabling (DOF).\n"
"cmdline       the kernel command-line words the enabling needs:\n"
"              kdt.anon=1 kdt.region=SIZE@ADDR memmap=SIZE$ADDR\n"
"              (in grub.cfg the '$' must be written \\$ or quoted).\n"
"anon.ksym     kernel symbol hints (written when --btf names a vmlinux,\n"
"              or from /proc/kallsyms when the target is this kernel):\n"
"              where the probed functions are in that kernel, so that\n"
"              kdt.ko need not search kallsyms for them at boot; used\n"
"              only when the booted kernel has the same build id.\n"
"anon.cpio     an initrd fragment (newc cpio) holding\n"
"              lib/firmware/kdt/anon.dof, lib/firmware/kdt/anon.ksym\n"
"              when written, (and lib/modules/kdt.ko when a\n"
"              kdt.ko was given or found).  Load it as a SECOND initrd\n"
"              after the distribution's: GRUB \"initrd /initrd.img\n"
"              /anon.cpio\"; the kernel unpacks both, and kdt.ko (loaded\n"
"              first by the initramfs) reads the DOF with\n"
"              request_firmware(\"kdt/anon.dof\").\n"
"anon.trailer  the DOF as an initrd trailer (built-in mode, a kernel\n"
"              with kdt compiled in): cat initrd.img anon.trailer >\n"
"              initrd-kdt.img, or use kdt-initrd add.\n"
"grub.cfg      a GRUB menuentry with the same words as kdt -A's GRUB\n"
"              drop-in; it boots /boot/vmlinuz with the initrds\n"
"              /boot/initrd.img and /boot/anon.cpio: put the files there\n"
"              or edit the linux and initrd lines.\n"
"\n"
"After the boot, \"kdt -a\" prints what was traced.\n";

static int
an_out_file(const char *dir, const char *name, const void *data,
    size_t len, FILE *out, FILE *err)
{
	char path[AN_PATHMAX];

	snprintf(path, sizeof (path), "%s/%s", dir, name);
	if (an_file_write(path, data, len, 0644, err) != 0)
		return -1;
	fprintf(out, "wrote: %s (%zu bytes)\n", path, len);
	return 0;
}

/* The kdt.ko for the fragment: --module, else the running kernel's. */
static int
an_out_module(const struct an_opts *ao, char **buf, size_t *len,
    char *src, size_t srcsz, FILE *err)
{
	struct an_kernel k;
	uint32_t n = 0;
	FILE *null;

	*buf = NULL;
	*len = 0;
	if (ao->ao_module == NULL) {
		/* quietly: a fragment without kdt.ko is fine */
		null = fopen("/dev/null", "w");
		if (null == NULL || an_kernels_find(ao, &k, &n, null) != 0)
			n = 0;
		if (null != NULL)
			fclose(null);
		if (n == 0)
			return 0;
		snprintf(src, srcsz, "%s", k.ak_module);
	} else {
		char kv[64];

		if (an_module_kver(ao->ao_module, kv, sizeof (kv), err) != 0)
			return -1;
		snprintf(src, srcsz, "%s", ao->ao_module);
	}
	if (an_file_read(src, buf, len) != 0) {
		fprintf(err, "kdt: cannot read %s: %s\n", src,
		    strerror(errno));
		return -1;
	}
	return 0;
}

static int
an_out_cpio(struct an_plan *ap, const uint8_t *ksh, size_t kshlen,
    FILE *out, FILE *err)
{
	const struct dc_out *o = ap->ap_o;
	struct an_cpio cp;
	char src[AN_PATHMAX];
	char *ko;
	size_t kolen;
	int rv = -1;

	if (an_out_module(ap->ap_ao, &ko, &kolen, src, sizeof (src),
	    err) != 0)
		return -1;
	memset(&cp, 0, sizeof (cp));
	if (an_cpio_dir(&cp, "lib") != 0 ||
	    an_cpio_dir(&cp, "lib/firmware") != 0 ||
	    an_cpio_dir(&cp, "lib/firmware/kdt") != 0 ||
	    an_cpio_file(&cp, "lib/firmware/kdt/anon.dof", 0644, o->dco_dof,
	    o->dco_dofsz) != 0 ||
	    (ksh != NULL && an_cpio_file(&cp, "lib/firmware/kdt/anon.ksym",
	    0644, ksh, kshlen) != 0) ||
	    (ko != NULL && (an_cpio_dir(&cp, "lib/modules") != 0 ||
	    an_cpio_file(&cp, "lib/modules/kdt.ko", 0644, ko, kolen) != 0)) ||
	    an_cpio_finish(&cp) != 0) {
		fprintf(err, "kdt: out of memory building anon.cpio\n");
		goto out;
	}
	if (an_out_file(ap->ap_ao->ao_outdir, "anon.cpio", cp.cp_buf,
	    cp.cp_len, out, err) != 0)
		goto out;
	if (ko != NULL) {
		fprintf(out, "  anon.cpio carries kdt.ko from %s\n", src);
		an_module_note(out, src);
	} else
		fprintf(out, "  anon.cpio carries no kdt.ko (none given with --module or found for the running kernel)\n");
	rv = 0;
out:
	free(ko);
	an_cpio_free(&cp);
	return rv;
}

int
an_out_write(struct an_plan *ap, FILE *out, FILE *err)
{
	const char *dir = ap->ap_ao->ao_outdir;
	const struct dc_out *o = ap->ap_o;
	char words[256], path[AN_PATHMAX], *s, why[512], kver[64];
	struct utsname u;
	uint8_t *ksh = NULL;
	size_t kshlen = 0;
	uint32_t nk;
	int rv;

	if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
		fprintf(err, "kdt: cannot create directory %s: %s\n", dir,
		    strerror(errno));
		return 1;
	}
	an_boot_words(words, sizeof (words), ap->ap_size.as_size, ap->ap_addr,
	    AN_Q_PLAIN);
	strcat(words, "\n");
	/* kernel symbol hints: optional, the boot searches kallsyms without */
	if (ap->ap_ao->ao_module == NULL ? uname(&u) != 0 :
	    an_module_kver(ap->ap_ao->ao_module, kver, sizeof (kver),
	    err) != 0)
		kver[0] = '\0';
	else if (ap->ap_ao->ao_module == NULL)
		snprintf(kver, sizeof (kver), "%.63s", u.release);
	rv = an_ksym_build(o, ap->ap_ao->ao_vmlinux, kver[0] ? kver : NULL,
	    &ksh, &kshlen, &nk, why, sizeof (why));
	if (rv < 0)
		fprintf(err, "kdt: note: no anon.ksym (kernel symbol hints): %s\n",
		    why);
	else if (rv == 0)
		fprintf(out, "  no anon.ksym (kernel symbol hints): %s\n", why);
	if (an_out_file(dir, "anon.dof", o->dco_dof, o->dco_dofsz, out,
	    err) != 0 ||
	    an_out_file(dir, "cmdline", words, strlen(words), out, err) != 0 ||
	    (ksh != NULL && an_out_file(dir, "anon.ksym", ksh, kshlen, out,
	    err) != 0) ||
	    an_out_cpio(ap, ksh, kshlen, out, err) != 0) {
		free(ksh);
		return 1;
	}
	if (ksh != NULL)
		fprintf(out, "  anon.ksym resolves %u fbt function names, %s\n",
		    nk, why);
	free(ksh);
	snprintf(path, sizeof (path), "%s/anon.trailer", dir);
	if (bt_trailer_write(path, o->dco_dof, o->dco_dofsz, err) != 0)
		return 1;
	fprintf(out, "wrote: %s (%zu bytes)\n", path,
	    o->dco_dofsz + ITRL_FOOTSZ);
	s = an_boot_grubcfg(ap->ap_size.as_size, ap->ap_addr, "/boot/vmlinuz",
	    "/boot/initrd.img /boot/anon.cpio", NULL);
	if (s == NULL)
		return 1;
	rv = an_out_file(dir, "grub.cfg", s, strlen(s), out, err);
	free(s);
	if (rv != 0 || an_out_file(dir, "README.txt", an_readme,
	    sizeof (an_readme) - 1, out, err) != 0)
		return 1;
	return 0;
}
