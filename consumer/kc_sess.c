/*
 * kc_sess.c -- the consumer side of a live session, shared by the
 * userspace engine (kc_engine.c) and the kernel engine (kc_kernel.c).
 * kc_sess.h has the picture: decoder and hooks, the "matched" notice,
 * drop reporting, the final output.
 *
 * The hooks run while the decoder prints records, so what they print
 * (printa()'s aggregations, system()'s child output) lands between the
 * records exactly where the program asked for it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/dof.h"
#include "common/dof_load.h"
#include "compiler/dc.h"
#include "consumer/kc_agg.h"
#include "consumer/kc_engine.h"
#include "consumer/kc_sess.h"

/* ---- hooks the decoder calls ---- */

/* The program's output now: freopen() may have moved it (kc_dec_out). */
static FILE *
kc_sess_out(const struct kc_sess *s)
{
	return s->se_dec != NULL ? kc_dec_out(s->se_dec) : s->se_out;
}

static void
kc_sess_snap(struct kc_sess *s)
{
	if (s->se_snap != NULL)
		s->se_snap(s->se_arg);
}

static void
kc_sess_hook_printa(void *arg, const char *fmt, const uint32_t *varids,
    uint32_t n)
{
	struct kc_sess *s = arg;

	kc_sess_snap(s);
	if (s->se_aggs != NULL)
		(void) kc_aggs_printa(s->se_aggs, kc_sess_out(s), fmt,
		    varids, n);
}

static void
kc_sess_hook_libact(void *arg, uint32_t code, uint32_t varid, int64_t val,
    int has_val)
{
	struct kc_sess *s = arg;

	kc_sess_snap(s);
	if (s->se_aggs != NULL &&
	    kc_aggs_libact(s->se_aggs, code, varid, val, has_val) != 0)
		fprintf(s->se_err, "%s: aggregation action %u on variable %u with value %lld failed\n",
		    s->se_prog, code, varid, (long long)val);
	/*
	 * Done: the decoder's replay position moves past it, and a second
	 * snapshot hands the table on (the engine writes its totals after
	 * each), so a dump's totals hold this action and say so (rgn.h,
	 * "Aggregation totals": replay).  Merging the buffers now rather
	 * than at the next snapshot changes no number.
	 */
	if (s->se_dec != NULL)
		kc_dec_libact_acted(s->se_dec);
	kc_sess_snap(s);
}

int
kc_sess_totals(struct kc_sess *s, void *buf, uint64_t cap, uint64_t *len,
    uint64_t *xlen, uint64_t *left)
{
	uint64_t *pos;
	uint32_t c;
	int rv;

	*len = *xlen = *left = 0;
	if (s->se_aggs == NULL)
		return -EINVAL;
	pos = calloc(2ULL * s->se_ncpu + 1, sizeof (*pos));
	if (pos == NULL)
		return -ENOMEM;
	for (c = 0; c < s->se_ncpu && s->se_dec != NULL; c++)
		kc_dec_acted(s->se_dec, c, &pos[2 * c], &pos[2 * c + 1]);
	rv = kc_aggs_totals(s->se_aggs, buf, cap, pos, s->se_ncpu, len, xlen,
	    left);
	free(pos);
	return rv;
}

static void
kc_sess_hook_setopt(void *arg, const char *name, const char *value)
{
	struct kc_sess *s = arg;

	uint32_t opt;
	uint64_t v;

	/*
	 * The aggregation printing options (aggsortkey, aggzoom, ...) and
	 * the rates the engine paces itself by (switchrate, aggrate,
	 * statusrate: kc_sess_rate) take effect from here on, as in
	 * dtrace; the other options are fixed at setup.
	 */
	if (s->se_aggs != NULL)
		(void) kc_aggs_setopt_name(s->se_aggs, name, value);
	if (dc_opt_parse(name, value, &opt, &v) != 0 || v == 0)
		return;
	if (opt == DTRACEOPT_SWITCHRATE)
		s->se_rate[0] = v;
	else if (opt == DTRACEOPT_AGGRATE)
		s->se_rate[1] = v;
	else if (opt == DTRACEOPT_STATUSRATE)
		s->se_rate[2] = v;
}

uint64_t
kc_sess_rate(struct kc_sess *s, uint32_t opt)
{
	uint32_t i = opt == DTRACEOPT_SWITCHRATE ? 0 :
	    opt == DTRACEOPT_AGGRATE ? 1 : 2;
	uint64_t v = s->se_rate[i];

	s->se_rate[i] = 0;
	return v;
}

static void
kc_sess_hook_system(void *arg, const char *cmd)
{
	struct kc_sess *s = arg;

	fflush(s->se_out);
	if (system(cmd) == -1)
		fprintf(s->se_err, "%s: system(\"%s\") failed: %s\n",
		    s->se_prog, cmd, strerror(errno));
}

