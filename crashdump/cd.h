/*
 * cd.h -- crashdump/: memory sources for dead kernels and the region
 * locator behind kdt-extract.
 *
 * A dump format is a "memory source" (struct cd_src): a list of physical
 * ranges it holds and one function that reads bytes of one range.  Only
 * the opener knows the format (cd_elf.c for ELF vmcores: kdump's
 * /proc/vmcore, makedumpfile -E, QEMU dump-guest-memory); everything
 * after it -- reading physical bytes across ranges (cd_src.c), scanning
 * for the region (cd_scan.c), decoding (consumer/kc.h) -- is shared, so a
 * new format (kdump-compressed, raw image) is a new opener and nothing
 * else.
 *
 *   DUMP --cd_open()--> cd_src --cd_scan()--> region image at its phys
 *                                   |               |
 *                            rgn_probe_hdr()   rgn_open() + kc_print_region()
 *
 * Sources stream: they pread() what is asked for; nothing maps or loads
 * the whole dump, so memory use does not grow with the dump.  The
 * formats and their memory bound beyond the CD_CHUNK scan buffer and the
 * region image itself:
 *
 *   ELF vmcore (cd_elf.c)         24 B per PT_LOAD
 *   kdump-compressed (cd_kdump.c) 24 B per run of dumped pages, one bitmap
 *                                 chunk (64 KiB) while opening, two pages
 *   ... flattened (cd_flat.c)     + 24 B per flattened record
 *   raw region image (cd_raw.c)   one range, nothing else
 *
 * cd_open() sniffs the format quietly by its first bytes; once a format
 * is chosen, every failure names the input, the place, the value and the
 * limit.
 */
#ifndef KDT_CD_H
#define KDT_CD_H

#include <stdio.h>
#include <stdint.h>

#define CD_PAGE		4096ULL
#define CD_CHUNK	(4ULL << 20)	/* scan buffer */
#define CD_REGION_MAX	(1ULL << 34)	/* 16 GiB: larger is not a region */
#define CD_NOADDR	((uint64_t)-1)

/* One physical range the dump holds. */
struct cd_range {
	uint64_t	cr_pa;		/* first physical address */
	uint64_t	cr_size;	/* bytes present in the dump */
	uint64_t	cr_off;		/* where they are (format-specific) */
};

struct cd_src;

/* The vector a format implements. */
struct cd_ops {
	/*
	 * Read n bytes at offset roff of range r; 0 or -errno.  A source
	 * that cannot list its holes up front (crash's readmem(), which
	 * learns a page is missing only by reading it: mdb-module/)
	 * returns -ENXIO with cs_miss set to the first physical address
	 * of the request it does not hold and cs_miss_end to the first
	 * one after that it holds again (or the end of the request).
	 */
	int	(*co_read)(struct cd_src *s, const struct cd_range *r,
		    uint64_t roff, void *buf, uint64_t n);
	void	(*co_close)(struct cd_src *s);
};

struct cd_src {
	const char	*cs_name;	/* the dump as the user named it */
	const char	*cs_format;	/* e.g. "ELF vmcore" */
	const struct cd_ops *cs_ops;
	struct cd_range	*cs_ranges;	/* sorted by cr_pa */
	uint32_t	cs_nranges;
	uint64_t	cs_total;	/* bytes over all ranges */
	uint64_t	cs_cut_pa;	/* first phys lost to a truncated
					   file, CD_NOADDR if none */
	int		cs_fd;
	void		*cs_priv;
	const char	*cs_hole;	/* why a phys address may be absent,
					   e.g. "excluded from the dump" */
	int		cs_raw;		/* a raw region image at pa 0 */
	uint64_t	cs_miss;	/* co_read -ENXIO: first missing, */
	uint64_t	cs_miss_end;	/* ... first held again after it */
};

/*
 * Open "path" as whichever format its first bytes say.  0 and *out, or
 * 1 after printing "<prog>: <path>: <why>" on err.
 */
int cd_open(const char *path, const char *prog, struct cd_src **out,
    FILE *err);
void cd_close(struct cd_src *s);

/* The ELF opener (cd_elf.c); fd is owned by the source on success. */
int cd_elf_open(int fd, const char *path, const char *prog,
    struct cd_src **out, FILE *err);

/*
 * kdump-compressed dumps (cd_kdump.c), plain or flattened ("flat" set:
 * the file starts "makedumpfile"); fd is owned by the source on success.
 */
int cd_kdump_open(int fd, const char *path, const char *prog, int flat,
    struct cd_src **out, FILE *err);

/* A raw region image (cd_raw.c): the region itself, header at offset 0. */
int cd_raw_open(int fd, const char *path, const char *prog,
    struct cd_src **out, FILE *err);

/*
 * The bytes of a kdump-compressed file (cd_flat.c): read directly, or
 * through an index of a flattened stream's records (sorted by fr_off).
 */
struct cd_flrec {
	uint64_t	fr_off;		/* logical offset */
	uint64_t	fr_size;	/* bytes */
	uint64_t	fr_pos;		/* file position of the data */
};

