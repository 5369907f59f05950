/*
 * kc_est.c -- the probe-effect estimator and its calibration (kc_est.h
 * has the model).
 *
 * Counting: kc_est_ecb() walks the DIF objects of one ECB as dof_load()
 * loaded them: the predicate, then every action's.  Each instruction
 * counts once (no backward branches in DIF); LDTS/STTS (self->),
 * LDGAA/STGAA/LDTAA/STTAA (associative arrays) also count as a dynamic
 * variable access.  Aggregations come from den_aggs (keys from the AGGKEY
 * actions, string keys by la_rec_isstr), records from the REC actions;
 * whether kdt.ko fires the clause as a simple aggregation or a simple
 * record is ecb.c's own test (ecb_simple_ecb()), so the estimate follows
 * the path it takes.
 *
 * Calibration: kc_cal_runs[] are the enablings; each is compiled here too
 * (dc_compile) so that the instruction counts subtracted are exactly
 * those of the DIF kdt.ko ran.  A run is "kdt -q -n CLAUSE -c 'kdt
 * --calibrate-loop N'" with the worker's timing read from the pipe; "off"
 * is the worker alone.  Pairs alternate off and on, and an item is the
 * median over the pairs of (on - off).
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>

#include "common/dif.h"
#include "common/dif_vm.h"
#include "common/dof.h"
#include "common/ecb.h"
#include "compiler/dc.h"
#include "consumer/kc_est.h"

static const char *const kc_cal_names[KC_CAL_NITEMS] = {
	"baseline", "insn", "mech.fbt", "mech.fbtret", "mech.kinst",
	"mech.syscall", "mech.sdt", "record", "record.item", "agg",
	"agg.key", "agg.strkey", "agg.hist", "dynvar", "fbt.context",
	"agg.simple", "fbt.args", "rec.simple", "rec.simple.item",
	"agg.simple.strkey",
};

const char *
kc_cal_name(enum kc_cal_item i)
{
	return (unsigned)i < KC_CAL_NITEMS ? kc_cal_names[i] : "?";
}

const char *
kc_cal_path(void)
{
	static char path[512];
	const char *e = getenv("KDT_CALIBRATION"), *home;

	if (e != NULL && *e != '\0')
		return e;
	if (geteuid() == 0)
		return "/var/lib/kdt/calibration";
	if ((e = getenv("XDG_CACHE_HOME")) != NULL && *e != '\0')
		snprintf(path, sizeof (path), "%s/kdt/calibration", e);
	else if ((home = getenv("HOME")) != NULL)
		snprintf(path, sizeof (path), "%s/.cache/kdt/calibration",
		    home);
	else
		snprintf(path, sizeof (path), "kdt-calibration");
	return path;
}

int
kc_cal_load(const char *path, struct kc_cal *c, char *why, size_t whysz)
{
	char line[256], name[64];
	FILE *f = fopen(path, "r");
	unsigned i, lineno = 0;
	double v;
	long long w;

	memset(c, 0, sizeof (*c));
	if (f == NULL) {
		snprintf(why, whysz, "%s: cannot open: %s (run kdt --calibrate on the machine to trace)",
		    path, strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof (line), f) != NULL) {
		lineno++;
		if (line[0] == '#' || line[0] == '\n')
			continue;
		if (sscanf(line, "release %64s", c->kc_release) == 1)
			continue;
		if (sscanf(line, "when %lld", &w) == 1) {
			c->kc_when = w;
			continue;
		}
		if (sscanf(line, "calls %u", &c->kc_calls) == 1 ||
		    sscanf(line, "pairs %u", &c->kc_pairs) == 1)
			continue;
		if (sscanf(line, "%63s %lf", name, &v) != 2 || !isfinite(v) ||
		    v < 0 || v > 1e9) {
			snprintf(why, whysz, "%s: line %u: not \"NAME NANOSECONDS\" with 0 <= NANOSECONDS < 1e9",
			    path, lineno);
			fclose(f);
			return -1;
		}
		for (i = 0; i < KC_CAL_NITEMS; i++)
			if (strcmp(name, kc_cal_names[i]) == 0)
				break;
		if (i == KC_CAL_NITEMS)
			continue;	/* a newer kdt's item: ignored */
		c->kc_ns[i] = v;
		c->kc_have[i] = 1;
	}
	fclose(f);
	if (!c->kc_have[KC_CAL_INSN] || !c->kc_have[KC_CAL_FBT]) {
		snprintf(why, whysz, "%s: no %s or %s line: not a kdt calibration (run kdt --calibrate again)",
		    path, kc_cal_names[KC_CAL_INSN], kc_cal_names[KC_CAL_FBT]);
		return -1;
	}
	return 0;
}

