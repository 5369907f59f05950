/*
 * dc_impl.h -- internals shared by the compiler's files (see dc.h for the
 * pipeline).  Nothing outside compiler/ includes this header.
 *
 * Memory: every token, node and table of one compilation is allocated from
 * the compilation's arena (dc_alloc) and released at once at the end, so a
 * diagnostic can abandon the compilation from anywhere with dc_error(),
 * which longjmp()s back to dc_compile().  That keeps the parser free of
 * error plumbing and guarantees nothing leaks on any input.
 */
#ifndef KDT_DC_IMPL_H
#define KDT_DC_IMPL_H

#include <setjmp.h>
#include "dc.h"
#include "dof.h"
#include "dif.h"

struct btf;

/* ---- tokens (dc_lex.c) ---- */
enum dc_tok {
	DT_EOF, DT_IDENT, DT_INT, DT_CHAR, DT_STRING, DT_PDESC, DT_PRAGMA,
	DT_LPAR, DT_RPAR, DT_LBRACE, DT_RBRACE, DT_LBRACK, DT_RBRACK,
	DT_COMMA, DT_SEMI, DT_COLON, DT_QUEST, DT_ARROW, DT_DOT,
	DT_PLUS, DT_MINUS, DT_STAR, DT_SLASH, DT_PERCENT, DT_SHL, DT_SHR,
	DT_LT, DT_LE, DT_GT, DT_GE, DT_EQ, DT_NE, DT_BAND, DT_XOR, DT_BOR,
	DT_LAND, DT_LOR, DT_LXOR, DT_NOT, DT_TILDE, DT_ASSIGN,
	DT_ADDEQ, DT_SUBEQ, DT_MULEQ, DT_DIVEQ, DT_MODEQ, DT_ANDEQ, DT_OREQ,
	DT_XOREQ, DT_SHLEQ, DT_SHREQ, DT_INC, DT_DEC,
	DT_AGG,		/* "@name" or "@": tk_text is the name ("" for @) */
	DT_MACRO,	/* "$1", "$$1", "$pid": tk_text without the '$' */
	DT_BQUOTE	/* "`" */
};

struct dc_token {
	enum dc_tok	tk_kind;
	int		tk_line;
	int		tk_col;
	const char	*tk_text;	/* identifier, string, pdesc, pragma */
	size_t		tk_len;		/* string bytes (may hold NUL) */
	uint64_t	tk_ival;	/* integer / char literal value */
	int		tk_unsigned;	/* literal suffix u, or hex too large */
	int		tk_long;	/* literal suffix l / ll */
};

/* ---- types (dc_type.c) ---- */
enum dc_tkind { DC_VOID, DC_INT, DC_PTR, DC_STRING, DC_ARRAY, DC_STRUCT };

/*
 * A D type.  Pointers to kernel structs keep the pointee's BTF id
 * (ty_btf); pointers to D integers keep the pointee size and sign in
 * ty_elsize / ty_elsigned so that "*p", "p[i]" and "p + 1" scale and load
 * correctly.
 */
struct dc_sou;

struct dc_type {
	enum dc_tkind	ty_kind;
	int		ty_signed;
	uint32_t	ty_size;	/* bytes */
	uint32_t	ty_btf;		/* PTR: pointee id; ARRAY/STRUCT: id */
	uint32_t	ty_elsize;	/* ARRAY: element size; PTR to int */
	int		ty_elsigned;	/* PTR/ARRAY of int: element sign */
	uint32_t	ty_nelems;	/* ARRAY: element count (D arrays) */
	const char	*ty_name;	/* for messages */
	struct dc_sou	*ty_sou;	/* STRUCT, or PTR to it: D-defined */
	uint32_t	ty_bits;	/* bitfield member: width, else 0 */
	int		ty_float;	/* INT holding float/double bytes */
	struct dc_sou	*ty_elsou;	/* ARRAY of D structs: element */
	const char	*ty_elname;	/* ARRAY: element type's name */
	const struct dc_enum *ty_enum;	/* INT of a D enum: its enumerators */
};

/* "enum name { A, B = 5 }" defined in D: for print() by name (dc_act.c). */
struct dc_enum {
	const char	*en_name;	/* "enum name" (or "enum") */
	int		en_n;
	const char	**en_names;
	int32_t		*en_vals;
	struct dc_enum	*en_next;
};