struct cd_file {
	int		cf_fd;
	const char	*cf_name;
	const char	*cf_prog;
	FILE		*cf_err;
	uint64_t	cf_size;	/* logical bytes */
	int		cf_flat;
	struct cd_flrec	*cf_recs;	/* flattened: the index */
	uint64_t	cf_nrecs;
};

/*
 * An ELF vmcore in a flattened stream (makedumpfile -F -E), f indexed by
 * cd_flat_index(): takes f's descriptor and index, even on failure.
 */
int cd_elf_open_flat(struct cd_file *f, struct cd_src **out);
/* Index a flattened stream: 0, or 1 after printing why. */
int cd_flat_index(struct cd_file *f);
/* Read logical bytes: 0, -EIO past the end or in a gap, -errno. */
/*
 * Of the n logical bytes at off, how many the file holds from off on
 * (the return value) and, after them, how many no record holds (*gap):
 * the next held byte, if any before off + n, is at off + return + *gap.
 * A plain file holds them all.
 */
uint64_t cd_file_held(const struct cd_file *f, uint64_t off, uint64_t n,
    uint64_t *gap);
int cd_file_read(const struct cd_file *f, uint64_t off, void *buf,
    uint64_t n);
/* pread exactly n bytes: 0, -EIO at end of file, -errno. */
int cd_pread_all(int fd, void *buf, uint64_t n, uint64_t off);

/*
 * The first physical address above pa that the source holds, or
 * CD_NOADDR: the end of the hole pa is in (for the hole a co_read just
 * found, at most cs_miss_end).
 */
uint64_t cd_hole_end(const struct cd_src *s, uint64_t pa);

/*
 * pa when a range of the source holds it; else the end of the hole pa is
 * in, as cd_hole_end() (CD_NOADDR: to the end of physical memory).
 */
uint64_t cd_hole_at(const struct cd_src *s, uint64_t pa);

/*
 * Read n physical bytes at pa into buf.  0, or -ENXIO with *missing set
 * to the first physical address the dump does not hold, or -errno of
 * the format's read.
 */
int cd_read_phys(struct cd_src *s, uint64_t pa, void *buf, uint64_t n,
    uint64_t *missing);

/* Source construction helpers for openers. */
struct cd_src *cd_src_new(const char *name, const char *format,
    const struct cd_ops *ops, int fd);
int cd_src_add(struct cd_src *s, uint64_t pa, uint64_t size, uint64_t off);
void cd_src_sort(struct cd_src *s);

/*
 * A region's image: "size" bytes of zeroed memory that take room only
 * where written (an anonymous mapping), so a header claiming up to
 * CD_REGION_MAX in a small or cut dump costs what the dump holds, not
 * what the header says.  NULL when it cannot be mapped.
 */
uint8_t *cd_img_alloc(uint64_t size);
void cd_img_free(uint8_t *img, uint64_t size);

/*
 * A region found in a dump: its image (cd_img_alloc) and where it lies.  The
 * parts of it the dump lacks (pages excluded or lost past a cut, beyond
 * the header and metadata, which must be whole) are zero in the image
 * and listed in cg_gaps (malloc'd with their reasons; NULL when the
 * region is whole): the printer reports and leaves out what they touch
 * (rgn.h, struct rgn_gap) and the exit status says partial.
 */
struct rgn_gap;
struct cd_region {
	uint8_t		*cg_img;
	uint64_t	cg_size;
	uint64_t	cg_pa;
	struct rgn_gap	*cg_gaps;
	uint32_t	cg_ngaps;
};

/* Free what a cd_region holds (its image and gaps) and clear it. */
void cd_region_free(struct cd_region *rg);

/*
 * Read the region [pa, pa + size) into img, page range by page range;
 * img must come zeroed from cd_img_alloc(), as a hole no range of the
 * source covers is left untouched: the bytes the source lacks are zero
 * and listed in *gaps (region
 * offsets, malloc'd with their reasons: the cut of a truncated file or
 * the source's cs_hole), *ngaps of them.  0, or -errno of a read error
 * other than a missing page.
 */
int cd_read_gaps(struct cd_src *s, uint64_t pa, uint64_t size,
    uint8_t *img, struct rgn_gap **gaps, uint32_t *ngaps);

/*
 * Find the region: at "pa" if not CD_NOADDR, else by scanning every
 * page of every range.  0 with *rg filled, or 1 after printing why.
 */
int cd_find_region(struct cd_src *s, uint64_t pa, const char *prog,
    struct cd_region *rg, FILE *err);
/*
 * Every region in s by a whole scan: the reserved region and each live
 * session's, reassembled through its page list (rgn.h).  0 with *pas
 * (malloc'd, ascending) and *n >= 1 -- read each with cd_find_region(pa)
 * -- or 1 after printing why there is none.
 */
int cd_find_regions(struct cd_src *s, const char *prog, uint64_t **pas,
    uint32_t *n, FILE *err);

