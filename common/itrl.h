/*
 * itrl.h -- the initrd trailer: an anonymous enabling's DOF appended to an
 * initrd, so that a kernel with kdt built in finds it before any initcall
 * of a built-in driver runs (boot/kdt-initrd writes it; kmod/ reads it).
 *
 * In the manner of Linux's bootconfig, the DOF goes at the very end of the
 * initrd file, followed by a fixed 32-byte footer that says how long it is.
 * A bootloader loads the whole file as the initrd; the kernel reads the
 * footer at initrd_end - 32, checks it, copies the DOF out and moves
 * initrd_end back to the original end, so the initramfs unpacker never
 * sees the trailer.  Nothing is aligned: the reader copies the DOF before
 * it loads it, so the trailer is position-independent and
 * "cat initrd.img anon.trailer > initrd-kdt.img" is a valid way to add one
 * (kdt -A -o DIR writes DIR/anon.trailer for exactly that).
 *
 *	+----------------------------+  0
 *	| the original initrd        |
 *	| (cpio, compressed or not)  |
 *	+----------------------------+  L = file length - 32 - it_dofsz
 *	| DOF, it_dofsz bytes        |
 *	+----------------------------+  file length - 32
 *	| struct itrl_foot (32)      |
 *	+----------------------------+  file length
 *
 * The footer, little-endian:
 *
 *	OFFSET SIZE FIELD         DESCRIPTION
 *	     0    8 it_dofsz      bytes of DOF before the footer     since v1
 *	     8    4 it_dofcrc     CRC-32 of those bytes              since v1
 *	    12    4 it_version    ITRL_VERSION (1)                   since v1
 *	    16    4 it_footsz     ITRL_FOOTSZ (32): the footer's size since v1
 *	    20    4 it_footcrc    CRC-32 of the 32 footer bytes with
 *	                          it_footcrc taken as 0              since v1
 *	    24    8 it_magic      "#KDTDOF\n" (ITRL_MAGIC)           since v1
 *
 * The magic is stored literally: the footer is looked for at one place,
 * the end of the initrd, never by scanning memory, so the tools' own copy
 * of it cannot be mistaken for a trailer (compare the region magic,
 * rgn.h, which dumps are scanned for).
 *
 * Worked example: the 8-byte "DOF" 7f 44 4f 46 00 00 00 00 appended to an
 * initrd gives this footer (CRC-32 of the DOF 0x89ab186f, of the footer
 * 0x3ca9c5e4):
 *
 *	08 00 00 00 00 00 00 00  6f 18 ab 89 01 00 00 00
 *	20 00 00 00 e4 c5 a9 3c  23 4b 44 54 44 4f 46 0a   ...<#KDTDOF.
 *
 * Validation rules of itrl_find(), in order (each failure is an error
 * record naming the offset, the value and the limit):
 *
 *	1. the file is at least ITRL_FOOTSZ bytes and its last 8 bytes are
 *	   ITRL_MAGIC -- otherwise there is no trailer (not an error);
 *	2. it_footcrc matches (ITRL_FOOTCRC);
 *	3. it_version == ITRL_VERSION and it_footsz == ITRL_FOOTSZ
 *	   (ITRL_VERSION);
 *	4. 0 < it_dofsz <= ITRL_DOF_MAX and it_dofsz <= file length - 32
 *	   (ITRL_SIZE);
 *	5. it_dofcrc matches the DOF bytes (ITRL_DOFCRC).
 * Afterwards the DOF is [ii_dof_off, ii_dof_off + ii_dofsz) of the file
 * and the original initrd is [0, ii_initrd_len); whether the DOF itself is
 * valid is dof_load()'s business.
 */
#ifndef KDT_ITRL_H
#define KDT_ITRL_H

#include "kdt_env.h"
#include "kdt_err.h"

#define ITRL_MAGIC	"#KDTDOF\n"	/* 8 bytes, no NUL in the file */
#define ITRL_MAGICLEN	8
#define ITRL_VERSION	1
#define ITRL_FOOTSZ	32
#define ITRL_DOF_MAX	(64ULL << 20)	/* larger is not a DOF we wrote */

struct itrl_foot {
	uint64_t	it_dofsz;
	uint32_t	it_dofcrc;
	uint32_t	it_version;
	uint32_t	it_footsz;
	uint32_t	it_footcrc;
	char		it_magic[ITRL_MAGICLEN];
};

_Static_assert(sizeof (struct itrl_foot) == ITRL_FOOTSZ, "itrl_foot");

/* Where itrl_find() found things, as offsets into the file. */
struct itrl_info {
	uint64_t	ii_initrd_len;	/* the original initrd's length */
	uint64_t	ii_dof_off;	/* == ii_initrd_len */
	uint64_t	ii_dofsz;
	uint32_t	ii_dofcrc;
	uint32_t	ii_pad;
};

/*
 * Look for a trailer at the end of buf[0, len).  Returns 1 and fills "ii"
 * when there is a valid one, 0 when there is none (no magic), -errno with
 * "err" filled when there is a trailer that breaks a rule above.  Reads
 * only the last ITRL_FOOTSZ + it_dofsz bytes.  Setup context.
 */
int itrl_find(const void *buf, uint64_t len, struct itrl_info *ii,
    struct kdt_err *err);

/*
 * Fill the footer for a DOF of "dofsz" bytes at "dof" (the DOF is written
 * before it, unchanged).  -EINVAL (err filled) when dofsz is 0 or above
 * ITRL_DOF_MAX.
 */
int itrl_foot_make(struct itrl_foot *f, const void *dof, uint64_t dofsz,
    struct kdt_err *err);

#endif /* KDT_ITRL_H */
