/*
 * dc_lex.c -- the D lexer, hand-written, one token at a time (dc_next).
 *
 * D needs two lexical states, as in C-like DSLs with pattern headers:
 *
 *	PROG	between clauses: "#pragma" lines, probe descriptions (runs of
 *		letters, digits and the glob/pdesc punctuation _-.*?[]!:`$~,
 *		kept verbatim), "," between descriptions, "/" opening a
 *		predicate, "{" opening the body.
 *	CODE	inside a predicate or body: C-like tokens.  Brace depth is
 *		tracked; the "}" that closes the body returns to PROG.  A
 *		"#pragma" line is a token here too (dtrace takes them
 *		anywhere).
 *
 * Escapes in string and character literals are converted as dtrace does
 * (lx_escape): an unknown one keeps its backslash.  A character constant
 * holds up to eight bytes, packed first-byte-most-significant (lx_char).
 * D has no floating-point constants: where dtrace's float pattern matches
 * more than its integer pattern ("1.5", ".5", "1e3", "2f"), the input is
 * a D_SYNTAX error with dtrace's wording (lx_fp_reject).
 *
 * Comments (block and line) are skipped in both states.  Positions are
 * 1-based line and column (a tab counts as one column).  Errors go through
 * dc_error() and never return.  The parser (dc_parse.c) is the only caller.
 */
#include <string.h>
#include <ctype.h>
#include "dc_impl.h"

enum { LX_PROG, LX_CODE, LX_DECL };

static int
lx_ch(struct dc_ctx *cx, size_t ahead)
{
	if (cx->cx_pos + ahead >= cx->cx_len)
		return -1;
	return (unsigned char)cx->cx_src[cx->cx_pos + ahead];
}

static void
lx_adv(struct dc_ctx *cx)
{
	if (cx->cx_pos >= cx->cx_len)
		return;
	if (cx->cx_src[cx->cx_pos] == '\n') {
		cx->cx_line++;
		cx->cx_col = 1;
		cx->cx_bol = 1;
	} else {
		cx->cx_col++;
		if (!isspace((unsigned char)cx->cx_src[cx->cx_pos]))
			cx->cx_bol = 0;
	}
	cx->cx_pos++;
}

void
dc_lex_init(struct dc_ctx *cx)
{
	cx->cx_pos = 0;
	cx->cx_line = 1;
	cx->cx_col = 1;
	cx->cx_bol = 1;
	cx->cx_lxstate = LX_PROG;
	cx->cx_lxdepth = 0;
}

/* Skip blanks and comments. */
static void
lx_skip(struct dc_ctx *cx)
{
	for (;;) {
		int c = lx_ch(cx, 0);

		if (c != -1 && isspace(c)) {
			lx_adv(cx);
		} else if (c == '/' && lx_ch(cx, 1) == '/') {
			while (lx_ch(cx, 0) != -1 && lx_ch(cx, 0) != '\n')
				lx_adv(cx);
		} else if (c == '/' && lx_ch(cx, 1) == '*') {
			int line = cx->cx_line, col = cx->cx_col;
			int bol = cx->cx_bol;

			lx_adv(cx);
			lx_adv(cx);
			while (!(lx_ch(cx, 0) == '*' && lx_ch(cx, 1) == '/')) {
				if (lx_ch(cx, 0) == -1)
					dc_error(cx, line, col, "D_SYNTAX", "end-of-file encountered before matching */");
				lx_adv(cx);
			}
			lx_adv(cx);
			lx_adv(cx);
			cx->cx_bol = bol;
		} else {
			return;
		}
	}
}

static int
lx_is_pdesc_ch(int c)
{
	return c != -1 && (isalnum(c) || strchr("_-.*?[]!:`$~", c) != NULL);
}

