/*
 * dof.h -- the DTrace Object Format as kdt emits and loads it.
 *
 * DOF is the container that carries a compiled D program from the compiler
 * (compiler/dc_dof.c writes it) to the kernel (common/dof_load.c validates
 * and loads it, in kdt.ko and in the userspace tools alike).  We follow the
 * published layout (../shared/reference/dof-dif-facts.md, sections 1.x), so
 * every field below has the meaning given there; this header restates the
 * layout and pins every size.
 *
 *   +-----------+----------------------+-------------------------+----------+
 *   | dof_hdr   | section headers      | loadable section data   | comments |
 *   | 64 bytes  | secnum x 32 bytes    | (global STRTAB is last) | (no LOAD)|
 *   +-----------+----------------------+-------------------------+----------+
 *   |<------------------------ dh_loadsz ------------------------>|
 *   |<------------------------ dh_filesz ----------------------------------->|
 *
 * Header (struct dof_hdr):
 *
 *   OFFSET SIZE DESCRIPTION
 *        0   16 dh_ident: 7f 'D' 'O' 'F', model, encoding, DOF version,
 *               DIF version, #int regs, #tuple regs, 6 zero bytes
 *       16    4 dh_flags: 0
 *       20    4 dh_hdrsize: 64
 *       24    4 dh_secsize: 32
 *       28    4 dh_secnum: number of section headers
 *       32    8 dh_secoff: 64
 *       40    8 dh_loadsz: bytes the kernel needs
 *       48    8 dh_filesz: whole file
 *       56    8 dh_pad: 0
 *
 * Worked example: the first 16 bytes of every DOF kdt writes on x86-64
 * (LP64, little-endian, DOF version 1, DIF version 2, 8+8 registers):
 *
 *   7f 44 4f 46 02 01 01 02  08 08 00 00 00 00 00 00
 *
 * Section header (struct dof_sec), 32 bytes:
 *
 *   OFFSET SIZE DESCRIPTION
 *        0    4 ds_type    DOF_SECT_*
 *        4    4 ds_align   power of two
 *        8    4 ds_flags   DOF_SECF_LOAD
 *       12    4 ds_entsize entry size for tables, else 0
 *       16    8 ds_offset  file offset, multiple of ds_align
 *       24    8 ds_size    bytes
 *
 * Sections refer to each other by index (DOF_SECIDX_NONE = none) and to
 * strings by offset into a STRTAB (DOF_STRIDX_NONE = none).
 *
 * All multi-byte fields are in the producer's byte order; the loader accepts
 * only its native order (dh_ident[DOF_ID_ENCODING]).
 */
#ifndef KDT_DOF_H
#define KDT_DOF_H

#include "kdt_env.h"

/* dh_ident indices and values */
#define DOF_ID_MAG0		0
#define DOF_ID_MAG1		1
#define DOF_ID_MAG2		2
#define DOF_ID_MAG3		3
#define DOF_ID_MODEL		4
#define DOF_ID_ENCODING		5
#define DOF_ID_VERSION		6
#define DOF_ID_DIFVERS		7
#define DOF_ID_DIFIREG		8
#define DOF_ID_DIFTREG		9
#define DOF_ID_PAD		10
#define DOF_ID_SIZE		16

#define DOF_MAG_MAG0		0x7F
#define DOF_MAG_MAG1		'D'
#define DOF_MAG_MAG2		'O'
#define DOF_MAG_MAG3		'F'

#define DOF_MODEL_NONE		0
#define DOF_MODEL_ILP32		1
#define DOF_MODEL_LP64		2
#define DOF_MODEL_NATIVE	DOF_MODEL_LP64

#define DOF_ENCODE_NONE		0
#define DOF_ENCODE_LSB		1
#define DOF_ENCODE_MSB		2
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define DOF_ENCODE_NATIVE	DOF_ENCODE_LSB
#else
#define DOF_ENCODE_NATIVE	DOF_ENCODE_MSB
#endif

