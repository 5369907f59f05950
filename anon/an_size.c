/*
 * an_size.c -- how big the reserved region of an anonymous enabling is.
 *
 * kdt.ko (kmod/kd_cs.c, kd_region) gets only the region's size from the
 * command line and lays it out itself: a header page, the metadata (probe
 * and EPID tables, a copy of the DOF; common/rgn.h), the aggregations
 * when the program aggregates, then the rest split evenly into the
 * per-CPU principal buffers.  So the size we choose is
 *
 *	rgn_size_for(ncpu, bufsize, aggregations, table capacities, DOF)
 *
 * rounded up to 2 MiB (the reservation granule we use, AN_ALIGN), and
 * whatever the rounding adds goes to the principal buffers.  The pieces:
 *
 *   - ncpu: the target's possible CPUs (kdt.ko uses nr_cpu_ids), read by
 *     the caller from /sys/devices/system/cpu/possible;
 *   - bufsize: the program's bufsize option, else 4 MiB per CPU but no
 *     more than 64 MiB over all CPUs (and no less than 256 KiB each), so
 *     a 256-CPU machine does not reserve a gigabyte for a default
 *     (kc_anon_bufsize_default(), consumer/kc.h: kdt -a and kdt-extract
 *     hold the region to the same rule and say when a boot with more
 *     CPUs than this count left each a smaller buffer);
 *   - aggsize: the program's aggsize, else kdt.ko's default (256 KiB),
 *     only when it has aggregations -- the anonymous state keeps them in
 *     the region so they survive a panic, and for "kdt -a" after a claim
 *     each CPU's spare and two totals slots (each aggsize x min(ncpu, 4)
 *     plus a header: kmod/kd_cs.c kd_aggrgn_params, rgn.h "Aggregation
 *     totals"), about four times the aggregation bytes of one CPU set --
 *     so a dump taken after the claim has the claimed consumer's numbers
 *     (kdt.ko leaves spares and totals out of a region too small for
 *     them next to the buffers asked for, and says so);
 *   - the tables: kdt.ko sizes them for the probes it matched plus 1024
 *     of headroom (KD_MOD_HEADROOM).  Matching happens at boot, so here
 *     each description is counted as what it can match at most: BEGIN,
 *     END and ERROR one probe, a named function 4 (entry and return, in
 *     up to two providers; the module part only narrows), a wildcard
 *     over the functions of fbt or kinst (or of any provider)
 *     AN_PROBES_WIDE -- a distribution kernel has some 50,000 traceable
 *     functions --, any other wildcard (sdt, syscall, profile ...)
 *     AN_PROBES_GLOB.  A 328-byte entry per probe: fbt:::entry costs
 *     about 21 MiB of table, which is what the kernel will need.
 *
 * The speculations (a program that speculates: spec_area_size() of nspec
 * x specsize per CPU, common/spec.h) and the variable state
 * (dif_vstate_size(): variable tables, global values, dynvarsize of
 * dynamic store) are in the region too: kdt.ko keeps them there for the
 * anonymous state (kmod/kd_cs.c, kd_specvar_sizes) so kdt-extract can
 * show uncommitted speculations and --vars after a panic.  Both come
 * from ecb_params_init(), the sizes kdt.ko uses.
 *
 * -x regionsize overrides the result; it must still hold the minimum.
 * The limit, for both, is a quarter of the machine's RAM (kdt.ko refuses
 * buffers above that too) and kdt.ko's own 64 GiB ceiling.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "anon/an_impl.h"
#include "common/dof.h"
#include "common/dof_load.h"
#include "common/rgn.h"
#include "common/ecb.h"	/* ecb_params_init: speculation, variable sizes */
#include "consumer/kc.h"

#define AN_AGGSIZE_DEFAULT	(256ULL << 10)	/* kmod KD_AGGSIZE_DEFAULT */
#define AN_DYNVAR_DEFAULT	(1ULL << 20)	/* ECB_DYNVARSIZE_DEFAULT */
#define AN_SPEC_DEFAULT		(32ULL << 10)	/* ECB_SPECSIZE_DEFAULT */
#define AN_MOD_HEADROOM		1024		/* kmod KD_MOD_HEADROOM */
#define AN_PROBES_WIDE		65536
#define AN_PROBES_GLOB		4096
#define AN_REGION_MAX		(64ULL << 30)	/* kmod KD_REGION_MAX */
#define AN_AGGTOT_NCPU		4		/* kmod KD_AGGTOT_NCPU */