/* ---- setup ---- */

int
kc_sess_quiet(const struct kc_sess *s)
{
	uint64_t q = s->se_den->den_opts[DTRACEOPT_QUIET];

	return s->se_ro->ro_quiet || (q != DTRACEOPT_UNSET && q != 0);
}

int
kc_sess_init(struct kc_sess *s, const struct kc_run_opts *ro, FILE *out,
    FILE *err, const struct dof_enabling *den, const struct rgn_view *v,
    uint32_t ncpu, void (*snap)(void *), void *arg)
{
	const struct kc_dec_hooks hooks = {
		s, kc_sess_hook_printa, kc_sess_hook_libact,
		kc_sess_hook_setopt, kc_sess_hook_system
	};
	struct kc_dec_opts o;

	memset(s, 0, sizeof (*s));
	s->se_ro = ro;
	s->se_prog = ro->ro_prog != NULL ? ro->ro_prog : "kdt";
	s->se_out = out;
	s->se_err = err;
	s->se_den = den;
	s->se_snap = snap;
	s->se_arg = arg;
	s->se_ncpu = ncpu;
	memset(&o, 0, sizeof (o));
	o.do_prog = s->se_prog;
	o.do_input = ro->ro_input != NULL ? ro->ro_input : "-";
	o.do_out = out;
	o.do_err = err;
	o.do_quiet = (uint32_t)kc_sess_quiet(s);
	o.do_engine = 1;
	o.do_hooks = &hooks;	/* kc_dec_new copies it */
	s->se_dec = kc_dec_new(v, den, &o);
	if (den->den_naggs != 0)
		s->se_aggs = kc_aggs_new(den);
	s->se_cpuseen = calloc(ncpu != 0 ? ncpu : 1, 2 * sizeof (uint64_t));
	if (s->se_dec == NULL || s->se_cpuseen == NULL ||
	    (den->den_naggs != 0 && s->se_aggs == NULL)) {
		fprintf(err, "%s: out of memory for the consumer\n",
		    s->se_prog);
		return 1;
	}
	return 0;
}

void
kc_sess_fini(struct kc_sess *s)
{
	kc_dec_free(s->se_dec);
	if (s->se_aggs != NULL)
		kc_aggs_free(s->se_aggs);
	free(s->se_cpuseen);
	s->se_dec = NULL;
	s->se_aggs = NULL;
	s->se_cpuseen = NULL;
}

/* ---- notices, drops, the end ---- */

void
kc_sess_matched(struct kc_sess *s, uint32_t n)
{
	const struct kc_run_opts *ro = s->se_ro;

	if (kc_sess_quiet(s))
		return;
	fprintf(s->se_err, "%s: %s '%s' matched %u probe%s\n", s->se_prog,
	    ro->ro_is_script ? "script" : "description",
	    ro->ro_input != NULL ? ro->ro_input : "", n, n == 1 ? "" : "s");
}

void
kc_sess_drops_begin(struct kc_sess *s)
{
	fflush(s->se_out);
}

/* The "seen so far" slot of counter (kind, cpu), or NULL: no such. */
static uint64_t *
kc_sess_seen(struct kc_sess *s, uint32_t kind, uint32_t cpu)
{
	if (kind >= KC_DROP_NKINDS)
		return NULL;
	if (kind == KC_DROP_PRINCIPAL && cpu == KC_SESS_NOCPU)
		return &s->se_missed;
	if (kind != KC_DROP_PRINCIPAL && kind != KC_DROP_AGGREGATION)
		return &s->se_seen[kind];
	if (cpu >= s->se_ncpu)
		return NULL;
	return &s->se_cpuseen[cpu * 2 + (kind == KC_DROP_AGGREGATION)];
}

void
kc_sess_drop(struct kc_sess *s, uint32_t kind, uint32_t cpu, uint64_t total)
{
	uint64_t *seen = kc_sess_seen(s, kind, cpu);

	if (seen == NULL)
		return;
	if (total > *seen)
		kc_fmt_drops(s->se_err, s->se_prog, kind, total - *seen, cpu);
	*seen = total;
}

void
kc_sess_interrupted(struct kc_sess *s)
{
	if (s->se_newline)
		return;
	s->se_newline = 1;
	fputc('\n', s->se_out);
}

int
kc_sess_finish(struct kc_sess *s, int exited, int status)
{
	FILE *out = kc_sess_out(s);

	fputc('\n', out);
	if (s->se_aggs != NULL)
		(void) kc_aggs_print_all(s->se_aggs, out);
	fflush(out);
	return exited ? status : 0;
}
