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
 * the whole dump, so memory use does not grow with the dump.
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
	/* Read n bytes at offset roff of range r; 0 or -errno. */
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

/* A region found in a dump: its image (malloc'd) and where it lies. */
struct cd_region {
	uint8_t		*cg_img;
	uint64_t	cg_size;
	uint64_t	cg_pa;
};

/*
 * Find the region: at "pa" if not CD_NOADDR, else by scanning every
 * page of every range.  0 with *rg filled, or 1 after printing why.
 */
int cd_find_region(struct cd_src *s, uint64_t pa, const char *prog,
    struct cd_region *rg, FILE *err);

/*
 * kdt-extract's whole behaviour, callable from tests: argv as main()
 * gets it.  Returns the exit status (0 ok, 1 failure, 2 usage).
 */
int cd_extract_main(int argc, char **argv, FILE *out, FILE *err);

#endif /* KDT_CD_H */
