/*
 * kc_engine.h -- the userspace engine and the incremental record decoder
 * it shares with every other front end.
 *
 * The userspace engine (kc_engine.c) runs a compiled D program in-process
 * when every probe it names is dtrace:::BEGIN, END, ERROR or a profile
 * provider tick-N / profile-N probe (kdt.ko runs every program: the
 * kernel engine, consumer/kc_kernel.h; kc_run.h chooses).  It loads the
 * DOF with dof_load(), lays out a region in ordinary memory with
 * rgn_init() (one CPU, the program's bufsize and bufpolicy), and fires
 * probes through the very ECB runner kdt.ko uses (common/ecb.h), so
 * records, aggregations, speculations and faults go through the same
 * writer and reader as in the kernel:
 *
 *   BEGIN --> timers (tick/profile, real sleeping, deterministic order)
 *     |        each firing: ecb_fire(); consume at switchrate, snapshot
 *     |        aggregations at aggrate
 *     +--> exit() or SIGINT --> DRAINING --> END --> consume the rest
 *          --> print the aggregations not printed yet --> exit status
 *
 * The decoder (kc_print.c, struct kc_dec) turns records into dtrace(1)
 * text.  It is incremental: per CPU it remembers the logical offset up to
 * which it has consumed, so the engine can call kc_dec_consume() again
 * and again while records are being written; kc_print_region() (a dead
 * region image) is one call of it.  Records whose meaning lives in the
 * consumer -- printa(), clear()/trunc()/normalize() (LIBACT), system()
 * -- go to hooks a live session supplies (consumer/kc_sess.h, shared by
 * this engine and the kernel engine, consumer/kc_kernel.h); without
 * hooks (a region image) the aggregation actions (clear, trunc,
 * normalize, denormalize, the aggregation options of setopt) are kept in
 * decode order and carried out on the image's merged aggregations
 * (kc_dec_set_aggs) when a printa() record prints them and once the
 * records are decoded (kc_dec_apply_libacts), as a consumer stopping at
 * that moment would have; system() does nothing.
 * Error records print dtrace's "error on enabled probe ID" message on
 * the error stream.
 *
 * Not thread-safe; one engine per process (the userspace environment's
 * readable ranges, consumer/kc_env.h, are process-wide).
 */
#ifndef KDT_KC_ENGINE_H
#define KDT_KC_ENGINE_H

#include <stdio.h>
#include <stdint.h>

#include "consumer/kc_fmt.h"
#include "consumer/kc_run.h"

struct rgn_view;
struct dof_enabling;
struct kc_aggs;

/* What the decoder hands to the engine. */
struct kc_dec_hooks {
	void	*dh_arg;
	/* printa(): the variable ids of one statement, its format or NULL */
	void	(*dh_printa)(void *arg, const char *fmt, const uint32_t *varids,
		    uint32_t nvarids);
	/* clear/normalize/denormalize/trunc: KDT_LIBACT_* on variable id */
	void	(*dh_libact)(void *arg, uint32_t code, uint32_t varid,
		    int64_t val, int has_val);
	/* setopt(name, value) */
	void	(*dh_setopt)(void *arg, const char *name, const char *value);
	/* system(): the formatted command, after the output is flushed */
	void	(*dh_system)(void *arg, const char *cmd);
};

struct kc_dec_opts {
	const char	*do_prog;	/* message prefix ("kdt") */
	const char	*do_input;	/* what the records came from */
	FILE		*do_out;
	FILE		*do_err;
	uint32_t	do_quiet;
	uint32_t	do_engine;	/* a live engine: no "input:" prefix on
					   messages about records */
	const struct kc_dec_hooks *do_hooks;	/* NULL: none */
};

struct kc_dec;

/*
 * A decoder over the region view "v" (kept by reference, live: counts
 * are re-read at every consume) and its loaded enabling "den".  NULL when
 * out of memory.
 */
struct kc_dec *kc_dec_new(const struct rgn_view *v,
    const struct dof_enabling *den, const struct kc_dec_opts *o);
void kc_dec_free(struct kc_dec *d);

/*
 * Print the records of cpu "cpu" committed since the last call.  Returns
 * the number of records decoded, or -1 when the cpu's stream is corrupt
 * (reported on the error stream).
 */
