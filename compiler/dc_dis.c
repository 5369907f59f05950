/*
 * dc_dis.c -- DIF disassembler for `kdt -S`.
 *
 * Prints every clause of a compilation: its probe descriptions, then each
 * DIF object (predicate, actions) as one line per instruction -- index,
 * the raw word, mnemonic and operands, and after "!" what a table index or
 * variable id refers to -- followed by the object's INTTAB, STRTAB and
 * return type.  It reads the compiler's own objects (struct dc_difo), the
 * very words the DOF writer emits.  Called by dc_compile.c when the
 * options carry an output stream.
 */
#include <ctype.h>
#include <string.h>
#include "dc_impl.h"

enum dis_fmt {
	DF_R3, DF_R1D, DF_R12, DF_R1, DF_BR, DF_LD, DF_RET, DF_NONE,
	DF_SETX, DF_SETS, DF_LDV, DF_STV, DF_LDA, DF_CALL, DF_PUSH, DF_ST
};

struct dis_op {
	const char	*do_name;
	enum dis_fmt	do_fmt;
};

static const struct dis_op dis_ops[] = {
	[DIF_OP_OR] = { "or", DF_R3 }, [DIF_OP_XOR] = { "xor", DF_R3 },
	[DIF_OP_AND] = { "and", DF_R3 }, [DIF_OP_SLL] = { "sll", DF_R3 },
	[DIF_OP_SRL] = { "srl", DF_R3 }, [DIF_OP_SUB] = { "sub", DF_R3 },
	[DIF_OP_ADD] = { "add", DF_R3 }, [DIF_OP_MUL] = { "mul", DF_R3 },
	[DIF_OP_SDIV] = { "sdiv", DF_R3 }, [DIF_OP_UDIV] = { "udiv", DF_R3 },
	[DIF_OP_SREM] = { "srem", DF_R3 }, [DIF_OP_UREM] = { "urem", DF_R3 },
	[DIF_OP_NOT] = { "not", DF_R1D }, [DIF_OP_MOV] = { "mov", DF_R1D },
	[DIF_OP_CMP] = { "cmp", DF_R12 }, [DIF_OP_TST] = { "tst", DF_R1 },
	[DIF_OP_BA] = { "ba", DF_BR }, [DIF_OP_BE] = { "be", DF_BR },
	[DIF_OP_BNE] = { "bne", DF_BR }, [DIF_OP_BG] = { "bg", DF_BR },
	[DIF_OP_BGU] = { "bgu", DF_BR }, [DIF_OP_BGE] = { "bge", DF_BR },
	[DIF_OP_BGEU] = { "bgeu", DF_BR }, [DIF_OP_BL] = { "bl", DF_BR },
	[DIF_OP_BLU] = { "blu", DF_BR }, [DIF_OP_BLE] = { "ble", DF_BR },
	[DIF_OP_BLEU] = { "bleu", DF_BR }, [DIF_OP_LDSB] = { "ldsb", DF_LD },
	[DIF_OP_LDSH] = { "ldsh", DF_LD }, [DIF_OP_LDSW] = { "ldsw", DF_LD },
	[DIF_OP_LDUB] = { "ldub", DF_LD }, [DIF_OP_LDUH] = { "lduh", DF_LD },
	[DIF_OP_LDUW] = { "lduw", DF_LD }, [DIF_OP_LDX] = { "ldx", DF_LD },
	[DIF_OP_RET] = { "ret", DF_RET }, [DIF_OP_NOP] = { "nop", DF_NONE },
	[DIF_OP_SETX] = { "setx", DF_SETX }, [DIF_OP_SETS] = { "sets", DF_SETS },
	[DIF_OP_SCMP] = { "scmp", DF_R12 }, [DIF_OP_LDGA] = { "ldga", DF_LDA },
	[DIF_OP_LDGS] = { "ldgs", DF_LDV }, [DIF_OP_STGS] = { "stgs", DF_STV },
	[DIF_OP_LDTA] = { "ldta", DF_LDA }, [DIF_OP_LDTS] = { "ldts", DF_LDV },
	[DIF_OP_STTS] = { "stts", DF_STV }, [DIF_OP_SRA] = { "sra", DF_R3 },
	[DIF_OP_CALL] = { "call", DF_CALL },
	[DIF_OP_PUSHTR] = { "pushtr", DF_PUSH },
	[DIF_OP_PUSHTV] = { "pushtv", DF_PUSH },
	[DIF_OP_POPTS] = { "popts", DF_NONE },
	[DIF_OP_FLUSHTS] = { "flushts", DF_NONE },
	[DIF_OP_LDGAA] = { "ldgaa", DF_LDV }, [DIF_OP_LDTAA] = { "ldtaa", DF_LDV },
	[DIF_OP_STGAA] = { "stgaa", DF_STV }, [DIF_OP_STTAA] = { "sttaa", DF_STV },
	[DIF_OP_LDLS] = { "ldls", DF_LDV }, [DIF_OP_STLS] = { "stls", DF_STV },
	[DIF_OP_ALLOCS] = { "allocs", DF_R1D },
	[DIF_OP_COPYS] = { "copys", DF_R3 },
	[DIF_OP_STB] = { "stb", DF_ST }, [DIF_OP_STH] = { "sth", DF_ST },
	[DIF_OP_STW] = { "stw", DF_ST }, [DIF_OP_STX] = { "stx", DF_ST },
	[DIF_OP_ULDSB] = { "uldsb", DF_LD }, [DIF_OP_ULDSH] = { "uldsh", DF_LD },
	[DIF_OP_ULDSW] = { "uldsw", DF_LD }, [DIF_OP_ULDUB] = { "uldub", DF_LD },
	[DIF_OP_ULDUH] = { "ulduh", DF_LD }, [DIF_OP_ULDUW] = { "ulduw", DF_LD },
	[DIF_OP_ULDX] = { "uldx", DF_LD }, [DIF_OP_RLDSB] = { "rldsb", DF_LD },
	[DIF_OP_RLDSH] = { "rldsh", DF_LD }, [DIF_OP_RLDSW] = { "rldsw", DF_LD },
	[DIF_OP_RLDUB] = { "rldub", DF_LD }, [DIF_OP_RLDUH] = { "rlduh", DF_LD },
	[DIF_OP_RLDUW] = { "rlduw", DF_LD }, [DIF_OP_RLDX] = { "rldx", DF_LD },
};

