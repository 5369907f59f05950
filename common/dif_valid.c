/*
 * dif_valid.c -- the DIF validator: every DIF object passes through here
 * before anything runs it.
 *
 * dof_load() calls dif_validate() on every predicate and action object it
 * decodes, in kdt.ko and in userspace alike; the tests call it directly.
 * The theory of the instruction set is in dif.h, the machine in dif_vm.h.
 * What this file guarantees is what dif_vm.c relies on without checking
 * again: register numbers are in range, %r0 is never written, table
 * indices are inside their tables, every branch goes forward and stays in
 * the text, the last instruction is "ret", and only opcodes the emulator
 * knows appear.  The numbered rules are on dif_validate().
 *
 * One table (dif_optab) describes every accepted opcode: its mnemonic and
 * its operand shape.  Opcodes absent from it (user-memory loads, xlate,
 * xlarg, stga, unassigned numbers) are invalid.
 */
#include "kdt_env.h"
#include "kdt_err.h"
#include "dif.h"
#include "dif_subr.h"
#include "dif_vm.h"

/* Operand shapes of the accepted opcodes. */
enum dif_shape {
	DIF_SH_NONE = 0,	/* not accepted */
	DIF_SH_R3,		/* r1, r2 -> rd */
	DIF_SH_R1D,		/* r1 -> rd, r2 unused */
	DIF_SH_CMP,		/* r1, r2; rd unused */
	DIF_SH_TST,		/* r1; r2, rd unused */
	DIF_SH_BR,		/* 24-bit label */
	DIF_SH_RET,		/* rd only */
	DIF_SH_EMPTY,		/* no operands at all */
	DIF_SH_SETX,		/* INTTAB index -> rd */
	DIF_SH_SETS,		/* STRTAB offset -> rd */
	DIF_SH_LDV,		/* variable id -> rd */
	DIF_SH_STV,		/* rs -> variable id */
	DIF_SH_LDA,		/* array id, index register r2 -> rd */
	DIF_SH_CALL,		/* subroutine id -> rd */
	DIF_SH_PUSH,		/* type, size register r2, value register rs */
	DIF_SH_ST		/* r1 -> [rd]; r2 unused */
};

struct dif_opinfo {
	const char	*oi_name;
	uint8_t		oi_shape;
	uint8_t		oi_scope;	/* LDV/STV: DIFV_SCOPE_* */
};

#define OP(o, n, s)	[DIF_OP_##o] = { n, DIF_SH_##s, 0 }
#define OPV(o, n, s, sc) [DIF_OP_##o] = { n, DIF_SH_##s, DIFV_SCOPE_##sc }

