/*
 * an_impl.h -- anon/'s internal interfaces: the pieces of "kdt -A" (an.h)
 * and the one structure they share, the plan.
 *
 * kdt -A works in three steps, each in its own file:
 *
 *	an_size.c	how big the reserved region must be (the DOF's
 *			buffer options, the target's CPUs, the metadata)
 *	an_place.c	where it goes in physical memory (/proc/iomem)
 *	an_boot.c	the kernel words, the GRUB drop-in and menuentry
 *
 * and then either writes artifacts (an_out.c: -o DIR, with the cpio
 * writer of an_cpio.c) or changes the system (an_install.c: the files of
 * the initramfs-tools, dracut and GRUB integration; an_kmod.c: which
 * kdt.ko for which kernel; an_regen.c: the regeneration commands;
 * an_manifest.c: the list of what was written, for removal).  an_file.c
 * holds the atomic file writes and the command runner they share, an_cmd.c
 * the dispatch and the printed plan.
 *
 * Messages: every function that can fail prints one line to "err" in the
 * form "kdt: what: value, limit" and returns -1 (or a non-zero exit
 * status where it says so); the plan and the list of changes go to "out".
 */
#ifndef KDT_AN_IMPL_H
#define KDT_AN_IMPL_H

#include <stdint.h>
#include <stdio.h>
#include <stddef.h>

#include "anon/an.h"

#define AN_ALIGN	(2ULL << 20)	/* region size and address granule */
#define AN_PATHMAX	4096

/* ---- an_size.c ---- */

/*
 * What the region is made of.  The kernel lays the region out itself from
 * its size (kmod/kd_cs.c: header page, metadata, per-CPU aggregation
 * buffers with their spares and the totals slots, then the rest split
 * evenly into per-CPU principal buffers), so the size is all that travels
 * on the command line; these figures say how it was arrived at.
 */
struct an_size {
	uint32_t	as_ncpu;	/* possible CPUs of the target */
	uint64_t	as_bufsize;	/* principal bytes per CPU asked */
	int		as_bufsize_set;	/* ... by the program's bufsize */
	uint64_t	as_aggsize;	/* aggregation bytes per CPU, 0: none */
	uint64_t	as_aggbytes;	/* aggregation buffers, spares and
					   totals in the region, 0: none */
	uint64_t	as_dynvarsize;	/* dynamic store in as_vararea */
	uint64_t	as_specsize;	/* bytes per buffer in as_specarea */
	uint32_t	as_nspec;
	uint64_t	as_specarea;	/* speculation area bytes, 0: none */
	uint64_t	as_vararea;	/* variable area bytes, 0: none */
	uint32_t	as_ndesc;	/* probe descriptions in the DOF */
	uint32_t	as_nprobes;	/* probes the tables are sized for */
	uint64_t	as_need;	/* rgn_size_for(): the minimum */
	uint64_t	as_size;	/* the region size */
	int		as_size_set;	/* from -x regionsize */
	uint64_t	as_limit;	/* the largest region we reserve */
};

/* ---- an_cmd.c ---- */

/*
 * The possible CPUs of the system at "root" (its /sys, else ours; *from
 * names the file read), or -1 after a message to err.
 */
int an_target_cpus(const char *root, uint32_t *ncpu, const char **from,
    FILE *err);
/* MemTotal of /proc/meminfo in bytes, 0 when unreadable. */
uint64_t an_memtotal(void);

/* ---- an_rehearse.c ---- */

/*
 * The time, in ns since the kernel's clock started, of the first "Run
 * ... as init process" line of kernel log "log" ("len" bytes, as
 * klogctl(2) or dmesg gives it: "<6>[    1.769825] Run /init as init
 * process"), when the kernel started init; -1 when it has none with a
 * timestamp.
 */
int an_boot_tinit(const char *log, size_t len, uint64_t *ns);

/* Parse a cpu list ("0-3,8") as in /sys/devices/system/cpu/possible. */
int an_cpulist_count(const char *text, uint32_t *ncpu);
/*
 * Size the region for DOF "dof" on a target with "ncpu" CPUs and
 * "memtotal" bytes of RAM; "regsize" non-zero is -x regionsize.
 */
int an_size_compute(const void *dof, size_t dofsz, uint32_t ncpu,
    uint64_t memtotal, uint64_t regsize, struct an_size *as, FILE *err);

/* ---- an_place.c ---- */

struct an_iores {
	uint64_t	ir_start;
	uint64_t	ir_end;		/* inclusive, as /proc/iomem prints */
	int		ir_depth;	/* 0: top level */
	char		ir_name[64];
};

