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
	DT_LAND, DT_LOR, DT_LXOR, DT_NOT, DT_TILDE, DT_ASSIGN
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

struct dc_type {
	enum dc_tkind	ty_kind;
	int		ty_signed;
	uint32_t	ty_size;	/* bytes */
	uint32_t	ty_btf;		/* PTR: pointee id; ARRAY/STRUCT: id */
	uint32_t	ty_elsize;	/* ARRAY: element size; PTR to int */
	const char	*ty_name;	/* for messages */
};

/* ---- expression trees (dc_parse.c) ---- */
enum dc_nkind {
	DN_INT, DN_STR, DN_VAR, DN_UNARY, DN_BINARY, DN_COND, DN_CAST,
	DN_MEMBER, DN_STRINGOF, DN_CALL
};

struct dc_node {
	enum dc_nkind	n_kind;
	int		n_line;
	int		n_col;
	enum dc_tok	n_op;		/* UNARY/BINARY operator */
	uint64_t	n_ival;		/* INT value; VAR: variable id */
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
};

/* Bounds on nesting, so no input can exhaust the C stack. */
#define DC_MAXDEPTH	1024	/* expression tree height */
#define DC_MAXNEST	256	/* parser recursion */

/* ---- DIF objects under construction (dc_cg.c) ---- */
#define DC_MAXTEXT	4096
#define DC_MAXINTS	1024

struct dc_difo {
	uint32_t	*df_text;
	uint32_t	df_len;
	uint64_t	*df_ints;
	uint32_t	df_nints;
	char		*df_strs;
	uint32_t	df_strlen;
	struct dif_type	df_rtype;
	uint32_t	df_regs;	/* bitmask of registers in use */
};

/* One recording statement of a clause: an action of the ECB. */
struct dc_action {
	uint32_t	ac_kind;	/* DTRACEACT_* */
	const char	*ac_fmt;	/* PRINTF: format (on every action) */
	struct dc_difo	*ac_difo;
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
	struct dc_clause *cl_next;
};

/* ---- one compilation ---- */
struct dc_chunk;

struct dc_ctx {
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
	struct dc_clause *cx_clauses;
	struct dc_clause **cx_tail;
	uint64_t	cx_optv[DTRACEOPT_MAX];
	uint64_t	cx_regsize;
	uint64_t	cx_regaddr;
	struct dc_difo	*cx_difo;	/* object being generated */
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

/* dc_opt.c */
void dc_opt_set(struct dc_ctx *cx, const char *opt, int line, int col);

/* dc_type.c */
void dc_type_expr(struct dc_ctx *cx, struct dc_node *n);
int dc_builtin_var(const char *name, struct dc_type *ty);
const char *dc_builtin_name(uint32_t id);
void dc_type_int(struct dc_type *ty, uint32_t size, int sgn);
void dc_type_struct_ptr(struct dc_ctx *cx, const char *sname,
    struct dc_type *ty, int line, int col);
int dc_type_is_scalar(const struct dc_type *ty);

/* dc_btf.c */
void dc_btf_load(struct dc_ctx *cx, int line, int col);
void dc_btf_member(struct dc_ctx *cx, struct dc_node *n);

/* dc_printf.c */
void dc_printf_check(struct dc_ctx *cx, struct dc_node *call);

/* dc_cg.c */
struct dc_difo *dc_cg_object(struct dc_ctx *cx, struct dc_node *e,
    int rsize_override);

/* dc_dof.c */
int dc_dof_write(struct dc_ctx *cx, uint8_t **dof, size_t *dofsz);

/* dc_dis.c */
void dc_dis_program(FILE *fp, const struct dc_ctx *cx);
void dc_dis_difo(FILE *fp, const struct dc_difo *df);

#endif /* KDT_DC_IMPL_H */
