/*
 * cd_scan.c -- the region locator: find kdt's region in a memory source.
 *
 * No debuginfo is needed: the region header sits at the start of a page
 * and carries a magic that kdt's own code and data never contain
 * (rgn.h), so scanning every page-aligned physical address of every
 * range for rgn_probe_hdr() finds it.  The scan streams CD_CHUNK bytes
 * at a time.  A candidate is read whole (rh_size bytes, which must all be
 * in the dump) and accepted only if rgn_open() validates it at its own
 * physical address: a stale copy of a header elsewhere in memory (a
 * buffer that once held the image) names another rh_phys and is skipped.
 * A chunk that does not read (a damaged page of a compressed dump; the
 * source has said which) is rescanned page by page.  A region whose
 * header page or metadata touches a hole is rejected naming the missing
 * physical range and, from the source's cs_hole, why it is missing (e.g.
 * excluded from a kdump); holes after the metadata (a dump cut inside
 * the CPU buffers, an excluded or unreadable page there) are read as
 * zeros and listed as gaps (cd_read_gaps, rgn.h "struct rgn_gap"): the
 * printer names each part they touch, leaves it out and prints the rest.
 * Called by cd_extract_main() (cd_extract.c).
 *
 * A live session's region is vmalloc'd: its header page is found the
 * same way, but the other pages are wherever the kernel put them.  Such
 * a header has rh_pl_off set and the region is reassembled through its
 * page list (rgn.h, rgn_pagelist_assemble(), which checks every entry
 * before it is followed); a copy of such a header elsewhere (the live
 * consumer's mirror of the region) names another rh_phys and is skipped
 * before its list is looked at.  Several sessions may have been running:
 * cd_find_regions() scans the whole source and returns where every valid
 * region is, and the caller reads and prints them one at a time.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

#include "common/rgn.h"
#include "crashdump/cd.h"

/* What the scan learned so far. */
struct cd_scan {
	struct cd_src	*sc_src;
	const char	*sc_prog;
	FILE		*sc_err;
	char		sc_why[512];	/* the first rejected candidate */
	uint64_t	sc_done;	/* bytes scanned, for progress */
	int		sc_progress;
	/* collecting every region (cd_find_regions) rather than the first */
	int		sc_all;
	uint64_t	*sc_pas;	/* headers of the valid regions */
	uint32_t	sc_npas;
	uint32_t	sc_plbad;	/* live regions whose page list failed */
};

