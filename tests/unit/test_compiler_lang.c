/*
 * test_compiler_lang.c -- unit tests of the D language in the compiler:
 * variables, assignment operators, subroutines, aggregations, actions,
 * declarations, macro variables and their diagnostics (compiler/dc.h).
 *
 * Three groups:
 *   - execution: each program is compiled, loaded by the real loader
 *     (common/dof_load.c, which runs the DIF validator on every object),
 *     given a variable state (common/dif_vm.h) and its first ECB's actions
 *     are run in order by the real emulator as one probe firing; the
 *     value of the last action must be what D defines;
 *   - encoding: the ACTDESC lists of aggregations, printa(), LIBACTs,
 *     stack(), speculations and empty clauses, and VARTAB entries, are
 *     checked against reference 3.3 as the loader sees them;
 *   - diagnostics: each rejected program fails with its D_* tag at the
 *     expected line (test names carry the tag, STYLE.md point 10); plus a
 *     robustness loop over mutations of a program using every construct.
 * Kernel-type tests use $KDT_BTF, else build/kernel/vmlinux (make kernel).
 */
#include <stdlib.h>
#include <string.h>
#include "kt_check.h"
#include "compiler/dc.h"
#include "consumer/kc_env.h"
#include "dof_load.h"
#include "dof_libact.h"
#include "dif.h"
#include "dif_vm.h"

static const char *const tl_argv[] = { "t.d", "7", "hello" };

static int
tl_compile(const char *src, struct dc_out *o, int destructive)
{
	struct dc_opts opts;
	const char *btf = getenv("KDT_BTF");

	memset(&opts, 0, sizeof (opts));
	opts.dco_btf = btf != NULL && *btf != '\0' ? btf :
	    "build/kernel/vmlinux";
	opts.dco_argv = tl_argv;
	opts.dco_argc = 3;
	opts.dco_destructive = destructive;
	return dc_compile(src, strlen(src), "t.d", &opts, o);
}

struct tl {
	struct dof_enabling *tl_den;
	struct dif_vstate tl_vs;
	void		*tl_area;
	struct dif_mstate tl_ms;
	struct dif_probe_ctx tl_ctx;
	uint64_t	tl_locals[64];
	char		tl_scratch[8192];
};

static const char tl_begin[] = "BEGIN";

static void
tl_load(const char *src, struct tl *t)
{
	struct dc_out o;
	struct kdt_err err;
	uint64_t sz;
	int rc;

	memset(t, 0, sizeof (*t));
	rc = tl_compile(src, &o, 0);
	ck_assert_msg(rc == 0, "%s: %s", src, o.dco_diag);
	memset(&err, 0, sizeof (err));
	rc = dof_load(o.dco_dof, o.dco_dofsz, &t->tl_den, &err);
	ck_assert_msg(rc == 0, "%s: dof_load: [%s] %s", src,
	    err.ke_tag ? err.ke_tag : "", err.ke_msg);
	dc_out_free(&o);
	sz = dif_vstate_size(t->tl_den, 1u << 16);
	if (sz == 0)
		sz = 64;	/* no user variables: nothing to lay out */
	t->tl_area = aligned_alloc(8, (sz + 7) & ~(uint64_t)7);
	ck_assert_ptr_nonnull(t->tl_area);
	rc = dif_vstate_init(&t->tl_vs, t->tl_area, (sz + 7) & ~(uint64_t)7,
	    t->tl_den, &err);
	ck_assert_msg(rc == 0, "%s: vstate: %s", src, err.ke_msg);
	t->tl_ms.dm_scratch = t->tl_scratch;
	t->tl_ms.dm_scratch_size = sizeof (t->tl_scratch);
	t->tl_ms.dm_strsize = t->tl_den->den_strsize;
	t->tl_ms.dm_vstate = &t->tl_vs;
	t->tl_ms.dm_locals = t->tl_locals;
	t->tl_ms.dm_nlocals = 64;
	ck_assert_uint_le(dif_vstate_nlocals(&t->tl_vs), 64);
	t->tl_ctx.pc_id = 1;
	t->tl_ctx.pc_epid = 1;
	t->tl_ctx.pc_prov = "dtrace";
	t->tl_ctx.pc_mod = "";
	t->tl_ctx.pc_func = "";
	t->tl_ctx.pc_name = tl_begin;
	ck_assert_int_eq(kc_env_add_readable(tl_begin, sizeof (tl_begin)), 0);
	t->tl_ctx.pc_args[0] = 0x1234;
	t->tl_ctx.pc_cpu = 1;
}

static void
tl_free(struct tl *t)
{
	dof_free(t->tl_den);
	free(t->tl_area);
}

/* One firing of ECB 0: every action in order; the last one's value. */
static uint64_t
tl_fire(struct tl *t)
{
	const struct dof_lecb *le = &t->tl_den->den_ecbs[0];
	uint64_t v = 0;
	uint32_t i;

	t->tl_ms.dm_scratch_used = 0;
	memset(t->tl_locals, 0, sizeof (t->tl_locals));
	for (i = 0; i < le->le_nacts; i++) {
		if (le->le_acts[i].la_difo == NULL)
			continue;
		v = dif_emulate(le->le_acts[i].la_difo, &t->tl_ms, &t->tl_ctx);
		ck_assert_msg(!t->tl_ms.dm_faulted, "action %u: fault %u at pc %u",
		    i, t->tl_ms.dm_fault, t->tl_ms.dm_fault_pc);
	}
	return v;
}

struct tl_case {
	const char	*tc_src;
	int64_t		tc_val;
};