/* Quote a STRTAB string for a comment, escaping what is not printable. */
static void
dis_quote(FILE *fp, const char *s, size_t max)
{
	size_t i;

	fputc('"', fp);
	for (i = 0; i < max && s[i] != '\0'; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '\n')
			fputs("\\n", fp);
		else if (c == '"' || c == '\\')
			fprintf(fp, "\\%c", c);
		else if (isprint(c))
			fputc(c, fp);
		else
			fprintf(fp, "\\%03o", c);
	}
	fputc('"', fp);
}

static void
dis_table_ref(FILE *fp, const struct dc_difo *df, uint32_t w, int isstr)
{
	uint32_t idx = DIF_INSTR_INTEGER(w);

	fprintf(fp, "%s[%u], %%r%u", isstr ? "DT_STRING" : "DT_INTEGER", idx,
	    DIF_INSTR_RD(w));
	if (!isstr && idx < df->df_nints) {
		fprintf(fp, "\t! 0x%llx", (unsigned long long)df->df_ints[idx]);
	} else if (isstr && idx < df->df_strlen) {
		fputs("\t! ", fp);
		dis_quote(fp, df->df_strs + idx, df->df_strlen - idx);
	}
}

/* The VARTAB name of variable "id" used by "op", else a built-in name. */
static void
dis_var(FILE *fp, const struct dc_difo *df, uint32_t op, uint32_t id)
{
	const char *name = NULL;
	uint8_t sc = DIFV_SCOPE_GLOBAL;
	uint32_t i;

	if (op == DIF_OP_LDTS || op == DIF_OP_STTS || op == DIF_OP_LDTAA ||
	    op == DIF_OP_STTAA)
		sc = DIFV_SCOPE_THREAD;
	else if (op == DIF_OP_LDLS || op == DIF_OP_STLS)
		sc = DIFV_SCOPE_LOCAL;
	for (i = 0; i < df->df_nvars; i++)
		if (df->df_vars[i].dtdv_id == id &&
		    df->df_vars[i].dtdv_scope == sc &&
		    df->df_vars[i].dtdv_name < df->df_strlen)
			name = df->df_strs + df->df_vars[i].dtdv_name;
	if (name == NULL)
		name = dc_builtin_name(id);
	if (name != NULL)
		fprintf(fp, "\t! %s%s", sc == DIFV_SCOPE_THREAD ? "self->" :
		    sc == DIFV_SCOPE_LOCAL ? "this->" : "", name);
}