static void
lx_pdesc(struct dc_ctx *cx, struct dc_token *t)
{
	size_t start = cx->cx_pos;

	while (lx_is_pdesc_ch(lx_ch(cx, 0)))
		lx_adv(cx);
	t->tk_kind = DT_PDESC;
	t->tk_text = dc_strndup(cx, cx->cx_src + start, cx->cx_pos - start);
}

static void
lx_pragma(struct dc_ctx *cx, struct dc_token *t)
{
	size_t start = cx->cx_pos;

	while (lx_ch(cx, 0) != -1 && lx_ch(cx, 0) != '\n')
		lx_adv(cx);
	t->tk_kind = DT_PRAGMA;
	t->tk_text = dc_strndup(cx, cx->cx_src + start, cx->cx_pos - start);
}

static int
lx_digit(int c, int base)
{
	int v;

	if (c >= '0' && c <= '9')
		v = c - '0';
	else if (c != -1 && isxdigit(c))
		v = tolower(c) - 'a' + 10;
	else
		return -1;
	return v < base ? v : -1;
}

static void
lx_int_suffix(struct dc_ctx *cx, struct dc_token *t, int base)
{
	int c;

	while ((c = lx_ch(cx, 0)) == 'u' || c == 'U' || c == 'l' || c == 'L') {
		if (c == 'u' || c == 'U')
			t->tk_unsigned = 1;
		else
			t->tk_long = 1;
		lx_adv(cx);
	}
	c = lx_ch(cx, 0);
	if (c != -1 && (isalnum(c) || c == '_'))
		dc_error(cx, cx->cx_line, cx->cx_col, "D_SYNTAX", "invalid character '%c' in integer constant", lx_ch(cx, 0));
	if (t->tk_ival > 0x7fffffffull)
		t->tk_long = t->tk_long || t->tk_ival > 0xffffffffull ||
		    base == 10;
	if (base != 10 && t->tk_ival > 0x7fffffffull &&
	    t->tk_ival <= 0xffffffffull)
		t->tk_unsigned = 1;
	if (t->tk_ival > 0x7fffffffffffffffull)
		t->tk_unsigned = 1;
}

/*
 * dtrace's lexer has a floating-point constant pattern next to the
 * integer one: digits with an optional '.', more digits, an optional
 * exponent and an optional f/F/l/L suffix (or '.' and digits).  Where it
 * matches more characters than an integer constant would, the input is a
 * floating-point constant, which D rejects (D_SYNTAX, as dtrace's yyerror).
 */
static size_t
lx_fp_len(struct dc_ctx *cx)
{
	size_t n = 0, e;

	while (isdigit(lx_ch(cx, n)))
		n++;
	if (lx_ch(cx, n) == '.' && (n > 0 || isdigit(lx_ch(cx, n + 1)))) {
		n++;
		while (isdigit(lx_ch(cx, n)))
			n++;
	}
	if (n == 0)
		return 0;
	if (lx_ch(cx, n) == 'e' || lx_ch(cx, n) == 'E') {
		e = n + 1;
		if (lx_ch(cx, e) == '+' || lx_ch(cx, e) == '-')
			e++;
		if (isdigit(lx_ch(cx, e))) {
			while (isdigit(lx_ch(cx, e)))
				e++;
			n = e;
		}
	}
	if (lx_ch(cx, n) != -1 && strchr("fFlL", lx_ch(cx, n)) != NULL)
		n++;
	return n;
}

/* The length of dtrace's integer constant pattern at the position. */
static size_t
lx_int_len(struct dc_ctx *cx)
{
	size_t n = 0;
	int c;

	if (lx_ch(cx, 0) == '0' && (lx_ch(cx, 1) == 'x' ||
	    lx_ch(cx, 1) == 'X') && isxdigit(lx_ch(cx, 2))) {
		n = 2;
		while (isxdigit(lx_ch(cx, n)))
			n++;
	} else {
		while (isdigit(lx_ch(cx, n)))
			n++;
	}
	if (n == 0)
		return 0;
	if ((c = lx_ch(cx, n)) == 'u' || c == 'U')
		n++;
	if ((c = lx_ch(cx, n)) == 'l' || c == 'L')
		n++;
	if ((c = lx_ch(cx, n)) == 'l' || c == 'L')
		n++;
	return n;
}

