/*
 * dif.h -- the D Intermediate Format instruction set.
 *
 * DIF is what a D predicate or action compiles to (compiler/dc_cg.c), what
 * the validator checks before anything runs (common/dif_valid.c) and what
 * the emulator executes in probe context (common/dif_vm.c).  The encoding
 * and numbering are the published ones (../shared/reference/dof-dif-facts.md
 * section 2); this header is the only place they are spelled out in code.
 *
 * Every instruction is one 32-bit word, opcode in the top byte:
 *
 *   31      24 23      16 15       8 7        0
 *   +---------+----------+----------+---------+
 *   |   op    |    r1    |    r2    |  rd/rs  |   R format
 *   |   op    |       label (24 bits)         |   branches
 *   |   op    |  index (16 bits)    |   rd    |   setx/sets, ldgs.., call
 *   |   op    |  var(8)  |    r2    |   rd    |   ldga
 *   |   op    |  type    |    r2    |   rs    |   pushtr/pushtv
 *   +---------+----------+----------+---------+
 *
 * Worked example: "setx INTTAB[1] -> %r2" is 0x25000102; "ret %r2" is
 * 0x23000002; "ldgs arg0 -> %r1" (var 0x106) is 0x29010601.
 *
 * Branch labels are absolute instruction indices and must be strictly
 * greater than the branch's own index: DIF has no loops.
 */
#ifndef KDT_DIF_H
#define KDT_DIF_H

#include "kdt_env.h"

/* Opcodes (reference 2.3). */
#define DIF_OP_OR	1
#define DIF_OP_XOR	2
#define DIF_OP_AND	3
#define DIF_OP_SLL	4
#define DIF_OP_SRL	5
#define DIF_OP_SUB	6
#define DIF_OP_ADD	7
#define DIF_OP_MUL	8
#define DIF_OP_SDIV	9
#define DIF_OP_UDIV	10
#define DIF_OP_SREM	11
#define DIF_OP_UREM	12
#define DIF_OP_NOT	13
#define DIF_OP_MOV	14
#define DIF_OP_CMP	15
#define DIF_OP_TST	16
#define DIF_OP_BA	17
#define DIF_OP_BE	18
#define DIF_OP_BNE	19
#define DIF_OP_BG	20
#define DIF_OP_BGU	21
#define DIF_OP_BGE	22
#define DIF_OP_BGEU	23
#define DIF_OP_BL	24
#define DIF_OP_BLU	25
#define DIF_OP_BLE	26
#define DIF_OP_BLEU	27
#define DIF_OP_LDSB	28
#define DIF_OP_LDSH	29
#define DIF_OP_LDSW	30
#define DIF_OP_LDUB	31
#define DIF_OP_LDUH	32
#define DIF_OP_LDUW	33
#define DIF_OP_LDX	34
#define DIF_OP_RET	35
#define DIF_OP_NOP	36
#define DIF_OP_SETX	37
#define DIF_OP_SETS	38
#define DIF_OP_SCMP	39
#define DIF_OP_LDGA	40
#define DIF_OP_LDGS	41
#define DIF_OP_STGS	42
#define DIF_OP_LDTA	43
#define DIF_OP_LDTS	44
#define DIF_OP_STTS	45
#define DIF_OP_SRA	46
#define DIF_OP_CALL	47
#define DIF_OP_PUSHTR	48
#define DIF_OP_PUSHTV	49
#define DIF_OP_POPTS	50
#define DIF_OP_FLUSHTS	51
#define DIF_OP_LDGAA	52
#define DIF_OP_LDTAA	53
#define DIF_OP_STGAA	54
#define DIF_OP_STTAA	55
#define DIF_OP_LDLS	56
#define DIF_OP_STLS	57
#define DIF_OP_ALLOCS	58
#define DIF_OP_COPYS	59
#define DIF_OP_STB	60
#define DIF_OP_STH	61
#define DIF_OP_STW	62
#define DIF_OP_STX	63
#define DIF_OP_ULDSB	64
#define DIF_OP_ULDSH	65
#define DIF_OP_ULDSW	66
#define DIF_OP_ULDUB	67
#define DIF_OP_ULDUH	68
#define DIF_OP_ULDUW	69
#define DIF_OP_ULDX	70
#define DIF_OP_RLDSB	71
#define DIF_OP_RLDSH	72
#define DIF_OP_RLDSW	73
#define DIF_OP_RLDUB	74
#define DIF_OP_RLDUH	75
#define DIF_OP_RLDUW	76
#define DIF_OP_RLDX	77
#define DIF_OP_XLATE	78
#define DIF_OP_XLARG	79
#define DIF_OP_STGA	80

