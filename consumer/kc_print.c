/*
 * kc_print.c -- the decoder: region image in, dtrace(1) text out.
 *
 * kc_print_region() is the single entry point every front end uses (see
 * kc.h): it validates the image with rgn_open(), loads the enabling's DOF
 * from the region metadata with dof_load() to learn each ECB's actions and
 * record layout (dof_load.h), then walks every cpu's records oldest to
 * newest with rgn_walk_cpu() and prints each record: the framing here,
 * the values through kc_fmt.c.  Problems inside a record stream (torn or
 * corrupt records, drops, probe errors) are reported on the error stream
 * and do not stop the other cpus.
 */
#include <stdlib.h>
#include <string.h>

#include "common/rgn.h"
#include "common/dof_load.h"
#include "consumer/kc.h"

#define KC_MAXARGS	128	/* printf() arguments decoded */

/* State of one kc_print_region() run. */
struct kc_run {
	const char	*kr_prog;
	const char	*kr_input;
	FILE		*kr_out;
	FILE		*kr_err;
	struct rgn_view	kr_view;
	struct dof_enabling *kr_den;
	int		kr_quiet;
	int		kr_heading;	/* heading printed */
	uint32_t	kr_nrecs;
};

static void
kc_prefix(struct kc_run *kr, uint32_t cpu, const struct rgn_epid *ep,
    const struct dof_lecb *le)
{
	const struct rgn_probe *rp = rgn_find_probe(&kr->kr_view,
	    ep->re_probe);
	char fn[DOF_FUNCNAMELEN + DOF_NAMELEN + 2];

	if (rp != NULL)
		snprintf(fn, sizeof (fn), "%.*s:%.*s",
		    (int)sizeof (rp->rp_func), rp->rp_func,
		    (int)sizeof (rp->rp_name), rp->rp_name);
	else
		snprintf(fn, sizeof (fn), "%s:%s", le->le_pdesc.lp_func,
		    le->le_pdesc.lp_name);
	if (!kr->kr_heading)
		fprintf(kr->kr_out, "%3s %6s %32s\n", "CPU", "ID",
		    "FUNCTION:NAME");
	kr->kr_heading = 1;
	fprintf(kr->kr_out, "%3d %6d %32s ", (int)cpu, (int)ep->re_probe,
	    fn);
}

static void
kc_val_of(const struct dof_laction *la, const uint8_t *payload,
    struct kc_val *v)
{
	v->kv_data = payload + la->la_rec_off;
	v->kv_size = la->la_rec_size;
	v->kv_isstr = la->la_rec_isstr;
}

/*
 * printf(): a printf() statement is a run of PRINTF actions, the first
 * carrying the format.  Whether the later ones repeat the format (as
 * libdtrace and our compiler write it) or carry none (reference 3.3), the
 * statement spans exactly as many actions as its conversions consume, at
 * least one -- the way dtrace's consumer groups them.  Returns how many
 * actions the statement used.
 */
static uint32_t
kc_do_printf(struct kc_run *kr, const struct dof_lecb *le, uint32_t i,
    const uint8_t *payload, uint32_t cpu, uint64_t loff)
{
	struct kc_val args[KC_MAXARGS];
	uint32_t n = 0, j;
	char why[256];
	int rv;

	for (j = i; j < le->le_nacts && n < KC_MAXARGS &&
	    le->le_acts[j].la_kind == DTRACEACT_PRINTF; j++) {
		if (le->le_acts[j].la_rec_size != 0)
			kc_val_of(&le->le_acts[j], payload, &args[n++]);
	}
	/* Arguments past KC_MAXARGS show up as "needs argument N". */
	rv = kc_fmt_printf(kr->kr_out, le->le_acts[i].la_fmt, args, n, why,
	    sizeof (why));
	if (rv < 0) {
		fprintf(kr->kr_err, "%s: %s: cpu %u: record at logical offset 0x%llx: printf(\"%s\") action #%u: %s\n",
		    kr->kr_prog, kr->kr_input, cpu, (unsigned long long)loff,
		    le->le_acts[i].la_fmt, i + 1, why);
		return j - i;
	}
	return rv > 1 ? (uint32_t)rv : 1;
}

static void
kc_do_actions(struct kc_run *kr, const struct dof_lecb *le,
    const uint8_t *payload, uint32_t cpu, uint64_t loff)
{
	const struct dof_laction *la;
	struct kc_val v;
	uint32_t i = 0;

	while (i < le->le_nacts) {
		la = &le->le_acts[i];
		if (la->la_kind == DTRACEACT_PRINTF && la->la_fmt != NULL) {
			i += kc_do_printf(kr, le, i, payload, cpu, loff);
			continue;
		}
		if (la->la_kind == DTRACEACT_DIFEXPR && la->la_rec_size) {
			kc_val_of(la, payload, &v);
			kc_fmt_trace(kr->kr_out, &v, kr->kr_quiet);
		} else if (la->la_kind != DTRACEACT_DIFEXPR &&
		    la->la_kind != DTRACEACT_EXIT &&
		    la->la_kind != DTRACEACT_PRINTF) {
			fprintf(kr->kr_err, "%s: %s: cpu %u: record at logical offset 0x%llx: action #%u of kind 0x%x is not decoded by this consumer\n",
			    kr->kr_prog, kr->kr_input, cpu,
			    (unsigned long long)loff, i + 1, la->la_kind);
		}
		i++;
	}
}