static const struct dif_opinfo dif_optab[DIF_OP_STGA + 1] = {
	OP(OR, "or", R3),	OP(XOR, "xor", R3),	OP(AND, "and", R3),
	OP(SLL, "sll", R3),	OP(SRL, "srl", R3),	OP(SUB, "sub", R3),
	OP(ADD, "add", R3),	OP(MUL, "mul", R3),	OP(SDIV, "sdiv", R3),
	OP(UDIV, "udiv", R3),	OP(SREM, "srem", R3),	OP(UREM, "urem", R3),
	OP(NOT, "not", R1D),	OP(MOV, "mov", R1D),	OP(CMP, "cmp", CMP),
	OP(TST, "tst", TST),	OP(BA, "ba", BR),	OP(BE, "be", BR),
	OP(BNE, "bne", BR),	OP(BG, "bg", BR),	OP(BGU, "bgu", BR),
	OP(BGE, "bge", BR),	OP(BGEU, "bgeu", BR),	OP(BL, "bl", BR),
	OP(BLU, "blu", BR),	OP(BLE, "ble", BR),	OP(BLEU, "bleu", BR),
	OP(LDSB, "ldsb", R1D),	OP(LDSH, "ldsh", R1D),	OP(LDSW, "ldsw", R1D),
	OP(LDUB, "ldub", R1D),	OP(LDUH, "lduh", R1D),	OP(LDUW, "lduw", R1D),
	OP(LDX, "ldx", R1D),	OP(RET, "ret", RET),	OP(NOP, "nop", EMPTY),
	OP(SETX, "setx", SETX),	OP(SETS, "sets", SETS),	OP(SCMP, "scmp", CMP),
	OP(LDGA, "ldga", LDA),	OP(LDTA, "ldta", LDA),
	OPV(LDGS, "ldgs", LDV, GLOBAL),	OPV(STGS, "stgs", STV, GLOBAL),
	OPV(LDTS, "ldts", LDV, THREAD),	OPV(STTS, "stts", STV, THREAD),
	OP(SRA, "sra", R3),	OP(CALL, "call", CALL),
	OP(PUSHTR, "pushtr", PUSH),	OP(PUSHTV, "pushtv", PUSH),
	OP(POPTS, "popts", EMPTY),	OP(FLUSHTS, "flushts", EMPTY),
	OPV(LDGAA, "ldgaa", LDV, GLOBAL), OPV(LDTAA, "ldtaa", LDV, THREAD),
	OPV(STGAA, "stgaa", STV, GLOBAL), OPV(STTAA, "sttaa", STV, THREAD),
	OPV(LDLS, "ldls", LDV, LOCAL),	OPV(STLS, "stls", STV, LOCAL),
	OP(ALLOCS, "allocs", R1D),	OP(COPYS, "copys", R3),
	OP(STB, "stb", ST),	OP(STH, "sth", ST),	OP(STW, "stw", ST),
	OP(STX, "stx", ST),
	OP(RLDSB, "rldsb", R1D), OP(RLDSH, "rldsh", R1D),
	OP(RLDSW, "rldsw", R1D), OP(RLDUB, "rldub", R1D),
	OP(RLDUH, "rlduh", R1D), OP(RLDUW, "rlduw", R1D),
	OP(RLDX, "rldx", R1D),
};

#undef OP
#undef OPV

/* Validation state of one object. */
struct dif_vcheck {
	const struct dif_object *vc_difo;
	struct kdt_err	*vc_err;
	uint32_t	vc_pc;
	uint32_t	vc_instr;
	const char	*vc_name;
	uint32_t	vc_maxid[3];	/* largest user id per scope, 0: none */
};

/* Mnemonic of an opcode, or "?" for one the emulator does not know. */
static const char *
dif_op_name(uint32_t op)
{
	if (op < sizeof (dif_optab) / sizeof (dif_optab[0]) &&
	    dif_optab[op].oi_name != NULL)
		return dif_optab[op].oi_name;
	return "?";
}

static int
dif_verr(struct dif_vcheck *vc, const char *tag, const char *what,
    uint32_t val, uint32_t limit)
{
	return kdt_err_set(vc->vc_err, EINVAL, tag, (uint64_t)vc->vc_pc * 4,
	    "DIF instruction %u (%s, 0x%08x): %s %u (limit %u)",
	    vc->vc_pc, vc->vc_name, vc->vc_instr, what, val, limit);
}

/* Rule 1: a register operand below DIF_DIR_NREGS; "dst" forbids %r0. */
static int
dif_vreg(struct dif_vcheck *vc, uint32_t r, int dst)
{
	if (r >= DIF_DIR_NREGS)
		return dif_verr(vc, "DIF_REG", "register number", r,
		    DIF_DIR_NREGS - 1);
	if (dst && r == 0)
		return kdt_err_set(vc->vc_err, EINVAL, "DIF_R0",
		    (uint64_t)vc->vc_pc * 4,
		    "DIF instruction %u (%s, 0x%08x): destination register %%r0 is read-only",
		    vc->vc_pc, vc->vc_name, vc->vc_instr);
	return 0;
}