static void
lx_fp_reject(struct dc_ctx *cx, const struct dc_token *t)
{
	if (lx_fp_len(cx) > lx_int_len(cx))	/* dtrace's wording */
		dc_error(cx, t->tk_line, t->tk_col, "D_SYNTAX", "floating-point constants are not permitted");
}

static void
lx_int(struct dc_ctx *cx, struct dc_token *t)
{
	int base = 10, d;
	uint64_t v = 0;

	lx_fp_reject(cx, t);

	if (lx_ch(cx, 0) == '0' &&
	    (lx_ch(cx, 1) == 'x' || lx_ch(cx, 1) == 'X')) {
		base = 16;
		lx_adv(cx);
		lx_adv(cx);
		if (lx_digit(lx_ch(cx, 0), 16) < 0)
			dc_error(cx, t->tk_line, t->tk_col, "D_SYNTAX", "hexadecimal constant has no digits");
	} else if (lx_ch(cx, 0) == '0') {
		base = 8;
	}
	while ((d = lx_digit(lx_ch(cx, 0), base)) >= 0 ||
	    (base == 8 && isdigit(lx_ch(cx, 0)))) {
		if (d < 0)
			dc_error(cx, cx->cx_line, cx->cx_col, "D_INT_DIGIT", "invalid digit '%c' in octal constant", lx_ch(cx, 0));
		if (v > (UINT64_MAX - (uint64_t)d) / (uint64_t)base)
			dc_error(cx, t->tk_line, t->tk_col, "D_INT_OFLOW", "integer constant exceeds the 64-bit limit");
		v = v * (uint64_t)base + (uint64_t)d;
		lx_adv(cx);
	}
	t->tk_kind = DT_INT;
	t->tk_ival = v;
	lx_int_suffix(cx, t, base);
}

/*
 * The escape after a backslash, as dtrace converts it: \a \b \f \n \r
 * \t \v, \\ and \", up to three octal digits, \x and any number of hex
 * digits (truncated to a byte); any other character c stays as the two
 * bytes '\\' c (so '\'' is two bytes, as in dtrace), returned as
 * LX_KEEPESC | c.
 */
#define LX_KEEPESC	0x10000

static int
lx_escape(struct dc_ctx *cx)
{
	int c = lx_ch(cx, 0), v = 0, n, d;

	if (c == -1 || c == '\n')
		return '\\';	/* the caller reports the EOF or newline */
	lx_adv(cx);
	switch (c) {
	case 'n': return '\n';
	case 't': return '\t';
	case 'r': return '\r';
	case 'a': return '\a';
	case 'b': return '\b';
	case 'f': return '\f';
	case 'v': return '\v';
	case '\\': case '"': return c;
	case 'x':
		while ((d = lx_digit(lx_ch(cx, 0), 16)) >= 0) {
			v = (v * 16 + d) & 0xff;
			lx_adv(cx);
		}
		return v;
	default:
		if (c >= '0' && c <= '7') {
			v = c - '0';
			for (n = 1; n < 3 &&
			    lx_digit(lx_ch(cx, 0), 8) >= 0; n++) {
				v = v * 8 + lx_digit(lx_ch(cx, 0), 8);
				lx_adv(cx);
			}
			return v & 0xff;
		}
		return LX_KEEPESC | c;
	}
}

static int
lx_lit_char(struct dc_ctx *cx, struct dc_token *t, int quote)
{
	int c = lx_ch(cx, 0);

	if (c == -1)
		dc_error(cx, t->tk_line, t->tk_col, "D_SYNTAX", "end-of-file encountered before matching %c", quote);
	if (c == '\n')
		dc_error(cx, t->tk_line, t->tk_col, quote == '"' ? "D_STR_NL" : "D_CHR_NL", "newline encountered in %s", quote == '"' ? "string literal" : "character constant");
	if (c == '\\') {
		lx_adv(cx);
		return lx_escape(cx);
	}
	lx_adv(cx);
	return c;
}