static int
kc_mkdirs(const char *path)
{
	char dir[512], *p;

	snprintf(dir, sizeof (dir), "%s", path);
	for (p = dir + 1; (p = strchr(p, '/')) != NULL; p++) {
		*p = '\0';
		if (mkdir(dir, 0755) != 0 && errno != EEXIST)
			return -1;
		*p = '/';
	}
	return 0;
}

int
kc_cal_save(const char *path, const struct kc_cal *c, char *why,
    size_t whysz)
{
	char tmp[600];
	FILE *f;
	unsigned i;
	int fd;

	snprintf(tmp, sizeof (tmp), "%s.XXXXXX", path);
	if (kc_mkdirs(path) != 0 || (fd = mkstemp(tmp)) < 0) {
		snprintf(why, whysz, "%s: cannot create: %s", path,
		    strerror(errno));
		return -1;
	}
	f = fdopen(fd, "w");
	if (f == NULL) {
		close(fd);
		unlink(tmp);
		snprintf(why, whysz, "%s: %s", tmp, strerror(errno));
		return -1;
	}
	fprintf(f, "# kdt calibration (kdt --calibrate): nanoseconds per item, see consumer/kc_est.h\n"
	    "release %s\nwhen %lld\ncalls %u\npairs %u\n", c->kc_release,
	    (long long)c->kc_when, c->kc_calls, c->kc_pairs);
	for (i = 0; i < KC_CAL_NITEMS; i++)
		if (c->kc_have[i])
			fprintf(f, "%s %.2f\n", kc_cal_names[i], c->kc_ns[i]);
	if (fflush(f) != 0 || fsync(fileno(f)) != 0 || fclose(f) != 0 ||
	    rename(tmp, path) != 0) {
		snprintf(why, whysz, "%s: cannot write: %s", path,
		    strerror(errno));
		unlink(tmp);
		return -1;
	}
	return 0;
}

/* ---- counting ---- */

/*
 * The instructions the interpreter runs for "d": none for the shapes the
 * runner decides without it (dif_vm.h: a /VAR op K/ predicate, an action
 * that is one load and a ret) -- their small cost is part of what the
 * calibration measures as the mechanism, the record or the aggregation.
 */
static void
kc_est_difo(const struct dif_object *d, int pred, uint32_t *insns,
    uint32_t *dyn)
{
	static const struct dif_probe_ctx zero;
	struct dif_fastpred fp;
	uint64_t v;
	uint32_t i;

	if (d == NULL)
		return;
	if (pred) {
		dif_fastpred_make(d, &fp);
		if (fp.fp_ok)
			return;
	} else if (dif_fast_eval(d, &zero, &v)) {
		return;
	}
	*insns += d->do_textlen;
	for (i = 0; i < d->do_textlen; i++) {
		switch (DIF_INSTR_OP(d->do_text[i])) {
		case DIF_OP_LDTS: case DIF_OP_STTS:
		case DIF_OP_LDGAA: case DIF_OP_STGAA:
		case DIF_OP_LDTAA: case DIF_OP_STTAA:
			(*dyn)++;
			break;
		}
	}
}

/* The mechanism of a probe description; *item < 0: not calibrated. */
static const char *
kc_est_mech(const struct dof_pdesc *pd, int *item, char *mark)
{
	const char *p = pd->lp_prov;

	*mark = ' ';
	if (strcmp(p, "dtrace") == 0 || (p[0] == '\0' &&
	    (strcmp(pd->lp_name, "BEGIN") == 0 ||
	    strcmp(pd->lp_name, "END") == 0 ||
	    strcmp(pd->lp_name, "ERROR") == 0))) {
		*item = -1;
		return "once";
	}
	if (strcmp(p, "fbt") == 0) {
		*item = strcmp(pd->lp_name, "return") == 0 ? KC_CAL_FBTRET :
		    KC_CAL_FBT;
		return *item == KC_CAL_FBT ? "fbt entry" : "fbt return";
	}
	if (strcmp(p, "kinst") == 0) {
		*item = KC_CAL_KINST;
		return "kinst int3";
	}
	if (strcmp(p, "syscall") == 0) {
		*item = KC_CAL_SYSCALL;
		return "syscall";
	}
	if (strcmp(p, "sdt") == 0 || strcmp(p, "proc") == 0 ||
	    strcmp(p, "sched") == 0 || strcmp(p, "lockstat") == 0) {
		*item = KC_CAL_SDT;
		return "tracepoint";
	}
	if (strcmp(p, "profile") == 0 || strncmp(pd->lp_name, "tick-", 5) == 0 ||
	    strncmp(pd->lp_name, "profile-", 8) == 0) {
		*item = KC_CAL_SDT;
		*mark = '~';
		return "timer";
	}
	*item = -1;
	*mark = '?';
	return "uprobe";
}