#define DOF_VERSION_1		1
#define DOF_VERSION_2		2
#define DOF_VERSION		DOF_VERSION_1

#define DIF_VERSION_2		2
#define DIF_VERSION		DIF_VERSION_2
#define DIF_DIR_NREGS		8	/* integer registers */
#define DIF_DTR_NREGS		8	/* tuple registers */

#define DOF_SECIDX_NONE		((uint32_t)-1)
#define DOF_STRIDX_NONE		((uint32_t)-1)

/* Section types (reference table 1.5). */
#define DOF_SECT_NONE		0
#define DOF_SECT_COMMENTS	1
#define DOF_SECT_SOURCE		2
#define DOF_SECT_ECBDESC	3
#define DOF_SECT_PROBEDESC	4
#define DOF_SECT_ACTDESC	5
#define DOF_SECT_DIFOHDR	6
#define DOF_SECT_DIF		7
#define DOF_SECT_STRTAB		8
#define DOF_SECT_VARTAB		9
#define DOF_SECT_RELTAB		10
#define DOF_SECT_TYPTAB		11
#define DOF_SECT_URELHDR	12
#define DOF_SECT_KRELHDR	13
#define DOF_SECT_OPTDESC	14
#define DOF_SECT_PROVIDER	15
#define DOF_SECT_PROBES		16
#define DOF_SECT_PRARGS		17
#define DOF_SECT_PROFFS		18
#define DOF_SECT_INTTAB		19
#define DOF_SECT_UTSNAME	20
#define DOF_SECT_XLTAB		21
#define DOF_SECT_XLMEMBERS	22
#define DOF_SECT_XLIMPORT	23
#define DOF_SECT_XLEXPORT	24
#define DOF_SECT_PREXPORT	25
#define DOF_SECT_PRENOFFS	26

#define DOF_SECF_LOAD		1

/* Loader limits (reference 1.9). */
#define DOF_MAX_SIZE		(8u << 20)	/* whole DOF */
#define DOF_MAX_DIFO_SIZE	(256u << 10)	/* one DIF object, all tables */
#define DOF_MAX_ACTIONS		16384		/* per ECB */
#define DOF_PROVNAMELEN		64
#define DOF_MODNAMELEN		64
#define DOF_FUNCNAMELEN		128
#define DOF_NAMELEN		64

struct dof_hdr {
	uint8_t		dh_ident[DOF_ID_SIZE];
	uint32_t	dh_flags;
	uint32_t	dh_hdrsize;
	uint32_t	dh_secsize;
	uint32_t	dh_secnum;
	uint64_t	dh_secoff;
	uint64_t	dh_loadsz;
	uint64_t	dh_filesz;
	uint64_t	dh_pad;
};

struct dof_sec {
	uint32_t	ds_type;
	uint32_t	ds_align;
	uint32_t	ds_flags;
	uint32_t	ds_entsize;
	uint64_t	ds_offset;
	uint64_t	ds_size;
};

/* ECBDESC: one enabling control block. */
struct dof_ecbdesc {
	uint32_t	dofe_probes;	/* PROBEDESC section index */
	uint32_t	dofe_pred;	/* predicate DIFOHDR index or NONE */
	uint32_t	dofe_actions;	/* ACTDESC index or NONE */
	uint32_t	dofe_pad;	/* 0 */
	uint64_t	dofe_uarg;	/* library argument */
};

/* PROBEDESC: the probe description an ECB matches. */
struct dof_probedesc {
	uint32_t	dofp_strtab;	/* STRTAB section index */
	uint32_t	dofp_provider;	/* string offsets; "" means any */
	uint32_t	dofp_mod;
	uint32_t	dofp_func;
	uint32_t	dofp_name;
	uint32_t	dofp_id;	/* 0: match by name */
};

