/*
 * an_cmd.c -- "kdt -A": dispatch between installing, removing and writing
 * the boot artifacts (anon/an.h), and the printed plan.
 *
 * Every mode first works out the plan -- the region's size (an_size.c)
 * and address (an_place.c), the kernels and their kdt.ko, what the target
 * root has (initramfs-tools, dracut, GRUB) -- and prints it; then -o DIR
 * writes the artifacts (an_out.c), an install writes the files and
 * regenerates (an_install.c), --dry-run stops after printing what it
 * would do.  Only root may change a system: installing needs root
 * anyway (/etc, /var/lib, update-initramfs) and choosing the address
 * needs the real /proc/iomem, which shows zeros to everyone else.
 * --dry-run is allowed for anyone; without root it cannot name the
 * address and says so.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <inttypes.h>

#include "anon/an_impl.h"

static const char *
an_root(const struct an_opts *ao)
{
	return ao->ao_root != NULL ? ao->ao_root : "/";
}

/* Possible CPUs of the target: ROOT/sys if it is there, else ours. */
int
an_target_cpus(const char *root, uint32_t *ncpu, const char **from,
    FILE *err)
{
	static char path[AN_PATHMAX];
	char *text;

	an_path(path, sizeof (path), root, "/sys/devices/system/cpu/possible");
	if (an_file_read(path, &text, NULL) != 0) {
		snprintf(path, sizeof (path), "/sys/devices/system/cpu/possible");
		if (an_file_read(path, &text, NULL) != 0) {
			fprintf(err, "kdt: cannot read %s: %s\n", path,
			    strerror(errno));
			return -1;
		}
	}
	if (an_cpulist_count(text, ncpu) != 0) {
		fprintf(err, "kdt: %s: expected a cpu list such as 0-3, got \"%.40s\"\n",
		    path, text);
		free(text);
		return -1;
	}
	free(text);
	*from = path;
	return 0;
}

uint64_t
an_memtotal(void)
{
	unsigned long long kb = 0;
	char *text, *p;

	if (an_file_read("/proc/meminfo", &text, NULL) != 0)
		return 0;
	if ((p = strstr(text, "MemTotal:")) != NULL)
		kb = strtoull(p + 9, NULL, 10);
	free(text);
	return (uint64_t)kb << 10;
}

static int
an_plan_size(struct an_plan *ap, FILE *out, FILE *err)
{
	const struct dc_out *o = ap->ap_o;
	const char *from;
	uint32_t ncpu;

	if (an_target_cpus(ap->ap_root, &ncpu, &from, err) != 0)
		return -1;
	if (an_size_compute(o->dco_dof, o->dco_dofsz, ncpu, an_memtotal(),
	    (o->dco_regset & DC_REGSET_SIZE) ? o->dco_regsize : 0,
	    &ap->ap_size, err) != 0)
		return -1;
	fprintf(out, "  cpus: %u possible (%s)\n", ncpu, from);
	return 0;
}

/* The old install's manifest, when there is one. */
static int
an_plan_old(struct an_plan *ap, FILE *err)
{
	char path[AN_PATHMAX], *text;
	int rv;

	an_path(path, sizeof (path), ap->ap_root, AN_MANIFEST);
	if (an_file_read(path, &text, NULL) != 0) {
		if (errno == ENOENT)
			return 0;
		fprintf(err, "kdt: cannot read %s: %s\n", path,
		    strerror(errno));
		return -1;
	}
	rv = an_manifest_parse(text, path, &ap->ap_old, err);
	free(text);
	if (rv != 0) {
		fprintf(err, "kdt: %s is damaged; remove the files it lists by hand, then the manifest\n",
		    path);
		return -1;
	}
	ap->ap_have_old = 1;
	return 0;
}

static int
an_plan_place(struct an_plan *ap, FILE *out, FILE *err)
{
	const struct dc_out *o = ap->ap_o;
	struct an_iomem im;
	uint64_t size = ap->ap_size.as_size, prev = 0, prevsz = 0;
	char *text;
	int rv;

	if (an_file_read("/proc/iomem", &text, NULL) != 0) {
		fprintf(err, "kdt: cannot read /proc/iomem: %s\n",
		    strerror(errno));
		return -1;
	}
	rv = an_iomem_parse(text, "/proc/iomem", &im, err);
	free(text);
	if (rv != 0)
		return -1;
	if (im.im_zeroed && ap->ap_ao->ao_dry_run) {
		fprintf(out, "  address: not known to a non-root user (/proc/iomem shows zeros); root's kdt -A chooses it\n");
		ap->ap_addr_unknown = 1;
		an_iomem_free(&im);
		return 0;
	}
	if (ap->ap_have_old) {
		prev = ap->ap_old.mn_addr;
		prevsz = ap->ap_old.mn_size;
	}
	if (o->dco_regset & DC_REGSET_ADDR) {
		ap->ap_addr_set = 1;
		ap->ap_addr = o->dco_regaddr;
		rv = an_place_check(&im, ap->ap_addr, size, prev, prevsz, err);
	} else
		rv = an_place_choose(&im, size, prev, prevsz, &ap->ap_addr,
		    err);
	an_iomem_free(&im);
	if (rv != 0)
		return -1;
	fprintf(out, "  address: 0x%" PRIx64 " (%s)\n", ap->ap_addr,
	    ap->ap_addr_set ? "-x regionaddr, checked against /proc/iomem" :
	    ap->ap_have_old && ap->ap_addr == prev ?
	    "kept from the install this one replaces" :
	    "lowest 2 MiB-aligned System RAM above the low-memory floor clear of the kernel and other reservations, from /proc/iomem");
	return 0;
}