static const struct tl_case tl_cases[] = {
	{ "BEGIN { x = 5; x += 3; trace(x); }", 8 },
	{ "BEGIN { trace((long long int)-1 + (unsigned long long)1 + "
	    "(char unsigned)2 + (int long)3 + sizeof (short int)); }", 7 },
	{ "struct n { struct n *next; struct fwd_t *f; int v; };\n"
	    "BEGIN { trace(sizeof (struct n)); }", 24 },
	/*
	 * As in dtrace, a D variable of a narrow type keeps the whole 64-bit
	 * value assigned to it or computed by op= and ++ (only a record or a
	 * store to memory is narrowed to the type's bytes), but a constant
	 * assigned to it is cast to its type at compile time.
	 */
	{ "self x;\nBEGIN { self->x = 0x100000001; trace(self->x); }", 1 },
	{ "self x;\nBEGIN { this->l = 0x100000001; self->x = this->l; "
	    "trace(self->x >> 32); }", 1 },
	{ "short s;\nBEGIN { s = 0x12345; trace(s); }", 0x2345 },
	{ "long long l;\nBEGIN { l = (1 << 63) - 4; trace(l); }", -4 },
	{ "BEGIN { this->i = 1; this->i <<= 40; trace(this->i >> 38); }", 4 },
	{ "BEGIN { x = 0x7fffffff; x++; trace(x > 0); }", 1 },
	{ "int a[4];\nBEGIN { a[2] = 7; p = &a[0]; q = &a[3]; "
	    "trace(*(p + 2) * 10 + (q - p)); }", 73 },
	{ "int a[3];\nint *p;\nBEGIN { a[1] = 5; p = a; p[2] = 6; "
	    "trace(p[1] * 10 + a[2]); }", 56 },
	/* anonymous struct/union members: their members are the parent's */
	{ "struct r { int a; union { int b; char c; }; int d; };\n"
	    "BEGIN { trace(offsetof(struct r, c) * 100 + "
	    "offsetof(struct r, d) * 10 + sizeof (struct r) / 4); }", 483 },
	{ "struct r { int a; struct { int b; int c; }; };\n"
	    "BEGIN { this->p = (struct r *)alloca(12); this->p->c = 9; "
	    "trace(*(int *)((char *)this->p + 8)); }", 9 },
	/* bitfields: GCC layout, sign extension of signed fields */
	{ "struct bf { int a : 3; unsigned int b : 5; int c : 12; char d; };\n"
	    "BEGIN { trace(sizeof (struct bf)); }", 4 },
	{ "struct bf { char a : 2; short b : 12; long c : 32; };\n"
	    "BEGIN { trace(sizeof (struct bf)); }", 8 },
	{ "struct bf { int a : 3; unsigned int b : 5; int c : 12; };\n"
	    "union u { struct bf s; int i; } x;\n"
	    "BEGIN { x.i = 0x0f5ac7; trace(x.s.a * 1000000 + x.s.b * 1000 "
	    "- x.s.c); }", -1000000 + 24000 + 166 },
	{ "struct h { int : 4; unsigned int h : 4; };\n"
	    "union u { struct h s; int i; } x;\n"
	    "BEGIN { x.i = 0x5f; trace(x.s.h); }", 5 },
	{ "BEGIN { x = 50; x -= 8; x /= 2; x %= 8; trace(x); }", 5 },
	{ "BEGIN { x = 6; x *= 7; x &= 0x3c; x |= 1; x ^= 3; trace(x); }", 42 },
	{ "BEGIN { x = 3; x <<= 4; x >>= 1; trace(x); }", 24 },
	{ "BEGIN { x = 1; y = x++; trace(y * 10 + x); }", 12 },
	{ "BEGIN { x = 5; trace(--x); }", 4 },
	{ "BEGIN { x = 5; y = ++x + x--; trace(y * 100 + x); }", 1205 },
	{ "BEGIN { a[1, \"k\"] = 7; a[2, \"k\"] = 9; "
	    "trace(a[1, \"k\"] + a[2, \"k\"]); }", 16 },
	{ "BEGIN { a[1] = 5; a[1] = 0; trace(a[1]); }", 0 },
	{ "BEGIN { a[3] = 2; a[a[3]] = 11; a[3] += a[2]; trace(a[3]); }", 13 },
	{ "BEGIN { self->t = 4; self->t++; trace(self->t); }", 5 },
	{ "BEGIN { self->m[\"x\"] = 3; self->m[\"x\"] *= 5; "
	    "trace(self->m[\"x\"]); }", 15 },
	{ "BEGIN { this->v = 10; this->v *= 3; trace(this->v); }", 30 },
	{ "BEGIN { s = \"abc\"; trace(strlen(s)); }", 3 },
	{ "BEGIN { this->s = strjoin(\"ab\", \"cde\"); "
	    "trace(strlen(this->s)); }", 5 },
	{ "BEGIN { s[\"a\"] = \"xyz\"; trace(s[\"a\"] == \"xyz\"); }", 1 },
	{ "BEGIN { trace(index(\"hello\", \"ll\")); }", 2 },
	{ "BEGIN { trace(htonl(1)); }", 0x01000000 },
	{ "BEGIN { trace(strtoll(\"-42\")); }", -42 },
	{ "inline int K = 6; BEGIN { trace(K * 2); }", 12 },
	{ "BEGIN { trace(sizeof (long) + sizeof (short)); }", 10 },
	{ "BEGIN { x = 1; trace(sizeof (x)); }", 4 },
	{ "typedef unsigned char u8_t; BEGIN { trace((u8_t)0x1ff); }", 255 },
	{ "int g; BEGIN { trace(g + 1); }", 1 },
	{ "self int t; BEGIN { self->t = 2; trace(self->t * 4); }", 8 },
	{ "BEGIN { trace((long)((int *)0 + 3)); }", 12 },
	{ "BEGIN { trace((long)((int *)16 - (int *)4)); }", 3 },
	{ "BEGIN { p = (short *)8; p++; trace((long)p); }", 10 },
	{ "BEGIN { trace($1 * 2); }", 14 },
	{ "BEGIN { trace(strlen($$2)); }", 5 },
	{ "BEGIN { trace(args[0]); }", 0x1234 },
	{ "BEGIN { x = y = 3; trace(x + y); }", 6 },
	{ "BEGIN { x = 1 ? 2 : 3; trace(x); }", 2 },
	{ "BEGIN { x = 0; x = x == 0 ? 7 : 8; trace(x); }", 7 },
	{ "BEGIN { trace(substr(\"abcdef\", 2, 3) == \"cde\"); }", 1 },
	{ "BEGIN { trace(probename == \"BEGIN\"); }", 1 },
	{ "BEGIN { p = (int *)alloca(16); p[1] = 7; *(p + 2) = 5; p[1] += 1; "
	    "trace(p[1] * 10 + p[2]); }", 85 },
	{ "BEGIN { this->b = (char *)alloca(4); this->b[0] = 'a'; "
	    "this->b[1] = 0; trace(strlen(stringof(this->b))); }", 1 },
	{ "BEGIN { trace(NULL == 0); }", 1 },
	/* strings compare with NULL as strings; NULL empties a string */
	{ "BEGIN { s = \"a\"; trace((s != NULL) * 10 + (NULL == s)); }", 10 },
	{ "BEGIN { s = \"a\"; s = NULL; trace((s == NULL) * 10 + "
	    "(s == \"\")); }", 11 },
	{ "BEGIN { trace(strstr(\"ab\", \"x\") == NULL); }", 1 },
	/* whole structs: copied into D variables, used as keys */
	{ "struct s { int a; long b; } g;\nBEGIN { g.a = 4; g.b = 5; h = g; "
	    "g.a = 9; trace(h.a * 10 + h.b); }", 45 },
	{ "struct s { int a; } k;\nBEGIN { k.a = 1; x[k] = 7; k.a = 2; "
	    "x[k] = 8; k.a = 1; trace(x[k]); }", 7 },
	{ "struct i { int a; };\nstruct o { int b; };\ntranslator struct o "
	    "< struct i v > { b = ((struct i)v).a + 1; };\nstruct i g;\n"
	    "BEGIN { g.a = 5; trace(xlate <struct o> (g).b); }", 6 },
	{ "extern int *(*fp)(void), a[2][3];\nint f(register int, char *);\n"
	    "BEGIN { trace(3); }", 3 },
	{ "enum e { A = 3, B = A * 4 + 7 / 2, C };\nstruct p { int x; int y; };"
	    "\nBEGIN { trace(C * 100 + offsetof(struct D`p, y)); }", 1604 },
	{ "BEGIN { trace(sizeof (\"hi\") * 10 + sizeof \"\"); }", 31 },
	/* the predicate is typed after the actions */
	{ "BEGIN /x == 0/ { x++; trace(x); }", 1 },
	/* character constants: ints, up to 8 bytes, unsigned */
	{ "BEGIN { trace('ab' * 1000 + sizeof ('a')); }", 0x6162 * 1000 + 4 },
	{ "BEGIN { trace('\\377'); }", 255 },
	{ "BEGIN { trace((uchar_t)-1 + sizeof (hrtime_t)); }", 263 },
	{ "struct s { char a; int b; long c; short d; };\n"
	    "BEGIN { trace(offsetof(struct s, c) * 100 + sizeof (struct s)); }",
	    824 },
	{ "union u { int i; char c[4]; };\nBEGIN { this->u = (union u *)"
	    "alloca(sizeof (union u)); this->u->i = 0x41424344; "
	    "trace(this->u->c[3] * 100 + sizeof (union u)); }", 6504 },
	{ "struct p { int x; int y; };\nBEGIN { this->p = (struct p *)"
	    "alloca(8); this->p->y = 6; (*this->p).x = 5; this->p->y += 1; "
	    "trace(this->p->x * 10 + (*this->p).y); }", 57 },
	{ "enum c { R, G = 5, B };\nBEGIN { trace(R * 100 + G * 10 + B); }",
	    56 },
	/* a this-> variable first assigned in the predicate: its type */
	{ "BEGIN /(this->c = (char)-3) < 0/ { trace(sizeof (this->c)); }",
	    1 },
	/* inlines with parameters */
	{ "inline int f[int a, int b] = a * 10 + b;\nBEGIN { "
	    "trace(f[f[1, 2], 3]); }", 123 },
	/* global arrays of D structs */
	{ "struct r { char c; int i; } a[3];\nBEGIN { a[2].i = 7; "
	    "trace(a[2].i * 100 + (long)&a[2] - (long)&a[0]); }", 716 },
	/* ++ and -- on bitfields: wrap at the width, neighbours kept */
	{ "struct bf { unsigned a : 2; unsigned b : 6; } g;\nBEGIN { "
	    "g.b = 9; g.a = 3; x = g.a++; ++g.b; g.b--; --g.b; "
	    "trace(x * 1000 + g.a * 100 + g.b); }", 3008 },
	{ "struct s { unsigned a : 3; unsigned b : 5; };\nBEGIN { this->p = "
	    "(struct s *)alloca(4); *(int *)this->p = 0; this->p->b = 31; "
	    "this->p->a++; ++this->p->a; trace(this->p->a * 100 + "
	    "this->p->b); }", 231 },
	/* a variable assigned a bitfield's value is no bitfield itself */
	{ "struct fl { int s : 3; } f;\nBEGIN { f.s = -2; b = f.s; "
	    "x[1] = f.s; trace(b * 10 + x[1]); }", -22 },
	{ "typedef struct pt { int x; int y; } pt_t;\ntypedef int myint_t;\n"
	    "myint_t v;\nBEGIN { v = 3; trace(sizeof (pt_t) * 10 + v); }", 83 },
	{ "struct i { int a; int b; };\nstruct o { int s; };\n"
	    "translator struct o < struct i *p > { s = p->a - p->b; };\n"
	    "BEGIN { this->p = (struct i *)alloca(8); this->p->a = 9; "
	    "this->p->b = 2; trace(xlate <struct o *> (this->p)->s); }", 7 },
	/* bitfield stores: the unit's other bits kept, values truncated */
	{ "struct bf { int a : 4; int b : 7; unsigned int c : 3; };\n"
	    "BEGIN { this->p = (struct bf *)alloca(4); *(int *)this->p = -1; "
	    "this->p->b = 5; this->p->b += 3; this->p->c = 9; "
	    "trace(*(uint32_t *)this->p); }", 0xffffc88f },
	{ "struct bf { int a : 2; } g;\nBEGIN { g.a = 3; trace(g.a); }", -1 },
	/* the D library: curpsinfo and curlwpsinfo from the built-ins */
	{ "BEGIN { trace((curpsinfo->pr_pid == pid) * 100 + "
	    "(curpsinfo->pr_uid == uid) * 10 + (curlwpsinfo->pr_lwpid == tid)); }",
	    111 },
	{ "BEGIN { trace(curpsinfo->pr_zoneid + sizeof (psinfo_t) % 8); }", 0 },
	/* whole translations: zeroed scratch with the defined members */
	{ "struct i { int a; };\nstruct o { int s; int t; long u; };\n"
	    "translator struct o < struct i *p > { s = p->a * 2; u = 5; };\n"
	    "BEGIN { this->p = (struct i *)alloca(4); this->p->a = 4; "
	    "this->o = *xlate <struct o *> (this->p); "
	    "trace(this->o.s * 100 + this->o.t * 10 + this->o.u); }", 805 },
	{ "struct i { int a; };\nstruct o { int s; };\n"
	    "translator struct o < struct i v > { s = ((struct i)v).a; };\n"
	    "struct i g; struct o h;\n"
	    "BEGIN { g.a = 6; h = xlate <struct o> (g); trace(h.s); }", 6 },
	/* struct values of associative arrays: created on first use */
	{ "struct pt { int x; int y; } a[int];\n"
	    "BEGIN { a[1].x = 3; a[1].y += 4; a[2].y = 1; "
	    "trace(a[1].x * 100 + a[1].y * 10 + a[2].y + a[3].x); }", 341 },
	/* string members: copied, cut at strsize - 1 */
	{ "struct c { string s; int n; } a[int];\n"
	    "BEGIN { a[1].s = \"hello\"; a[1].n = 2; "
	    "trace(strlen(a[1].s) * 10 + a[1].n + (a[1].s == \"hello\")); }",
	    53 },
	/* arrays of D structs inside structs, indexed */
	{ "struct e { int v; };\nstruct c { int n; struct e es[3]; };\n"
	    "BEGIN { this->c = (struct c *)alloca(sizeof (struct c)); "
	    "this->c->es[2].v = 7; this->c->es[0].v = 1; "
	    "trace(*((int *)this->c + 3) * 10 + this->c->es[0].v); }", 71 },
};