int
an_cpulist_count(const char *text, uint32_t *ncpu)
{
	const char *s = text;
	unsigned long a, b;
	char *end;
	uint32_t n = 0;

	while (*s != '\0' && *s != '\n') {
		errno = 0;
		a = strtoul(s, &end, 10);
		if (end == s || errno != 0)
			return -1;
		b = a;
		if (*end == '-') {
			s = end + 1;
			b = strtoul(s, &end, 10);
			if (end == s || b < a)
				return -1;
		}
		if (b - a >= 65536)
			return -1;
		n += (uint32_t)(b - a + 1);
		s = end;
		if (*s == ',')
			s++;
		else if (*s != '\0' && *s != '\n')
			return -1;
	}
	if (n == 0)
		return -1;
	*ncpu = n;
	return 0;
}

static int
an_isglob(const char *s)
{
	return s[0] == '\0' || strpbrk(s, "*?[\\") != NULL;
}

/* The most probes one description can match (see the comment above). */
static uint32_t
an_desc_probes(const struct dof_pdesc *pd)
{
	int anyprov = an_isglob(pd->lp_prov);

	if ((anyprov || strcmp(pd->lp_prov, "dtrace") == 0) &&
	    (strcmp(pd->lp_name, "BEGIN") == 0 ||
	    strcmp(pd->lp_name, "END") == 0 ||
	    strcmp(pd->lp_name, "ERROR") == 0))
		return 1;
	/* one function: its entry and return, in a provider or two */
	if (!an_isglob(pd->lp_func))
		return 4;
	if (anyprov || strcmp(pd->lp_prov, "fbt") == 0 ||
	    strcmp(pd->lp_prov, "kinst") == 0)
		return AN_PROBES_WIDE;
	return AN_PROBES_GLOB;
}

static uint64_t
an_opt(const struct dof_enabling *den, int opt, uint64_t dflt)
{
	return den->den_opts[opt] == DTRACEOPT_UNSET ? dflt :
	    den->den_opts[opt];
}

static void
an_size_from_den(const struct dof_enabling *den, uint32_t ncpu,
    struct an_size *as)
{
	uint64_t n = 0;
	uint32_t i;

	as->as_bufsize_set = den->den_opts[DTRACEOPT_BUFSIZE] !=
	    DTRACEOPT_UNSET;
	if (as->as_bufsize_set)
		as->as_bufsize = den->den_opts[DTRACEOPT_BUFSIZE];
	else	/* the rule kdt -a and kdt-extract check the region by */
		as->as_bufsize = kc_anon_bufsize_default(ncpu);
	as->as_aggsize = den->den_naggs == 0 ? 0 :
	    an_opt(den, DTRACEOPT_AGGSIZE, AN_AGGSIZE_DEFAULT);
	as->as_dynvarsize = an_opt(den, DTRACEOPT_DYNVARSIZE,
	    AN_DYNVAR_DEFAULT);
	as->as_specsize = an_opt(den, DTRACEOPT_SPECSIZE, AN_SPEC_DEFAULT);
	as->as_nspec = (uint32_t)an_opt(den, DTRACEOPT_NSPEC, 1);
	as->as_ndesc = den->den_necbs;
	for (i = 0; i < den->den_necbs; i++)
		n += an_desc_probes(&den->den_ecbs[i].le_pdesc);
	as->as_nprobes = n > (1u << 20) ? (1u << 20) : (uint32_t)n;
}

/* The speculation and variable areas, as kdt.ko sizes them (kd_cs.c). */
static void
an_size_specvar(const struct dof_enabling *den, uint32_t ncpu,
    struct an_size *as)
{
	struct ecb_params ep;
	uint32_t e, a, spec = 0;

	ecb_params_init(&ep, den, ncpu);
	for (e = 0; e < den->den_necbs; e++)
		for (a = 0; a < den->den_ecbs[e].le_nacts; a++)
			if (den->den_ecbs[e].le_acts[a].la_kind ==
			    DTRACEACT_SPECULATE)
				spec = 1;
	as->as_specarea = spec ? spec_area_size(ep.ep_nspec, ncpu,
	    ep.ep_specsize) : 0;
	as->as_vararea = dif_vstate_size(den, ep.ep_dynvarsize);
}