void
kc_est_ecb(const struct dof_enabling *den, uint32_t i, const struct kc_cal *c,
    struct kc_est *e)
{
	const struct dof_lecb *le = &den->den_ecbs[i];
	const struct dof_laction *la;
	const struct dof_agg *ag;
	struct dif_fastpred fp;
	uint32_t a, k, pdyn = 0;
	double mech = 0, ctx = 0, args;
	int item, gated, legacy;

	memset(e, 0, sizeof (*e));
	e->es_mech = kc_est_mech(&le->le_pdesc, &item, &e->es_mark);
	kc_est_difo(le->le_pred, 1, &e->es_pred_insns, &pdyn);
	e->es_insns = e->es_pred_insns;
	e->es_ndynvar = pdyn;
	e->es_records = le->le_nacts == 0;
	for (a = 0; a < le->le_nacts; a++) {
		la = &le->le_acts[a];
		kc_est_difo(la->la_difo, 0, &e->es_insns, &e->es_ndynvar);
		if (la->la_role == DOF_ROLE_REC) {
			e->es_records = 1;
			if (la->la_rec_size != 0)
				e->es_rec_items++;
		}
	}
	if (e->es_records)
		e->es_rec_bytes = le->le_size;
	for (a = 0; a < den->den_naggs; a++) {
		ag = &den->den_aggs[a];
		if (ag->ag_ecb != i)
			continue;
		e->es_naggs++;
		for (k = 0; k < ag->ag_nkeys; k++) {
			if (le->le_acts[ag->ag_firstkey + k].la_rec_isstr)
				e->es_nstrkeys++;
			else
				e->es_nkeys++;
		}
		if (ag->ag_kind == DTRACEAGG_QUANTIZE ||
		    ag->ag_kind == DTRACEAGG_LQUANTIZE ||
		    ag->ag_kind == DTRACEAGG_LLQUANTIZE)
			e->es_nhist++;
	}
	e->es_simple = ecb_simple_ecb(den, i) == ECB_SKIND_AGG;
	e->es_simple_rec = ecb_simple_ecb(den, i) == ECB_SKIND_REC;
	if (c == NULL)
		return;
	if (item >= 0) {
		mech = c->kc_ns[item];
		if (!c->kc_have[item])
			e->es_mark = '?';
	}
	/*
	 * kc_est.h: the gate stops a false gate-shaped predicate in the
	 * handler (fbt entry) or in kd_fire() (fbt return, syscall, sdt);
	 * the timers have no gate, and kinst's calibration includes the
	 * context.  A calibration without agg.simple was made by a kdt
	 * whose only gate was fbt entry's: its other mechanisms include the
	 * context.
	 */
	legacy = !c->kc_have[KC_CAL_AGGSIMPLE];
	gated = legacy ? item == KC_CAL_FBT :
	    (item == KC_CAL_FBT || item == KC_CAL_FBTRET ||
	    item == KC_CAL_SYSCALL || item == KC_CAL_SDT) && e->es_mark != '~';
	args = legacy ? 0 : c->kc_ns[KC_CAL_FBTARGS];
	if (legacy ? item == KC_CAL_FBT : item != KC_CAL_KINST)
		ctx = c->kc_ns[KC_CAL_CTX];
	if (!legacy && item != KC_CAL_FBT && item != KC_CAL_KINST)
		ctx = ctx > args ? ctx - args : 0;	/* kc_est.h */
	if (le->le_pred != NULL) {
		dif_fastpred_make(le->le_pred, &fp);
		e->es_false_ns = gated && ecb_gate_pred(&fp) ?
		    mech : mech + ctx +
		    e->es_pred_insns * c->kc_ns[KC_CAL_INSN] +
		    pdyn * c->kc_ns[KC_CAL_DYNVAR];
	}
	if (e->es_simple_rec && !legacy && c->kc_have[KC_CAL_RECSIMPLE] &&
	    c->kc_have[KC_CAL_RECSITEM]) {
		/*
		 * ecb_fire_simple() writing the record (kc_est.h): as a
		 * simple aggregation, with "rec.simple" (one value) and
		 * "rec.simple.item" for each other value in place of
		 * agg.simple and its parts.
		 */
		if (!c->kc_have[KC_CAL_SYSCALL])
			e->es_mark = '?';
		mech -= item == KC_CAL_KINST ? c->kc_ns[KC_CAL_CTX] : 0;
		if (item == KC_CAL_FBT || item == KC_CAL_KINST)
			mech += args;
		mech += c->kc_ns[KC_CAL_RECSIMPLE] - c->kc_ns[KC_CAL_SYSCALL] +
		    ((double)e->es_rec_items - 1) * c->kc_ns[KC_CAL_RECSITEM];
		e->es_ns = mech > 0 ? mech : 0;
		return;
	}
	if (e->es_simple && !legacy) {
		/*
		 * ecb_fire_simple(): no context, DIF or "agg" (kc_est.h).
		 * "agg.simple" is a whole simple count() on syscall
		 * (its handler reads no argument and has no gate for it,
		 * so it costs less than the gated mechanism mech.syscall);
		 * another mechanism adds its gated mechanism's difference
		 * to syscall's.  kinst's mechanism includes a context it
		 * does not build; fbt entry and kinst read the arguments
		 * past the gate (fbt.args).
		 */
		if (!c->kc_have[KC_CAL_SYSCALL])
			e->es_mark = '?';
		mech -= item == KC_CAL_KINST ? c->kc_ns[KC_CAL_CTX] : 0;
		if (item == KC_CAL_FBT || item == KC_CAL_KINST)
			mech += args;
		mech += c->kc_ns[KC_CAL_AGGSIMPLE] - c->kc_ns[KC_CAL_SYSCALL];
		e->es_ns = (mech > 0 ? mech : 0) +	/* one aggregation */
		    e->es_nkeys * c->kc_ns[KC_CAL_AGGKEY] +
		    e->es_nstrkeys * c->kc_ns[c->kc_have[KC_CAL_AGGSSTR] ?
		    KC_CAL_AGGSSTR : KC_CAL_AGGSTR] +
		    e->es_nhist * c->kc_ns[KC_CAL_HIST];
		return;
	}
	e->es_ns = mech + ctx + e->es_insns * c->kc_ns[KC_CAL_INSN] +
	    e->es_ndynvar * c->kc_ns[KC_CAL_DYNVAR] +
	    e->es_naggs * c->kc_ns[KC_CAL_AGG] +
	    e->es_nkeys * c->kc_ns[KC_CAL_AGGKEY] +
	    e->es_nstrkeys * c->kc_ns[KC_CAL_AGGSTR] +
	    e->es_nhist * c->kc_ns[KC_CAL_HIST];
	if (e->es_records)
		e->es_ns += c->kc_ns[KC_CAL_REC] +
		    e->es_rec_items * c->kc_ns[KC_CAL_RECITEM];
}