static void
dis_operands(FILE *fp, const struct dc_difo *df, enum dis_fmt f, uint32_t w)
{
	uint32_t r1 = DIF_INSTR_R1(w), r2 = DIF_INSTR_R2(w);
	uint32_t rd = DIF_INSTR_RD(w);

	switch (f) {
	case DF_R3: fprintf(fp, "%%r%u, %%r%u, %%r%u", r1, r2, rd); break;
	case DF_R1D: fprintf(fp, "%%r%u, %%r%u", r1, rd); break;
	case DF_R12: fprintf(fp, "%%r%u, %%r%u", r1, r2); break;
	case DF_R1: fprintf(fp, "%%r%u", r1); break;
	case DF_BR: fprintf(fp, "%u", DIF_INSTR_LABEL(w)); break;
	case DF_LD: fprintf(fp, "[%%r%u], %%r%u", r1, rd); break;
	case DF_RET: fprintf(fp, "%%r%u", rd); break;
	case DF_NONE: break;
	case DF_SETX: dis_table_ref(fp, df, w, 0); break;
	case DF_SETS: dis_table_ref(fp, df, w, 1); break;
	case DF_LDV:
		fprintf(fp, "DT_VAR(%u), %%r%u", DIF_INSTR_VAR(w), rd);
		dis_var(fp, df, DIF_INSTR_OP(w), DIF_INSTR_VAR(w));
		break;
	case DF_STV:
		fprintf(fp, "%%r%u, DT_VAR(%u)", rd, DIF_INSTR_VAR(w));
		dis_var(fp, df, DIF_INSTR_OP(w), DIF_INSTR_VAR(w));
		break;
	case DF_LDA:
		fprintf(fp, "DT_VAR(%u), %%r%u, %%r%u", r1, r2, rd);
		dis_var(fp, df, DIF_INSTR_OP(w), r1);
		break;
	case DF_CALL:
		fprintf(fp, "DIF_SUBR(%u), %%r%u", DIF_INSTR_SUBR(w), rd);
		if (dc_subr_name(DIF_INSTR_SUBR(w)) != NULL)
			fprintf(fp, "\t! %s", dc_subr_name(DIF_INSTR_SUBR(w)));
		break;
	case DF_PUSH:
		fprintf(fp, "DT_TYPE(%u), %%r%u, %%r%u", r1, r2, rd);
		break;
	case DF_ST: fprintf(fp, "%%r%u, [%%r%u]", r1, rd); break;
	}
}

static void
dis_rtype(FILE *fp, const struct dif_type *t)
{
	if (t->dtdt_kind == DIF_TYPE_STRING)
		fprintf(fp, "return type: string (by reference, size %s)\n",
		    t->dtdt_size ? "given" : "strsize");
	else if (t->dtdt_size == 0)
		fputs("return type: void\n", fp);
	else
		fprintf(fp, "return type: %s, %u bytes\n",
		    t->dtdt_ckind == DIF_CTF_POINTER ? "pointer" :
		    t->dtdt_ckind == DIF_CTF_STRUCT ? "struct" :
		    t->dtdt_ckind == DIF_CTF_ARRAY ? "array" : "integer",
		    t->dtdt_size);
}

static void
dis_vartab(FILE *fp, const struct dc_difo *df, const struct dif_var *v)
{
	static const char *const scope[3] = { "global", "thread", "local" };

	fprintf(fp, "    VARTAB %s %s 0x%x %s%s%s; ", scope[v->dtdv_scope % 3],
	    v->dtdv_kind == DIFV_KIND_ARRAY ? "array" : "scalar", v->dtdv_id,
	    v->dtdv_name < df->df_strlen ? df->df_strs + v->dtdv_name : "?",
	    v->dtdv_flags & DIFV_F_REF ? " ref" : "",
	    v->dtdv_flags & DIFV_F_MOD ? " mod" : "");
	dis_rtype(fp, &v->dtdv_type);
}

void
dc_dis_difo(FILE *fp, const struct dc_difo *df)
{
	uint32_t i, off;

	for (i = 0; i < df->df_len; i++) {
		uint32_t w = df->df_text[i], op = DIF_INSTR_OP(w);
		const struct dis_op *d = op < sizeof (dis_ops) /
		    sizeof (dis_ops[0]) ? &dis_ops[op] : NULL;

		fprintf(fp, "    %02u: %08x    ", i, w);
		if (d == NULL || d->do_name == NULL) {
			fprintf(fp, "op%u\n", op);
			continue;
		}
		fprintf(fp, "%-8s", d->do_name);
		dis_operands(fp, df, d->do_fmt, w);
		fputc('\n', fp);
	}
	for (i = 0; i < df->df_nints; i++)
		fprintf(fp, "    INTTAB[%u] = 0x%llx\n", i,
		    (unsigned long long)df->df_ints[i]);
	for (off = 0; off < df->df_strlen;
	    off += (uint32_t)strlen(df->df_strs + off) + 1) {
		fprintf(fp, "    STRTAB[%u] = ", off);
		dis_quote(fp, df->df_strs + off, df->df_strlen - off);
		fputc('\n', fp);
	}
	for (i = 0; i < df->df_nvars; i++)
		dis_vartab(fp, df, &df->df_vars[i]);
	fputs("    ", fp);
	dis_rtype(fp, &df->df_rtype);
}