static void
cd_why(struct cd_scan *sc, int keep, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Remember why a candidate was rejected (the first reason wins). */
static void
cd_why(struct cd_scan *sc, int keep, const char *fmt, ...)
{
	va_list ap;

	if (sc->sc_why[0] != '\0' && !keep)
		return;
	va_start(ap, fmt);
	vsnprintf(sc->sc_why, sizeof (sc->sc_why), fmt, ap);
	va_end(ap);
}

/* Name the hole at "miss" inside the region [pa, pa + size). */
static void
cd_why_hole(struct cd_scan *sc, uint64_t pa, uint64_t size, uint64_t miss)
{
	uint64_t end = cd_hole_end(sc->sc_src, miss);
	const char *why = sc->sc_src->cs_hole;

	if (end > pa + size)
		end = pa + size;
	cd_why(sc, 1, "region at phys 0x%llx-0x%llx is not entirely in the dump: phys 0x%llx-0x%llx is missing%s%s%s",
	    (unsigned long long)pa, (unsigned long long)(pa + size),
	    (unsigned long long)miss, (unsigned long long)end,
	    why != NULL ? " (" : "", why != NULL ? why : "",
	    why != NULL ? ")" : "");
}

uint8_t *
cd_img_alloc(uint64_t size)
{
	void *p;

	if (size == 0 || size > CD_REGION_MAX)
		return NULL;
	p = mmap(NULL, size, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	return p == MAP_FAILED ? NULL : p;
}

void
cd_img_free(uint8_t *img, uint64_t size)
{
	if (img != NULL)
		(void) munmap(img, size);
}

void
cd_region_free(struct cd_region *rg)
{
	uint32_t i;

	cd_img_free(rg->cg_img, rg->cg_size);
	for (i = 0; i < rg->cg_ngaps; i++)
		free((char *)rg->cg_gaps[i].rg_why);
	free(rg->cg_gaps);
	memset(rg, 0, sizeof (*rg));
}

/* Why the page at pa did not read (rv): a phrase, malloc'd. */
static char *
cd_gap_why(const struct cd_src *s, uint64_t pa, int rv)
{
	char buf[160];

	if (rv != -ENXIO)
		snprintf(buf, sizeof (buf), "unreadable: %s", strerror(-rv));
	else if (s->cs_cut_pa != CD_NOADDR && pa + CD_PAGE > s->cs_cut_pa)
		snprintf(buf, sizeof (buf), "truncated at phys 0x%llx: the dump ends there",
		    (unsigned long long)s->cs_cut_pa);
	else
		snprintf(buf, sizeof (buf), "%s", s->cs_hole != NULL ?
		    s->cs_hole : "not held by the dump");
	return strdup(buf);
}

/* Add [off, off + len) with reason why (taken) to the list. */
static int
cd_gap_add(struct rgn_gap **gaps, uint32_t *n, uint64_t off, uint64_t len,
    char *why)
{
	struct rgn_gap *g;

	if (why == NULL)
		return -ENOMEM;
	g = *n > 0 ? &(*gaps)[*n - 1] : NULL;
	if (g != NULL && g->rg_off + g->rg_len == off &&
	    strcmp(g->rg_why, why) == 0) {
		g->rg_len += len;	/* the same hole goes on */
		free(why);
		return 0;
	}
	g = realloc(*gaps, (*n + 1) * sizeof (*g));
	if (g == NULL) {
		free(why);
		return -ENOMEM;
	}
	*gaps = g;
	g[*n].rg_off = off;
	g[*n].rg_len = len;
	g[*n].rg_why = why;
	(*n)++;
	return 0;
}

/* Are the n bytes at p all zero?  (Reading an untouched page maps none.) */
static int
cd_zero(const uint8_t *p, uint64_t n)
{
	return n == 0 || (p[0] == 0 && memcmp(p, p + 1, n - 1) == 0);
}

int
cd_read_gaps(struct cd_src *s, uint64_t pa, uint64_t size, uint8_t *img,
    struct rgn_gap **gaps, uint32_t *ngaps)
{
	uint64_t o, n, p, k, miss, end;
	int rv;

	*gaps = NULL;
	*ngaps = 0;
	for (o = 0; o < size; o += n) {
		n = size - o < CD_CHUNK ? size - o : CD_CHUNK;
		/*
		 * No range of the source holds pa + o: one gap to the end of
		 * the hole, its pages left as cd_img_alloc() gave them (zero,
		 * taking no room) -- a header claiming gigabytes beyond a cut
		 * file costs nothing here.
		 */
		end = cd_hole_at(s, pa + o);
		if (end != pa + o && (pa + o) % CD_PAGE == 0) {
			n = end == CD_NOADDR || end - (pa + o) > size - o ?
			    size - o : end - (pa + o);
			if (n >= CD_PAGE)
				n -= n % CD_PAGE;
			if ((rv = cd_gap_add(gaps, ngaps, o, n,
			    cd_gap_why(s, pa + o, -ENXIO))) != 0)
				return rv;
			continue;
		}
		if (cd_read_phys(s, pa + o, img + o, n, &miss) == 0)
			continue;
		/* something in this chunk is missing: page by page */
		for (p = 0; p < n; p += k) {
			k = n - p < CD_PAGE ? n - p : CD_PAGE;
			rv = cd_read_phys(s, pa + o + p, img + o + p, k, &miss);
			if (rv == 0)
				continue;
			/* a failed read may have written part of it */
			if (!cd_zero(img + o + p, k))
				memset(img + o + p, 0, k);
			if ((rv = cd_gap_add(gaps, ngaps, o + p, k,
			    cd_gap_why(s, pa + o + p, rv))) != 0)
				return rv;
		}
	}
	return 0;
}

/*
 * Read the region; the header and metadata area (the first meta_end
 * bytes) must be in the dump: say what is missing if not.  Other parts
 * missing are kept in *gaps for the printer.
 */
static int
cd_check_backed(struct cd_scan *sc, uint64_t pa, uint64_t size,
    uint64_t meta_end, uint8_t *img, struct rgn_gap **gaps,
    uint32_t *ngaps)
{
	uint64_t miss = CD_NOADDR, cut = sc->sc_src->cs_cut_pa;
	struct cd_region tmp;
	int rv;

	rv = cd_read_gaps(sc->sc_src, pa, size, img, gaps, ngaps);
	if (rv == 0 && (*ngaps == 0 || (*gaps)[0].rg_off >= meta_end))
		return 0;
	if (rv == 0) {
		/* the header or metadata: nothing can be decoded */
		miss = pa + (*gaps)[0].rg_off;
		if (strncmp((*gaps)[0].rg_why, "unreadable: ", 12) == 0)
			rv = -EIO;
		else
			rv = -ENXIO;
	}
	memset(&tmp, 0, sizeof (tmp));
	tmp.cg_gaps = *gaps;
	tmp.cg_ngaps = *ngaps;
	cd_region_free(&tmp);
	*gaps = NULL;
	*ngaps = 0;
	if (rv != -ENXIO)
		cd_why(sc, 1, "region at phys 0x%llx: read error: %s",
		    (unsigned long long)pa, strerror(-rv));
	else if (cut != CD_NOADDR && cut >= pa && cut < pa + size)
		cd_why(sc, 1, "region at phys 0x%llx-0x%llx is cut off: the dump ends at phys 0x%llx (file truncated?)",
		    (unsigned long long)pa, (unsigned long long)(pa + size),
		    (unsigned long long)cut);
	else
		cd_why_hole(sc, pa, size, miss);
	return 1;
}

/* ---- page list (rgn.h): a live session's vmalloc'd region ---- */

/* rgn_pl_read_fn over the dump: -ENXIO for a page it does not hold. */
static int
cd_pl_read(void *arg, uint64_t pa, void *buf, uint64_t n)
{
	uint64_t miss;

	return cd_read_phys(arg, pa, buf, n, &miss);
}

/* Where the gaps of a page-listed region go (rgn_pl_gap_fn). */
struct cd_plgaps {
	struct cd_src	*pg_src;
	struct rgn_gap	**pg_gaps;
	uint32_t	*pg_n;
	int		pg_rv;
};

static void
cd_pl_gap(void *arg, uint64_t off, uint64_t pa)
{
	struct cd_plgaps *pg = arg;

	if (pg->pg_rv == 0)
		pg->pg_rv = cd_gap_add(pg->pg_gaps, pg->pg_n, off, CD_PAGE,
		    cd_gap_why(pg->pg_src, pa, -ENXIO));
}

/*
 * The region whose page 0 at pa carries a page list: reassemble it into
 * img (rh_size bytes) through the list, which rgn_pagelist_assemble()
 * checks entry by entry; listed pages past the metadata that the dump
 * lacks become gaps (*gaps).  0, or 1 with the reason kept.
 */
static int
cd_try_pagelist(struct cd_scan *sc, uint64_t pa, uint8_t *img,
    struct rgn_gap **gaps, uint32_t *ngaps)
{
	struct cd_plgaps pg = { sc->sc_src, gaps, ngaps, 0 };
	struct kdt_err ke;
	uint8_t *page0 = malloc(CD_PAGE);
	uint64_t miss;
	int rv, hole;

	if (page0 == NULL || cd_read_phys(sc->sc_src, pa, page0, CD_PAGE,
	    &miss) != 0) {
		cd_why(sc, 1, "region header page at phys 0x%llx does not read whole",
		    (unsigned long long)pa);
		free(page0);
		return 1;
	}
	rv = rgn_pagelist_assemble_gaps(page0, pa, cd_pl_read, sc->sc_src,
	    img, cd_pl_gap, &pg, &ke);
	free(page0);
	if (rv == 0 && pg.pg_rv != 0) {
		cd_why(sc, 1, "live region at phys 0x%llx: no memory for its list of missing pages",
		    (unsigned long long)pa);
		return 1;
	}
	if (rv != 0) {
		/* a listed page the dump lacks: say why, as for a hole */
		hole = ke.ke_errno == ENODATA && sc->sc_src->cs_hole != NULL;
		sc->sc_plbad++;
		cd_why(sc, 1, "live region at phys 0x%llx: %s%s%s%s",
		    (unsigned long long)pa, ke.ke_msg, hole ? " (" : "",
		    hole ? sc->sc_src->cs_hole : "", hole ? ")" : "");
		return 1;
	}
	return 0;
}
/* ---- page list (end) ---- */

/*
 * Read and validate the region whose header is at pa.  0 with rg filled;
 * 1 when it is not usable (the reason is kept in sc_why).
 */
static int
cd_try(struct cd_scan *sc, uint64_t pa, struct cd_region *rg)
{
	struct rgn_hdr h;
	struct kdt_err ke;
	struct rgn_view v;
	uint64_t miss;
	uint8_t *img = NULL;

	if (cd_read_phys(sc->sc_src, pa, &h, sizeof (h), &miss) != 0) {
		if (sc->sc_src->cs_cut_pa != CD_NOADDR &&
		    miss >= sc->sc_src->cs_cut_pa)
			cd_why(sc, 1, "no region header at phys 0x%llx: phys 0x%llx is not in the dump, which is truncated: it ends at phys 0x%llx (file cut short?)",
			    (unsigned long long)pa, (unsigned long long)miss,
			    (unsigned long long)sc->sc_src->cs_cut_pa);
		else
			cd_why(sc, 1, "no region header at phys 0x%llx: phys 0x%llx is not in the dump",
			    (unsigned long long)pa, (unsigned long long)miss);
		return 1;
	}
	if (rgn_open(&v, &h, sizeof (h), RGN_PHYS_ANY, &ke) != 0 &&
	    strcmp(ke.ke_tag, "RGN_TRUNC") != 0) {
		cd_why(sc, 0, "region header at phys 0x%llx: %s",
		    (unsigned long long)pa, ke.ke_msg);
		return 1;
	}
	if (h.rh_size < CD_PAGE || h.rh_size > CD_REGION_MAX) {
		cd_why(sc, 0, "region header at phys 0x%llx: size 0x%llx is outside [0x%llx, 0x%llx]",
		    (unsigned long long)pa, (unsigned long long)h.rh_size,
		    CD_PAGE, CD_REGION_MAX);
		return 1;
	}
	if (rgn_pagelist_present(&h) && h.rh_phys != pa) {
		/* a copy of a live header (the consumer's mirror): rule 7 */
		cd_why(sc, 0, "region header at phys 0x%llx says phys 0x%llx (a copy)",
		    (unsigned long long)pa, (unsigned long long)h.rh_phys);
		return 1;
	}
	img = cd_img_alloc(h.rh_size);
	if (img == NULL)
		goto reject;
	if (rgn_pagelist_present(&h) ? cd_try_pagelist(sc, pa, img,
	    &rg->cg_gaps, &rg->cg_ngaps) != 0 :
	    cd_check_backed(sc, pa, h.rh_size, h.rh_meta_off +
	    h.rh_meta_size, img, &rg->cg_gaps, &rg->cg_ngaps) != 0)
		goto reject;
	if (rgn_open_gaps(&v, img, h.rh_size, pa, rg->cg_gaps,
	    rg->cg_ngaps, &ke) != 0) {
		cd_why(sc, strcmp(ke.ke_tag, "RGN_PHYS") != 0,
		    "region at phys 0x%llx: %s", (unsigned long long)pa,
		    ke.ke_msg);
		goto reject;
	}
	rg->cg_img = img;
	rg->cg_size = h.rh_size;
	rg->cg_pa = pa;
	return 0;
reject:
	cd_img_free(img, h.rh_size);
	cd_region_free(rg);
	return 1;
}

static void
cd_progress(struct cd_scan *sc, int last)
{
	if (!sc->sc_progress)
		return;
	if (last)
		fprintf(sc->sc_err, "\r%60s\r", "");
	else
		fprintf(sc->sc_err, "\r%s: %s: scanning for the kdt region: %llu of %llu MiB",
		    sc->sc_prog, sc->sc_src->cs_name,
		    (unsigned long long)(sc->sc_done >> 20),
		    (unsigned long long)(sc->sc_src->cs_total >> 20));
	fflush(sc->sc_err);
}

/*
 * A valid region was read into rg: 0 to stop at it, or, when collecting
 * every region, 1 to go on after noting where it is (its image is freed:
 * the caller reads the regions again one at a time, bounding memory).
 */
static int
cd_found(struct cd_scan *sc, struct cd_region *rg)
{
	uint64_t *n;

	if (!sc->sc_all)
		return 0;
	n = realloc(sc->sc_pas, (sc->sc_npas + 1) * sizeof (*n));
	if (n != NULL) {
		sc->sc_pas = n;
		sc->sc_pas[sc->sc_npas++] = rg->cg_pa;
	}
	cd_region_free(rg);
	return 1;
}

/* Scan one chunk at pa (page-aligned) of n bytes held in buf. */
static int
cd_scan_chunk(struct cd_scan *sc, const uint8_t *buf, uint64_t pa,
    uint64_t n, struct cd_region *rg)
{
	uint64_t o;

	for (o = 0; o + sizeof (struct rgn_hdr) <= n; o += CD_PAGE) {
		if (!rgn_probe_hdr(buf + o, n - o < CD_PAGE ? n - o :
		    CD_PAGE))
			continue;
		if (cd_try(sc, pa + o, rg) == 0 && cd_found(sc, rg) == 0)
			return 0;
	}
	return 1;
}

/*
 * A chunk that does not read whole (a damaged page of a compressed dump,
 * already reported by the source, or a hole the source found only by
 * reading: -ENXIO): scan it page by page, skipping the pages that do not
 * read, so one bad page does not hide the region.
 */
static int
cd_scan_pages(struct cd_scan *sc, uint8_t *buf, uint64_t pa, uint64_t n,
    struct cd_region *rg)
{
	uint64_t o, miss;
	int rv;

	for (o = 0; o + sizeof (struct rgn_hdr) <= n; o += CD_PAGE) {
		rv = cd_read_phys(sc->sc_src, pa + o, buf,
		    sizeof (struct rgn_hdr), &miss);
		if (rv == -ENXIO)
			continue;	/* a hole, not damage (cd.h co_read) */
		if (rv != 0) {
			cd_why(sc, 0, "read error at phys 0x%llx",
			    (unsigned long long)(pa + o));
			continue;
		}
		if (rgn_probe_hdr(buf, sizeof (struct rgn_hdr)) &&
		    cd_try(sc, pa + o, rg) == 0 && cd_found(sc, rg) == 0)
			return 0;
	}
	return 1;
}

static int
cd_scan_range(struct cd_scan *sc, const struct cd_range *r, uint8_t *buf,
    struct cd_region *rg)
{
	uint64_t pa = (r->cr_pa + CD_PAGE - 1) & ~(CD_PAGE - 1);
	uint64_t end = r->cr_pa + r->cr_size, n, miss;

	if (pa < r->cr_pa)
		return 1;	/* no page starts in the last page of 2^64 */
	for (; pa < end; pa += n) {
		n = end - pa < CD_CHUNK ? end - pa : CD_CHUNK;
		if (cd_read_phys(sc->sc_src, pa, buf, n, &miss) != 0) {
			if (cd_scan_pages(sc, buf, pa, n, rg) == 0)
				return 0;
		} else if (cd_scan_chunk(sc, buf, pa, n, rg) == 0)
			return 0;
		sc->sc_done += n;
		cd_progress(sc, 0);
	}
	return 1;
}

static int
cd_scan_all(struct cd_scan *sc, struct cd_region *rg)
{
	uint8_t *buf = malloc(CD_CHUNK);
	uint32_t i;
	int rv = 1;

	if (buf == NULL) {
		fprintf(sc->sc_err, "%s: no memory for a %llu-byte scan buffer\n",
		    sc->sc_prog, CD_CHUNK);
		return 1;
	}
	sc->sc_progress = isatty(fileno(sc->sc_err)) &&
	    sc->sc_src->cs_total >= (256ULL << 20);
	for (i = 0; i < sc->sc_src->cs_nranges && rv != 0; i++)
		rv = cd_scan_range(sc, &sc->sc_src->cs_ranges[i], buf, rg);
	cd_progress(sc, 1);
	free(buf);
	return rv;
}

/*
 * Nothing found: say how much memory was searched and, when the dump is
 * cut short (cs_cut_pa), where it ends -- the region may be in what was
 * lost.
 */
static void
cd_no_region(const struct cd_src *s, const char *prog, FILE *err)
{
	if (s->cs_cut_pa != CD_NOADDR)
		fprintf(err, "%s: %s: no kdt region found in %llu MiB of physical memory, and the dump is truncated: it ends at phys 0x%llx, short of what its headers describe (file cut short?); the region may be in the part lost; see kdt-extract(1), DIAGNOSTICS\n",
		    prog, s->cs_name, (unsigned long long)(s->cs_total >> 20),
		    (unsigned long long)s->cs_cut_pa);
	else
		fprintf(err, "%s: %s: no kdt region found in %llu MiB of physical memory (was the kernel booted with memmap=... and kdt.region=...?); see kdt-extract(1), DIAGNOSTICS\n",
		    prog, s->cs_name, (unsigned long long)(s->cs_total >> 20));
}

int
cd_find_region(struct cd_src *s, uint64_t pa, const char *prog,
    struct cd_region *rg, FILE *err)
{
	struct cd_scan sc;

	memset(&sc, 0, sizeof (sc));
	memset(rg, 0, sizeof (*rg));
	sc.sc_src = s;
	sc.sc_prog = prog;
	sc.sc_err = err;
	if (pa != CD_NOADDR ? cd_try(&sc, pa, rg) == 0 :
	    cd_scan_all(&sc, rg) == 0)
		return 0;
	if (sc.sc_why[0] != '\0')
		fprintf(err, "%s: %s: %s; see kdt-extract(1), DIAGNOSTICS\n", prog, s->cs_name, sc.sc_why);
	else
		cd_no_region(s, prog, err);
	return 1;
}

/*
 * Every region in the source: a reserved one and each live session's
 * (several consumers may have been running).  0 with *pas (malloc'd,
 * ascending physical addresses) and *n >= 1, or 1 after printing why
 * none was found.
 */
int
cd_find_regions(struct cd_src *s, const char *prog, uint64_t **pas,
    uint32_t *n, FILE *err)
{
	struct cd_region rg;
	struct cd_scan sc;

	memset(&sc, 0, sizeof (sc));
	memset(&rg, 0, sizeof (rg));
	sc.sc_src = s;
	sc.sc_prog = prog;
	sc.sc_err = err;
	sc.sc_all = 1;
	cd_scan_all(&sc, &rg);
	if (sc.sc_npas > 0) {
		if (sc.sc_plbad > 0)	/* found some, but not every one */
			fprintf(err, "%s: %s: %u live region%s not read: %s\n",
			    prog, s->cs_name, sc.sc_plbad,
			    sc.sc_plbad == 1 ? "" : "s", sc.sc_why);
		*pas = sc.sc_pas;
		*n = sc.sc_npas;
		return 0;
	}
	free(sc.sc_pas);
	if (sc.sc_why[0] != '\0')
		fprintf(err, "%s: %s: %s; see kdt-extract(1), DIAGNOSTICS\n", prog, s->cs_name, sc.sc_why);
	else
		cd_no_region(s, prog, err);
	return 1;
}