int
kc_est_print(const struct dof_enabling *den, const struct kc_cal *c,
    const char *calpath, double rate, const double *rates, int anon,
    FILE *out)
{
	char desc[DOF_PROVNAMELEN + DOF_MODNAMELEN + DOF_FUNCNAMELEN +
	    DOF_NAMELEN + 4], when[64];
	struct kc_est e;
	const struct dof_pdesc *pd;
	time_t t = (time_t)c->kc_when;
	struct tm tm;
	double total = 0, r;
	uint32_t i;
	int any = 0;

	if (gmtime_r(&t, &tm) == NULL ||
	    strftime(when, sizeof (when), "%Y-%m-%d %H:%M UTC", &tm) == 0)
		snprintf(when, sizeof (when), "at an unknown time");
	fprintf(out, "kdt: probe-effect estimate%s, in ns per firing, from the calibration %s (kernel %s, %s)\n",
	    anon ? " for the anonymous enabling (at boot)" : "", calpath,
	    c->kc_release[0] != '\0' ? c->kc_release : "(unknown)", when);
	fprintf(out, "%4s  %-36s %-11s %4s %6s %4s %10s %10s%s\n", "ECB",
	    "PROBE DESCRIPTION", "MECHANISM", "DIF", "BYTES", "AGGS",
	    "PRED-FALSE", "FIRING", rate > 0 || rates != NULL ?
	    "       RATE  CPU-SHARE" : "");
	for (i = 0; i < den->den_necbs; i++) {
		pd = &den->den_ecbs[i].le_pdesc;
		kc_est_ecb(den, i, c, &e);
		snprintf(desc, sizeof (desc), "%s:%s:%s:%s", pd->lp_prov,
		    pd->lp_mod, pd->lp_func, pd->lp_name);
		fprintf(out, "%4u  %-36.36s %-11s %4u %6u %4u ", i, desc,
		    e.es_mech, e.es_insns, e.es_records ? e.es_rec_bytes : 0,
		    e.es_naggs);
		if (den->den_ecbs[i].le_pred != NULL)
			fprintf(out, "%9.0f%c", e.es_false_ns, e.es_mark);
		else
			fprintf(out, "%10s", "-");
		fprintf(out, " %9.0f%c", e.es_ns, e.es_mark);
		r = rates != NULL ? rates[i] : rate;
		if (r > 0 && strcmp(e.es_mech, "once") != 0) {
			/* the actions' cost: the predicate's truth is unknown */
			fprintf(out, " %10.0f/s %9.3f%%", r, e.es_ns * r / 1e7);
			total += e.es_ns * r / 1e7;
			any = 1;
		} else if (r > 0 || rates != NULL) {
			fprintf(out, " %12s %10s", "-", "-");
		}
		fputc('\n', out);
	}
	if (any)
		fprintf(out, "kdt: at these rates, every firing running its actions: %.3f%% of one CPU%s\n",
		    total, anon ? " during boot" : "");
	else
		fprintf(out, "kdt: give --rate=N (firings per second) or --estimate-sample=SECONDS for the overhead at a firing rate\n");
	fprintf(out, "kdt: ~ approximated (timers use the tracepoint's fixed cost), ? not calibrated (uprobes, or an item kdt --calibrate could not measure)\n");
	return 0;
}