START_TEST(tst_lang_values)
{
	const struct tl_case *c = &tl_cases[_i];
	struct tl t;
	uint64_t v;

	tl_load(c->tc_src, &t);
	v = tl_fire(&t);
	ck_assert_msg((int64_t)v == c->tc_val, "%s: got %lld, want %lld",
	    c->tc_src, (long long)v, (long long)c->tc_val);
	tl_free(&t);
}
END_TEST

/* Variables keep their values across firings (self-> per thread). */
START_TEST(tst_lang_state_across_firings)
{
	struct tl t;

	tl_load("BEGIN { n++; self->c += 2; a[\"k\"] += n; trace(n * 1000 + "
	    "self->c * 100 + a[\"k\"]); }", &t);
	ck_assert_int_eq((int64_t)tl_fire(&t), 1201);
	ck_assert_int_eq((int64_t)tl_fire(&t), 2403);
	ck_assert_int_eq((int64_t)tl_fire(&t), 3606);
	tl_free(&t);
}
END_TEST

/* ---- encoding ---- */

static struct dof_enabling *
tl_den(const char *src, int destructive)
{
	struct dof_enabling *den = NULL;
	struct kdt_err err;
	struct dc_out o;

	ck_assert_msg(tl_compile(src, &o, destructive) == 0, "%s: %s", src,
	    o.dco_diag);
	memset(&err, 0, sizeof (err));
	ck_assert_msg(dof_load(o.dco_dof, o.dco_dofsz, &den, &err) == 0,
	    "%s: [%s] %s", src, err.ke_tag ? err.ke_tag : "", err.ke_msg);
	dc_out_free(&o);
	return den;
}

static void
tl_is_const(const struct dof_laction *la, uint64_t v)
{
	const struct dif_object *d = la->la_difo;

	ck_assert_ptr_nonnull(d);
	ck_assert_uint_eq(d->do_textlen, 2);
	ck_assert_uint_eq(DIF_INSTR_OP(d->do_text[0]), DIF_OP_SETX);
	ck_assert_uint_eq(d->do_text[1], DIF_INSTR_RET(DIF_INSTR_RD(
	    d->do_text[0])));
	ck_assert_uint_eq(d->do_inttab[DIF_INSTR_INTEGER(d->do_text[0])], v);
}