/* Rule 2: bits an instruction does not use must be zero. */
static int
dif_vzero(struct dif_vcheck *vc, uint32_t mask)
{
	if ((vc->vc_instr & mask) != 0)
		return dif_verr(vc, "DIF_RESERVED", "unused operand bits",
		    vc->vc_instr & mask, 0);
	return 0;
}

/* Rule 3: branch targets go strictly forward and stay in the text. */
static int
dif_vbranch(struct dif_vcheck *vc)
{
	uint32_t label = DIF_INSTR_LABEL(vc->vc_instr);

	if (label <= vc->vc_pc)
		return dif_verr(vc, "DIF_BRANCH",
		    "branch target must be after the branch; target", label,
		    vc->vc_pc + 1);
	if (label >= vc->vc_difo->do_textlen)
		return dif_verr(vc, "DIF_BRANCH",
		    "branch target past the last instruction; target", label,
		    vc->vc_difo->do_textlen - 1);
	return 0;
}

/* Rules 5 and 12: variable ids of loads and stores. */
static int
dif_vvar(struct dif_vcheck *vc, const struct dif_opinfo *oi, int store)
{
	uint32_t id = DIF_INSTR_VAR(vc->vc_instr);
	uint32_t min = store ? DIF_VAR_OTHER_UBASE : DIF_VAR_OTHER_MIN;

	if (id < min)
		return dif_verr(vc, "DIF_VAR",
		    store ? "store to built-in variable id" :
		    "variable id below the scalar range; id", id, min);
	if (id >= DIF_VAR_OTHER_UBASE && id > vc->vc_maxid[oi->oi_scope])
		return dif_verr(vc, "DIF_VAR",
		    "user variable id not declared in VARTAB; id", id,
		    vc->vc_maxid[oi->oi_scope]);
	return 0;
}

/*
 * illumos subroutines that have no Linux equivalent kdt could read
 * safely, by id, so that the message can name what the program asked
 * for.
 */
static const char *
dif_subr_missing(uint32_t subr)
{
	switch (subr) {
	case DIF_SUBR_MUTEX_OWNED: return "mutex_owned";
	case DIF_SUBR_MUTEX_OWNER: return "mutex_owner";
	case DIF_SUBR_MUTEX_TYPE_ADAPTIVE: return "mutex_type_adaptive";
	case DIF_SUBR_MUTEX_TYPE_SPIN: return "mutex_type_spin";
	case DIF_SUBR_RW_READ_HELD: return "rw_read_held";
	case DIF_SUBR_RW_WRITE_HELD: return "rw_write_held";
	case DIF_SUBR_RW_ISWRITER: return "rw_iswriter";
	case DIF_SUBR_MSGDSIZE: return "msgdsize";
	case DIF_SUBR_MSGSIZE: return "msgsize";
	case DIF_SUBR_DDI_PATHNAME: return "ddi_pathname";
	case DIF_SUBR_GETF: return "getf";
	default: return NULL;
	}
}

/* Rule 6: the subroutines this emulator implements (dif_subr.c). */
static int
dif_vcall(struct dif_vcheck *vc)
{
	uint32_t subr = DIF_INSTR_SUBR(vc->vc_instr);
	const char *name = dif_subr_missing(subr);

	if (dif_subr_name(subr) != NULL)
		return 0;
	if (name != NULL)
		return kdt_err_set(vc->vc_err, EINVAL, "DIF_SUBR",
		    (uint64_t)vc->vc_pc * 4,
		    "DIF instruction %u (call, 0x%08x): subroutine %u (%s) has no Linux equivalent in kdt",
		    vc->vc_pc, vc->vc_instr, subr, name);
	return dif_verr(vc, "DIF_SUBR",
	    "unknown subroutine; subroutine", subr, DIF_SUBR_MAX);
}

/* Rule 7: tuple push types. */
static int
dif_vpush(struct dif_vcheck *vc, uint32_t op)
{
	uint32_t type = DIF_INSTR_TYPE(vc->vc_instr);

	if (type == DIF_TYPE_CTF_T ||
	    (type == DIF_TYPE_STRING_T && op == DIF_OP_PUSHTR))
		return 0;
	return dif_verr(vc, "DIF_TUPLE", "tuple push type", type,
	    op == DIF_OP_PUSHTR ? DIF_TYPE_STRING_T : DIF_TYPE_CTF_T);
}