/* ---- calibration ---- */

int
kc_cal_loop(long n)
{
	struct timespec t0, t1;
	long i;

	if (n <= 0)
		n = 20000;
	for (i = 0; i < 2000; i++)
		(void) syscall(SYS_getppid, 1);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < n; i++)
		(void) syscall(SYS_getppid, 1);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("kdt-cal %.3f\n", ((t1.tv_sec - t0.tv_sec) * 1e9 +
	    (t1.tv_nsec - t0.tv_nsec)) / (double)n);
	return 0;
}

/*
 * Run argv, its stdout into buf; the last "kdt-cal NS" line in *ns.
 * 0, or -1 (the first line of its stderr in why).
 */
static int
kc_cal_spawn(char *const argv[], double *ns, char *why, size_t whysz)
{
	int out[2], errp[2], st;
	char buf[4096], ebuf[512], *p, *line;
	size_t el = 0;
	ssize_t n;
	pid_t pid;
	int found = 0;
	FILE *f;

	if (pipe(out) != 0 || pipe(errp) != 0)
		return -1;
	fflush(NULL);
	if ((pid = fork()) < 0)
		return -1;
	if (pid == 0) {
		dup2(out[1], 1);
		dup2(errp[1], 2);
		close(out[0]);
		close(errp[0]);
		execv(argv[0], argv);
		_exit(127);
	}
	close(out[1]);
	close(errp[1]);
	f = fdopen(out[0], "r");
	while (f != NULL && fgets(buf, sizeof (buf), f) != NULL)
		if (strncmp(buf, "kdt-cal ", 8) == 0) {
			*ns = strtod(buf + 8, NULL);
			found = 1;
		}
	if (f != NULL)
		fclose(f);
	while (el < sizeof (ebuf) - 1 &&
	    (n = read(errp[0], ebuf + el, sizeof (ebuf) - 1 - el)) > 0)
		el += (size_t)n;
	ebuf[el] = '\0';
	close(errp[0]);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (found && WIFEXITED(st) && WEXITSTATUS(st) == 0)
		return 0;
	line = ebuf;
	if ((p = strchr(line, '\n')) != NULL)
		*p = '\0';
	snprintf(why, whysz, "%s", line[0] != '\0' ? line :
	    "the run printed no timing");
	return -1;
}

/* One calibration enabling and what it measures. */
struct kc_cal_run {
	const char	*cr_clause;
	int		cr_item;	/* the item it yields */
	int		cr_simple;	/* fired as ecb_simple_ecb() says: 0,
					   ECB_SKIND_AGG or ECB_SKIND_REC */
};

#define KC_CAL_P	"fbt::__x64_sys_getppid:entry"
#define KC_CAL_S	"syscall::getppid:entry"
#define KC_CAL_F	"/cpu == 12345/ { }"
#define KC_CAL_T	"/cpu != 12345/ "
#define KC_CAL_TX	"/cpu * 3 != 12345/ "
#define KC_CAL_TR8	"trace(cpu); trace(cpu); trace(cpu); trace(cpu); " \
	"trace(cpu); trace(cpu); trace(cpu); trace(cpu); "