/*
 * Find the region in an open source (at pa if not CD_NOADDR, else by
 * scanning; a raw image is read whole) and print it with the consumer's
 * decoder under ko's program name and flags -- what kdt-extract does
 * after cd_open(), and what the crash(8) extension (mdb-module/) does
 * over its readmem() source.  Returns kc_print_region_opts()'s status,
 * or 1 after printing why no region was found.
 */
struct kc_opts;
int cd_extract_src(struct cd_src *s, uint64_t pa, const struct kc_opts *ko,
    FILE *out, FILE *err);

/*
 * Read and print every region cd_find_regions() listed at pas[0..n),
 * each after a "== region N of M: ... ==" line when total > 1 (on the
 * output in text format, on err otherwise), N counting from first + 1:
 * what "kdt-extract VMCORE" and "kdt-extract DIR" do (the directory's
 * image, if any, is region 1).  The worst of the regions' statuses, 3 if
 * one of them no longer reads, 1 if none printed.
 */
int cd_print_regions(struct cd_src *s, const uint64_t *pas, uint32_t n,
    uint32_t first, uint32_t total, const struct kc_opts *ko, FILE *out,
    FILE *err);
/* That line for region i (from 0) of n. */
void cd_region_label(const struct cd_region *rg, uint32_t i, uint32_t n,
    const struct kc_opts *ko, FILE *out, FILE *err);
/*
 * A raw region image source (cs_raw) read whole into rg, saying on err
 * which boot wrote it unless quiet: 0, or 1 after saying why not.
 */
int cd_raw_region(struct cd_src *s, int quiet, struct cd_region *rg,
    FILE *err);

/*
 * Print a region cd_find_region() found in s (and free its image) with
 * the consumer's decoder, as cd_extract_src() does; stack frames and
 * symbols resolve with kc_sym_for_region()'s table (consumer/kc_sym.h).
 */
int cd_print_region(struct cd_src *s, struct cd_region *rg,
    const struct kc_opts *ko, FILE *out, FILE *err);

/*
 * A dump directory (cd_dir.c): the vmcore the capture kernel saved and
 * the copy of the region kdt's kdump hook (boot/kdump/) put beside it.
 * The file name and the hook's installed path are shared with
 * boot/kdump/kdt-kdump-save and boot/kdump/kdt-kdump-post.
 */
#define CD_DIR_IMAGE	"kdt-region.img"
#define CD_HOOK_PATH	"/usr/lib/kdt/kdt-kdump-save"

/* What one name in a dump directory is (cd_dir_classify). */
#define CD_DN_OTHER		0	/* dmesg, kexec_cmd, anything else */
#define CD_DN_VMCORE		1	/* dump.STAMP vmcore.STAMP vmcore
					   vmcore.flat */
#define CD_DN_VMCORE_PACKED	2	/* dump.STAMP.{gz,bz2,lz4,xz} */
#define CD_DN_VMCORE_PARTIAL	3	/* dump-incomplete[.EXT]
					   vmcore-incomplete */
#define CD_DN_IMAGE		4	/* kdt-region.img */
#define CD_DN_IMAGE_PARTIAL	5	/* kdt-region.img.* (being written) */

int cd_dir_classify(const char *name);

/* What cd_dir_scan() found: file names within dd_path, "" for none. */
#define CD_DIR_NAMESZ	256	/* NAME_MAX + 1 */
struct cd_dir {
	const char	*dd_path;	/* the directory as the user named it */
	/* the vmcore used (the last by name) */
	char		dd_vmcore[CD_DIR_NAMESZ];
	uint32_t	dd_nvmcores;	/* complete vmcores besides it */
	/* a compressed one (dump.STAMP.gz...: not readable here) */
	char		dd_packed[CD_DIR_NAMESZ];
	/* an incomplete one (dump-incomplete, vmcore-incomplete) */
	char		dd_partial[CD_DIR_NAMESZ];
	char		dd_image[CD_DIR_NAMESZ];	/* CD_DIR_IMAGE */
	/* the hook's unfinished copy (kdt-region.img.*) */
	char		dd_image_partial[CD_DIR_NAMESZ];
	/* the last subdirectory named 0-9... (is DIR KDUMP_COREDIR?) */
	char		dd_subdir[CD_DIR_NAMESZ];
};

/* Read dir's names into d: 0, or 1 after printing why not. */
int cd_dir_scan(const char *dir, struct cd_dir *d, const char *prog,
    FILE *err);
/* d->dd_path joined with name. */
void cd_dir_path(const struct cd_dir *d, const char *name, char *buf,
    size_t len);
/*
 * kdt-extract DIR: the trace from the image, the vmcore for context
 * (cd_dir.c explains the cases).  Returns the exit status (0 or 1).
 */
int cd_dir_extract(const char *dir, uint64_t pa, const struct kc_opts *ko,
    FILE *out, FILE *err);

/*
 * kdt-extract's whole behaviour, callable from tests: argv as main()
 * gets it.  Returns the exit status (0 ok, 1 failure, 2 usage).
 */
int cd_extract_main(int argc, char **argv, FILE *out, FILE *err);

#endif /* KDT_CD_H */