/*
 * Register operands and must-be-zero bits of each shape (rules 1 and 2):
 * for r1, r2 and rd, 0 = not a register, DIF_RR = read, DIF_RW = written
 * (so not %r0; a store's address counts as written).
 */
#define DIF_RR	1
#define DIF_RW	2

struct dif_shapeinfo {
	uint32_t	si_zero;
	uint8_t		si_r1, si_r2, si_rd;
};

static const struct dif_shapeinfo dif_shapes[] = {
	[DIF_SH_R3] = { 0, DIF_RR, DIF_RR, DIF_RW },
	[DIF_SH_R1D] = { 0xff00, DIF_RR, 0, DIF_RW },
	[DIF_SH_CMP] = { 0xff, DIF_RR, DIF_RR, 0 },
	[DIF_SH_TST] = { 0xffff, DIF_RR, 0, 0 },
	[DIF_SH_BR] = { 0, 0, 0, 0 },
	[DIF_SH_RET] = { 0xffff00, 0, 0, DIF_RR },
	[DIF_SH_EMPTY] = { 0xffffff, 0, 0, 0 },
	[DIF_SH_SETX] = { 0, 0, 0, DIF_RW },
	[DIF_SH_SETS] = { 0, 0, 0, DIF_RW },
	[DIF_SH_LDV] = { 0, 0, 0, DIF_RW },
	[DIF_SH_STV] = { 0, 0, 0, DIF_RR },
	[DIF_SH_LDA] = { 0, 0, DIF_RR, DIF_RW },
	[DIF_SH_CALL] = { 0, 0, 0, DIF_RW },
	[DIF_SH_PUSH] = { 0, 0, DIF_RR, DIF_RR },
	[DIF_SH_ST] = { 0xff00, DIF_RR, 0, DIF_RW },
};

/* Rules 3-7: the checks particular to one shape. */
static int
dif_vshape(struct dif_vcheck *vc, const struct dif_opinfo *oi, uint32_t op)
{
	const struct dif_object *d = vc->vc_difo;
	uint32_t idx = DIF_INSTR_INTEGER(vc->vc_instr);

	switch (oi->oi_shape) {
	case DIF_SH_BR:
		return dif_vbranch(vc);
	case DIF_SH_SETX:
		if (idx >= d->do_intlen)
			return dif_verr(vc, "DIF_INTTAB", "INTTAB index", idx,
			    d->do_intlen);
		return 0;
	case DIF_SH_SETS:
		if (idx >= d->do_strlen)
			return dif_verr(vc, "DIF_STRTAB", "STRTAB offset", idx,
			    d->do_strlen);
		return 0;
	case DIF_SH_LDV:
	case DIF_SH_STV:
		return dif_vvar(vc, oi, oi->oi_shape == DIF_SH_STV);
	case DIF_SH_CALL:
		return dif_vcall(vc);
	case DIF_SH_PUSH:
		return dif_vpush(vc, op);
	}
	return 0;
}