/*
 * ACTDESC entry.  A DIFEXPR naming a STRTAB is print(): the string is the
 * value's type name, or ("@...") the type layout of dof_ptype.h for a
 * struct, union, enum or array.
 */
struct dof_actdesc {
	uint32_t	dofa_difo;	/* DIFOHDR index or NONE */
	uint32_t	dofa_strtab;	/* STRTAB index (printf-like) or NONE */
	uint32_t	dofa_kind;	/* DTRACEACT_* / DTRACEAGG_* */
	uint32_t	dofa_ntuple;	/* aggregations: key tuple length */
	uint64_t	dofa_arg;	/* format offset, or kind argument */
	uint64_t	dofa_uarg;	/* library argument */
};

/* DIF type descriptor (reference 1.7). */
#define DIF_TYPE_CTF		0
#define DIF_TYPE_STRING		1
#define DIF_TF_BYREF		0x1
#define DIF_TF_BYUREF		0x2
#define DIF_CTF_INTEGER		1
#define DIF_CTF_POINTER		3
#define DIF_CTF_ARRAY		4
#define DIF_CTF_STRUCT		6

struct dif_type {
	uint8_t		dtdt_kind;
	uint8_t		dtdt_ckind;
	uint8_t		dtdt_flags;
	uint8_t		dtdt_pad;
	uint32_t	dtdt_size;
};

/* DIFOHDR: return type then (size - 8) / 4 member section indices. */
struct dof_difohdr {
	struct dif_type	dofd_rtype;
	uint32_t	dofd_links[1];
};

/* VARTAB entry. */
#define DIFV_KIND_ARRAY		0
#define DIFV_KIND_SCALAR	1
#define DIFV_SCOPE_GLOBAL	0
#define DIFV_SCOPE_THREAD	1
#define DIFV_SCOPE_LOCAL	2
#define DIFV_F_REF		0x1
#define DIFV_F_MOD		0x2

struct dif_var {
	uint32_t	dtdv_name;
	uint32_t	dtdv_id;
	uint8_t		dtdv_kind;
	uint8_t		dtdv_scope;
	uint16_t	dtdv_flags;
	struct dif_type	dtdv_type;
};

/* OPTDESC entry. */
struct dof_optdesc {
	uint32_t	dofo_option;	/* DTRACEOPT_* */
	uint32_t	dofo_strtab;	/* must be NONE */
	uint64_t	dofo_value;
};

/* Option ids (reference 4.4). */
#define DTRACEOPT_BUFSIZE	0
#define DTRACEOPT_BUFPOLICY	1
#define DTRACEOPT_DYNVARSIZE	2
#define DTRACEOPT_AGGSIZE	3
#define DTRACEOPT_SPECSIZE	4
#define DTRACEOPT_NSPEC		5
#define DTRACEOPT_STRSIZE	6
#define DTRACEOPT_CLEANRATE	7
#define DTRACEOPT_CPU		8
#define DTRACEOPT_BUFRESIZE	9
#define DTRACEOPT_GRABANON	10
#define DTRACEOPT_FLOWINDENT	11
#define DTRACEOPT_QUIET		12
#define DTRACEOPT_STACKFRAMES	13
#define DTRACEOPT_USTACKFRAMES	14
#define DTRACEOPT_AGGRATE	15
#define DTRACEOPT_SWITCHRATE	16
#define DTRACEOPT_STATUSRATE	17
#define DTRACEOPT_DESTRUCTIVE	18
#define DTRACEOPT_STACKINDENT	19
#define DTRACEOPT_RAWBYTES	20
#define DTRACEOPT_JSTACKFRAMES	21
#define DTRACEOPT_JSTACKSTRSIZE	22
#define DTRACEOPT_AGGSORTKEY	23
#define DTRACEOPT_AGGSORTREV	24
#define DTRACEOPT_AGGSORTPOS	25
#define DTRACEOPT_AGGSORTKEYPOS	26
#define DTRACEOPT_TEMPORAL	27
#define DTRACEOPT_AGGHIST	28
#define DTRACEOPT_AGGPACK	29
#define DTRACEOPT_AGGZOOM	30
#define DTRACEOPT_ZONE		31
#define DTRACEOPT_MAX		32
#define DTRACEOPT_UNSET		((uint64_t)-2)

