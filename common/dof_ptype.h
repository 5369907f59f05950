/*
 * dof_ptype.h -- the type layout that a print() action carries in DOF.
 *
 * print(e) of a struct, union, enum or array -- defined in D, or a kernel
 * type from BTF such as print(*curthread) -- is a DIFEXPR action whose DIF
 * object returns the object by reference (its bytes are the record), and
 * whose "format" (ACTDESC dofa_strtab/dofa_arg, the slot printf-like
 * actions use, reference 3.3) is a layout string: "@" followed by one
 * self-contained description T of the type.  The consumer prints the
 * record by walking T (consumer/kc_ptype.c) and needs nothing else: no BTF,
 * no D declarations.  So a live `kdt`, `kdt -a`, kdt-extract and crash's
 * `kdt` print a region's print() records identically, on any machine.
 * The compiler writes T (compiler/dc_ptype.c); dof_load() checks it with
 * dof_pt_check() below (rule A5 in dof_load.c), in kdt.ko and in every
 * reader, so the printer may rely on the rules listed there.
 *
 * print() of a scalar or string has no layout: its format is the type's
 * name (any text not starting with "@"), printed before the value.
 *
 * Grammar (every NUM is decimal digits then ",", at most 0xffffffff):
 *
 *	LAYOUT := "@" T                         nothing may follow T
 *	T      := NAME KIND                     NAME: the type as printed
 *	KIND   := "i" NUM ("s" | "u" | "c")     integer of NUM (1, 2, 4, 8)
 *	                                        bytes: signed, unsigned, or
 *	                                        a char type (prints 'x')
 *	        | "e" NUM NUM (NUM NAME)*       enum of NUM (4) bytes and NUM
 *	                                        enumerators: value (as a
 *	                                        uint32) and name each
 *	        | "p"                           pointer, 8 bytes
 *	        | "z" NUM                       D string member of NUM bytes
 *	        | "a" NUM T                     NUM elements of type T
 *	                                        (T is not a "c")
 *	        | "s" NUM NUM MEMBER*           struct/union of NUM bytes
 *	                                        and NUM members
 *	        | "c" NUM NUM NUM MEMBER*       a struct/union of NUM bytes
 *	                                        that is cut (see "Limits"):
 *	                                        NUM members are described,
 *	                                        NUM more were left out (0
 *	                                        when only bytes past the
 *	                                        record's end are)
 *	MEMBER := NUM NUM NUM NAME T            byte offset, bit offset in
 *	                                        the unit at that offset, bit
 *	                                        width (0: not a bitfield),
 *	                                        name ("" when anonymous),
 *	                                        type
 *	NAME   := NUM bytes                     length, then that many bytes
 *
 * Sizes: "i" NUM, "e" NUM, "p" 8, "z" NUM, "a" count x element size,
 * "s"/"c" their first NUM.  A bitfield's unit is its type's size at its
 * byte offset: the value is (unit >> bit offset) & ((1 << width) - 1).
 *
 * Worked example: "typedef struct foo { int a; char b[2]; } foo_t":
 *
 *	@ 5,foo_t s 8, 2,                       "foo_t", struct, 8 bytes,
 *	                                        2 members
 *	    0, 0, 0, 1,a 3,int i 4,s            a: offset 0, "int", 4 bytes
 *	    4, 0, 0, 1,b 7,char [2] a 2,        b: offset 4, 2 elements of
 *	        4,char i 1,c                    "char", 1 byte, char
 *
 * i.e. the string (spaces above are for reading only)
 * "@5,foo_ts8,2,0,0,0,1,a3,inti4,s4,0,0,1,b8,char [2]a2,4,chari1,c".
 *
 * Limits.  A layout string is at most DOF_PT_MAXLEN bytes and nests at
 * most DOF_PT_DEPTH levels of struct, union or array.  A kernel type can be
 * far larger than anyone wants in a trace record (struct task_struct is
 * about 10 KiB with hundreds of members), so print() records at most
 * DOF_PT_MAXREC bytes of the object: the compiler describes the members
 * that lie wholly within the first DOF_PT_MAXREC bytes (descending into a
 * struct that straddles the limit) and marks the struct "c" with the
 * number of members left out; it does the same for members past the
 * layout's length limit or nested deeper than its depth limit.  The
 * record is then the first min(size, DOF_PT_MAXREC) bytes of the object,
 * and the printer says what was cut, e.g.
 *	    ... 212 members not recorded (struct task_struct is 9792 bytes)
 */
#ifndef KDT_DOF_PTYPE_H
#define KDT_DOF_PTYPE_H

#include "kdt_env.h"
#include "kdt_err.h"

#define DOF_PT_MAXLEN	(64u << 10)	/* layout string bytes, "@" included */
#define DOF_PT_DEPTH	16		/* levels of struct/union/array */
#define DOF_PT_MAXREC	4096u		/* bytes print() records */

/* A cursor over a layout string. */
struct dof_ptc {
	const char	*pc_p;
	const char	*pc_end;
};

/* The head of one T: NAME and KIND with its numbers. */
struct dof_pt {
	const char	*pt_name;
	uint32_t	pt_namelen;
	char		pt_kind;	/* i e p z a s c */
	char		pt_flag;	/* i: s u c */
	uint64_t	pt_n1;		/* size (i e p z s c); a: count */
	uint64_t	pt_n2;		/* s c: members described;
					   e: enumerators */
	uint64_t	pt_n3;		/* c: members left out */
	const char	*pt_elist;	/* e: the first (value, name) */
};

/* One MEMBER's numbers and name (its T follows at the cursor). */
struct dof_ptm {
	uint64_t	pm_off;
	uint64_t	pm_bitoff;
	uint64_t	pm_bits;
	const char	*pm_name;
	uint32_t	pm_namelen;
};

/*
 * Parsers of the grammar's pieces; each returns 0 and advances the cursor,
 * or -1 on text that does not follow the grammar (the cursor is then
 * somewhere inside).  dof_pt_head() checks the fixed sizes ("i" 1/2/4/8,
 * "e" 4) and walks an enum's list; it does not descend.
 */
int dof_pt_num(struct dof_ptc *c, uint64_t *v);
int dof_pt_name(struct dof_ptc *c, const char **s, uint32_t *len);
int dof_pt_head(struct dof_ptc *c, struct dof_pt *t);
int dof_pt_member(struct dof_ptc *c, struct dof_ptm *m);
/* Skip a whole T (depth: its nesting level); *size gets its size. */
int dof_pt_skip(struct dof_ptc *c, int depth, uint64_t *size);

/*
 * Check layout string s (len bytes, without the NUL) against a record of
 * recsize bytes; the rules are listed on the function (dof_ptype.c).
 * "from" is the ACTDESC's offset, for the message.  0 or -EINVAL.
 */
int dof_pt_check(const char *s, uint64_t len, uint64_t recsize,
    uint64_t from, struct kdt_err *err);

#endif /* KDT_DOF_PTYPE_H */