/* Rules 1-8 for the instruction at vc->vc_pc. */
static int
dif_vinstr(struct dif_vcheck *vc)
{
	uint32_t i = vc->vc_instr, op = DIF_INSTR_OP(i);
	const struct dif_opinfo *oi = &dif_optab[0];
	const struct dif_shapeinfo *si;
	int rc;

	if (op < sizeof (dif_optab) / sizeof (dif_optab[0]))
		oi = &dif_optab[op];
	vc->vc_name = dif_op_name(op);
	if (oi->oi_shape == DIF_SH_NONE)
		return kdt_err_set(vc->vc_err, EINVAL, "DIF_OPCODE",
		    (uint64_t)vc->vc_pc * 4,
		    "DIF instruction %u (0x%08x): opcode %u is not a valid DIF opcode for kdt",
		    vc->vc_pc, i, op);
	si = &dif_shapes[oi->oi_shape];
	if ((rc = dif_vzero(vc, si->si_zero)) != 0 ||
	    (rc = dif_vshape(vc, oi, op)) != 0)
		return rc;
	if (si->si_r1 != 0 &&
	    (rc = dif_vreg(vc, DIF_INSTR_R1(i), si->si_r1 == DIF_RW)) != 0)
		return rc;
	if (si->si_r2 != 0 &&
	    (rc = dif_vreg(vc, DIF_INSTR_R2(i), si->si_r2 == DIF_RW)) != 0)
		return rc;
	if (si->si_rd != 0)
		return dif_vreg(vc, DIF_INSTR_RD(i), si->si_rd == DIF_RW);
	return 0;
}

/*
 * Rule 11: VARTAB entries.  Also records, per scope, the largest user
 * variable id declared, for rule 12.
 */
static int
dif_vvartab(struct dif_vcheck *vc)
{
	const struct dif_object *d = vc->vc_difo;
	const struct dif_var *v;
	uint32_t n;

	for (n = 0; n < d->do_varlen; n++) {
		v = &d->do_vartab[n];
		if (v->dtdv_scope > DIFV_SCOPE_LOCAL ||
		    v->dtdv_kind > DIFV_KIND_SCALAR ||
		    v->dtdv_id > DIF_VARIABLE_MAX ||
		    v->dtdv_name >= d->do_strlen)
			return kdt_err_set(vc->vc_err, EINVAL, "DIF_VARTAB",
			    (uint64_t)n * sizeof (*v),
			    "VARTAB entry %u: id 0x%x scope %u kind %u name offset %u: scope must be <= 2, kind <= 1, id <= 0xffff, name offset < STRTAB size %u",
			    n, v->dtdv_id, v->dtdv_scope, v->dtdv_kind,
			    v->dtdv_name, d->do_strlen);
		if (v->dtdv_id < DIF_VAR_OTHER_UBASE)
			continue;
		if ((v->dtdv_type.dtdt_flags & DIF_TF_BYREF) &&
		    (v->dtdv_type.dtdt_size == 0 ||
		    (v->dtdv_scope != DIFV_SCOPE_THREAD &&
		    v->dtdv_type.dtdt_size > (16u << 10))))
			return kdt_err_set(vc->vc_err, EINVAL, "DIF_VARTAB",
			    (uint64_t)n * sizeof (*v),
			    "VARTAB entry %u: by-reference variable 0x%x has size %u (must be 1..16384)",
			    n, v->dtdv_id, v->dtdv_type.dtdt_size);
		/*
		 * A string variable is by reference too (dif_dvar.c sizes
		 * its data block from dtdt_size, 0 meaning strsize), but
		 * has no BYREF flag: without this rule one VARTAB entry
		 * could ask for 4 GiB of variable state (found by
		 * tests/fuzz/fuzz_dif, bad-strvar-4g).  Its size is at
		 * most the largest strsize (dof_load rule O3).
		 */
		if (v->dtdv_type.dtdt_kind == DIF_TYPE_STRING &&
		    v->dtdv_type.dtdt_size > (64u << 10))
			return kdt_err_set(vc->vc_err, EINVAL, "DIF_VARTAB",
			    (uint64_t)n * sizeof (*v),
			    "VARTAB entry %u: string variable 0x%x has size %u (must be 0..65536; 0 is strsize)",
			    n, v->dtdv_id, v->dtdv_type.dtdt_size);
		if (v->dtdv_id > vc->vc_maxid[v->dtdv_scope])
			vc->vc_maxid[v->dtdv_scope] = v->dtdv_id;
	}
	return 0;
}