#define KC_CAL_C8	"cpu + cpu + cpu + cpu + cpu + cpu + cpu + cpu + "
static const struct kc_cal_run kc_cal_runs[] = {
	{ KC_CAL_P " " KC_CAL_F, KC_CAL_FBT },
	{ KC_CAL_P " /" KC_CAL_C8 KC_CAL_C8 KC_CAL_C8 KC_CAL_C8 KC_CAL_C8
	    KC_CAL_C8 KC_CAL_C8 KC_CAL_C8 "cpu == 12345/ { }", KC_CAL_INSN },
	{ "fbt::__x64_sys_getppid:return " KC_CAL_F, KC_CAL_FBTRET },
	{ "kinst::__x64_sys_getppid:5 " KC_CAL_F, KC_CAL_KINST },
	{ "syscall::getppid:entry " KC_CAL_F, KC_CAL_SYSCALL },
	{ "sdt:raw_syscalls::sys_enter " KC_CAL_F, KC_CAL_SDT },
	/* records by the ECB machinery: a predicate not of the gate's
	   shape makes the clause not a simple record (ecb.h) */
	{ KC_CAL_P " " KC_CAL_TX "{ trace(cpu); }", KC_CAL_REC },
	{ KC_CAL_P " " KC_CAL_TX "{ " KC_CAL_TR8 "}", KC_CAL_RECITEM },
	/* the update by the ECB machinery: a predicate not of the gate's
	   shape makes the clause not simple (ecb.h) */
	{ KC_CAL_P " /cpu * 3 != 12345/ { @ = count(); }", KC_CAL_AGG },
	/* simple aggregations (ecb_fire_simple()), as they are written, on
	   syscall (arguments read before the gate), then on fbt entry */
	{ KC_CAL_S " { @ = count(); }", KC_CAL_AGGSIMPLE, 1 },
	{ KC_CAL_P " { @ = count(); }", KC_CAL_FBTARGS, 1 },
	{ KC_CAL_S " { @[cpu] = count(); }", KC_CAL_AGGKEY, 1 },
	/* a string key by the ECB machinery: the predicate not of the
	   gate's shape, as for agg (a gate-shaped one makes it simple) */
	{ KC_CAL_P " " KC_CAL_TX "{ @[execname] = count(); }", KC_CAL_AGGSTR },
	{ KC_CAL_S " { @ = quantize(cpu); }", KC_CAL_HIST, 1 },
	{ KC_CAL_S " { @[execname] = count(); }", KC_CAL_AGGSSTR, 1 },
	{ KC_CAL_P " " KC_CAL_T "{ self->x = cpu; }", KC_CAL_DYNVAR },
	/* simple records (ecb_fire_simple()) on syscall, as agg.simple */
	{ KC_CAL_S " { trace(cpu); }", KC_CAL_RECSIMPLE, ECB_SKIND_REC },
	{ KC_CAL_S " { " KC_CAL_TR8 "}", KC_CAL_RECSITEM, ECB_SKIND_REC },
	/* false, past the gate (not its shape), few instructions: with the
	   many-instruction run above it gives "insn" and "fbt.context" */
	{ KC_CAL_P " /cpu * 3 == 12345/ { }", KC_CAL_CTX },
};
#define KC_CAL_NRUNS	(sizeof (kc_cal_runs) / sizeof (kc_cal_runs[0]))
#define KC_CAL_RUN_REC	6	/* kc_cal_runs[] index of trace(cpu) */
#define KC_CAL_RUN_CTX	(KC_CAL_NRUNS - 1)	/* ... of the context run */
#define KC_CAL_RUN_RECS	(KC_CAL_NRUNS - 3)	/* ... of rec.simple's */

static int
kc_dbl_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* ecb_simple_ecb()'s kinds, for a message. */
static const char *
kc_cal_skind(int kind)
{
	return kind == ECB_SKIND_AGG ? "a simple aggregation" :
	    kind == ECB_SKIND_REC ? "a simple record" : "not simple";
}

/* The clause's counts, compiled here exactly as the run compiles it. */
static int
kc_cal_count(const char *clause, struct kc_est *e, FILE *err)
{
	struct dof_enabling *den = NULL;
	struct kdt_err ke;
	struct dc_out o;
	int rv = -1;

	memset(&o, 0, sizeof (o));
	if (dc_compile(clause, strlen(clause), "calibration", NULL, &o) != 0) {
		fprintf(err, "kdt: --calibrate: %s: %s\n", clause, o.dco_diag);
	} else if (dof_load(o.dco_dof, o.dco_dofsz, &den, &ke) != 0) {
		fprintf(err, "kdt: --calibrate: %s: %s\n", clause, ke.ke_msg);
	} else {
		kc_est_ecb(den, 0, NULL, e);
		rv = 0;
	}
	if (den != NULL)
		dof_free(den);
	dc_out_free(&o);
	return rv;
}