struct an_iomem {
	struct an_iores	*im_res;
	size_t		im_n;
	int		im_zeroed;	/* every address 0: read as non-root */
};

/* Parse /proc/iomem text.  -1 (message to err) on a malformed line. */
int an_iomem_parse(const char *text, const char *name, struct an_iomem *im,
    FILE *err);
void an_iomem_free(struct an_iomem *im);
/*
 * Choose a 2 MiB-aligned address for "size" bytes (an_place.c explains
 * the rules).  "prev"/"prevsize" (0: none) are the region of the install
 * this one replaces: its memmap= reservation shows as Reserved, and the
 * same address is preferred so the region does not move.
 */
int an_place_choose(const struct an_iomem *im, uint64_t size, uint64_t prev,
    uint64_t prevsize, uint64_t *addr, FILE *err);
/* Check an address given with -x regionaddr against the same rules. */
int an_place_check(const struct an_iomem *im, uint64_t addr, uint64_t size,
    uint64_t prev, uint64_t prevsize, FILE *err);

/* ---- an_boot.c ---- */

/* "12M", "512K" or bytes: memparse() suffixes. */
void an_size_str(char *buf, size_t bufsz, uint64_t v);
/*
 * The kernel words: kdt.anon=1 kdt.region=SIZE@ADDR memmap=SIZE$ADDR.
 * AN_Q_PLAIN as the kernel must see them (DIR/cmdline); AN_Q_GRUB as they
 * must appear in grub.cfg, with the '$' escaped so GRUB does not expand it.
 */
#define AN_Q_PLAIN	0
#define AN_Q_GRUB	1
void an_boot_words(char *buf, size_t bufsz, uint64_t size, uint64_t addr,
    int quoting);
/* The text of /etc/default/grub.d/kdt.cfg.  malloc'ed. */
char *an_boot_dropin(uint64_t size, uint64_t addr);
/* A grub.cfg menuentry booting "kernel" with "initrds" (space-separated). */
char *an_boot_grubcfg(uint64_t size, uint64_t addr, const char *kernel,
    const char *initrds, const char *extra);

/* ---- an_cpio.c ---- */

struct an_cpio {
	uint8_t		*cp_buf;
	size_t		cp_len;
	size_t		cp_cap;
	uint32_t	cp_ino;
};

/* Append a directory / a regular file / the trailer to a newc archive. */
int an_cpio_dir(struct an_cpio *cp, const char *name);
int an_cpio_file(struct an_cpio *cp, const char *name, uint32_t mode,
    const void *data, size_t len);
int an_cpio_finish(struct an_cpio *cp);
void an_cpio_free(struct an_cpio *cp);

/* ---- an_ksym.c ---- */
/*
 * The kernel symbol hints (common/ksh.h) of compiled enabling "o" for the
 * vmlinux "vmlinux" (NULL: $KDT_BTF), else, when "kver" (the release the
 * enabling is for, NULL: unknown) is the running kernel's, from
 * /proc/kallsyms: 1 with the file in *bufp (malloc'ed, *lenp bytes), the
 * count of names it resolves in *nnamesp and its source in "why"; 0 when
 * there is nothing to write (no usable vmlinux and not the running kernel,
 * kallsyms addresses hidden, no plain fbt name), -1 on an error; "why"
 * says which.
 */
int an_ksym_build(const struct dc_out *o, const char *vmlinux,
    const char *kver, uint8_t **bufp, size_t *lenp, uint32_t *nnamesp,
    char *why, size_t whysz);

/* ---- an_file.c ---- */

/* "root" + "path" (path absolute inside root). */
void an_path(char *buf, size_t bufsz, const char *root, const char *path);
/*
 * Atomically replace "path" with data, mode "mode", creating missing
 * directories; a symbolic link is replaced, not followed (boot/'s
 * bt_file_write()).  0, or -1 after a message naming the file.
 */
int an_file_write(const char *path, const void *data, size_t len,
    uint32_t mode, FILE *err);
/* Read a whole file; NUL-terminated; -1 with errno set (no message). */
int an_file_read(const char *path, char **bufp, size_t *lenp);
/* Is "name" an executable in root's /usr/sbin, /usr/bin, /sbin, /bin? */
int an_tool_find(const char *root, const char *name, char *found,
    size_t foundsz);
/*
 * Run argv (chrooted into root unless root is "/"), its output to "err".
 * Returns the exit status, or -1 when it could not be run.
 */
int an_run(const char *root, char *const argv[], FILE *err);

/* ---- an_manifest.c ---- */

#define AN_STATE_DIR	"/var/lib/kdt/anon"
#define AN_MANIFEST	AN_STATE_DIR "/manifest"
/*
 * kdt's dracut module, installed with kdt ("make install", the package),
 * not by kdt -A: it reads AN_STATE_DIR (boot/dracut/module-setup.sh).
 * Older kdt -A wrote it there itself and listed it in the manifest.
 */