/* A struct or union defined in D (dc_decl.c), laid out by C rules. */
struct dc_member {
	const char	*me_name;
	struct dc_type	me_type;
	uint32_t	me_off;		/* bitfield: its storage unit's */
	uint32_t	me_bitoff;	/* bitfield: first bit in the unit */
};

struct dc_sou {
	const char	*so_name;
	int		so_union;
	int		so_defined;	/* members known */
	uint32_t	so_size;
	uint32_t	so_align;
	struct dc_member *so_mems;
	int		so_nmems;
	struct dc_sou	*so_next;
};

/* translator <out> < <in> param > { member = expr; ... } */
struct dc_xlator {
	struct dc_type	xl_out;		/* the output struct (not pointer) */
	struct dc_type	xl_in;
	const char	*xl_param;
	const char	**xl_names;
	struct dc_node	**xl_exprs;
	int		xl_n;
	struct dc_xlator *xl_next;
};

/* ---- user variables and aggregations (dc_var.c) ---- */
enum dc_scope { DS_BUILTIN, DS_GLOBAL, DS_THREAD, DS_LOCAL };

#define DC_MAXKEYS	8	/* tuple entries: DIF_DTR_NREGS */

struct dc_var {
	const char	*va_name;
	enum dc_scope	va_scope;
	uint32_t	va_id;		/* DIF variable id */
	int		va_array;	/* associative array */
	int		va_typed;	/* type known (declared or assigned) */
	struct dc_type	va_type;
	int		va_nkeys;	/* arrays: key signature */
	struct dc_type	va_keys[DC_MAXKEYS];
	struct dc_var	*va_next;
};

struct dc_agg {
	const char	*ag_name;	/* "" for the anonymous @ */
	uint32_t	ag_id;		/* 1-based aggregation variable id */
	uint32_t	ag_func;	/* DTRACEAGG_*, 0 until first use */
	uint64_t	ag_arg;		/* encoded parameters */
	int		ag_nkeys;
	struct dc_type	ag_keys[DC_MAXKEYS];
	uint8_t		ag_keycls[DC_MAXKEYS];	/* dc_agg_key_class() */
	int		ag_line;	/* first use */
	struct dc_agg	*ag_next;
};

/* An inline (constant or expression macro) or typedef name. */
struct dc_inline {
	const char	*in_name;
	struct dc_node	*in_expr;	/* NULL for a typedef */
	struct dc_type	in_type;
	struct dc_inline *in_next;
	/*
	 * "inline int f[int x, string s] = expr;": in_nparams > 0, in_expr
	 * stays untyped and each use f[a, b] types a copy of it with the
	 * parameters replaced by the (cast) arguments (dc_type.c).
	 */
	int		in_nparams;
	const char	**in_pnames;
	struct dc_type	*in_ptypes;
};

/* ---- expression trees (dc_parse.c) ---- */
enum dc_nkind {
	DN_INT, DN_STR, DN_VAR, DN_UNARY, DN_BINARY, DN_COND, DN_CAST,
	DN_MEMBER, DN_STRINGOF, DN_CALL,
	DN_ASSIGN,	/* n_a = n_b; n_op: DT_ASSIGN or the compound op */
	DN_INCDEC,	/* n_op DT_INC/DT_DEC on n_a; n_ival 1: postfix */
	DN_INDEX,	/* n_a[n_args]: assoc array, args[], pointer */
	DN_DEREF,	/* *n_a */
	DN_ADDR,	/* &n_a */
	DN_AGG,		/* @name as an argument (printa, clear, ...) */
	DN_XLATE,	/* xlate <n_type> (n_a) */
	DN_XLSOU	/* a whole translated struct (dc_decl.c): typed
			   statements n_args, then n_a, its address */
};

struct dc_node {
	enum dc_nkind	n_kind;
	int		n_line;
	int		n_col;
	enum dc_tok	n_op;		/* UNARY/BINARY operator */
	uint64_t	n_ival;		/* INT value; VAR: variable id;
				   MEMBER: 1 = a bitfield's whole unit */
	const char	*n_str;		/* STR bytes; VAR/MEMBER/CALL name */
	size_t		n_len;		/* STR length */
	struct dc_node	*n_a;		/* operands */
	struct dc_node	*n_b;
	struct dc_node	*n_c;
	struct dc_node	**n_args;	/* CALL arguments */
	int		n_nargs;
	struct dc_type	n_type;		/* set by dc_type_expr */
	uint32_t	n_moff;		/* MEMBER: byte offset */
	int		n_depth;	/* tree height, <= DC_MAXDEPTH */
	enum dc_scope	n_scope;	/* VAR/INDEX: where the variable is */
	struct dc_var	*n_var;		/* VAR/INDEX of a user variable */
	int		n_dot;		/* MEMBER: "." rather than "->" */
};