START_TEST(tst_agg_encoding)
{
	struct dof_enabling *den = tl_den("BEGIN { @c = count(); "
	    "@a[\"x\", 2] = sum(5); @q = quantize(1, 3); "
	    "@l = lquantize(3, -10, 90, 10); "
	    "@ll = llquantize(7, 10, 0, 6, 20); }",
	    0);
	const struct dof_laction *a = den->den_ecbs[0].le_acts;

	ck_assert_uint_eq(den->den_ecbs[0].le_nacts, 2 + 4 + 3 + 2 + 2);
	tl_is_const(&a[0], 1);
	ck_assert_uint_eq(a[1].la_kind, DTRACEAGG_COUNT);
	ck_assert_uint_eq(a[1].la_ntuple, 1);
	ck_assert_ptr_null(a[1].la_difo);
	tl_is_const(&a[2], 2);
	ck_assert_uint_eq(a[3].la_kind, DTRACEACT_DIFEXPR);
	ck_assert_uint_eq(a[5].la_kind, DTRACEAGG_SUM);
	ck_assert_uint_eq(a[5].la_ntuple, 3);
	tl_is_const(&a[6], 3);
	ck_assert_uint_eq(a[7].la_role, DOF_ROLE_AGGARG);
	ck_assert_uint_eq(a[8].la_kind, DTRACEAGG_QUANTIZE);
	ck_assert_uint_eq(a[8].la_ntuple, 2);
	ck_assert_uint_eq(a[10].la_kind, DTRACEAGG_LQUANTIZE);
	ck_assert_uint_eq(a[10].la_arg, (10ull << 48) | (10ull << 32) |
	    (uint32_t)-10);
	ck_assert_uint_eq(a[12].la_kind, DTRACEAGG_LLQUANTIZE);
	ck_assert_uint_eq(a[12].la_arg, (10ull << 48) | (0ull << 32) |
	    (6ull << 16) | 20);
	ck_assert_uint_eq(den->den_naggs, 5);
	ck_assert_uint_eq(den->den_nvarids, 5);
	dof_free(den);
}
END_TEST

START_TEST(tst_printa_and_libacts)
{
	struct dof_enabling *den = tl_den("BEGIN { @a = count(); @b = sum(1); }"
	    "END { printa(@a); printa(\"%@d %@d\\n\", @a, @b); clear(@a); "
	    "trunc(@b, 3); normalize(@a, 10); denormalize(@b); "
	    "setopt(\"quiet\"); ftruncate(); }", 0);
	const struct dof_lecb *le = &den->den_ecbs[1];
	const struct dof_laction *a = le->le_acts;

	ck_assert_uint_eq(le->le_nacts, 12);
	ck_assert_uint_eq(a[0].la_kind, DTRACEACT_PRINTA);
	ck_assert_ptr_null(a[0].la_fmt);
	tl_is_const(&a[0], 1);
	ck_assert_str_eq(a[1].la_fmt, "%@d %@d\n");
	tl_is_const(&a[1], 1);
	tl_is_const(&a[2], 2);
	ck_assert_uint_eq(a[3].la_kind, DTRACEACT_LIBACT);
	ck_assert_uint_eq(a[3].la_arg, KDT_LIBACT_CLEAR);
	ck_assert_uint_eq(a[4].la_arg, KDT_LIBACT_TRUNC);
	tl_is_const(&a[4], 2);
	ck_assert_uint_eq(a[5].la_arg, KDT_LIBACT_TRUNC);
	ck_assert_uint_eq(a[6].la_arg, KDT_LIBACT_NORMALIZE);
	ck_assert_uint_eq(a[7].la_arg, KDT_LIBACT_NORMALIZE);
	ck_assert_uint_eq(a[8].la_arg, KDT_LIBACT_DENORMALIZE);
	ck_assert_uint_eq(a[9].la_arg, KDT_LIBACT_SETOPT);
	ck_assert_uint_eq(a[10].la_arg, KDT_LIBACT_SETOPT);
	ck_assert_uint_eq(a[11].la_arg, KDT_LIBACT_FTRUNCATE);
	dof_free(den);
}
END_TEST

START_TEST(tst_stack_spec_and_empty_clause)
{
	struct dof_enabling *den = tl_den("#pragma D option stackframes=7\n"
	    "BEGIN { stack(); stack(3); ustack(5, 100); jstack(); "
	    "tracemem(arg0, 16); sym(arg0); umod(arg0); }\n"
	    "BEGIN { s = speculation(); speculate(s); trace(1); }\n"
	    "BEGIN { commit(s); } BEGIN { discard(s); }\n"
	    "profile-997, tick-1sec { }\n", 0);
	const struct dof_laction *a = den->den_ecbs[0].le_acts;

	ck_assert_uint_eq(a[0].la_kind, DTRACEACT_STACK);
	ck_assert_uint_eq(a[0].la_arg, 7);
	ck_assert_uint_eq(a[1].la_arg, 3);
	ck_assert_uint_eq(a[2].la_kind, DTRACEACT_USTACK);
	ck_assert_uint_eq(a[2].la_arg, 5 | 100ull << 32);
	ck_assert_uint_eq(a[3].la_kind, DTRACEACT_JSTACK);
	ck_assert_uint_eq(a[3].la_arg, 50 | 512ull << 32);
	ck_assert_uint_eq(a[4].la_kind, DTRACEACT_TRACEMEM);
	ck_assert_uint_eq(a[4].la_arg, 16);
	ck_assert_uint_eq(a[5].la_kind, DTRACEACT_SYM);
	ck_assert_uint_eq(a[6].la_kind, DTRACEACT_UMOD);
	ck_assert_uint_eq(den->den_ecbs[1].le_acts[1].la_kind,
	    DTRACEACT_SPECULATE);
	ck_assert_uint_eq(den->den_ecbs[2].le_acts[0].la_kind,
	    DTRACEACT_COMMIT);
	ck_assert_uint_eq(den->den_ecbs[3].le_acts[0].la_kind,
	    DTRACEACT_DISCARD);
	ck_assert_uint_eq(den->den_necbs, 6);
	ck_assert_uint_eq(den->den_ecbs[4].le_nacts, 0);
	ck_assert_str_eq(den->den_ecbs[4].le_pdesc.lp_prov, "profile");
	ck_assert_str_eq(den->den_ecbs[4].le_pdesc.lp_name, "profile-997");
	ck_assert_str_eq(den->den_ecbs[5].le_pdesc.lp_name, "tick-1sec");
	dof_free(den);
}
END_TEST

START_TEST(tst_destructive_with_w)
{
	struct dof_enabling *den = tl_den("BEGIN { system(\"echo %d\", 1); "
	    "raise(9); chill(10); stop(); panic(); breakpoint(); "
	    "freopen(\"\"); }", 1);
	const struct dof_laction *a = den->den_ecbs[0].le_acts;

	ck_assert_uint_eq(a[6].la_kind, DTRACEACT_FREOPEN);
	ck_assert_str_eq(a[6].la_fmt, ".");
	ck_assert_uint_eq(a[0].la_kind, DTRACEACT_SYSTEM);
	ck_assert_str_eq(a[0].la_fmt, "echo %d");
	ck_assert_uint_eq(a[1].la_kind, DTRACEACT_RAISE);
	ck_assert_uint_eq(a[2].la_kind, DTRACEACT_CHILL);
	ck_assert_uint_eq(a[3].la_kind, DTRACEACT_STOP);
	ck_assert_uint_eq(a[4].la_kind, DTRACEACT_PANIC);
	ck_assert_uint_eq(a[5].la_kind, DTRACEACT_BREAKPOINT);
	dof_free(den);
}
END_TEST

/*
 * stack() and the symbol actions as aggregation keys are encoded as those
 * actions (checked in the disassembly: the loader takes only DIFEXPR keys
 * so far).
 */
START_TEST(tst_agg_action_keys)
{
	const char *src = "profile-997 { @[stack(), func(arg0)] = count(); "
	    "@u[ustack(3)] = sum(1); }";
	struct dc_opts opts;
	struct dc_out o;
	char *text = NULL;
	size_t len = 0;

	memset(&opts, 0, sizeof (opts));
	opts.dco_dis = open_memstream(&text, &len);
	ck_assert_int_eq(dc_compile(src, strlen(src), "t.d", &opts, &o), 0);
	fclose(opts.dco_dis);
	ck_assert_ptr_nonnull(strstr(text, "action 2: STACK arg 0x14\n"));
	ck_assert_ptr_nonnull(strstr(text, "action 3: SYM\n"));
	ck_assert_ptr_nonnull(strstr(text, "action 4: COUNT ntuple 3\n"));
	ck_assert_ptr_nonnull(strstr(text, "action 6: USTACK arg 0x3\n"));
	ck_assert_ptr_nonnull(strstr(text, "action 7: SUM ntuple 2\n"));
	free(text);
	dc_out_free(&o);
}
END_TEST

