/*
 * kc_sess.h -- one live tracing session: what every live engine needs
 * from the consumer side, written once.
 *
 * An engine (the userspace engine, consumer/kc_engine.c; the kernel
 * engine over /dev/kdt, consumer/kc_kernel.c) owns the probes and the
 * buffers; the session owns what dtrace(1) does with them:
 *
 *   engine                              session (kc_sess.c)
 *   ------                              -------------------
 *   region view, loaded DOF  --init-->  decoder (kc_dec) with the hooks:
 *                                         printa  -> snap, kc_aggs_printa
 *                                         clear/trunc/normalize (libact)
 *                                                 -> snap, kc_aggs_libact
 *                                         setopt  -> kc_aggs_setopt_name,
 *                                                    the rates (kc_sess_rate)
 *                                         system  -> flush, system(3)
 *                                       merged aggregations (kc_aggs)
 *   matched N (ECB, probe) pairs -->    "matched N probes" notice
 *   a drop counter's total now   -->    its growth since the last report
 *                                       (kc_fmt_drops), per CPU for the
 *                                       principal and aggregation kinds
 *   tracing stopped, exit()      -->    newline, the aggregations printa()
 *                                       did not print, the exit status
 *
 * The one thing the session cannot do itself is take a snapshot of the
 * per-CPU aggregation buffers: where they are and how they are handed
 * over is the engine's business.  The engine's se_snap callback merges
 * every CPU's buffer into se_aggs (kc_aggs_snap); the session calls it
 * before printa() and the aggregation library actions, so they see the
 * data recorded up to that point, as in dtrace.
 *
 * The engine embeds a struct kc_sess, fills it with kc_sess_init() and
 * reads se_dec (to consume records) and se_aggs (to merge snapshots).
 * Not thread-safe; one owner.
 */
#ifndef KDT_KC_SESS_H
#define KDT_KC_SESS_H

#include <stdio.h>
#include <stdint.h>

#include "consumer/kc_fmt.h"
#include "consumer/kc_run.h"

struct rgn_view;
struct dof_enabling;
struct kc_dec;
struct kc_aggs;

/* kc_sess_drop()'s "cpu" when the counter belongs to no one CPU. */
#define KC_SESS_NOCPU	KC_DROP_NOCPU

struct kc_sess {
	const struct kc_run_opts *se_ro;
	const char	*se_prog;	/* message prefix ("kdt") */
	FILE		*se_out;
	FILE		*se_err;
	const struct dof_enabling *se_den;
	struct kc_dec	*se_dec;	/* the records' decoder */
	struct kc_aggs	*se_aggs;	/* NULL: the program has none */
	/* the engine's snapshot of every CPU's aggregation buffer */
	void		(*se_snap)(void *arg);
	void		*se_arg;
	uint32_t	se_ncpu;	/* CPUs the per-CPU counters cover */
	uint64_t	se_seen[KC_DROP_NKINDS];	/* reported so far */
	uint64_t	*se_cpuseen;	/* [cpu * 2 + is aggregation] */
	uint64_t	se_missed;	/* KC_SESS_NOCPU principal drops */
	uint32_t	se_newline;	/* the ^C newline was printed */
	/* switchrate, aggrate, statusrate (ns) a setopt() set and the
	   engine has not taken yet (kc_sess_rate); 0 none */
	uint64_t	se_rate[3];
};

/*
 * The new value (ns) of "opt" (DTRACEOPT_SWITCHRATE, _AGGRATE or
 * _STATUSRATE) if a setopt() changed it since the last call, else 0.
 * Engines ask after consuming records and pace themselves by it, as
 * dtrace(1) applies these options at run time.
 */
uint64_t kc_sess_rate(struct kc_sess *s, uint32_t opt);

/*
 * The session's totals for KIO_AGGTOT (rgn.h, "Aggregation totals"): the
 * table as an agg_buf image at "buf", followed by the replay part (each
 * CPU's decoding position, kc_dec_acted, and the entries' normalize()
 * divisors), together at most "cap" bytes.  *len the image's bytes, *xlen
 * the replay part's, *left the entries left out.  0 or -errno.
 */
int kc_sess_totals(struct kc_sess *s, void *buf, uint64_t cap,
    uint64_t *len, uint64_t *xlen, uint64_t *left);

/*
 * Set up "s" for the enabling "den" whose records are in the view "v"
 * (both kept by reference, both must outlive the session) with "ncpu"
 * per-CPU buffers: the decoder with the hooks above, and the aggregation
 * state when the program has aggregations.  "snap" is called with "arg"
 * to take an aggregation snapshot.  0, or 1 after saying why on "err".
 */
int kc_sess_init(struct kc_sess *s, const struct kc_run_opts *ro,
    FILE *out, FILE *err, const struct dof_enabling *den,
    const struct rgn_view *v, uint32_t ncpu, void (*snap)(void *),
    void *arg);
void kc_sess_fini(struct kc_sess *s);

/* Is the quiet option in force (-q, or the DOF's quiet option)? */
int kc_sess_quiet(const struct kc_sess *s);

/*
 * dtrace's notice "<prog>: script 'x.d' matched N probes" (description
 * for -n) on the error stream, unless quiet.  "n" counts (ECB, probe)
 * pairs.
 */
void kc_sess_matched(struct kc_sess *s, uint32_t n);

/*
 * Drop counter "kind" (KC_DROP_*) of CPU "cpu" now stands at "total":
 * report its growth since the last call for it, if any.  The principal
 * and aggregation kinds are counted per CPU (cpu < ncpu); the others are
 * one counter each and ignore "cpu".  A principal total with cpu
 * KC_SESS_NOCPU counts firings the kernel lost before they reached a
 * buffer.  The caller flushes the output first (kc_sess_drops_begin).
 */
void kc_sess_drops_begin(struct kc_sess *s);
void kc_sess_drop(struct kc_sess *s, uint32_t kind, uint32_t cpu,
    uint64_t total);

/*
 * dtrace(1) prints a newline when it is first interrupted (^C), to end
 * the line the terminal echoed "^C" on; once per session.
 */
void kc_sess_interrupted(struct kc_sess *s);

/*
 * Tracing has stopped and every buffer is consumed: print the one
 * newline, then every aggregation printa() did not print, flush, and
 * return the exit status -- "status" when exit() was called ("exited"
 * non-zero), else 0.
 */
int kc_sess_finish(struct kc_sess *s, int exited, int status);

#endif /* KDT_KC_SESS_H */