/* Bounds on nesting, so no input can exhaust the C stack. */
#define DC_MAXDEPTH	1024	/* expression tree height */
#define DC_MAXNEST	256	/* parser recursion */
#define DC_MAXINLINE	64	/* nested uses of inlines with parameters */

/* ---- DIF objects under construction (dc_cg.c) ---- */
#define DC_MAXTEXT	4096
#define DC_MAXINTS	1024

/*
 * The tables of an object grow on demand (doubling, in the arena; the
 * DC_MAX* are limits, not sizes): a clause makes several objects, so
 * allocating the limits up front cost ~130 KiB of memory per clause.
 */
struct dc_difo {
	uint32_t	*df_text;
	uint32_t	df_len;
	uint32_t	df_textcap;	/* entries allocated in df_text */
	uint64_t	*df_ints;
	uint32_t	df_nints;
	uint32_t	df_intscap;
	char		*df_strs;
	uint32_t	df_strlen;
	struct dif_type	df_rtype;
	uint32_t	df_regs;	/* bitmask of registers in use */
	struct dif_var	*df_vars;	/* VARTAB, names in df_strs */
	uint32_t	df_nvars;
	uint32_t	df_varscap;
};

#define DC_MAXVARS	256	/* VARTAB entries per object */

/* One recording statement of a clause: an action of the ECB. */
struct dc_action {
	uint32_t	ac_kind;	/* DTRACEACT_* */
	const char	*ac_fmt;	/* printf-like: format */
	struct dc_difo	*ac_difo;	/* NULL: none (count, stack, ...) */
	uint32_t	ac_ntuple;	/* aggregations: key actions before */
	uint64_t	ac_arg;		/* kind argument when no format */
	uint32_t	ac_stmt;	/* statement number, 1.. per program:
					   the ACTDESC library argument, so a
					   consumer groups one statement's
					   actions (printa(@a, @b)) */
};

struct dc_pdesc {
	const char	*pd_prov;
	const char	*pd_mod;
	const char	*pd_func;
	const char	*pd_name;
	int		pd_line;
	int		pd_col;
};

struct dc_clause {
	struct dc_pdesc	*cl_pdescs;
	int		cl_npdescs;
	struct dc_difo	*cl_pred;	/* NULL: none */
	struct dc_action *cl_acts;
	int		cl_nacts;
	int		cl_state;	/* DC_CS_*: ordering rules (dc_act.c) */
	struct dc_clause *cl_next;
};

/* ---- one compilation ---- */
struct dc_chunk;

/* "#pragma D attributes" of a name not defined yet (dc_parse.c). */
struct dc_pragat {
	const char	*pa_name;
	int		pa_line;
	struct dc_pragat *pa_next;
};