/* args[] of one fbt entry probe is typed from the function's BTF. */
START_TEST(tst_fbt_args_typed_from_btf)
{
	struct dof_enabling *den = tl_den("fbt::vfs_read:entry "
	    "{ trace(args[0]->f_flags); trace(args[2]); trace(args[3]); }\n"
	    "fbt::vfs_*:entry { trace(args[0]); }", 0);
	const struct dof_laction *a = den->den_ecbs[0].le_acts;

	ck_assert_uint_eq(a[0].la_difo->do_rtype.dtdt_size, 4);
	ck_assert_uint_eq(a[1].la_difo->do_rtype.dtdt_size, 8);
	ck_assert_uint_eq(a[2].la_difo->do_rtype.dtdt_ckind, DIF_CTF_POINTER);
	ck_assert_uint_eq(den->den_ecbs[1].le_acts[0].la_difo->do_rtype.dtdt_ckind,
	    DIF_CTF_INTEGER);
	dof_free(den);
}
END_TEST

START_TEST(tst_vartab_entries)
{
	struct dof_enabling *den = tl_den("BEGIN { x = 1; self->y = x; "
	    "this->z = \"s\"; a[pid] = x; }", 0);
	const struct dof_laction *a = den->den_ecbs[0].le_acts;
	const struct dif_object *d = a[3].la_difo;
	uint32_t i, found = 0;

	for (i = 0; i < d->do_varlen; i++) {
		const struct dif_var *v = &d->do_vartab[i];
		const char *name = d->do_strtab + v->dtdv_name;

		if (strcmp(name, "x") == 0) {
			ck_assert_uint_eq(v->dtdv_id, 0x500);
			ck_assert_uint_eq(v->dtdv_flags, DIFV_F_REF);
			found++;
		} else if (strcmp(name, "a") == 0) {
			ck_assert_uint_eq(v->dtdv_id, 0x501);
			ck_assert_uint_eq(v->dtdv_kind, DIFV_KIND_ARRAY);
			ck_assert_uint_eq(v->dtdv_flags, DIFV_F_MOD);
			found++;
		} else if (strcmp(name, "pid") == 0) {
			ck_assert_uint_eq(v->dtdv_id, DIF_VAR_PID);
			found++;
		}
	}
	ck_assert_uint_eq(found, 3);
	d = a[2].la_difo;
	ck_assert_uint_eq(d->do_varlen, 1);
	ck_assert_uint_eq(d->do_vartab[0].dtdv_scope, DIFV_SCOPE_LOCAL);
	ck_assert_uint_eq(d->do_vartab[0].dtdv_type.dtdt_kind,
	    DIF_TYPE_STRING);
	ck_assert_uint_eq(d->do_vartab[0].dtdv_type.dtdt_size, 256);
	ck_assert_uint_eq(a[1].la_difo->do_vartab[1].dtdv_scope,
	    DIFV_SCOPE_THREAD);
	dof_free(den);
}
END_TEST

/* ---- diagnostics ---- */

static void
tl_reject(const char *src, const char *tag, int line)
{
	struct dc_out o;
	int rc = tl_compile(src, &o, 0);

	ck_assert_msg(rc == -1, "compiled but should fail with %s: %s", tag,
	    src);
	ck_assert_msg(strcmp(o.dco_tag, tag) == 0, "%s: want %s, got %s", src,
	    tag, o.dco_diag);
	ck_assert_msg(o.dco_line == line, "%s: want line %d, got %s", src,
	    line, o.dco_diag);
	ck_assert_ptr_null(o.dco_dof);
}

struct tl_err {
	const char	*te_tag;
	const char	*te_src;
	int		te_line;
};

