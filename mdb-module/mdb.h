/*
 * mdb.h -- mdb-module/: kdt inside the crash(8) debugger (kdt.so).
 *
 * "extend kdt.so" registers the crash command "kdt", which prints what
 * kdt recorded exactly as kdt-extract prints it from the same dump.  It
 * is kdt-extract with another memory source (DESIGN.md, "One decoder";
 * STYLE.md point 12): nothing here scans or decodes.  The pieces:
 *
 *   kdt.c      the crash glue, the only file that includes crash's
 *              defs.h: the command table, help_kdt[], a reader over
 *              crash's readmem(PHYSADDR) and the physical spans crash
 *              knows (its node table); calls mdb_main().
 *   mdb_src.c  everything else, free of crash so the unit tests can drive
 *              it with a fake reader: the option parser, and a crashdump/
 *              memory source (struct cd_src, crashdump/cd.h) whose
 *              co_read is the reader, handed to cd_extract_src() -- the
 *              region locator (cd_scan.c) and the consumer's decoder
 *              (consumer/kc.h) that kdt-extract runs.
 *
 *   crash readmem() --mdb_read_f--> cd_src --cd_extract_src()--> text
 *
 * crash's readmem() cannot list what a dump holds; it only fails on a page
 * the dump lacks.  So the source offers the spans crash knows as memory,
 * and co_read, when a read fails, finds the first page it cannot read and
 * returns -ENXIO with cs_miss set to it (cd.h): the locator then rescans
 * that chunk page by page and names the hole, as it does for kdt-extract.
 * Reads come in the locator's CD_CHUNK (4 MiB) pieces, so a scan costs one
 * readmem() call per 4 MiB, not per page.
 */
#ifndef KDT_MDB_H
#define KDT_MDB_H

#include <stdio.h>
#include <stdint.h>

/*
 * How the debugger reads n bytes of physical memory at pa into buf: 0
 * when all of them were read, nonzero otherwise.  Quiet: the caller
 * reports.
 */
typedef int (*mdb_read_f)(void *arg, uint64_t pa, void *buf, uint64_t n);

/* A physical span the debugger knows as memory (e.g. a NUMA node). */
struct mdb_span {
	uint64_t	ms_pa;		/* first physical address */
	uint64_t	ms_size;	/* bytes */
};

/* The debugger as the source sees it. */
struct mdb_dbg {
	const char	*md_name;	/* the dump, as messages name it */
	mdb_read_f	md_read;
	void		*md_arg;	/* md_read's first argument */
	const struct mdb_span *md_spans;
	uint32_t	md_nspans;
};

/*
 * The "kdt" command: argv[0] is the command name.  Prints on out what
 * kdt-extract prints on stdout, and on err what it prints on stderr,
 * with "prog" as the message prefix.  Returns 0 (printed), 1 (no
 * usable region; said why) or 2 (usage error; said why -- the caller
 * shows the synopsis).
 */
int mdb_main(int argc, char **argv, const char *prog,
    const struct mdb_dbg *md, FILE *out, FILE *err);

/*
 * The memory source over md (cd.h); NULL when out of memory.  Close it
 * with cd_close().  Spans may come in any order and may overlap.
 */
struct cd_src *mdb_src_new(const struct mdb_dbg *md);

#endif /* KDT_MDB_H */