struct dc_ctx {
	uint32_t	cx_stmt;	/* statements compiled so far */
	struct dc_pragat *cx_pragats;	/* attributes pragmas to check */
	int		cx_inldepth;	/* inlines with parameters being typed */
	const struct dc_node *cx_asgvar; /* this->/self-> variable being
					   assigned: its own RHS may read it */
	uint32_t	cx_inluses;	/* uses of them expanded so far */
	struct dc_enum	*cx_enums;	/* named enums defined in D */
	const char	*cx_name;		/* what diagnostics name */
	const char	*cx_srcname;	/* the source's name */
	const char	*cx_src;
	size_t		cx_len;
	size_t		cx_pos;		/* lexer cursor */
	int		cx_line;
	int		cx_col;
	struct dc_token	cx_tok;		/* current token */
	int		cx_bol;		/* at beginning of a line */
	int		cx_lxstate;	/* lexer state, see dc_lex.c */
	int		cx_lxdepth;	/* brace depth inside a clause */
	int		cx_inpred;	/* parsing a predicate */
	int		cx_paren;	/* parenthesis depth in the predicate */
	int		cx_nest;	/* parser recursion depth */
	const struct dc_opts *cx_opts;
	struct dc_out	*cx_out;
	jmp_buf		cx_jmp;
	struct dc_chunk	*cx_arena;
	struct btf	*cx_btf;
	struct btf	*cx_btf_base;	/* cx_btf is modules' BTF merged
					   on this vmlinux BTF (dc_btf.c) */
	struct dc_btf_mods *cx_btfmods;	/* modules' BTF files (dc_btf.c) */
	const char	*cx_btfscope;	/* struct MOD`name being looked up */
	struct dc_clause *cx_clauses;
	struct dc_clause **cx_tail;
	uint64_t	cx_optv[DTRACEOPT_MAX];
	struct dc_var	*cx_vars;	/* user variables, all scopes */
	uint32_t	cx_nextid[4];	/* next id per dc_scope */
	struct dc_agg	*cx_aggs;
	uint32_t	cx_naggs;
	struct dc_inline *cx_inlines;
	struct dc_sou	*cx_sous;	/* D-defined structs and unions */
	struct dc_xlator *cx_xlators;
	int		cx_sounest;	/* struct definitions being parsed */
	int		cx_intypedef;	/* parsing a typedef's type */
	uint32_t	cx_nxlsou;	/* whole translations so far */
	struct dc_clause *cx_clause;	/* clause being parsed, or NULL */
	int		cx_destructive;	/* -w / option destructive */
	int		cx_zdefs;	/* -Z: allow probes matching nothing */
	int		cx_declstate;	/* lexer: inside a declaration */
	int		cx_defaultargs;	/* option defaultargs */
	int		cx_errtags;	/* option errtags */
	int		cx_droptags;	/* option droptags */
	int		cx_encoding;	/* option encoding: DC_ENC_* */
	int		cx_noerror;	/* option noerror */
	int		cx_engine;	/* option engine: 0 auto, 1 user, 2 kern */
	int		cx_region;	/* option region: buffers in the
					   reserved region (kio.h) */
	uint64_t	cx_regsize;
	uint64_t	cx_regaddr;
	int		cx_regset;	/* DC_REGSET_* */
	struct dc_difo	*cx_difo;	/* object being generated */
	const char	*cx_undef_tag;	/* tag for an undefined struct where
					   dtrace would see an incomplete
					   type (offsetof, translator output) */
};

/* dc_compile.c */
void *dc_alloc(struct dc_ctx *cx, size_t size);
char *dc_strndup(struct dc_ctx *cx, const char *s, size_t len);
void dc_error(struct dc_ctx *cx, int line, int col, const char *tag,
    const char *fmt, ...) __attribute__((format(printf, 5, 6), noreturn));

/* dc_lex.c */
void dc_lex_init(struct dc_ctx *cx);
void dc_next(struct dc_ctx *cx);
const char *dc_tok_name(enum dc_tok t);

/* dc_parse.c */
void dc_parse_program(struct dc_ctx *cx);
void dc_parse_type(struct dc_ctx *cx, struct dc_type *ty);
struct dc_node *dc_parse_expr(struct dc_ctx *cx);
void dc_parse_expect(struct dc_ctx *cx, enum dc_tok k);
void dc_parse_syntax(struct dc_ctx *cx) __attribute__((noreturn));

/* dc_decl.c */
void dc_decl_sou(struct dc_ctx *cx, const char *kw, const char *name,
    struct dc_type *ty, int line, int col);
void dc_decl_translator(struct dc_ctx *cx);
int dc_decl_member(struct dc_ctx *cx, struct dc_node *n);
void dc_decl_xlate(struct dc_ctx *cx, struct dc_node *n);
struct dc_node *dc_decl_xlate_of(struct dc_ctx *cx, const struct dc_node *n);
void dc_decl_xlate_sou(struct dc_ctx *cx, struct dc_node *n,
    struct dc_node *x);

/* dc_lib.c */
void dc_lib_load(struct dc_ctx *cx);
uint32_t dc_decl_offsetof(struct dc_ctx *cx, const struct dc_type *ty,
    const char *member, int line, int col);
uint32_t dc_type_align(const struct dc_type *ty);
int dc_parse_is_type(struct dc_ctx *cx, const struct dc_token *t);
void dc_add_action(struct dc_ctx *cx, struct dc_clause *cl, uint32_t kind,
    const char *fmt, struct dc_difo *df);