static const struct tl_err tl_errs[] = {
	{ "D_AGG_REDEF", "BEGIN { @a = count(); }\nEND { @a = sum(1); }", 2 },
	{ "D_PROTO_LEN", "BEGIN { @a[1] = count(); @a[1, 2] = count(); }", 1 },
	{ "D_PROTO_LEN", "BEGIN { a[1] = 1; trace(a[1, 2]); }", 1 },
	{ "D_PROTO_ARG", "BEGIN { a[1] = 1; trace(a[\"x\"]); }", 1 },
	{ "D_PROTO_ARG", "BEGIN {\n trace(strlen(1)); }", 2 },
	{ "D_PROTO_LEN", "BEGIN { trace(substr(\"a\")); }", 1 },
	{ "D_AGG_FUNC", "BEGIN { @a = 1; }", 1 },
	{ "D_AGG_FUNC", "BEGIN { count(); }", 1 },
	{ "D_AGG_SCALAR", "BEGIN { @a = sum(\"s\"); }", 1 },
	{ "D_AGG_UNDEF", "BEGIN { printa(@nope); }", 1 },
	{ "D_LQUANT_BASETYPE", "BEGIN { @a = lquantize(1, pid, 10); }", 1 },
	{ "D_LQUANT_MISMATCH", "BEGIN { @a = lquantize(1, 10, 10); }", 1 },
	{ "D_LQUANT_STEPVAL", "BEGIN { @a = lquantize(1, 0, 10, 0); }", 1 },
	{ "D_LQUANT_STEPLARGE", "BEGIN { @a = lquantize(1, 0, 10, 20); }", 1 },
	{ "D_LQUANT_STEPSMALL", "BEGIN { @a = lquantize(1, 0, 100000); }", 1 },
	{ "D_LQUANT_MATCHSTEP", "BEGIN { @a = lquantize(1, 0, 100, 10); "
	    "@a = lquantize(1, 0, 100, 5); }", 1 },
	{ "D_LLQUANT_FACTORVAL", "BEGIN { @a = llquantize(1, 70000, 0, 6, 20); }",
	    1 },
	{ "D_LLQUANT_MAGRANGE", "BEGIN { @a = llquantize(1, 10, 6, 6, 20); }",
	    1 },
	{ "D_LLQUANT_FACTOREVEN", "BEGIN { @a = llquantize(1, 10, 0, 6, 15); }",
	    1 },
	{ "D_LLQUANT_FACTORNSTEPS", "BEGIN { @a = llquantize(1, 10, 0, 6, 5); }",
	    1 },
	{ "D_LLQUANT_MAGTOOBIG", "BEGIN { @a = llquantize(1, 10, 0, 30, 10); }",
	    1 },
	{ "D_SPEC_SPEC", "BEGIN { speculate(1); speculate(1); }", 1 },
	{ "D_SPEC_DREC", "BEGIN { trace(1); speculate(1); }", 1 },
	{ "D_COMM_DREC", "BEGIN { trace(1); commit(1); }", 1 },
	{ "D_COMM_COMM", "BEGIN { commit(1); commit(1); }", 1 },
	{ "D_DIV_ZERO", "BEGIN { x = 1 % 0; }", 1 },
	{ "D_OP_INT", "BEGIN { x = \"a\" << 1; }", 1 },
	{ "D_OP_ARITH", "BEGIN { x = \"a\" * 1; }", 1 },
	{ "D_TRACE_VOID", "BEGIN { trace(bcopy(\"a\", alloca(1), 1)); }", 1 },
	{ "D_CLEAR_AGGARG", "BEGIN { clear(1); }", 1 },
	{ "D_NORMALIZE_SCALAR", "BEGIN { @a = count(); normalize(@a, \"x\"); }",
	    1 },
	{ "D_LLQUANT_FACTORSMALL", "BEGIN { @a = llquantize(1, 1, 0, 6, 20); }",
	    1 },
	{ "D_DREC_COMM", "BEGIN { commit(1);\n trace(1); }", 2 },
	{ "D_AGG_SPEC", "BEGIN { speculate(1); @a = count(); }", 1 },
	{ "D_AGG_COMM", "BEGIN { commit(1); @a = count(); }", 1 },
	{ "D_EXIT_SPEC", "BEGIN { speculate(1); exit(0); }", 1 },
	{ "D_ACT_DESTR", "BEGIN {\n\n raise(9); }", 3 },
	{ "D_ACT_DESTR", "BEGIN { copyout(0, 0, 1); }", 1 },
	{ "D_MACRO_UNDEF", "BEGIN { trace($5); }", 1 },
	{ "D_SYM_NOSUPP", "BEGIN { trace(`jiffies); }", 1 },
	/* dtrace's tags for printf() formats and arguments */
	{ "D_SYNTAX", "BEGIN { printf(\"%3$d\", 1); }", 1 },
	{ "D_SYNTAX", "BEGIN { printf(\"%3\", 1); }", 1 },
	{ "D_SYNTAX", "BEGIN { printf(\"%1.2.3d\", 1); }", 1 },
	{ "D_SYNTAX", "BEGIN { printf(\"%d %Z\", \"s\"); }", 1 },
	{ "D_PRINTF_DYN_PROTO", "BEGIN { printf(\"%s %.*d\", \"a\"); }", 1 },
	{ "D_PRINTF_DYN_TYPE", "BEGIN { printf(\"%*d\", \"a\", 1); }", 1 },
	{ "D_PRINTF_AGG_CONV", "BEGIN { printf(\"%@d\", 1); }", 1 },
	{ "D_PRINTF_ARG_TYPE", "BEGIN { @a = count(); printf(\"%d\", @a); }",
	    1 },
	{ "D_PRINTA_PROTO", "BEGIN { printa(\"%d\"); }", 1 },
	{ "D_PRINTA_AGGKEY", "BEGIN { @a[1] = count(); @b = count();\n"
	    "printa(\"%d %@d %@d\", @a, @b); }", 2 },
	{ "D_PRINTA_AGGPROTO", "BEGIN { @a[1] = count(); @b[\"x\"] = count();"
	    " printa(@a, @b); }", 1 },
	{ "D_PRINTF_ARG_TYPE", "BEGIN { @[stack()] = count(); "
	    "printa(\"%p %@d\", @); }", 1 },
	{ "D_PRINTF_ARG_PROTO", "BEGIN { @a[1] = count(); "
	    "printa(\"%d %d %@d\", @a); }", 1 },
	{ "D_STACK_PROTO", "BEGIN { stack(1, 2); }", 1 },
	{ "D_USTACK_FRAMES", "BEGIN { ustack(0, 10); }", 1 },
	{ "D_USTACK_STRSIZE", "BEGIN { ustack(1, \"x\"); }", 1 },
	{ "D_USTACK_PROTO", "BEGIN { ustack(1, 10, 2); }", 1 },
	{ "D_DREC_COMM", "BEGIN { commit(1); exit(0); }", 1 },
	{ "D_COMM_DREC", "BEGIN { exit(0); commit(1); }", 1 },
	{ "D_CHR_NL", "BEGIN { trace('a\n'); }", 1 },
	{ "D_CHR_OFLOW", "BEGIN { trace('123456789'); }", 1 },
	{ "D_ADDROF_LVAL", "BEGIN { trace(&(pid + 1)); }", 1 },
	{ "D_SIZEOF_TYPE", "BEGIN { trace(sizeof (void)); }", 1 },
	{ "D_UNKNOWN", "enum e { A, B, A };\nBEGIN { }", 1 },
	{ "D_SYNTAX", "BEGIN {\nx = 1.5; }", 2 },
	{ "D_SYNTAX", "BEGIN { x = 2e3; }", 1 },
	{ "D_VAR_UNDEF", "BEGIN {\ntrace(this->nowhere); }", 2 },
	{ "D_VAR_UNDEF", "BEGIN { trace(self->nowhere); }", 1 },
	{ "D_DECL_VOIDOBJ", "struct s { int f(); };\nBEGIN { }", 1 },
	{ "D_PRAGMA_UNUSED", "BEGIN { }\n#pragma D attributes "
	    "Stable/Stable/Common x;\nint x;\n", 2 },
	{ "D_PROTO_LEN", "inline int f[int a] = a;\nBEGIN { trace(f[1, 2]); }",
	    2 },
	{ "D_DECL_IDRED", "enum e { A };\nenum f { A };\nBEGIN { }", 2 },
	{ "D_OP_INCOMPAT", "BEGIN { trace(\"a\" == (int *)0); }", 1 },
	/* declarations: prototypes and extern declarators */
	{ "D_DECL_PARMCLASS", "int f(static int);\nBEGIN { }", 1 },
	{ "D_DECL_PROTO_NAME", "int f(void v);\nBEGIN { }", 1 },
	{ "D_DECL_PROTO_VOID", "int f(int, void);\nBEGIN { }", 1 },
	{ "D_DECL_PROTO_TYPE", "int f(int a[int]);\nBEGIN { }", 1 },
	{ "D_DECL_PROTO_TYPE", "int x[void, char];\nBEGIN { }", 1 },
	{ "D_DECL_PROTO_VARARGS", "int a[...];\nBEGIN { }", 1 },
	{ "D_DECL_BADCLASS", "static int x;\nBEGIN { }", 1 },
	{ "D_DECL_USELESS", "int;\nBEGIN { }", 1 },
	{ "D_DECL_SCOPE", "int `x;\nBEGIN { }", 1 },
	{ "D_SYNTAX", "BEGIN {\n inline int x = 1; }", 2 },
	{ "D_DECL_COMBO", "BEGIN { trace(sizeof (float int)); }", 1 },
	/* translators are checked when declared */
	{ "D_XLATE_SOU", "struct i { int a; };\n"
	    "translator int < struct i *p > { };\nBEGIN { }", 2 },
	{ "D_XLATE_MEMB", "struct i { int a; };\nstruct o { int b; };\n"
	    "translator struct o < struct i *p > { c = p->a; };\nBEGIN { }",
	    3 },
	{ "D_XLATE_REDECL", "struct i { int a; };\nstruct o { int b; };\n"
	    "translator struct o < struct i *p > { b = p->a; };\n"
	    "translator struct o < struct i *p > { b = p->a; };\nBEGIN { }",
	    4 },
	{ "D_XLATE_INCOMPAT", "struct i { int a; };\nstruct o { int *b; };\n"
	    "translator struct o < struct i *p > { b = p->a; };\nBEGIN { }",
	    3 },
	{ "D_TYPE_MEMBER", "struct i { int a; };\nstruct o { int b; };\n"
	    "translator struct o < struct i *p > { b = p->x; };\nBEGIN { }",
	    3 },
	{ "D_OP_INCOMPAT", "struct s { int a; } x;\nstruct t { int a; } y;\n"
	    "BEGIN { x = y; }", 3 },
	{ "D_OP_WRITE", "BEGIN { pid = 1; }", 1 },
	{ "D_OP_WRITE", "BEGIN { args[0] = 1; }", 1 },
	{ "D_OP_INCOMPAT", "BEGIN { x = 1; x = \"s\"; }", 1 },
	{ "D_OP_INCOMPAT", "BEGIN { s = \"a\"; s += 1; }", 1 },
	{ "D_IDENT_UNDEF", "BEGIN { trace(nosuch); }", 1 },
	{ "D_DECL_IDRED", "int x;\nint x;\nBEGIN { }", 2 },
	{ "D_ACT_EXPR", "BEGIN { x = trace(1); }", 1 },
	{ "D_IDENT_BADREF", "BEGIN { a[1] = 2; trace(a); }", 1 },
	{ "D_ARR_BADREF", "int x[5];\nBEGIN { x[1, 2] = 1; }", 2 },
	{ "D_FUNC_IDENT", "BEGIN { trace(1()); }", 1 },
	{ "D_PRAGERR", "\n#pragma D error \"no\"\nBEGIN { }", 2 },
	{ "D_PRAGMA_MALFORM", "#pragma D attributes Stable/Stable/Common\n"
	    "BEGIN { }", 1 },
	{ "D_OP_VFPTR", "int p;\nBEGIN { p = 1; p -= alloca(10); }", 2 },
	{ "D_UNKNOWN", "struct s { int a; };\nBEGIN { trace(offsetof(struct s, "
	    "b)); }", 2 },
	{ "D_DECL_ENCONST", "enum e { A = pid };\nBEGIN { }", 1 },
	{ "D_OP_VFPTR", "BEGIN { p = (void *)0; p++; }", 1 },
	{ "D_ACT_SPEC", "BEGIN { speculate(1); copyout(0, 0, 1); }", 1 },
	{ "D_PROTO_ARG", "BEGIN { tracemem(123, \"s\"); }", 1 },
	{ "D_IDENT_UNDEF", "BEGIN { trace(sizeof (`)); }", 1 },
	{ "D_SYNTAX", "BEGIN { trace($-1); }", 1 },
	{ "D_IDX_BADTYPE", "BEGIN { x = 2; trace(x[1]); }", 1 },
	{ "D_DECL_LOCASSC", "this int a[int];\nBEGIN { }", 1 },
	{ "D_ARR_LOCAL", "BEGIN {\n this->a[1] = 2; }", 2 },
	{ "D_AGG_MDIM", "BEGIN { @a[1][2] = count(); }", 1 },
	{ "D_TRACEMEM_SIZE", "BEGIN { tracemem(arg0, arg1); }", 1 },
	{ "D_ARGS_IDX", "fbt::vfs_read:entry { trace(args[9]); }", 1 },
	{ "D_DEREF_NONPTR", "BEGIN { trace(*pid); }", 1 },
	{ "D_FREOPEN_INVALID", "#pragma D option destructive\n"
	    "BEGIN { freopen(\".\"); }", 2 },
	{ "D_FUNC_UNDEF", "BEGIN { trace(nosuchfn(1)); }", 1 },
	{ "D_PRAGMA_OPTSET", "#pragma D option engine=gpu\nBEGIN { }", 1 },
	{ "D_DECL_UNSUP", "provider p { probe x(); };\nBEGIN { }", 1 },
	{ "D_TYPE_MEMBER", "struct s { int a; };\nBEGIN { this->p = "
	    "(struct s *)alloca(4); this->p->b = 1; }", 2 },
	{ "D_DECL_TYPERED", "struct s { int a; };\nstruct s { int b; };\n"
	    "BEGIN { }", 2 },
	{ "D_XLATE_NONE", "struct o { int a; };\nBEGIN { trace(xlate <struct o> "
	    "(1).a); }", 2 },
	{ "D_PRED_SCALAR", "struct s { int a; };\nstruct s v;\nBEGIN /v/ { }",
	    3 },
	{ "D_DECL_BFCONST", "struct s {\n int a : -1; };\nBEGIN { }", 2 },
	{ "D_DECL_BFCONST", "struct s { int a : 0; };\nBEGIN { }", 1 },
	{ "D_DECL_BFSIZE", "struct s { char a : 9; };\nBEGIN { }", 1 },
	{ "D_DECL_BFTYPE", "struct t { int x; };\nstruct s { struct t a : 1; };"
	    "\nBEGIN { }", 2 },
	{ "D_SIZEOF_BITFIELD", "struct s { int a : 1; } v;\nBEGIN {\n"
	    "trace(sizeof (v.a)); }", 3 },
	{ "D_ADDROF_BITFIELD", "struct s { int a : 1; } v;\nBEGIN {\n"
	    "trace(&v.a); }", 3 },
	{ "D_OFFSETOF_BITFIELD", "struct s { int a : 1; };\nBEGIN {\n"
	    "trace(offsetof(struct s, a)); }", 3 },
	{ "D_DIV_ZERO", "BEGIN {\n trace(123 / ((7 - 7) * 9)); }", 2 },
	{ "D_PDESC_ZERO", "BEGIN { }\nprofile-1us { }", 2 },
	{ "D_DECL_CLASS", "self this int x;\nBEGIN { }", 1 },
	{ "D_DECL_ARRNULL", "int a[];\nBEGIN { }", 1 },
	{ "D_DECL_ARRSUB", "int a[-7];\nBEGIN { }", 1 },
	{ "D_DECL_ARRBIG", "int a[88294967295];\nBEGIN { }", 1 },
	{ "D_OP_ARRFUN", "int a[2];\nint b[2];\nBEGIN { b = a; }", 3 },
	{ "D_OP_INCOMPAT", "void *p;\nBEGIN { trace((int)(p + 1)); }", 2 },
	{ "D_ADDROF_VAR", "BEGIN { @a = count();\n trace(&@a); }", 2 },
	{ "D_DECL_COMBO", "struct s { int a; }\nstruct t { int b; };\n"
	    "BEGIN { }", 2 },
	{ "D_ADDROF_VAR", "BEGIN { x[1] = 2;\n trace(&x[1]); }", 2 },
	{ "D_SYNTAX", "BEGIN {\n int x = 1; }", 2 },
	{ "D_PROTO_LEN", "BEGIN { x = progenyof(trace()); }", 1 },
	{ "D_STRINGOF_TYPE", "BEGIN { x = stringof(trace(1)); }", 1 },
	{ "D_OP_ACT", "BEGIN { x = pid ? trace(1) : trace(2); }", 1 },
	{ "D_OP_ARITH", "BEGIN { x = 1 + -trace(1); }", 1 },
	{ "D_OP_SCALAR", "BEGIN { x = \"s\" && 1; }", 1 },
	{ "D_VAR_UNDEF", "BEGIN { nosuch += 1; }", 1 },
	{ "D_PRINTF_ARG_TYPE", "BEGIN { printf(\"%d\", printf(\"x\")); }", 1 },
	{ "D_KEY_TYPE", "BEGIN { @a[trace(1)] = count(); }", 1 },
	{ "D_KEY_TYPE", "BEGIN { @a[1, (void)0] = count(); }", 1 },
	{ "D_PDESC_ZERO", "tick-n { }", 1 },
	{ "D_PDESC_ZERO", "profile:::tick-3parsecs { }", 1 },
	{ "D_DECL_COMBO", "BEGIN { trace((char int)0); }", 1 },
	{ "D_DECL_COMBO", "BEGIN { trace((unsigned signed)0); }", 1 },
	{ "D_DECL_CHARATTR", "BEGIN { trace((char long)0); }", 1 },
	{ "D_UNKNOWN", "BEGIN { trace((short long)0); }", 1 },
	{ "D_DECL_LONGINT", "long struct s { int a; };\nBEGIN { }", 1 },
	{ "D_DECL_SIGNINT", "unsigned struct s { int a; };\nBEGIN { }", 1 },
	{ "D_DECL_VOIDATTR", "short void *p;\nBEGIN { }", 1 },
	{ "D_DECL_INCOMPLETE", "struct r {\n struct nosuch_t x; };\nBEGIN { }",
	    2 },
	{ "D_DECL_INCOMPLETE", "struct r { int a;\n struct r self; };\n"
	    "BEGIN { }", 2 },
	{ "D_DIV_ZERO", "BEGIN { trace(1 % (2 - 2)); }", 1 },
	{ "D_PROTO_LEN", "BEGIN { chill(1, 2); }", 1 },
	{ "D_PROTO_ARG", "BEGIN { raise(\"x\"); }", 1 },
	{ "D_PROTO_LEN", "BEGIN { copyout(1); }", 1 },
	{ "D_TRUNC_PROTO", "BEGIN { @a = count(); trunc(); }", 1 },
	{ "D_CLEAR_PROTO", "BEGIN { @a = count(); clear(); }", 1 },
	{ "D_NORMALIZE_PROTO", "BEGIN { @a = count(); normalize(@a); }", 1 },
	{ "D_TRUNC_SCALAR", "BEGIN { @a = count(); trunc(@a, @a); }", 1 },
	{ "D_IDENT_UNDEF", "BEGIN { trace(@nope + 1); }", 1 },
	{ "D_AGG_REF", "BEGIN { @a = count(); trace(@a + 1); }", 1 },
	{ "D_KEY_TYPE", "BEGIN { @a = count();\n @b[@a] = count(); }", 2 },
	{ "D_AGG_NULL", "BEGIN { @a[1]; }", 1 },
	{ "D_FUNC_UNDEF", "BEGIN { @a[1] = nosuch(); }", 1 },
	{ "D_LQUANT_STEPTYPE", "BEGIN { @a = lquantize(1, 0, 10, -1); }", 1 },
	{ "D_PROTO_ARG", "BEGIN { @a = lquantize(\"s\", 0, 10, 1); }", 1 },
};