int
an_size_compute(const void *dof, size_t dofsz, uint32_t ncpu,
    uint64_t memtotal, uint64_t regsize, struct an_size *as, FILE *err)
{
	struct dof_enabling *den = NULL;
	struct rgn_params p;
	struct kdt_err ke;
	char aggs[160];

	memset(as, 0, sizeof (*as));
	if (dof_load(dof, dofsz, &den, &ke) != 0) {
		fprintf(err, "kdt: the compiled enabling does not load: %s\n", ke.ke_msg);
		return -1;
	}
	as->as_ncpu = ncpu;
	an_size_from_den(den, ncpu, as);
	an_size_specvar(den, ncpu, as);
	dof_free(den);
	memset(&p, 0, sizeof (p));
	p.rp_ncpu = ncpu;
	p.rp_probe_cap = as->as_nprobes + AN_MOD_HEADROOM;
	p.rp_epid_cap = as->as_nprobes + AN_MOD_HEADROOM;
	p.rp_specarea = as->as_specarea;
	p.rp_vararea = as->as_vararea;
	p.rp_dofsz = dofsz;
	if (as->as_aggsize != 0) {	/* as kmod kd_aggrgn_params() */
		p.rp_aggsize = as->as_aggsize;
		p.rp_aggnbuf = 2 * ncpu;
		p.rp_aggtot = as->as_aggsize * (ncpu < AN_AGGTOT_NCPU ? ncpu :
		    AN_AGGTOT_NCPU) + RGN_AGGTOT_HDRSIZE + 8ULL * ncpu;
	}
	as->as_need = rgn_size_for(&p, as->as_bufsize);
	if (as->as_aggsize != 0) {	/* the aggregations' share */
		p.rp_aggsize = 0;
		as->as_aggbytes = as->as_need - rgn_size_for(&p,
		    as->as_bufsize);
	}
	as->as_limit = memtotal / 4;
	if (as->as_limit > AN_REGION_MAX || as->as_limit == 0)
		as->as_limit = AN_REGION_MAX;
	as->as_size_set = regsize != 0;
	as->as_size = regsize != 0 ? regsize :
	    (as->as_need + AN_ALIGN - 1) & ~(AN_ALIGN - 1);
	if (as->as_size_set && as->as_size < as->as_need) {
		aggs[0] = '\0';
		if (as->as_aggsize != 0)
			snprintf(aggs, sizeof (aggs), ", %llu bytes of aggregation buffers, spares and totals for aggsize %llu",
			    (unsigned long long)as->as_aggbytes,
			    (unsigned long long)as->as_aggsize);
		fprintf(err, "kdt: -x regionsize=%llu is below the %llu bytes the region needs (header, metadata for %u probes, %llu buffer bytes x %u CPUs%s)\n",
		    (unsigned long long)regsize,
		    (unsigned long long)as->as_need, as->as_nprobes,
		    (unsigned long long)as->as_bufsize, ncpu, aggs);
		return -1;
	}
	if (as->as_size > as->as_limit && as->as_aggbytes > as->as_limit / 2) {
		/* the aggregations are the bulk: name aggsize */
		fprintf(err, "kdt: a region of %llu bytes (%s: %llu bytes of aggregation buffers, spares and totals for aggsize %llu x %u CPUs, %llu buffer bytes x %u CPUs) exceeds the limit of %llu bytes, a quarter of RAM; lower aggsize\n",
		    (unsigned long long)as->as_size,
		    as->as_size_set ? "-x regionsize" : "sized",
		    (unsigned long long)as->as_aggbytes,
		    (unsigned long long)as->as_aggsize, ncpu,
		    (unsigned long long)as->as_bufsize, ncpu,
		    (unsigned long long)as->as_limit);
		return -1;
	}
	if (as->as_size > as->as_limit && as->as_vararea > as->as_limit / 2) {
		/* the dynamic variables are the bulk: name dynvarsize */
		fprintf(err, "kdt: a region of %llu bytes (%s: %llu bytes of variable state for dynvarsize %llu, %llu buffer bytes x %u CPUs) exceeds the limit of %llu bytes, a quarter of RAM; lower dynvarsize\n",
		    (unsigned long long)as->as_size,
		    as->as_size_set ? "-x regionsize" : "sized",
		    (unsigned long long)as->as_vararea,
		    (unsigned long long)as->as_dynvarsize,
		    (unsigned long long)as->as_bufsize, ncpu,
		    (unsigned long long)as->as_limit);
		return -1;
	}
	if (as->as_size > as->as_limit) {
		fprintf(err, "kdt: a region of %llu bytes (%s: %llu buffer bytes x %u CPUs, metadata for %u probes) exceeds the limit of %llu bytes, a quarter of RAM; lower bufsize or set -x regionsize\n",
		    (unsigned long long)as->as_size,
		    as->as_size_set ? "-x regionsize" : "sized",
		    (unsigned long long)as->as_bufsize, ncpu, as->as_nprobes,
		    (unsigned long long)as->as_limit);
		return -1;
	}
	return 0;
}