/* Field extraction and construction. */
#define DIF_INSTR_OP(i)		(((i) >> 24) & 0xff)
#define DIF_INSTR_R1(i)		(((i) >> 16) & 0xff)
#define DIF_INSTR_R2(i)		(((i) >> 8) & 0xff)
#define DIF_INSTR_RD(i)		((i) & 0xff)
#define DIF_INSTR_RS(i)		((i) & 0xff)
#define DIF_INSTR_LABEL(i)	((i) & 0xffffff)
#define DIF_INSTR_INTEGER(i)	(((i) >> 8) & 0xffff)
#define DIF_INSTR_STRING(i)	(((i) >> 8) & 0xffff)
#define DIF_INSTR_VAR(i)	(((i) >> 8) & 0xffff)
#define DIF_INSTR_SUBR(i)	(((i) >> 8) & 0xffff)
#define DIF_INSTR_TYPE(i)	(((i) >> 16) & 0xff)
#define DIF_INSTR_ARRAY_VAR(i)	(((i) >> 16) & 0xff)

#define DIF_INSTR_FMT(op, r1, r2, d) \
	(((uint32_t)(op) << 24) | ((uint32_t)(r1) << 16) | \
	((uint32_t)(r2) << 8) | (uint32_t)(d))
#define DIF_INSTR_BRANCH(op, label) \
	(((uint32_t)(op) << 24) | ((uint32_t)(label) & 0xffffff))
#define DIF_INSTR_SETX(idx, rd) \
	(((uint32_t)DIF_OP_SETX << 24) | ((uint32_t)(idx) << 8) | (rd))
#define DIF_INSTR_SETS(off, rd) \
	(((uint32_t)DIF_OP_SETS << 24) | ((uint32_t)(off) << 8) | (rd))
#define DIF_INSTR_LDV(op, var, rd) \
	(((uint32_t)(op) << 24) | ((uint32_t)(var) << 8) | (rd))
#define DIF_INSTR_STV(op, var, rs) \
	(((uint32_t)(op) << 24) | ((uint32_t)(var) << 8) | (rs))
#define DIF_INSTR_LDGA(var, r2, rd) \
	(((uint32_t)DIF_OP_LDGA << 24) | ((uint32_t)(var) << 16) | \
	((uint32_t)(r2) << 8) | (rd))
#define DIF_INSTR_CALL(subr, rd) \
	(((uint32_t)DIF_OP_CALL << 24) | ((uint32_t)(subr) << 8) | (rd))
#define DIF_INSTR_PUSHTS(op, type, r2, rs) \
	(((uint32_t)(op) << 24) | ((uint32_t)(type) << 16) | \
	((uint32_t)(r2) << 8) | (rs))
#define DIF_INSTR_RET(rd)	DIF_INSTR_FMT(DIF_OP_RET, 0, 0, rd)
#define DIF_INSTR_NOP		((uint32_t)DIF_OP_NOP << 24)

#define DIF_INTOFF_MAX		0xffff
#define DIF_STROFF_MAX		0xffff
#define DIF_REGISTER_MAX	0xff
#define DIF_VARIABLE_MAX	0xffff
#define DIF_TUPLE_MAX		8

/* Variable ids (reference 2.4). */
#define DIF_VAR_ARRAY_MIN	0x0000
#define DIF_VAR_ARRAY_UBASE	0x0080
#define DIF_VAR_ARRAY_MAX	0x00ff
#define DIF_VAR_OTHER_MIN	0x0100
#define DIF_VAR_OTHER_UBASE	0x0500
#define DIF_VAR_OTHER_MAX	0xffff

#define DIF_VAR_ARGS		0x0000
#define DIF_VAR_REGS		0x0001
#define DIF_VAR_UREGS		0x0002
#define DIF_VAR_CURTHREAD	0x0100
#define DIF_VAR_TIMESTAMP	0x0101
#define DIF_VAR_VTIMESTAMP	0x0102
#define DIF_VAR_IPL		0x0103
#define DIF_VAR_EPID		0x0104
#define DIF_VAR_ID		0x0105
#define DIF_VAR_ARG0		0x0106
#define DIF_VAR_ARG9		0x010f
#define DIF_VAR_STACKDEPTH	0x0110
#define DIF_VAR_CALLER		0x0111
#define DIF_VAR_PROBEPROV	0x0112
#define DIF_VAR_PROBEMOD	0x0113
#define DIF_VAR_PROBEFUNC	0x0114
#define DIF_VAR_PROBENAME	0x0115
#define DIF_VAR_PID		0x0116
#define DIF_VAR_TID		0x0117
#define DIF_VAR_EXECNAME	0x0118
#define DIF_VAR_ZONENAME	0x0119
#define DIF_VAR_WALLTIMESTAMP	0x011a
#define DIF_VAR_USTACKDEPTH	0x011b
#define DIF_VAR_UCALLER		0x011c
#define DIF_VAR_PPID		0x011d
#define DIF_VAR_UID		0x011e
#define DIF_VAR_GID		0x011f
#define DIF_VAR_ERRNO		0x0120
/*
 * kdt extension: the CPU the probe fired on.  dtrace(1) gets "cpu" from a
 * D library inline over curthread; we have no D library yet, so it is a
 * built-in in the reserved built-in range, above illumos's last id.
 */
