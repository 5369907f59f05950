/*
 * mdb_src.c -- the crash-free half of kdt.so (mdb.h): the "kdt" command's
 * option parser and a crashdump/ memory source over the debugger's
 * physical-memory reader.
 *
 * The source holds one range per span the debugger knows (sorted, merged);
 * its co_read passes a whole request to the reader and, only when that
 * fails, walks it page by page to find the first page that does not read
 * and the end of that hole: they go in cs_miss and cs_miss_end and the
 * answer is -ENXIO (cd.h), which the locator turns into a page-by-page
 * rescan or a message naming the hole.
 * The command itself is cd_extract_src() over that source -- the code
 * kdt-extract runs after opening its file, so a live session's scattered
 * region is put together through its page list (rgn.h) with readmem()
 * of each listed physical page, and several sessions are each printed.  kdt.c (the crash glue) calls
 * mdb_main(); tests/unit/test_mdb.c calls it with a fake reader.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "consumer/kc.h"
#include "crashdump/cd.h"
#include "mdb-module/mdb.h"

/* Why the debugger may lack a physical page, for the locator's messages. */
#define MDB_HOLE	"crash cannot read it from the dump"

/* Parsed "kdt" command line. */
struct mdb_args {
	uint64_t	ma_phys;	/* CD_NOADDR: scan */
	uint32_t	ma_flags;	/* KC_F_* */
};

/*
 * Read [pa, pa + n) page by page from offset "from" on: the offset of the
 * first page that reads (readable set) or that does not (readable 0), or n.
 */
static uint64_t
mdb_pages(const struct mdb_dbg *md, uint64_t pa, uint8_t *buf, uint64_t n,
    uint64_t from, int readable)
{
	uint64_t o, k;

	for (o = from; o < n; o += k) {
		k = CD_PAGE - ((pa + o) & (CD_PAGE - 1));
		if (k > n - o)
			k = n - o;
		if ((md->md_read(md->md_arg, pa + o, buf + o, k) == 0) ==
		    (readable != 0))
			return o;
	}
	return n;
}

static int
mdb_read(struct cd_src *s, const struct cd_range *r, uint64_t roff,
    void *buf, uint64_t n)
{
	const struct mdb_dbg *md = s->cs_priv;
	uint64_t pa = r->cr_pa + roff, bad;

	if (md->md_read(md->md_arg, pa, buf, n) == 0)
		return 0;
	if ((pa & (CD_PAGE - 1)) + n <= CD_PAGE) {
		s->cs_miss = pa;	/* within one page: that page */
		s->cs_miss_end = pa + n;
		return -ENXIO;
	}
	bad = mdb_pages(md, pa, buf, n, 0, 0);
	if (bad == n)
		return 0;	/* the pages read one by one after all */
	s->cs_miss = pa + bad;
	s->cs_miss_end = pa + mdb_pages(md, pa, buf, n, bad, 1);
	return -ENXIO;
}

static void
mdb_close(struct cd_src *s)
{
	free(s->cs_priv);
}

static const struct cd_ops mdb_ops = { mdb_read, mdb_close };

static int
mdb_span_cmp(const void *a, const void *b)
{
	const struct mdb_span *x = a, *y = b;

	return x->ms_pa < y->ms_pa ? -1 : x->ms_pa > y->ms_pa;
}

/* Add the spans sorted, overlapping or touching ones merged: 0 or -errno. */
static int
mdb_add_spans(struct cd_src *s, const struct mdb_dbg *md)
{
	struct mdb_span *sp, cur;
	uint32_t i;
	int rv = 0;

	if (md->md_nspans == 0)
		return 0;
	sp = malloc(md->md_nspans * sizeof (*sp));
	if (sp == NULL)
		return -ENOMEM;
	memcpy(sp, md->md_spans, md->md_nspans * sizeof (*sp));
	qsort(sp, md->md_nspans, sizeof (*sp), mdb_span_cmp);
	cur = sp[0];
	for (i = 1; i < md->md_nspans && rv == 0; i++) {
		if (sp[i].ms_pa - cur.ms_pa <= cur.ms_size) {
			if (sp[i].ms_pa + sp[i].ms_size > cur.ms_pa +
			    cur.ms_size)
				cur.ms_size = sp[i].ms_pa + sp[i].ms_size -
				    cur.ms_pa;
			continue;
		}
		rv = cd_src_add(s, cur.ms_pa, cur.ms_size, 0);
		cur = sp[i];
	}
	if (rv == 0)
		rv = cd_src_add(s, cur.ms_pa, cur.ms_size, 0);
	free(sp);
	return rv;
}

struct cd_src *
mdb_src_new(const struct mdb_dbg *md)
{
	struct cd_src *s;

	s = cd_src_new(md->md_name, "crash(8) session", &mdb_ops, -1);
	if (s == NULL)
		return NULL;
	s->cs_priv = malloc(sizeof (*md));
	if (s->cs_priv == NULL || mdb_add_spans(s, md) != 0) {
		cd_close(s);
		return NULL;
	}
	memcpy(s->cs_priv, md, sizeof (*md));
	s->cs_hole = MDB_HOLE;
	return s;
}

/* crash style: an address is hex, with or without 0x. */
static int
mdb_parse_phys(const char *prog, const char *s, uint64_t *pa, FILE *err)
{
	char *end;

	errno = 0;
	*pa = strtoull(s, &end, 16);
	if (errno != 0 || end == s || *end != '\0' || *pa % CD_PAGE ||
	    *pa == CD_NOADDR) {
		fprintf(err, "%s: -p %s: not a page-aligned physical address (hex, e.g. 10000000)\n",
		    prog, s);
		return 2;
	}
	return 0;
}

/* 0, or 2 after saying why. */
static int
mdb_parse(int argc, char **argv, const char *prog, struct mdb_args *ma,
    FILE *err)
{
	int i;

	ma->ma_phys = CD_NOADDR;
	ma->ma_flags = 0;
	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "-q") == 0)
			ma->ma_flags |= KC_F_QUIET;
		else if (strcmp(argv[i], "-m") == 0 ||
		    strcmp(argv[i], "--merge") == 0)
			ma->ma_flags |= KC_F_MERGE;
		else if (strcmp(argv[i], "-v") == 0 ||
		    strcmp(argv[i], "--vars") == 0)
			ma->ma_flags |= KC_F_VARS;	/* kdt-extract --vars */
		else if ((strcmp(argv[i], "-p") == 0 ||
		    strcmp(argv[i], "--phys") == 0) && i + 1 < argc) {
			if (mdb_parse_phys(prog, argv[++i], &ma->ma_phys,
			    err) != 0)
				return 2;
		} else {
			fprintf(err, "%s: unexpected argument %s\n", prog,
			    argv[i]);
			return 2;
		}
	}
	return 0;
}

int
mdb_main(int argc, char **argv, const char *prog,
    const struct mdb_dbg *md, FILE *out, FILE *err)
{
	struct kc_opts ko = { prog, 0 };
	struct mdb_args ma;
	struct cd_src *s;
	int rv;

	if (mdb_parse(argc, argv, prog, &ma, err) != 0)
		return 2;
	s = mdb_src_new(md);
	if (s == NULL) {
		fprintf(err, "%s: no memory for the memory source\n", prog);
		return 1;
	}
	/* the same partial report as kdt-extract (its exit status is the
	   command's return value here) */
	ko.ko_flags = ma.ma_flags | KC_F_PARTIAL;
	rv = cd_extract_src(s, ma.ma_phys, &ko, out, err);
	cd_close(s);
	return rv;
}
