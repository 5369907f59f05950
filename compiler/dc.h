/*
 * dc.h -- the D compiler's library interface.
 *
 * The compiler turns D source text into DOF (common/dof.h).  Callers are the
 * `kdt` command (consumer/kdt_main.c), the unit tests and the VM tooling;
 * they all go through dc_compile() and never see the compiler's internals
 * (compiler/dc_impl.h).  The pipeline is:
 *
 *	dc_compile.c  dc_compile(): options, arena, diagnostics
 *	dc_lex.c      text -> tokens
 *	dc_parse.c    tokens -> clauses, statements and expression trees
 *	dc_opt.c      #pragma D option / -x settings
 *	dc_type.c     types of expressions (D types, built-in variables)
 *	dc_btf.c      kernel struct types from BTF (libbpf)
 *	dc_printf.c   printf format checking
 *	dc_var.c      user variables, aggregations, inlines, macro variables
 *	dc_subr.c     subroutine prototypes (strlen, copyin, ...)
 *	dc_act.c      statements -> actions (trace, printa, aggregations, ...)
 *	dc_decl.c     structs, unions, enums and translators defined in D
 *	dc_cg.c       expression trees -> DIF objects
 *	dc_dof.c      clauses + DIF objects -> DOF bytes
 *	dc_dis.c      DIF objects -> text (kdt -S)
 *	dc_lib.c      the D library compiled before every program
 *	              (psinfo_t, lwpsinfo_t, curpsinfo, curlwpsinfo)
 *
 * print() of a scalar or string carries the type's name as its DIFEXPR
 * action's format; print() of a struct, union, enum or array carries the
 * type layout of common/dof_ptype.h (written by dc_ptype.c).
 *
 * A failed compilation produces exactly one diagnostic, formatted
 * "file:line:col: [D_TAG] message"; the tag is stable and tests key on it.
 */
#ifndef KDT_DC_H
#define KDT_DC_H

#include <stdint.h>
#include <stddef.h>
#include <stdio.h>

#define DC_DIAG_LEN	512
#define DC_MAXOPTS	32

/* Compile-time settings coming from the command line. */
struct dc_opts {
	const char	*dco_btf;	/* BTF file, NULL: $KDT_BTF or sysfs */
	const char	*dco_xopts[DC_MAXOPTS];	/* "name[=value]" (-x, -q) */
	int		dco_nxopts;
	FILE		*dco_dis;	/* non-NULL: disassemble here (-S) */
	const char	*const *dco_argv; /* macro arguments: $0 is argv[0] */
	int		dco_argc;
	int		dco_destructive; /* -w: allow destructive actions */
	int		dco_zdefs;	/* -Z */
	uint32_t	dco_target;	/* $target: the first -c or -p
					   process, 0 without one */
};

/* Region placement of an anonymous enabling (compiler-side options). */
#define DC_REGION_SIZE_DEFAULT	(16ull << 20)
#define DC_REGION_ADDR_DEFAULT	0x10000000ull
#define DC_REGSET_SIZE		0x1	/* regionsize was given */
#define DC_REGSET_ADDR		0x2	/* regionaddr was given */

/* Option "encoding" (dco_encoding): unset, ascii or utf8. */
#define DC_ENC_UNSET	0
#define DC_ENC_ASCII	1
#define DC_ENC_UTF8	2

struct dc_out {
	uint8_t		*dco_dof;	/* DOF image, malloc'ed */
	size_t		dco_dofsz;
	uint64_t	dco_regsize;	/* -x regionsize / pragma */
	uint64_t	dco_regaddr;	/* -x regionaddr / pragma */
	int		dco_regset;	/* DC_REGSET_*: which of the two were
					   given (else they are the defaults) */
	const char	*dco_tag;	/* tag of the diagnostic, or NULL */
	char		dco_msg[DC_DIAG_LEN];	/* message without position */
	char		dco_diag[2 * DC_DIAG_LEN];	/* "file:line:col: [TAG] msg" */
	int		dco_line;	/* position of the diagnostic */
	int		dco_col;
	int		dco_errtags;	/* option errtags was set */
	int		dco_droptags;	/* option droptags was set */
	int		dco_noerror;	/* option noerror: faults not reported */
	int		dco_encoding;	/* option encoding: DC_ENC_* (the
					   consumer draws bars with it) */
	int		dco_engine;	/* option engine: 0 auto, 1 user, 2 kern */
	int		dco_region;	/* option region (live buffers in the
					   reserved region) was set */
	int		dco_quiet;	/* option quiet was set */
	int		dco_destructive; /* option destructive was set */
	int		dco_zdefs;	/* -Z or option zdefs: empty matches ok */
};

/*
 * Compile "len" bytes of D source named "name" (used in diagnostics).
 * Returns 0 with out->dco_dof set, or -1 with the diagnostic in "out".
 * "o" may be NULL.  Free the result with dc_out_free().
 */
int dc_compile(const char *src, size_t len, const char *name,
    const struct dc_opts *o, struct dc_out *out);
void dc_out_free(struct dc_out *out);
/*
 * The i-th option name -x takes (dc_opt.c), NULL past the last;
 * *takes_value: written name=value.
 */
const char *dc_opt_name(size_t i, int *takes_value);
/*
 * A setopt() at run time: the DTRACEOPT_* id and value (rates in ns) of
 * "name"="value" (value NULL: none) as -x reads them (dc_opt.c).  0, or
 * -1: no such DOF option, or a bad value.
 */
int dc_opt_parse(const char *name, const char *value, uint32_t *opt,
    uint64_t *val);

/*
 * Argument types of kernel probes, for `kdt -l -v` (dc_btf.c): the types
 * the compiler gives args[] of fbt, sdt and syscall probes, as C
 * declarations ("struct task_struct *").  dc_argtypes_open() loads and
 * indexes BTF file "btf" (NULL: $KDT_BTF, else the running kernel's),
 * NULL with a message in "err" on failure; dc_argtypes_get() writes up
 * to "max" types and returns their count, or -1 when the probe's types
 * are unknown.
 */
#define DC_ARGTYPE_LEN	128
struct dc_argtypes;
struct dc_argtypes *dc_argtypes_open(const char *btf, char *err,
    size_t errlen);
int dc_argtypes_get(struct dc_argtypes *a, const char *prov,
    const char *func, const char *name, char (*types)[DC_ARGTYPE_LEN],
    int max);
void dc_argtypes_close(struct dc_argtypes *a);

#endif /* KDT_DC_H */