static void
lx_string(struct dc_ctx *cx, struct dc_token *t)
{
	size_t cap = 64, len = 0;
	char *buf = dc_alloc(cx, cap);

	lx_adv(cx);
	while (lx_ch(cx, 0) != '"') {
		int c = lx_lit_char(cx, t, '"');

		if (len + 2 >= cap) {
			char *nb = dc_alloc(cx, cap * 2);

			memcpy(nb, buf, len);
			buf = nb;
			cap *= 2;
		}
		if (c & LX_KEEPESC)
			buf[len++] = '\\';
		buf[len++] = (char)c;
	}
	lx_adv(cx);
	buf[len] = '\0';
	t->tk_kind = DT_STRING;
	t->tk_text = buf;
	t->tk_len = len;
}

/*
 * 'c', or up to eight bytes 'abcd' as dtrace packs them: the first byte
 * most significant, unsigned ('\377' is 255).
 */
static void
lx_char(struct dc_ctx *cx, struct dc_token *t)
{
	uint64_t v = 0;
	int c, n = 0;

	lx_adv(cx);
	if (lx_ch(cx, 0) == '\'')
		dc_error(cx, t->tk_line, t->tk_col, "D_CHR_NULL", "empty character constant");
	while (lx_ch(cx, 0) != '\'') {
		c = lx_lit_char(cx, t, '\'');
		if (c & LX_KEEPESC) {
			v = v << 8 | '\\';
			n++;
		}
		v = v << 8 | (uint8_t)c;
		if (++n > 8)
			dc_error(cx, t->tk_line, t->tk_col, "D_CHR_OFLOW", "character constant is too long: more than 8 bytes");
	}
	lx_adv(cx);
	t->tk_ival = v;
	t->tk_kind = DT_CHAR;
}

struct lx_op {
	const char	*op_text;
	enum dc_tok	op_tok;
};

/* Longest first, so "<<" wins over "<". */
static const struct lx_op lx_ops[] = {
	{ "<<=", DT_SHLEQ }, { ">>=", DT_SHREQ },
	{ "+=", DT_ADDEQ }, { "-=", DT_SUBEQ }, { "*=", DT_MULEQ },
	{ "/=", DT_DIVEQ }, { "%=", DT_MODEQ }, { "&=", DT_ANDEQ },
	{ "|=", DT_OREQ }, { "^=", DT_XOREQ }, { "++", DT_INC },
	{ "--", DT_DEC }, { "`", DT_BQUOTE },
	{ "->", DT_ARROW }, { "<<", DT_SHL }, { ">>", DT_SHR },
	{ "<=", DT_LE }, { ">=", DT_GE }, { "==", DT_EQ }, { "!=", DT_NE },
	{ "&&", DT_LAND }, { "||", DT_LOR }, { "^^", DT_LXOR },
	{ "(", DT_LPAR }, { ")", DT_RPAR }, { "{", DT_LBRACE },
	{ "}", DT_RBRACE }, { "[", DT_LBRACK }, { "]", DT_RBRACK },
	{ ",", DT_COMMA }, { ";", DT_SEMI }, { ":", DT_COLON },
	{ "?", DT_QUEST }, { ".", DT_DOT }, { "+", DT_PLUS },
	{ "-", DT_MINUS }, { "*", DT_STAR }, { "/", DT_SLASH },
	{ "%", DT_PERCENT }, { "<", DT_LT }, { ">", DT_GT },
	{ "&", DT_BAND }, { "^", DT_XOR }, { "|", DT_BOR }, { "!", DT_NOT },
	{ "~", DT_TILDE }, { "=", DT_ASSIGN },
};