static void
an_plan_print(const struct an_plan *ap, FILE *out)
{
	const struct an_size *as = &ap->ap_size;
	char sz[32], words[256];

	an_size_str(sz, sizeof (sz), as->as_size);
	fprintf(out, "  region: %s (0x%" PRIx64 " bytes): %s%" PRIu64 " buffer bytes x %u CPUs",
	    sz, as->as_size, as->as_bufsize_set ? "bufsize " : "default ",
	    as->as_bufsize, as->as_ncpu);
	if (as->as_aggsize != 0)
		fprintf(out, ", aggsize %" PRIu64 " x %u CPUs (%" PRIu64 " bytes with spares and totals)",
		    as->as_aggsize, as->as_ncpu, as->as_aggbytes);
	fprintf(out, ", metadata for up to %u probes; minimum 0x%" PRIx64 ", %s\n",
	    as->as_nprobes, as->as_need, as->as_size_set ?
	    "-x regionsize" : "rounded up to 2 MiB");
	/* speculations and variables: in the region (an_size.c) */
	if (as->as_specarea != 0)
		fprintf(out, "  speculations in the region: %" PRIu64 " bytes (specsize %" PRIu64 " x nspec %u x %u CPUs)\n",
		    as->as_specarea, as->as_specsize, as->as_nspec,
		    as->as_ncpu);
	if (as->as_vararea != 0)
		fprintf(out, "  variables in the region: %" PRIu64 " bytes (tables, global values, dynvarsize %" PRIu64 ")\n",
		    as->as_vararea, as->as_dynvarsize);
	an_boot_words(words, sizeof (words), as->as_size, ap->ap_addr,
	    AN_Q_PLAIN);
	if (ap->ap_addr_unknown)
		fprintf(out, "  kernel words: kdt.anon=1 kdt.region=%s@ADDR memmap=%s$ADDR\n",
		    sz, sz);
	else
		fprintf(out, "  kernel words: %s\n", words);
}

static void
an_plan_next(const struct an_plan *ap, int ok, FILE *out)
{
	char sz[32];

	an_size_str(sz, sizeof (sz), ap->ap_size.as_size);
	fprintf(out, "next boot%s: the kernel reserves %s at 0x%" PRIx64 "; the initramfs loads kdt.ko before udev and any other module; kdt.ko enables %u probe description%s and records into the region; claim it with \"kdt -a\"\n",
	    ok ? "" : " (once the steps that failed above are done)", sz,
	    ap->ap_addr, ap->ap_size.as_ndesc,
	    ap->ap_size.as_ndesc == 1 ? "" : "s");
}

static int
an_plan_kernels(struct an_plan *ap, FILE *out, FILE *err)
{
	uint32_t i;

	ap->ap_ints = an_integrations(ap->ap_root);
	if ((ap->ap_ints & (AN_INT_INITRAMFS_TOOLS | AN_INT_DRACUT)) == 0) {
		fprintf(err, "kdt: %s has neither initramfs-tools (/usr/share/initramfs-tools) nor dracut (/usr/lib/dracut); use kdt -A -o DIR for other boot setups\n",
		    ap->ap_root);
		return -1;
	}
	/* dracut builds the initramfs (an_regen.c): its 90kdt must be there */
	if ((ap->ap_ints & AN_INT_INITRAMFS_TOOLS) == 0 &&
	    !an_dracut_installed(ap->ap_root,
	    ap->ap_have_old ? &ap->ap_old : NULL)) {
		char setup[AN_PATHMAX];

		an_path(setup, sizeof (setup), ap->ap_root, AN_DRACUT_SETUP);
		fprintf(err, "kdt: %s builds its initramfs with dracut, but kdt's dracut module is not installed (no %s, or only the copy an older kdt -A wrote): install kdt there with \"make install\" or its package, or use kdt -A -o DIR\n",
		    ap->ap_root, setup);
		return -1;
	}
	if (an_kernels_find(ap->ap_ao, ap->ap_ks, &ap->ap_nks, err) != 0)
		return -1;
	for (i = 0; i < ap->ap_nks; i++) {
		fprintf(out, "  kernel %s: kdt.ko %s (vermagic matches)\n",
		    ap->ap_ks[i].ak_kver, ap->ap_ks[i].ak_module);
		an_module_note(out, ap->ap_ks[i].ak_module);
	}
	fprintf(out, "  integrations:%s%s%s%s\n",
	    (ap->ap_ints & AN_INT_INITRAMFS_TOOLS) ? " initramfs-tools" : "",
	    (ap->ap_ints & AN_INT_DRACUT) ? " dracut" : "",
	    (ap->ap_ints & AN_INT_KDUMP_TOOLS) ? " kdump-tools" :
	    (ap->ap_ints & AN_INT_KDUMPCTL) ? " kdumpctl" : "",
	    (ap->ap_ints & AN_INT_GRUB) ? " grub" :
	    (ap->ap_ints & AN_INT_GRUB_NODROPIN) ?
	    " (GRUB without /etc/default/grub.d: see below)" :
	    " (no GRUB: add the kernel words to the boot loader yourself)");
	if ((ap->ap_ints & AN_INT_INITRAMFS_TOOLS) == 0)
		fprintf(out, "  dracut module: %s (installed with kdt; it puts %s into the initramfs)\n",
		    AN_DRACUT_DIR, AN_STATE_DIR);
	return 0;
}