/* Rule 10: scalar return types are 0, 1, 2, 4 or 8 bytes. */
static int
dif_vrtype(struct dif_vcheck *vc)
{
	const struct dif_type *t = &vc->vc_difo->do_rtype;

	if ((t->dtdt_flags & DIF_TF_BYREF) || t->dtdt_kind == DIF_TYPE_STRING)
		return 0;
	switch (t->dtdt_size) {
	case 0: case 1: case 2: case 4: case 8:
		return 0;
	}
	return kdt_err_set(vc->vc_err, EINVAL, "DIF_RTYPE", KDT_ERR_NOOFF,
	    "DIF object return type: size %u of a non-reference type must be 0, 1, 2, 4 or 8",
	    t->dtdt_size);
}

/*
 * Validate one DIF object.  The rules, in our words:
 *
 *  1. Every register operand names %r0..%r7; no instruction that writes a
 *     register may name %r0 as its destination (arithmetic, not, mov,
 *     loads, setx, sets, ldga/ldta, variable loads, call, allocs, copys);
 *     a store may not use %r0 as its address.
 *  2. Operand fields an instruction does not use are zero.
 *  3. A branch target lies inside the text and strictly after the branch,
 *     so every program terminates.
 *  4. setx indexes the INTTAB, sets points inside the STRTAB.
 *  5. Variable loads name ids 0x100..0xffff; variable stores name user
 *     ids 0x500..0xffff (no stores to built-ins).  Array ids fit 8 bits
 *     by encoding.
 *  6. call names a subroutine this emulator implements (dif_subr.c; the
 *     illumos ones without a Linux equivalent are named in the message).
 *     copyout and copyoutstr are destructive: dif_destructive() reports
 *     them for the loader, and the emulator runs them only when the
 *     machine state allows destructive actions.
 *  7. pushtr pushes a CTF or string type, pushtv a CTF type.
 *  8. Any opcode outside the table above is invalid (user-memory loads,
 *     xlate, xlarg and stga included).
 *  9. The text is not empty and its last instruction is ret.
 * 10. A return type that is neither a string nor by-reference has size
 *     0, 1, 2, 4 or 8.
 * 11. VARTAB entries have a known scope and kind, an id up to 0xffff and a
 *     name inside the STRTAB; user by-reference variables have a size of
 *     1..16384 bytes (thread-locals: at least 1), user string variables
 *     at most 65536 (0: strsize).  That one id keeps one
 *     kind, size and by-reference-ness across all the objects of an
 *     enabling is checked where they are seen together, by
 *     dif_vstate_init() (dif_dvar.c).
 * 12. A user variable referenced by the text (id >= 0x500) is not beyond
 *     the largest id VARTAB declares for that scope.
 *
 * The error offset is the byte offset of the instruction in the text
 * (VARTAB rules: in the VARTAB; rule 10: none).
 */
int
dif_validate(const struct dif_object *difo, struct kdt_err *err)
{
	struct dif_vcheck vc;
	uint32_t last;
	int rc;

	memset(&vc, 0, sizeof (vc));
	vc.vc_difo = difo;
	vc.vc_err = err;
	if (difo->do_textlen == 0)
		return kdt_err_set(err, EINVAL, "DIF_RET", 0,
		    "DIF object has no instructions (need at least ret)");
	if ((rc = dif_vvartab(&vc)) != 0 || (rc = dif_vrtype(&vc)) != 0)
		return rc;
	for (vc.vc_pc = 0; vc.vc_pc < difo->do_textlen; vc.vc_pc++) {
		vc.vc_instr = difo->do_text[vc.vc_pc];
		if ((rc = dif_vinstr(&vc)) != 0)
			return rc;
	}
	last = difo->do_textlen - 1;
	if (DIF_INSTR_OP(difo->do_text[last]) != DIF_OP_RET)
		return kdt_err_set(err, EINVAL, "DIF_RET", (uint64_t)last * 4,
		    "DIF instruction %u (%s, 0x%08x): the last instruction must be ret",
		    last, dif_op_name(DIF_INSTR_OP(difo->do_text[last])),
		    difo->do_text[last]);
	return 0;
}