static void
lx_op(struct dc_ctx *cx, struct dc_token *t)
{
	size_t i, n;
	int c = lx_ch(cx, 0);

	for (i = 0; i < sizeof (lx_ops) / sizeof (lx_ops[0]); i++) {
		n = strlen(lx_ops[i].op_text);
		if (cx->cx_pos + n <= cx->cx_len &&
		    memcmp(cx->cx_src + cx->cx_pos, lx_ops[i].op_text,
		    n) == 0) {
			while (n-- > 0)
				lx_adv(cx);
			t->tk_kind = lx_ops[i].op_tok;
			return;
		}
	}
	if (isprint(c))
		dc_error(cx, t->tk_line, t->tk_col, "D_SYNTAX", "invalid character '%c' in program text", c);
	dc_error(cx, t->tk_line, t->tk_col, "D_SYNTAX", "invalid character 0x%02x in program text", c);
}

/* "@name" / "@" (aggregations) and "$1", "$$1", "$pid" (macros). */
static void
lx_sigil(struct dc_ctx *cx, struct dc_token *t)
{
	int sig = lx_ch(cx, 0);
	size_t start;

	lx_adv(cx);
	start = cx->cx_pos;
	if (sig == '$' && lx_ch(cx, 0) == '$')
		lx_adv(cx);
	while (lx_ch(cx, 0) != -1 && (isalnum(lx_ch(cx, 0)) ||
	    lx_ch(cx, 0) == '_'))
		lx_adv(cx);
	t->tk_kind = sig == '@' ? DT_AGG : DT_MACRO;
	t->tk_text = dc_strndup(cx, cx->cx_src + start, cx->cx_pos - start);
	if (sig == '$' && (*t->tk_text == '\0' ||
	    strcmp(t->tk_text, "$") == 0))
		dc_error(cx, t->tk_line, t->tk_col, "D_SYNTAX", "syntax error near \"$\": a macro variable name or number must follow '$'");
}

static void
lx_ident(struct dc_ctx *cx, struct dc_token *t)
{
	size_t start = cx->cx_pos;

	while (lx_ch(cx, 0) != -1 && (isalnum(lx_ch(cx, 0)) ||
	    lx_ch(cx, 0) == '_'))
		lx_adv(cx);
	t->tk_kind = DT_IDENT;
	t->tk_text = dc_strndup(cx, cx->cx_src + start, cx->cx_pos - start);
}

/*
 * Top-level declarations ("int x;", "self int y;", "inline ...",
 * "typedef ...", "struct s { ... };") are lexed as code: a keyword at the
 * start of a top-level item enters LX_DECL, whose ";" at brace depth 0
 * returns to PROG.
 */
static const char *const lx_declkw[] = {
	"char", "short", "int", "long", "signed", "unsigned", "void",
	"struct", "union", "enum", "self", "this", "inline", "typedef",
	"string", "int8_t", "int16_t", "int32_t", "int64_t", "uint8_t",
	"uint16_t", "uint32_t", "uint64_t", "intptr_t", "uintptr_t",
	"size_t", "ssize_t", "pid_t", "uid_t", "gid_t", "float", "double",
	"const", "volatile", "extern", "static", "register", "translator",
	"provider",
};

/* Is the n-character word at the cursor a typedef name? */
static int
lx_typedef_name(struct dc_ctx *cx, size_t n)
{
	const struct dc_inline *in;

	for (in = cx->cx_inlines; in != NULL; in = in->in_next)
		if (in->in_expr == NULL && strlen(in->in_name) == n &&
		    memcmp(in->in_name, cx->cx_src + cx->cx_pos, n) == 0)
			return 1;
	return 0;
}