#define AN_DRACUT_DIR	"/usr/lib/dracut/modules.d/90kdt"
#define AN_DRACUT_SETUP	AN_DRACUT_DIR "/module-setup.sh"
#define AN_MAXFILES	64
#define AN_MAXKERNELS	16

/* The integrations a manifest says were installed (to regenerate). */
#define AN_INT_INITRAMFS_TOOLS	0x1
#define AN_INT_DRACUT		0x2
#define AN_INT_GRUB		0x4
#define AN_INT_GRUB_NODROPIN	0x8	/* a GRUB whose grub-mkconfig does not
					   read /etc/default/grub.d (Fedora) */
#define AN_INT_KDUMP_TOOLS	0x10	/* Debian/Ubuntu kdump-tools: kdt's
					   hook saves the region (boot/kdump/) */
#define AN_INT_KDUMPCTL		0x20	/* Fedora/RHEL kdumpctl: the same as a
					   kdump post.d script */

struct an_mfile {
	char		mf_path[256];	/* absolute inside the root */
	uint32_t	mf_mode;
	uint64_t	mf_size;
	uint32_t	mf_crc;
};

struct an_manifest {
	uint64_t	mn_size;	/* region */
	uint64_t	mn_addr;
	uint32_t	mn_ints;	/* AN_INT_* */
	uint32_t	mn_nkernels;
	char		mn_kernels[AN_MAXKERNELS][64];
	uint32_t	mn_nfiles;
	struct an_mfile	mn_files[AN_MAXFILES];
};

/* Text of the manifest, malloc'ed. */
char *an_manifest_format(const struct an_manifest *mn);
/* Parse manifest text; -1 with a message naming line and value. */
int an_manifest_parse(const char *text, const char *name,
    struct an_manifest *mn, FILE *err);
/* Record a file written with these bytes. */
int an_manifest_add(struct an_manifest *mn, const char *path, uint32_t mode,
    const void *data, size_t len, FILE *err);

/* ---- an_kmod.c ---- */

struct an_kernel {
	char		ak_kver[64];
	char		ak_module[AN_PATHMAX];	/* the kdt.ko to install */
};

/* The version in a kdt.ko's vermagic (first word).  -1: unreadable. */
int an_module_kver(const char *path, char *kver, size_t kversz, FILE *err);
int an_module_debug(const char *path, uint64_t *dbg, uint64_t *size);
void an_module_note(FILE *out, const char *path);
/* The kernels to prepare and their kdt.ko (an_install.c explains). */
int an_kernels_find(const struct an_opts *ao, struct an_kernel *ks,
    uint32_t *nks, FILE *err);

/* ---- an_regen.c ---- */

/* Which integrations root has (AN_INT_*). */
uint32_t an_integrations(const char *root);
/* Regenerate the initramfs and grub.cfg for "ints" and kernels. */
int an_regen(const char *root, uint32_t ints, char kvers[][64],
    uint32_t nk, int dry, FILE *out, FILE *err);

/* ---- an_install.c ---- */

/*
 * Is kdt's own dracut module installed in root: AN_DRACUT_SETUP there and
 * not the copy an older kdt -A wrote (the bytes "old" lists; NULL: no
 * earlier install)?  1 yes, 0 no.
 */
int an_dracut_installed(const char *root, const struct an_manifest *old);

/* The embedded text of boot/NAME (build/gen/an_texts.c). */
const char *an_text(const char *name);

struct an_text {
	const char	*at_name;	/* path under boot/ */
	const char	*at_text;
};
extern const struct an_text an_texts[];

struct an_plan {
	const struct an_opts *ap_ao;
	const char	*ap_root;
	const struct dc_out *ap_o;
	struct an_size	ap_size;
	uint64_t	ap_addr;
	int		ap_addr_set;
	int		ap_addr_unknown; /* non-root dry run */
	struct an_kernel ap_ks[AN_MAXKERNELS];
	uint32_t	ap_nks;
	uint32_t	ap_ints;
	struct an_manifest ap_old;	/* the install being replaced */
	int		ap_have_old;
};

/* Install the plan into the system (or print it with --dry-run). */
int an_install(struct an_plan *ap, FILE *out, FILE *err);
/* Remove what the manifest lists, regenerate. */
int an_remove(const struct an_opts *ao, FILE *out, FILE *err);

/* ---- an_out.c ---- */

int an_out_write(struct an_plan *ap, FILE *out, FILE *err);

#endif /* KDT_AN_IMPL_H */