START_TEST(err_lang_tags)
{
	const struct tl_err *e = &tl_errs[_i];

	tl_reject(e->te_src, e->te_tag, e->te_line);
}
END_TEST

START_TEST(tst_options_and_pragmas)
{
	const char *src = "#pragma D option errtags\n"
	    "#pragma D option engine=user\n"
	    "#pragma D option aggsortkey\n"
	    "#pragma D option cleanrate=50hz\n"
	    "#pragma D option switchrate=100ms\n"
	    "#pragma D option bufresize=manual\n"
	    "#pragma D option defaultargs\n"
	    "#pragma D attributes Evolving/Evolving/Common provider foo\n"
	    "#pragma D binding \"1.0\" bar\n"
	    "BEGIN { trace($9); }";
	struct dof_enabling *den = NULL;
	struct kdt_err err;
	struct dc_out o;

	ck_assert_int_eq(tl_compile(src, &o, 0), 0);
	ck_assert_int_eq(o.dco_errtags, 1);
	ck_assert_int_eq(o.dco_engine, 1);
	ck_assert_int_eq(dof_load(o.dco_dof, o.dco_dofsz, &den, &err), 0);
	ck_assert_uint_eq(den->den_opts[DTRACEOPT_AGGSORTKEY], 1);
	ck_assert_uint_eq(den->den_opts[DTRACEOPT_CLEANRATE], 20000000);
	ck_assert_uint_eq(den->den_opts[DTRACEOPT_SWITCHRATE], 100000000);
	ck_assert_uint_eq(den->den_opts[DTRACEOPT_BUFRESIZE], 1);
	dof_free(den);
	dc_out_free(&o);
}
END_TEST