int
kc_calibrate(const char *kdt, uint32_t pairs, uint32_t calls, FILE *out,
    FILE *err)
{
	struct kc_est est[KC_CAL_NRUNS];
	double m[KC_CAL_NRUNS], d[64], off, on, base[64];
	int ok[KC_CAL_NRUNS];
	char ncalls[32], loop[600], why[512];
	struct kc_cal c;
	struct utsname u;
	uint32_t r, k, nb = 0;
	double ci, v;
	int kind;

	if (pairs == 0 || pairs > 64)
		pairs = 5;
	if (calls == 0)
		calls = 20000;
	memset(&c, 0, sizeof (c));
	snprintf(ncalls, sizeof (ncalls), "%u", calls);
	snprintf(loop, sizeof (loop), "%s --calibrate-loop %u", kdt, calls);
	char *const offv[] = { (char *)kdt, "--calibrate-loop", ncalls, NULL };
	fprintf(out, "kdt: calibrating: %zu enablings, %u on/off pairs of %u getppid() calls each\n",
	    KC_CAL_NRUNS, pairs, calls);
	for (r = 0; r < KC_CAL_NRUNS; r++) {
		char *const onv[] = { (char *)kdt, "-q", "-n",
		    (char *)kc_cal_runs[r].cr_clause, "-c", loop, NULL };

		ok[r] = 0;
		if (kc_cal_count(kc_cal_runs[r].cr_clause, &est[r], err) != 0)
			continue;
		kind = est[r].es_simple ? ECB_SKIND_AGG :
		    est[r].es_simple_rec ? ECB_SKIND_REC : 0;
		if (kind != kc_cal_runs[r].cr_simple) {
			/* the formulas below assume the path it takes */
			fprintf(out, "  %-12s not measured: \"%s\" is %s for this kdt (ecb.h), the calibration expects %s\n",
			    kc_cal_names[kc_cal_runs[r].cr_item],
			    kc_cal_runs[r].cr_clause, kc_cal_skind(kind),
			    kc_cal_skind(kc_cal_runs[r].cr_simple));
			continue;
		}
		for (k = 0; k < pairs; k++) {
			if (kc_cal_spawn(offv, &off, why, sizeof (why)) != 0 ||
			    kc_cal_spawn(onv, &on, why, sizeof (why)) != 0)
				break;
			d[k] = on - off;
			if (nb < 64)
				base[nb++] = off;
		}
		if (k < pairs) {
			fprintf(out, "  %-12s not measured: %s\n",
			    kc_cal_names[kc_cal_runs[r].cr_item], why);
			continue;
		}
		qsort(d, pairs, sizeof (d[0]), kc_dbl_cmp);
		m[r] = d[pairs / 2];
		ok[r] = 1;
	}
	if (!ok[0] || !ok[1]) {
		fprintf(err, "kdt: --calibrate: the fbt runs failed (above): is kdt.ko loaded, and are you root?\n");
		return 1;
	}
	/*
	 * Instructions and the context first: the others subtract theirs.
	 * Run 0 stops at the gate; runs 1 and KC_CAL_RUN_CTX go past it with
	 * many and few instructions.  Without the context run, the context
	 * is folded into the instructions (the model before the gate).
	 */
	r = KC_CAL_RUN_CTX;
	if (ok[r] && est[1].es_insns > est[r].es_insns) {
		ci = (m[1] - m[r]) / (double)(est[1].es_insns -
		    est[r].es_insns);
		ci = ci > 0 ? ci : 0;
		v = m[r] - m[0] - est[r].es_insns * ci;
		c.kc_ns[KC_CAL_CTX] = v > 0 ? v : 0;
		c.kc_have[KC_CAL_CTX] = 1;
	} else
		ci = (m[1] - m[0]) / (double)(est[1].es_insns - est[0].es_insns);
	c.kc_ns[KC_CAL_INSN] = ci > 0 ? ci : 0;
	c.kc_have[KC_CAL_INSN] = 1;
	ci = c.kc_ns[KC_CAL_INSN];
	for (r = 0; r < KC_CAL_NRUNS; r++) {
		int it = kc_cal_runs[r].cr_item;
		double fbt = c.kc_ns[KC_CAL_FBT] + c.kc_ns[KC_CAL_CTX];

		if (!ok[r] || it == KC_CAL_INSN || it == KC_CAL_CTX)
			continue;
		v = m[r] - est[r].es_insns * ci;
		switch (it) {
		case KC_CAL_RECITEM:
			if (!ok[KC_CAL_RUN_REC])
				continue;
			v = ((m[r] - m[KC_CAL_RUN_REC]) - (est[r].es_insns -
			    est[KC_CAL_RUN_REC].es_insns) *
			    ci) / (double)(est[r].es_rec_items -
			    est[KC_CAL_RUN_REC].es_rec_items);
			break;
		case KC_CAL_REC:
			v -= fbt;	/* the byte part is set below */
			break;
		case KC_CAL_AGG:
		case KC_CAL_DYNVAR:
			v -= fbt;
			break;
		case KC_CAL_AGGSIMPLE:	/* the whole firing (kc_est.h) */
		case KC_CAL_RECSIMPLE:
			if (!c.kc_have[KC_CAL_SYSCALL])
				continue;
			break;
		case KC_CAL_RECSITEM:	/* against rec.simple's run */
			if (!ok[KC_CAL_RUN_RECS] || est[r].es_rec_items <=
			    est[KC_CAL_RUN_RECS].es_rec_items)
				continue;
			v = (m[r] - m[KC_CAL_RUN_RECS]) /
			    (double)(est[r].es_rec_items -
			    est[KC_CAL_RUN_RECS].es_rec_items);
			break;
		case KC_CAL_FBTARGS:	/* the same on fbt entry */
		case KC_CAL_AGGKEY:	/* on syscall, against it */
		case KC_CAL_HIST:
		case KC_CAL_AGGSSTR:
			if (!c.kc_have[KC_CAL_SYSCALL] ||
			    !c.kc_have[KC_CAL_AGGSIMPLE])
				continue;
			v -= c.kc_ns[KC_CAL_AGGSIMPLE];
			if (it == KC_CAL_FBTARGS)
				v -= c.kc_ns[KC_CAL_FBT] -
				    c.kc_ns[KC_CAL_SYSCALL];
			break;
		case KC_CAL_AGGSTR:
			if (!c.kc_have[KC_CAL_AGG])
				continue;
			v -= fbt + c.kc_ns[KC_CAL_AGG];
			break;
		}
		if (it == KC_CAL_DYNVAR && est[r].es_ndynvar > 0)
			v /= est[r].es_ndynvar;
		c.kc_ns[it] = v > 0 ? v : 0;
		c.kc_have[it] = 1;
	}
	if (c.kc_have[KC_CAL_REC] && c.kc_have[KC_CAL_RECITEM]) {
		v = c.kc_ns[KC_CAL_REC] - est[KC_CAL_RUN_REC].es_rec_items *
		    c.kc_ns[KC_CAL_RECITEM];
		c.kc_ns[KC_CAL_REC] = v > 0 ? v : 0;
	}
	qsort(base, nb, sizeof (base[0]), kc_dbl_cmp);
	c.kc_ns[KC_CAL_BASELINE] = base[nb / 2];
	c.kc_have[KC_CAL_BASELINE] = 1;
	if (uname(&u) == 0)
		snprintf(c.kc_release, sizeof (c.kc_release), "%s", u.release);
	c.kc_when = (int64_t)time(NULL);
	c.kc_calls = calls;
	c.kc_pairs = pairs;
	for (r = 0; r < KC_CAL_NITEMS; r++)
		if (c.kc_have[r])
			fprintf(out, "  %-12s %10.2f ns\n", kc_cal_names[r],
			    c.kc_ns[r]);
	if (kc_cal_save(kc_cal_path(), &c, why, sizeof (why)) != 0) {
		fprintf(err, "kdt: --calibrate: %s\n", why);
		return 1;
	}
	fprintf(out, "kdt: calibration saved in %s (kdt --estimate reads it)\n",
	    kc_cal_path());
	return 0;
}

