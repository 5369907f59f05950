/*
 * kc_est.h -- the probe-effect estimator: what one firing of each clause
 * will cost, before it is armed (kdt --estimate), from costs measured on
 * this machine (kdt --calibrate).
 *
 * The model (after Tao and Yang, "Performance Model of Dynamic Tracing
 * System", 2009): the cost of a firing is the fixed cost of the probe's
 * mechanism (an ftrace-based kprobe for fbt entry, a kretprobe for fbt
 * return, an int3 for kinst, a tracepoint for syscall, sdt, proc, sched
 * and lockstat) plus the DIF it runs -- every instruction, each dynamic
 * variable access (self->, this->, associative arrays), each record of
 * the principal buffer (a fixed part plus a part per recorded value: the
 * bench showed the cost follows the values, not their bytes), each
 * aggregation update (a fixed part, one per integer or string key, a
 * histogram bucket for quantize/lquantize/llquantize).  A clause with a
 * predicate costs the mechanism and the predicate's instructions when the
 * predicate is false.  A firing is cheaper still when its clause's
 * predicate has the gate's shape ("/VAR op K/" on arg0..arg5, pid, tid,
 * uid, gid, ppid, cpu or id: ecb.h's gate) and is false: kdt.ko then
 * stops in the provider's handler (fbt entry) or in kd_fire() (fbt
 * return, syscall, sdt), so such a firing costs the mechanism alone;
 * every other firing adds "fbt.context", building the firing's context
 * and running the ECB machinery (measured on fbt entry, whose handler
 * reads the function's arguments only past its gate: "fbt.args" of it;
 * the other mechanisms have their arguments before their gate, so they
 * add fbt.context - fbt.args; kinst, which has no gate, is calibrated
 * through that machinery and includes it).  A simple aggregation (ecb.h:
 * "@[K..] = AGG(V)" on integer keys and values a handler has at hand, no
 * other action, no predicate or a gate-shaped one) needs no context
 * either: kdt.ko updates it directly (ecb_fire_simple()), so it costs
 * "agg.simple" (a whole keyless count() on syscall, whose handler
 * reads no argument and has no gate for it: less than mech.syscall), the
 * difference of its mechanism to mech.syscall, the key and histogram
 * parts, and on fbt entry and kinst fbt.args -- not the context, the
 * instructions nor "agg" (the fixed part of an update made by the ECB
 * machinery).  A simple record (ecb.h: trace()/printf() of such values)
 * is written by ecb_fire_simple() too: "rec.simple" is a whole simple
 * trace(cpu) on syscall and "rec.simple.item" each further value, with
 * the same mechanism and fbt.args terms; a calibration without them
 * estimates it as the ECB machinery's record.  A simple aggregation may
 * also have execname as a key (ecb.h): each such key adds
 * "agg.simple.strkey" (measured as a simple @[execname] = count() on
 * syscall against agg.simple; a calibration without it charges
 * agg.strkey, the ECB machinery's string key).  The gate is a
 * property of the probe -- every clause on it must have such a predicate
 * -- and the estimate, per clause, assumes the clause is alone on its
 * probe.  DIF has no backward branches, so the instruction
 * count of a DIF object bounds what one run executes; the shapes the
 * runner decides without the interpreter (dif_vm.h's fast paths) count
 * no instructions, their cost being part of the calibrated mechanism,
 * record or aggregation.
 *
 * The model is per firing.  What an anonymous enabling costs the boot
 * once, its arming, is not modelled but measured: kdt -A --estimate has
 * kdt.ko rehearse it on the running kernel (anon/an_rehearse.c), since
 * no live enabling arms the way the boot does.
 *
 * Calibration (kc_calibrate()): kdt runs itself, in pairs, with and
 * without one enabling at a time on __x64_sys_getppid / syscall getppid
 * / raw_syscalls:sys_enter, while a child of its own ("kdt
 * --calibrate-loop N") times N getppid() calls; the difference per call
 * of the medians over the pairs is that enabling's cost, and subtracting
 * enablings that differ in one item gives the item (the instruction cost
 * from a predicate of many instructions, and so on).  The results go to a
 * text file, one "name value" per line (ns), with the kernel release and
 * the time (kc_cal_path(): $KDT_CALIBRATION, else /var/lib/kdt/calibration
 * for root, else ~/.cache/kdt/calibration).  Profile/tick timers and
 * user-space (pid, USDT) probes are not calibrated: a timer is estimated
 * with the tracepoint's fixed cost (marked "~"), a uprobe not at all
 * ("?").
 */
#ifndef KDT_KC_EST_H
#define KDT_KC_EST_H

#include <stdint.h>
#include <stdio.h>

#include "common/dof_load.h"