/* The first diagnostic carries errtags even when compilation fails. */
START_TEST(err_errtags_reported_on_failure)
{
	const char *src = "#pragma D option errtags\nBEGIN { trace(nosuch); }";
	struct dc_out o;

	ck_assert_int_eq(tl_compile(src, &o, 0), -1);
	ck_assert_int_eq(o.dco_errtags, 1);
	ck_assert_str_eq(o.dco_tag, "D_IDENT_UNDEF");
	ck_assert_int_eq(o.dco_line, 2);
}
END_TEST

/* Any input: a DOF or exactly one well-formed diagnostic, never a crash. */
static void
tl_any(const char *src, size_t len)
{
	struct dc_opts opts;
	struct dc_out o;

	memset(&opts, 0, sizeof (opts));
	opts.dco_btf = "/nonexistent/vmlinux";	/* kernel types: fail fast */
	if (dc_compile(src, len, "g.d", &opts, &o) == 0) {
		ck_assert_ptr_nonnull(o.dco_dof);
		dc_out_free(&o);
		return;
	}
	ck_assert_msg(o.dco_tag != NULL && strncmp(o.dco_tag, "D_", 2) == 0,
	    "%s", o.dco_diag);
	ck_assert_msg(strncmp(o.dco_diag, "g.d", 3) == 0, "%s", o.dco_diag);
}

static const char tl_rich[] =
    "struct p { int x; char c[4]; };\nunion u { int i; short s; };\n"
    "enum e { A, B = 3 };\ntypedef struct p p_t;\nself int t;\n"
    "inline int K = 2;\n"
    "translator struct p < int v > { x = v * 2; };\n"
    "BEGIN /K > 1/ { x = 1; a[x, \"k\"] += 2; self->t++; this->q = "
    "(struct p *)alloca(sizeof (p_t)); this->q->x = B; "
    "@c[probename] = count(); @l = lquantize(x, 0, 10, 2); "
    "printf(\"%d %s\\n\", xlate <struct p> (3).x, strjoin(\"a\", \"b\")); "
    "printa(@c); trunc(@l, 1); exit(0); }\n";

/* Mutated language-rich programs never crash the compiler. */
START_TEST(tst_mutated_programs_never_crash)
{
	static const char alphabet[] = "@$[]{}()/;,.:*-+!~<>=&|^?\"'\\%#0x1"
	    "self this struct union enum xlate sizeof offsetof ++ -- -> \n";
	char buf[sizeof (tl_rich)];
	unsigned seed = 4242;
	size_t i, n = sizeof (tl_rich) - 1, k;

	for (k = 0; k < 2000; k++) {
		memcpy(buf, tl_rich, n);
		for (i = 0; i < 1 + k % 4; i++)
			buf[rand_r(&seed) % n] = alphabet[rand_r(&seed) %
			    (sizeof (alphabet) - 1)];
		tl_any(buf, n);
		tl_any(buf, rand_r(&seed) % n);
	}
	tl_any(tl_rich, n);
}
END_TEST

static Suite *
compiler_lang_suite(void)
{
	Suite *s = suite_create("compiler_lang");
	TCase *x = tcase_create("execution");
	TCase *c = tcase_create("encoding");
	TCase *e = tcase_create("diagnostics");

	tcase_add_loop_test(x, tst_lang_values, 0,
	    sizeof (tl_cases) / sizeof (tl_cases[0]));
	tcase_add_test(x, tst_lang_state_across_firings);
	tcase_add_test(c, tst_agg_encoding);
	tcase_add_test(c, tst_printa_and_libacts);
	tcase_add_test(c, tst_stack_spec_and_empty_clause);
	tcase_add_test(c, tst_destructive_with_w);
	tcase_add_test(c, tst_vartab_entries);
	tcase_add_test(c, tst_fbt_args_typed_from_btf);
	tcase_add_test(c, tst_agg_action_keys);
	tcase_add_test(c, tst_options_and_pragmas);
	tcase_add_loop_test(e, err_lang_tags, 0,
	    sizeof (tl_errs) / sizeof (tl_errs[0]));
	tcase_add_test(e, err_errtags_reported_on_failure);
	tcase_add_test(e, tst_mutated_programs_never_crash);
	/* 4,000 compiles under the sanitizers: ~5 s of CPU, more on a
	   loaded host than check's default 4 s */
	tcase_set_timeout(e, 60);
	suite_add_tcase(s, x);
	suite_add_tcase(s, c);
	suite_add_tcase(s, e);
	return s;
}

KT_MAIN(compiler_lang_suite)