/* rgn_walk_cpu callback: one committed record. */
static int
kc_on_rec(void *arg, uint32_t cpu, const struct rgn_rec *rec,
    const uint8_t *payload, uint64_t loff)
{
	struct kc_run *kr = arg;
	const struct rgn_epid *ep = rgn_find_epid(&kr->kr_view,
	    rec->rr_epid);
	const struct dof_lecb *le;

	if (ep->re_ecb >= kr->kr_den->den_necbs ||
	    kr->kr_den->den_ecbs[ep->re_ecb].le_size != ep->re_size) {
		fprintf(kr->kr_err, "%s: %s: cpu %u: record at logical offset 0x%llx: EPID %u names ECB %u of %u payload bytes, but the region's DOF has %u ECBs%s\n",
		    kr->kr_prog, kr->kr_input, cpu, (unsigned long long)loff,
		    ep->re_epid, ep->re_ecb, ep->re_size,
		    kr->kr_den->den_necbs,
		    ep->re_ecb < kr->kr_den->den_necbs ?
		    " with another record size" : "");
		return 0;
	}
	le = &kr->kr_den->den_ecbs[ep->re_ecb];
	if (!kr->kr_quiet)
		kc_prefix(kr, cpu, ep, le);
	kc_do_actions(kr, le, payload, cpu, loff);
	if (!kr->kr_quiet)
		fputc('\n', kr->kr_out);
	kr->kr_nrecs++;
	return 0;
}

/* rgn_walk_cpu callback: a torn or corrupt spot. */
static int
kc_on_bad(void *arg, uint32_t cpu, uint64_t loff, const char *what)
{
	struct kc_run *kr = arg;

	fprintf(kr->kr_err, "%s: %s: cpu %u: logical offset 0x%llx: %s\n",
	    kr->kr_prog, kr->kr_input, cpu, (unsigned long long)loff, what);
	return 0;
}

static void
kc_cpu_counts(struct kc_run *kr, uint32_t cpu)
{
	const struct rgn_cpu *rc = rgn_view_cpu(&kr->kr_view, cpu);

	if (rc->rc_drops != 0)
		fprintf(kr->kr_err, "%s: %llu drop%s on CPU %u\n",
		    kr->kr_prog, (unsigned long long)rc->rc_drops,
		    rc->rc_drops == 1 ? "" : "s", cpu);
	if (rc->rc_errors != 0)
		fprintf(kr->kr_err, "%s: %llu error%s on CPU %u\n",
		    kr->kr_prog, (unsigned long long)rc->rc_errors,
		    rc->rc_errors == 1 ? "" : "s", cpu);
}

static void
kc_walk_all(struct kc_run *kr)
{
	struct rgn_walk_cb cb = { kc_on_rec, kc_on_bad, kr };
	struct kdt_err ke;
	uint32_t cpu;

	for (cpu = 0; cpu < kr->kr_view.rv_hdr->rh_ncpu; cpu++) {
		if (rgn_walk_cpu(&kr->kr_view, cpu, &cb, &ke) < 0)
			fprintf(kr->kr_err, "%s: %s: %s\n", kr->kr_prog,
			    kr->kr_input, ke.ke_msg);
		kc_cpu_counts(kr, cpu);
	}
	fputc('\n', kr->kr_out);
}

/* Open the image and load its enabling; 0 or 1 after saying why. */
static int
kc_load(struct kc_run *kr, const void *img, uint64_t len, uint64_t phys)
{
	const struct rgn_meta *rm;
	struct kdt_err ke;

	if (rgn_open(&kr->kr_view, img, len, phys, &ke) != 0) {
		fprintf(kr->kr_err, "%s: %s: %s\n", kr->kr_prog,
		    kr->kr_input, ke.ke_msg);
		return 1;
	}
	rm = kr->kr_view.rv_meta;
	if (rm->rm_dof_size == 0) {
		fprintf(kr->kr_err, "%s: %s: the region holds no enabling (metadata state %u, DOF size 0)\n",
		    kr->kr_prog, kr->kr_input, rm->rm_state);
		return 1;
	}
	if (dof_load(kr->kr_view.rv_dof, rm->rm_dof_size, &kr->kr_den,
	    &ke) != 0) {
		fprintf(kr->kr_err, "%s: %s: DOF stored in the region metadata: %s\n",
		    kr->kr_prog, kr->kr_input, ke.ke_msg);
		return 1;
	}
	return 0;
}

int
kc_print_region_opts(const void *img, uint64_t len, uint64_t phys,
    const char *input, FILE *out, FILE *err, const struct kc_opts *opts)
{
	struct kc_run kr;
	uint64_t q;

	memset(&kr, 0, sizeof (kr));
	kr.kr_prog = opts != NULL && opts->ko_prog != NULL ?
	    opts->ko_prog : "kdt";
	kr.kr_input = input;
	kr.kr_out = out;
	kr.kr_err = err;
	if (kc_load(&kr, img, len, phys) != 0)
		return 1;
	q = kr.kr_den->den_opts[DTRACEOPT_QUIET];
	kr.kr_quiet = (q != DTRACEOPT_UNSET && q != 0) ||
	    (opts != NULL && (opts->ko_flags & KC_F_QUIET));
	kc_walk_all(&kr);
	dof_free(kr.kr_den);
	fflush(out);
	return 0;
}

int
kc_print_region(const void *img, uint64_t len, uint64_t phys,
    const char *input, FILE *out, FILE *err)
{
	return kc_print_region_opts(img, len, phys, input, out, err, NULL);
}