#define DIF_VAR_CPU		0x0200
/*
 * kdt extensions for the psinfo_t/lwpsinfo_t translators (compiler/
 * dc_lib.c), where dtrace's translators read the kernel's proc_t and
 * kthread_t: process credentials, group, session, thread count and the
 * thread's scheduling state of the current thread, each read through
 * kenv_procvar() (kdt_env.h) by both engines.  D names them __kdt_euid
 * and so on (dc_type.c); programs are meant to use curpsinfo and
 * curlwpsinfo instead.
 */
#define DIF_VAR_KDT_EUID	0x0201	/* effective uid */
#define DIF_VAR_KDT_EGID	0x0202	/* effective gid */
#define DIF_VAR_KDT_PGID	0x0203	/* process group id */
#define DIF_VAR_KDT_SID		0x0204	/* session id */
#define DIF_VAR_KDT_NLWP	0x0205	/* threads in the process */
#define DIF_VAR_KDT_LWPSTATE	0x0206	/* DIF_LWP_S*: the thread's state */

/* DIF_VAR_KDT_LWPSTATE values: illumos's SSLEEP .. SONPROC */
#define DIF_LWP_SSLEEP		1	/* waiting (interruptible or not) */
#define DIF_LWP_SRUN		2	/* runnable, not on a CPU */
#define DIF_LWP_SZOMB		3	/* exited, not yet reaped */
#define DIF_LWP_SSTOP		4	/* stopped or traced */
#define DIF_LWP_SIDL		5	/* being created */
#define DIF_LWP_SONPROC		6	/* running on the probe's CPU */

/* Subroutine ids (reference 2.7, illumos numbering). */
#define DIF_SUBR_RAND		0
#define DIF_SUBR_COPYIN		8
#define DIF_SUBR_COPYINSTR	9
#define DIF_SUBR_SPECULATION	10
#define DIF_SUBR_STRLEN		12
#define DIF_SUBR_ALLOCA		15
#define DIF_SUBR_BCOPY		16
#define DIF_SUBR_STRJOIN	23
#define DIF_SUBR_LLTOSTR	24
#define DIF_SUBR_BASENAME	25
#define DIF_SUBR_DIRNAME	26
#define DIF_SUBR_STRCHR		28
#define DIF_SUBR_STRRCHR	29
#define DIF_SUBR_STRSTR		30
#define DIF_SUBR_SUBSTR		32
#define DIF_SUBR_INDEX		33
#define DIF_SUBR_RINDEX		34
#define DIF_SUBR_HTONS		35
#define DIF_SUBR_HTONL		36
#define DIF_SUBR_HTONLL		37
#define DIF_SUBR_NTOHS		38
#define DIF_SUBR_NTOHL		39
#define DIF_SUBR_NTOHLL		40
#define DIF_SUBR_TOUPPER	44
#define DIF_SUBR_TOLOWER	45
#define DIF_SUBR_STRTOLL	48
#define DIF_SUBR_MAX		48
/*
 * kdt extension, above the illumos range: read a NUL-terminated string
 * from kernel memory (what stringof() of a kernel pointer compiles to).
 * Arguments: address.  Result: a scratch string of at most strsize bytes.
 */
#define DIF_SUBR_KDT_KSTRING	0x100

/* Tuple push types. */
#define DIF_TYPE_CTF_T		0
#define DIF_TYPE_STRING_T	1

/* Fault codes (reference 2.6). */
#define DTRACEFLT_UNKNOWN	0
#define DTRACEFLT_BADADDR	1
#define DTRACEFLT_BADALIGN	2
#define DTRACEFLT_ILLOP		3
#define DTRACEFLT_DIVZERO	4
#define DTRACEFLT_NOSCRATCH	5
#define DTRACEFLT_KPRIV		6
#define DTRACEFLT_UPRIV		7
#define DTRACEFLT_TUPOFLOW	8
#define DTRACEFLT_BADSTACK	9
#define DTRACEFLT_LIBRARY	1000

#endif /* KDT_DIF_H */