int kc_dec_consume(struct kc_dec *d, uint32_t cpu);

/* Logical offset up to which cpu "cpu" has been consumed. */
uint64_t kc_dec_consumed(const struct kc_dec *d, uint32_t cpu);

/*
 * A decoder without hooks (a dead image): keep (on = 1) or not (0) the
 * aggregation actions of the records decoded from now on.  Callers turn
 * it on for the principal buffers only (an uncommitted speculation's
 * records never acted).
 */
void kc_dec_keep_libacts(struct kc_dec *d, int on);

/*
 * A dead image's merged aggregations (kc_aggs_region() or the same
 * images), NULL: none.  With them, a printa() record decoded while the
 * actions are kept prints them as the consumer would have when it
 * decoded that record: the actions kept so far carried out first, the
 * variables marked printed (kc_aggs_printa).  The caller keeps "ka".
 */
void kc_dec_set_aggs(struct kc_dec *d, struct kc_aggs *ka);

/*
 * Carry out the kept actions on "ka", the image's merged aggregations
 * (kc_aggs_region() or the same images), in the order they were decoded
 * (those a printa() record carried out already are not again): what the
 * consumer would have done had it stopped when the image was taken.  A
 * live consumer under ring or fill and the consumer claiming an
 * anonymous state act on a record when they decode it, after merging
 * everything the buffers hold, so that is exact.  Under bufpolicy=switch
 * a live consumer has acted on the records it already read: the totals'
 * replay part (rgn.h, "Aggregation totals") says how far, per CPU, and
 * gives the normalize() divisors it applied; only the actions after that
 * are carried out, and what cannot be known (an image from before
 * replay, a damaged replay part, records taken but no longer in the
 * dump) is said on "err" (setopt's options: the last one wins either
 * way).  Errors are "prog: input: ..." lines.  0, or 1 when something
 * said on "err" makes the aggregations partial.
 */
int kc_dec_apply_libacts(struct kc_dec *d, struct kc_aggs *ka, FILE *err);

/*
 * A live decoder's replay position on CPU "cpu" (rgn.h "Aggregation
 * totals", at_pos): the logical offset of the first record whose
 * aggregation actions are not all carried out, and how many of that
 * record's are (*k).  The session says when it carried out one
 * (kc_dec_libact_acted), after the decoder's dh_libact hook acted.
 */
void kc_dec_acted(const struct kc_dec *d, uint32_t cpu, uint64_t *pos,
    uint64_t *k);
void kc_dec_libact_acted(struct kc_dec *d);
/* Does enabling "den" use clear(), trunc(), normalize() or denormalize()? */
int kc_den_aggacts(const struct dof_enabling *den);

/* The quiet setting in force (setopt("quiet") may change it). */
uint32_t kc_dec_quiet(const struct kc_dec *d);

/*
 * Where the program's output goes now: the output stream, or the file
 * the last freopen() named (dtrace sends everything after it there,
 * printa() and the final aggregations included).
 */
FILE *kc_dec_out(const struct kc_dec *d);

/*
 * The parts of an image read with gaps (rgn.h, struct rgn_gap) that are
 * left out: each CPU buffer and optional area touching a gap.  With "err"
 * each is said there, with the first missing byte range in it and why
 * ("prog: input: ..."); NULL only counts.  The number of parts.
 */
uint32_t kc_region_gaps(const struct rgn_view *v, const char *prog,
    const char *input, FILE *err);

/* ---- the engine ---- */

/*
 * Is every probe description of "den" one the userspace engine provides?
 * 1, or 0 with the first one that is not copied to bad[0, badsz) as
 * "prov:mod:func:name".
 */
int kc_engine_can_run(const struct dof_enabling *den, char *bad,
    size_t badsz);

/*
 * Run the program "dof" on the userspace engine: the whole life cycle
 * above.  Returns the exit status (exit()'s value, or 1 when the program
 * cannot run, after saying why on "err").
 */
int kc_engine_run(const void *dof, uint64_t dofsz,
    const struct kc_run_opts *ro, FILE *out, FILE *err);

#endif /* KDT_KC_ENGINE_H */
