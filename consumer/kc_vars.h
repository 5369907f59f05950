/*
 * kc_vars.h -- what a dead region image holds besides records and
 * aggregations: uncommitted speculations and, with --vars, the variables
 * (common/rgn.h, "speculations and variables").
 *
 * Callers: kc_print.c's kc_print_region_opts() (dtrace text: kdt-extract,
 * "kdt -a" claiming the anonymous state, the crash(8) extension) and
 * kc_export.c's JSON writer -- so every tool prints them through this
 * one file over the same rgn_read.c / dif_dvar.c decoding.
 *
 * Text forms (documented for users in kdt-extract(1)):
 *
 *   speculations, after the principal records, one block per buffer:
 *	speculation ID (uncommitted, CPU N):
 *	<its records, printed exactly as principal records are>
 *     or "(committed on another CPU, not yet copied, CPU N)" for a
 *     commit() the panic interrupted before CPU N copied its part.
 *
 *   variables (--vars), after the aggregations, one line each, sorted by
 *   kind, name and key:
 *	global NAME (TYPE) = VALUE
 *	array NAME[KEY, ...] (TYPE) = VALUE
 *	self->NAME (TYPE) tid TID = VALUE
 *	self->NAME[KEY, ...] (TYPE) tid TID = VALUE
 *     TYPE: intN (N bits), pointer, string, struct[N] or array[N] (N
 *     bytes); VALUE: signed decimal, 0x-hex for pointers, "quoted" for
 *     strings (\n, \t, \", \\ and \ooo escapes), hex bytes otherwise; a
 *     KEY by value is a signed decimal, by reference a quoted string when
 *     it is one, else hex bytes.  Global scalars are all printed (an unset
 *     one is 0, as in dtrace); an associative array or thread-local
 *     shows the instances that exist.
 *
 * JSON (--format=json), one object per line before the "end" object:
 *	{"type":"speculation","id":I,"cpu":C,"state":"uncommitted"|
 *	 "committing","timestamp":T,"epid":E,"text":"..."}
 *	{"type":"variable","scope":"global"|"array"|"thread","name":"x",
 *	 "vtype":"int64","keys":[...],"tid":T,"value":V}
 *     ("keys" only for arrays, "tid" only for thread-locals; V a number
 *     for integers and pointers, a string for strings, a hex string
 *     otherwise).
 *
 * Damage (a speculation area or buffer, a variable table, a store chunk)
 * is reported on the error stream with the part and offset, counted as a
 * torn spot (kdt-extract's "partial" status) and never decoded.
 */
#ifndef KDT_KC_VARS_H
#define KDT_KC_VARS_H

#include <stdio.h>
#include <stdint.h>

struct kc_dec;
struct rgn_view;
struct dof_enabling;

/* Where and how to print. */
struct kc_vars_io {
	const char	*vi_prog;	/* message prefix */
	const char	*vi_input;	/* the image's name in messages */
	FILE		*vi_out;
	FILE		*vi_err;
	int		vi_json;	/* JSON lines instead of text */
};

/*
 * The speculations the region holds (rgn_walk_spec), their records
 * decoded by "d" as principal records are.  Returns the number of damaged
 * spots reported.
 */
uint64_t kc_region_specs(struct kc_dec *d, const struct rgn_view *v,
    const struct kc_vars_io *io);

/*
 * The variables (--vars): global scalars, associative arrays and
 * thread-locals from the region's variable area.  Says on the error
 * stream when the region has none.  Returns the number of damaged spots
 * reported (1 for a variable area that cannot be read at all).
 */
uint64_t kc_region_vars(const struct rgn_view *v,
    const struct dof_enabling *den, const struct kc_vars_io *io);

#endif /* KDT_KC_VARS_H */