#define DTRACEOPT_BUFPOLICY_RING	0
#define DTRACEOPT_BUFPOLICY_FILL	1
#define DTRACEOPT_BUFPOLICY_SWITCH	2

#define DTRACE_STRSIZE_DEFAULT	256

/* Action kinds (reference 3.1) and aggregating functions (3.2). */
#define DTRACEACT_NONE		0
#define DTRACEACT_DIFEXPR	1
#define DTRACEACT_EXIT		2
#define DTRACEACT_PRINTF	3
#define DTRACEACT_PRINTA	4
#define DTRACEACT_LIBACT	5
#define DTRACEACT_TRACEMEM	6
#define DTRACEACT_TRACEMEM_DYNSIZE 7
#define DTRACEACT_USTACK	0x101
#define DTRACEACT_JSTACK	0x102
#define DTRACEACT_USYM		0x103
#define DTRACEACT_UMOD		0x104
#define DTRACEACT_UADDR		0x105
#define DTRACEACT_STOP		0x201
#define DTRACEACT_RAISE		0x202
#define DTRACEACT_SYSTEM	0x203
#define DTRACEACT_FREOPEN	0x204
#define DTRACEACT_STACK		0x401
#define DTRACEACT_SYM		0x402
#define DTRACEACT_MOD		0x403
#define DTRACEACT_BREAKPOINT	0x501
#define DTRACEACT_PANIC		0x502
#define DTRACEACT_CHILL		0x503
#define DTRACEACT_SPECULATE	0x601
#define DTRACEACT_COMMIT	0x602
#define DTRACEACT_DISCARD	0x603
#define DTRACEACT_AGGREGATION	0x700
#define DTRACEAGG_COUNT		0x701
#define DTRACEAGG_MIN		0x702
#define DTRACEAGG_MAX		0x703
#define DTRACEAGG_AVG		0x704
#define DTRACEAGG_SUM		0x705
#define DTRACEAGG_STDDEV	0x706
#define DTRACEAGG_QUANTIZE	0x707
#define DTRACEAGG_LQUANTIZE	0x708
#define DTRACEAGG_LLQUANTIZE	0x709

#define DTRACEACT_CLASS(k)	((k) >> 8)
#define DTRACEACT_ISAGG(k)	(DTRACEACT_CLASS(k) == 7)
#define DTRACEACT_ISPRINTFLIKE(k) ((k) == DTRACEACT_PRINTF || \
	(k) == DTRACEACT_PRINTA || (k) == DTRACEACT_SYSTEM || \
	(k) == DTRACEACT_FREOPEN)

/* Probe ids of the dtrace provider (reference 4.1). */
#define DTRACE_PROBEID_BEGIN	1
#define DTRACE_PROBEID_END	2
#define DTRACE_PROBEID_ERROR	3

_Static_assert(sizeof (struct dof_hdr) == 64, "dof_hdr");
_Static_assert(sizeof (struct dof_sec) == 32, "dof_sec");
_Static_assert(sizeof (struct dof_ecbdesc) == 24, "dof_ecbdesc");
_Static_assert(sizeof (struct dof_probedesc) == 24, "dof_probedesc");
_Static_assert(sizeof (struct dof_actdesc) == 32, "dof_actdesc");
_Static_assert(sizeof (struct dif_type) == 8, "dif_type");
_Static_assert(sizeof (struct dif_var) == 20, "dif_var");
_Static_assert(sizeof (struct dof_optdesc) == 16, "dof_optdesc");

#endif /* KDT_DOF_H */
