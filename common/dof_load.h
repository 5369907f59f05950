/*
 * dof_load.h -- a validated, loaded enabling: what dof_load() makes of DOF.
 *
 * dof_load() is the single decoder of DOF.  It runs in kdt.ko on a DOF that
 * came from userspace or from the bootloader, in kdt-extract / kdt -a on the
 * DOF copy stored in a region's metadata, and in the compiler's self-check.
 * It validates everything (the rules are enumerated on dof_load() in
 * dof_load.c, following reference section 1.9), validates every DIF object
 * (dif_valid.c), and then builds the structures below, which everyone after
 * it may trust: every index is in range, every string is NUL-terminated,
 * every DIF object passed dif_validate().
 *
 * The record layout of an ECB is computed here, once, from the action
 * descriptions; the kernel writes records by it and the consumer decodes
 * records by it, so the two cannot disagree.  Invariant: for a given ECB
 * (hence a given EPID) every record has the same size and layout:
 *
 *	payload offset 0 ............................. le_size
 *	| act 0 data | pad | act 1 data | ... | pad |
 *
 * Each recording action's data sits at da_rec_off, aligned to
 * da_rec_align (the largest of 8, 4, 2, 1 dividing da_rec_size); le_size is
 * rounded up to 8.  Actions that record nothing have da_rec_size 0.  The
 * payload follows the record header defined in rgn.h.
 */
#ifndef KDT_DOF_LOAD_H
#define KDT_DOF_LOAD_H

#include "kdt_env.h"
#include "kdt_err.h"
#include "dof.h"

/* A loaded DIF object.  Pointers point into the enabling's private copy. */
struct dif_object {
	const uint32_t	*do_text;	/* instructions */
	uint32_t	do_textlen;	/* number of instructions */
	const uint64_t	*do_inttab;
	uint32_t	do_intlen;	/* number of integers */
	const char	*do_strtab;
	uint32_t	do_strlen;	/* bytes */
	const struct dif_var *do_vartab;
	uint32_t	do_varlen;	/* entries */
	struct dif_type	do_rtype;	/* return type */
	uint32_t	do_destructive;	/* uses destructive subroutines */
};

/* A probe description with its strings resolved ("" matches anything). */
struct dof_pdesc {
	char		lp_prov[DOF_PROVNAMELEN];
	char		lp_mod[DOF_MODNAMELEN];
	char		lp_func[DOF_FUNCNAMELEN];
	char		lp_name[DOF_NAMELEN];
	uint32_t	lp_id;
};

/*
 * What an action contributes (agg.h has the theory of aggregations):
 * REC records into the principal buffer at la_rec_off; the others belong
 * to aggregation la_aggid: AGGVAR is tuple[0] (the variable id, a
 * constant), AGGKEY one key (its value goes at la_rec_off inside the key),
 * AGGARG an argument that is evaluated but not part of the key (the
 * quantize increment), AGG the aggregating action (its DIF object computes
 * the value; count() has none).
 */
#define DOF_ROLE_REC		0
#define DOF_ROLE_AGGVAR		1
#define DOF_ROLE_AGGKEY		2
#define DOF_ROLE_AGGARG		3
#define DOF_ROLE_AGG		4

struct dof_laction {
	uint32_t	la_kind;	/* DTRACEACT_* / DTRACEAGG_* */
	uint32_t	la_ntuple;
	uint64_t	la_arg;		/* kind argument (not printf-like) */
	uint64_t	la_uarg;	/* library argument */
	const char	*la_fmt;	/* printf-like: the format, else NULL */
	struct dif_object *la_difo;	/* NULL when the action has none */
	uint32_t	la_rec_off;	/* payload offset of its data */
	uint32_t	la_rec_size;	/* bytes recorded, 0 if none */
	uint16_t	la_rec_align;
	uint16_t	la_rec_isstr;	/* data is a NUL-padded string */
	uint16_t	la_role;	/* DOF_ROLE_* */
	uint16_t	la_pad;
	uint32_t	la_aggid;	/* non-REC roles: the aggregation */
};

/* One aggregating action and its tuple (agg.h). */
struct dof_agg {
	uint32_t	ag_id;		/* 1.. in ECB and action order */
	uint32_t	ag_varid;	/* the @variable's id (1..), shared by
					   every statement naming it */
	uint32_t	ag_kind;	/* DTRACEAGG_* */
	uint32_t	ag_ecb;		/* index of its ECB */
	uint64_t	ag_arg;		/* encoded parameters */
	uint32_t	ag_act;		/* action index of the aggregating action */
	uint32_t	ag_firstkey;	/* action index of the first key */
	uint32_t	ag_nkeys;	/* consecutive AGGKEY actions */
	uint32_t	ag_incr_act;	/* AGGARG increment action, or (uint32_t)-1 */
	uint32_t	ag_keysize;	/* key bytes, multiple of 8 */
	uint32_t	ag_datasize;	/* value bytes (agg_data_size) */
};

struct dof_lecb {
	struct dof_pdesc le_pdesc;
	struct dif_object *le_pred;	/* NULL: always true */
	struct dof_laction *le_acts;
	uint32_t	le_nacts;
	uint32_t	le_size;	/* payload bytes, multiple of 8 */
	uint64_t	le_uarg;
};

struct dof_enabling {
	struct dof_lecb	*den_ecbs;
	uint32_t	den_necbs;
	uint64_t	den_opts[DTRACEOPT_MAX];	/* UNSET if not given */
	uint32_t	den_strsize;	/* effective strsize option */
	struct dof_agg	*den_aggs;	/* indexed by ag_id - 1 */
	uint32_t	den_naggs;
	uint32_t	den_nvarids;	/* largest ag_varid */
	/* private: the copy of the DOF everything above points into */
	void		*den_dof;
	uint64_t	den_dofsz;
};

/*
 * Validate and load "len" bytes of DOF.  On success *out holds a new
 * enabling (free with dof_free) and 0 is returned; on failure -errno and
 * "err" says what, where and why.  The input buffer is not kept.
 * Setup context (allocates).
 */
int dof_load(const void *buf, uint64_t len, struct dof_enabling **out,
    struct kdt_err *err);
void dof_free(struct dof_enabling *den);

/*
 * Overflow-safe range check used by every decoder of untrusted bytes:
 * true when [off, off + size) lies inside [0, limit).
 */
static inline int
kdt_range_ok(uint64_t off, uint64_t size, uint64_t limit)
{
	return off <= limit && size <= limit - off;
}

/* Shell-style glob match ('*', '?', '[...]') used for probe descriptions. */
int dof_glob_match(const char *pattern, const char *str);

#endif /* KDT_DOF_LOAD_H */