/* The calibrated items, ns each. */
enum kc_cal_item {
	KC_CAL_BASELINE,	/* one getppid() untraced (for reference) */
	KC_CAL_INSN,		/* one DIF instruction */
	KC_CAL_FBT,		/* fbt entry mechanism */
	KC_CAL_FBTRET,		/* fbt return mechanism */
	KC_CAL_KINST,		/* kinst (int3) mechanism */
	KC_CAL_SYSCALL,		/* syscall provider mechanism */
	KC_CAL_SDT,		/* tracepoint mechanism */
	KC_CAL_REC,		/* one record, fixed part */
	KC_CAL_RECITEM,		/* one recorded value (trace, printf arg) */
	KC_CAL_AGG,		/* one aggregation update, fixed part */
	KC_CAL_AGGKEY,		/* one integer key */
	KC_CAL_AGGSTR,		/* one string key */
	KC_CAL_HIST,		/* a histogram bucket (quantize & co) */
	KC_CAL_DYNVAR,		/* one dynamic variable access */
	KC_CAL_CTX,		/* fbt entry past the gate (see above) */
	KC_CAL_AGGSIMPLE,	/* "agg.simple": a whole simple count() */
	KC_CAL_FBTARGS,		/* fbt entry's argument reads (see above) */
	KC_CAL_RECSIMPLE,	/* "rec.simple": a whole simple trace() */
	KC_CAL_RECSITEM,	/* one more value of a simple record */
	KC_CAL_AGGSSTR,		/* a simple aggregation's execname key */
	KC_CAL_NITEMS
};

struct kc_cal {
	double		kc_ns[KC_CAL_NITEMS];
	uint8_t		kc_have[KC_CAL_NITEMS];	/* measured */
	char		kc_release[65];
	int64_t		kc_when;	/* seconds since the epoch */
	uint32_t	kc_calls, kc_pairs;
};

/* Item names as they appear in the calibration file. */
const char *kc_cal_name(enum kc_cal_item i);

/* Where the calibration is kept (see above); a static buffer. */
const char *kc_cal_path(void);

/* Read / write a calibration file: 0, or -1 with why[] naming it. */
int kc_cal_load(const char *path, struct kc_cal *c, char *why, size_t whysz);
int kc_cal_save(const char *path, const struct kc_cal *c, char *why,
    size_t whysz);

/* One clause's estimate. */
struct kc_est {
	const char	*es_mech;	/* "fbt entry", "tracepoint", ... */
	char		es_mark;	/* ' ', '~' (approximated), '?' (unknown) */
	uint32_t	es_pred_insns, es_insns;	/* predicate, all DIF */
	uint32_t	es_rec_bytes;	/* payload recorded, 0: no record */
	uint32_t	es_rec_items;	/* values recorded (REC actions) */
	int		es_records;	/* 1 if a firing records */
	uint32_t	es_naggs, es_nkeys, es_nstrkeys, es_nhist;
	uint32_t	es_ndynvar;
	int		es_simple;	/* a simple aggregation (ecb.h) */
	int		es_simple_rec;	/* a simple record (ecb.h) */
	double		es_false_ns;	/* predicate false (0: no predicate) */
	double		es_ns;		/* a firing that runs the actions */
};

/* Estimate ECB "i" of "den" with calibration "c". */
void kc_est_ecb(const struct dof_enabling *den, uint32_t i,
    const struct kc_cal *c, struct kc_est *e);

/*
 * kdt --estimate: the table for every clause of "den" (source name
 * "what"), with the expected share of one CPU at "rate" firings per
 * second per clause when rate > 0, or at the rates rates[i] when rates is
 * not NULL.  Returns 0.
 */
int kc_est_print(const struct dof_enabling *den, const struct kc_cal *c,
    const char *calpath, double rate, const double *rates, int anon,
    FILE *out);

/*
 * kdt --calibrate: measure with "kdt" (this program's path), "pairs" on/off
 * pairs of "calls" getppid() calls per item, print the table on "out" and
 * save it to kc_cal_path().  Needs kdt.ko (it enables fbt, kinst, syscall
 * and sdt probes).  Returns the exit status.
 */
int kc_calibrate(const char *kdt, uint32_t pairs, uint32_t calls, FILE *out,
    FILE *err);

/* kdt --calibrate-loop N: time N getppid() calls, print "kdt-cal NS". */
int kc_cal_loop(long n);

/*
 * Measure the firing rate of each ECB's probe description for "secs"
 * seconds by running kdt with a count() per description; rates[i] gets
 * firings per second.  0, or -1 after a message.
 */
int kc_est_sample(const char *kdt, const struct dof_enabling *den,
    double secs, double *rates, FILE *err);

#endif /* KDT_KC_EST_H */