struct dis_kind {
	uint32_t	dk_kind;
	const char	*dk_name;
};

static const struct dis_kind dis_kinds[] = {
	{ DTRACEACT_DIFEXPR, "DIFEXPR" }, { DTRACEACT_EXIT, "EXIT" },
	{ DTRACEACT_PRINTF, "PRINTF" }, { DTRACEACT_PRINTA, "PRINTA" },
	{ DTRACEACT_LIBACT, "LIBACT" }, { DTRACEACT_TRACEMEM, "TRACEMEM" },
	{ DTRACEACT_TRACEMEM_DYNSIZE, "TRACEMEM_DYNSIZE" },
	{ DTRACEACT_USTACK, "USTACK" }, { DTRACEACT_JSTACK, "JSTACK" },
	{ DTRACEACT_USYM, "USYM" }, { DTRACEACT_UMOD, "UMOD" },
	{ DTRACEACT_UADDR, "UADDR" }, { DTRACEACT_STOP, "STOP" },
	{ DTRACEACT_RAISE, "RAISE" }, { DTRACEACT_SYSTEM, "SYSTEM" },
	{ DTRACEACT_FREOPEN, "FREOPEN" }, { DTRACEACT_STACK, "STACK" },
	{ DTRACEACT_SYM, "SYM" }, { DTRACEACT_MOD, "MOD" },
	{ DTRACEACT_BREAKPOINT, "BREAKPOINT" }, { DTRACEACT_PANIC, "PANIC" },
	{ DTRACEACT_CHILL, "CHILL" }, { DTRACEACT_SPECULATE, "SPECULATE" },
	{ DTRACEACT_COMMIT, "COMMIT" }, { DTRACEACT_DISCARD, "DISCARD" },
	{ DTRACEAGG_COUNT, "COUNT" }, { DTRACEAGG_MIN, "MIN" },
	{ DTRACEAGG_MAX, "MAX" }, { DTRACEAGG_AVG, "AVG" },
	{ DTRACEAGG_SUM, "SUM" }, { DTRACEAGG_STDDEV, "STDDEV" },
	{ DTRACEAGG_QUANTIZE, "QUANTIZE" },
	{ DTRACEAGG_LQUANTIZE, "LQUANTIZE" },
	{ DTRACEAGG_LLQUANTIZE, "LLQUANTIZE" },
};

static const char *
dis_kind(uint32_t kind)
{
	size_t i;

	for (i = 0; i < sizeof (dis_kinds) / sizeof (dis_kinds[0]); i++)
		if (dis_kinds[i].dk_kind == kind)
			return dis_kinds[i].dk_name;
	return "action";
}

static void
dis_action(FILE *fp, int i, const struct dc_action *a)
{
	fprintf(fp, "  action %d: %s", i + 1, dis_kind(a->ac_kind));
	if (a->ac_fmt != NULL) {
		fputs(" format ", fp);
		dis_quote(fp, a->ac_fmt, strlen(a->ac_fmt));
	} else if (a->ac_arg != 0) {
		fprintf(fp, " arg 0x%llx", (unsigned long long)a->ac_arg);
	}
	if (a->ac_ntuple != 0)
		fprintf(fp, " ntuple %u", a->ac_ntuple);
	fputc('\n', fp);
	if (a->ac_difo != NULL)
		dc_dis_difo(fp, a->ac_difo);
}

void
dc_dis_program(FILE *fp, const struct dc_ctx *cx)
{
	const struct dc_clause *cl;
	int n = 0, i;

	for (cl = cx->cx_clauses; cl != NULL; cl = cl->cl_next) {
		fprintf(fp, "clause %d:", ++n);
		for (i = 0; i < cl->cl_npdescs; i++) {
			const struct dc_pdesc *p = &cl->cl_pdescs[i];

			fprintf(fp, "%s %s:%s:%s:%s", i ? "," : "", p->pd_prov,
			    p->pd_mod, p->pd_func, p->pd_name);
		}
		fputc('\n', fp);
		if (cl->cl_pred != NULL) {
			fputs("  predicate:\n", fp);
			dc_dis_difo(fp, cl->cl_pred);
		}
		for (i = 0; i < cl->cl_nacts; i++)
			dis_action(fp, i, &cl->cl_acts[i]);
		if (cl->cl_nacts == 0)
			fputs("  no actions\n", fp);
	}
}