static int
an_do_install(struct an_plan *ap, FILE *out, FILE *err)
{
	int rv;

	fprintf(out, "kdt -A: %s anonymous enabling into %s\n",
	    ap->ap_ao->ao_dry_run ? "plan (dry run, nothing changes) for an" :
	    "installing an", ap->ap_root);
	if (an_plan_old(ap, err) != 0 || an_plan_kernels(ap, out, err) != 0 ||
	    an_plan_size(ap, out, err) != 0 || an_plan_place(ap, out, err) != 0)
		return 1;
	an_plan_print(ap, out);
	rv = an_install(ap, out, err);
	if (ap->ap_ints & AN_INT_GRUB_NODROPIN) {
		char words[256];

		an_boot_words(words, sizeof (words), ap->ap_size.as_size,
		    ap->ap_addr, AN_Q_GRUB);
		fprintf(out, "NOT done: the grub-mkconfig in %s does not read /etc/default/grub.d (Fedora/RHEL keep kernel options in BLS entries); run: grubby --update-kernel=ALL --args='%s'\n",
		    ap->ap_root, words);
		rv = 1;
	} else if ((ap->ap_ints & AN_INT_GRUB) == 0) {
		char words[256];

		an_boot_words(words, sizeof (words), ap->ap_size.as_size,
		    ap->ap_addr, AN_Q_PLAIN);
		fprintf(out, "NOT done: no GRUB in %s; add to the kernel command line: %s\n",
		    ap->ap_root, words);
		rv = 1;
	}
	if (!ap->ap_ao->ao_dry_run)
		an_plan_next(ap, rv == 0, out);
	return rv;
}

static int
an_do_out(struct an_plan *ap, FILE *out, FILE *err)
{
	const struct dc_out *o = ap->ap_o;

	fprintf(out, "kdt -A: boot artifacts in %s (this system is not changed)\n",
	    ap->ap_ao->ao_outdir);
	if (an_plan_size(ap, out, err) != 0)
		return 1;
	ap->ap_addr = o->dco_regaddr;
	fprintf(out, "  address: 0x%" PRIx64 " (%s; the target's memory map is not known here)\n",
	    ap->ap_addr, (o->dco_regset & DC_REGSET_ADDR) ? "-x regionaddr" :
	    "the default, 256 MiB");
	an_plan_print(ap, out);
	if (ap->ap_ao->ao_dry_run)
		return 0;
	return an_out_write(ap, out, err);
}

int
an_main(const struct an_opts *ao, const struct dc_out *o, FILE *out,
    FILE *err)
{
	struct an_plan *ap;
	int rv;

	if (o == NULL && ao->ao_outdir != NULL) {
		fprintf(err, "kdt: -A -o DIR writes the artifacts of a program: give one with -s or -n\n");
		return 2;
	}
	if (ao->ao_outdir == NULL && !ao->ao_dry_run && geteuid() != 0) {
		fprintf(err, "kdt: only root may %s an anonymous enabling (it changes /etc, /var/lib and the initramfs); --dry-run shows the plan\n",
		    o == NULL ? "remove" : "install");
		return 1;
	}
	if (o == NULL)
		return an_remove(ao, out, err);
	if ((ap = calloc(1, sizeof (*ap))) == NULL)
		return 1;
	ap->ap_ao = ao;
	ap->ap_o = o;
	ap->ap_root = an_root(ao);
	rv = ao->ao_outdir != NULL ? an_do_out(ap, out, err) :
	    an_do_install(ap, out, err);
	free(ap);
	return rv;
}