/* ---- sampling the rates ---- */

int
kc_est_sample(const char *kdt, const struct dof_enabling *den, double secs,
    double *rates, FILE *err)
{
	char path[] = "/tmp/kdt-estimate-XXXXXX", buf[512], why[512];
	const struct dof_pdesc *pd;
	uint32_t i, id;
	unsigned long long n;
	FILE *f, *p;
	int fd, st, item;
	char mark;

	if (secs <= 0 || secs > 3600) {
		fprintf(err, "kdt: --estimate-sample=%g: seconds must be in (0, 3600]\n",
		    secs);
		return -1;
	}
	if ((fd = mkstemp(path)) < 0 || (f = fdopen(fd, "w")) == NULL) {
		fprintf(err, "kdt: --estimate-sample: cannot create %s: %s\n",
		    path, strerror(errno));
		return -1;
	}
	fprintf(f, "#pragma D option quiet\n");
	for (i = 0; i < den->den_necbs; i++) {
		pd = &den->den_ecbs[i].le_pdesc;
		rates[i] = 0;
		if (strcmp(kc_est_mech(pd, &item, &mark), "once") == 0)
			continue;	/* BEGIN, END, ERROR */
		fprintf(f, "%s:%s:%s:%s { @c[%u] = count(); }\n", pd->lp_prov,
		    pd->lp_mod, pd->lp_func, pd->lp_name, i);
	}
	fprintf(f, "tick-%.0fms { exit(0); }\nEND { printa(\"kdt-rate %%d %%@d\\n\", @c); }\n",
	    secs * 1000);
	fclose(f);
	snprintf(buf, sizeof (buf), "'%s' -Z -s '%s'", kdt, path);
	p = popen(buf, "r");
	if (p == NULL) {
		unlink(path);
		fprintf(err, "kdt: --estimate-sample: cannot run %s\n", kdt);
		return -1;
	}
	while (fgets(buf, sizeof (buf), p) != NULL)
		if (sscanf(buf, "kdt-rate %u %llu", &id, &n) == 2 &&
		    id < den->den_necbs)
			rates[id] = (double)n / secs;
	st = pclose(p);
	unlink(path);
	if (st != 0) {
		snprintf(why, sizeof (why), "exit status %d", WIFEXITED(st) ?
		    WEXITSTATUS(st) : -1);
		fprintf(err, "kdt: --estimate-sample: the sampling run failed (%s; it needs kdt.ko and root)\n",
		    why);
		return -1;
	}
	return 0;
}