/* dc_opt.c */
void dc_opt_set(struct dc_ctx *cx, const char *opt, int line, int col);

/* dc_type.c */
void dc_type_expr(struct dc_ctx *cx, struct dc_node *n);
int dc_builtin_var(const char *name, struct dc_type *ty);
const char *dc_builtin_name(uint32_t id);
void dc_type_int(struct dc_type *ty, uint32_t size, int sgn);
void dc_type_string(struct dc_type *ty);
void dc_type_ptr_to(struct dc_type *ty, const struct dc_type *el);
void dc_type_assign(struct dc_ctx *cx, struct dc_node *n);
int dc_type_compat(const struct dc_type *a, const struct dc_type *b);
int dc_type_is_scalar(const struct dc_type *ty);

/* dc_var.c */
struct dc_var *dc_var_lookup(struct dc_ctx *cx, const char *name,
    enum dc_scope scope);
struct dc_var *dc_var_get(struct dc_ctx *cx, const char *name,
    enum dc_scope scope, int line, int col);
struct dc_agg *dc_agg_get(struct dc_ctx *cx, const char *name);
struct dc_inline *dc_inline_lookup(struct dc_ctx *cx, const char *name);
void dc_var_use(struct dc_ctx *cx, uint32_t id, enum dc_scope scope,
    int array, const struct dc_type *ty, const char *name, int mod);
void dc_type_dif(struct dc_ctx *cx, const struct dc_type *ty,
    struct dif_type *dt);
uint32_t dc_strsize(const struct dc_ctx *cx);
const char *dc_macro(struct dc_ctx *cx, const char *name, int *isstr,
    int line, int col);

/* dc_subr.c */
void dc_subr_type(struct dc_ctx *cx, struct dc_node *call);
const char *dc_subr_name(uint32_t id);

/* dc_act.c */
void dc_act_statement(struct dc_ctx *cx, struct dc_clause *cl,
    struct dc_node *e);
int dc_act_is_action(const char *name);
void dc_act_in_expr(struct dc_ctx *cx, struct dc_node *n);
int dc_subr_known(const char *name);
int dc_subr_destructive(const char *name);
int dc_const(const struct dc_node *n, int64_t *v);

/* dc_ptype.c: print()'s type layout (common/dof_ptype.h) */
const char *dc_ptype_layout(struct dc_ctx *cx, const struct dc_type *ty,
    int line, int col, uint32_t *recsize);
/* dc_btf.c */
void dc_btf_load(struct dc_ctx *cx, int line, int col);
void dc_btf_free(struct dc_ctx *cx);
void dc_btf_member(struct dc_ctx *cx, struct dc_node *n);
uint32_t dc_btf_struct_id(struct dc_ctx *cx, const char *name);
/* args[i] typed from BTF: fbt, sdt and syscall probes (see dc_btf.c) */
int dc_btf_fbt_arg(struct dc_ctx *cx, const struct dc_node *n, uint64_t i,
    struct dc_type *ty);
void dc_btf_sou(struct dc_ctx *cx, const char *name, int isunion,
    struct dc_type *ty, int line, int col);
uint32_t dc_btf_offsetof(struct dc_ctx *cx, const struct dc_type *ty,
    const char *member, int line, int col);

/* dc_printf.c */
void dc_printf_check(struct dc_ctx *cx, struct dc_node *call);
void dc_printa_check(struct dc_ctx *cx, const struct dc_node *f,
    const struct dc_type *keys, int nkeys);

/* dc_cg.c */
struct dc_difo *dc_cg_object(struct dc_ctx *cx, struct dc_node *e,
    int rsize_override);
struct dc_difo *dc_cg_const(struct dc_ctx *cx, uint64_t v);
void	*dc_cg_grow(struct dc_ctx *cx, void *tab, uint32_t n, uint32_t *cap,
	    size_t esize);	/* room for entry n of a growing table */
uint32_t dc_cg_str(struct dc_ctx *cx, const char *s, size_t len, int line,
    int col);

/* dc_dof.c */
int dc_dof_write(struct dc_ctx *cx, uint8_t **dof, size_t *dofsz);

/* dc_dis.c */
void dc_dis_program(FILE *fp, const struct dc_ctx *cx);
void dc_dis_difo(FILE *fp, const struct dc_difo *df);

#endif /* KDT_DC_IMPL_H */