static int
lx_decl_start(struct dc_ctx *cx)
{
	size_t i, n = 0;

	while (cx->cx_pos + n < cx->cx_len &&
	    (isalnum((unsigned char)cx->cx_src[cx->cx_pos + n]) ||
	    cx->cx_src[cx->cx_pos + n] == '_'))
		n++;
	if (n == 0 || (cx->cx_pos + n < cx->cx_len &&
	    strchr(":*?[]`$-.", cx->cx_src[cx->cx_pos + n]) != NULL))
		return 0;
	for (i = 0; i < sizeof (lx_declkw) / sizeof (lx_declkw[0]); i++)
		if (strlen(lx_declkw[i]) == n &&
		    memcmp(lx_declkw[i], cx->cx_src + cx->cx_pos, n) == 0)
			return 1;
	return lx_typedef_name(cx, n);
}

static void
lx_decl(struct dc_ctx *cx, struct dc_token *t)
{
	cx->cx_lxstate = LX_DECL;
	cx->cx_declstate = 0;
	lx_ident(cx, t);
}

/* Update the PROG/CODE/DECL state after a punctuation token. */
static void
lx_track(struct dc_ctx *cx, enum dc_tok k)
{
	if (cx->cx_lxstate == LX_DECL) {
		if (k == DT_LBRACE)
			cx->cx_declstate++;
		else if (k == DT_RBRACE && cx->cx_declstate > 0)
			cx->cx_declstate--;
		else if (k == DT_SEMI && cx->cx_declstate == 0)
			cx->cx_lxstate = LX_PROG;
		return;
	}
	if (k == DT_LBRACE) {
		cx->cx_lxstate = LX_CODE;
		cx->cx_lxdepth++;
	} else if (k == DT_RBRACE) {
		if (--cx->cx_lxdepth <= 0) {
			cx->cx_lxdepth = 0;
			cx->cx_lxstate = LX_PROG;
		}
	} else if (k == DT_SLASH && cx->cx_lxstate == LX_PROG) {
		cx->cx_lxstate = LX_CODE;
	}
}

void
dc_next(struct dc_ctx *cx)
{
	struct dc_token *t = &cx->cx_tok;
	int c;

	lx_skip(cx);
	memset(t, 0, sizeof (*t));
	t->tk_line = cx->cx_line;
	t->tk_col = cx->cx_col;
	c = lx_ch(cx, 0);
	if (c == -1)
		t->tk_kind = DT_EOF;
	else if (cx->cx_lxstate != LX_DECL && c == '#' && cx->cx_bol)
		lx_pragma(cx, t);	/* also inside a clause, as dtrace */
	else if (cx->cx_lxstate == LX_PROG && lx_decl_start(cx))
		lx_decl(cx, t);
	else if (cx->cx_lxstate == LX_PROG && lx_is_pdesc_ch(c))
		lx_pdesc(cx, t);
	else if (c == '@' || c == '$')
		lx_sigil(cx, t);
	else if (isdigit(c) || (c == '.' && isdigit(lx_ch(cx, 1))))
		lx_int(cx, t);	/* ".5" is rejected there as a float */
	else if (isalpha(c) || c == '_')
		lx_ident(cx, t);
	else if (c == '"')
		lx_string(cx, t);
	else if (c == '\'')
		lx_char(cx, t);
	else
		lx_op(cx, t);
	lx_track(cx, t->tk_kind);
}

const char *
dc_tok_name(enum dc_tok t)
{
	size_t i;

	switch (t) {
	case DT_EOF: return "end of input";
	case DT_IDENT: return "identifier";
	case DT_INT: return "integer constant";
	case DT_CHAR: return "character constant";
	case DT_STRING: return "string literal";
	case DT_PDESC: return "probe description";
	case DT_PRAGMA: return "#pragma";
	case DT_AGG: return "aggregation";
	case DT_MACRO: return "macro variable";
	default: break;
	}
	for (i = 0; i < sizeof (lx_ops) / sizeof (lx_ops[0]); i++)
		if (lx_ops[i].op_tok == t)
			return lx_ops[i].op_text;
	return "token";
}
