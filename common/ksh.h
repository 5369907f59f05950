/*
 * ksh.h -- kernel symbol hints: the core-kernel addresses of an anonymous
 * enabling's fbt functions, resolved when "kdt -A" compiles it, so that
 * kdt.ko need not search kallsyms for them at boot.
 *
 * Why: at boot kdt.ko finds each function an fbt description names with
 * one binary search of kallsyms' name index (kmod/kd_fbt.c), ~33,000
 * guest instructions per name (each step decompresses a name and skips up
 * to 255 others to reach it): 3.3 M instructions for 100 names, a third
 * of the 0.5 % boot budget of bench/run-boot-overhead.  "kdt -A" knows the
 * target kernel (the vmlinux given with --btf or $KDT_BTF, else, when the
 * target is the running kernel, its /proc/kallsyms), so it writes
 * the functions' offsets from _stext -- KASLR moves the whole kernel image
 * by one offset, so an offset holds for every boot of that build -- with
 * the build id they were computed for.  The file travels next to the DOF
 * as /lib/firmware/kdt/anon.ksym (anon/an_ksym.c writes it, kdt -A -o puts
 * it in DIR/anon.ksym and in anon.cpio); kmod/kd_anon.c loads it when it
 * is there, kmod/kd_fbt.c uses it.
 *
 * Trust: a hint is never armed on its word.  The loader (ksh_check, then
 * kd_fbt.c) refuses the whole file unless its build id is the running
 * kernel's and kh_textsz is the running kernel's _etext - _stext; each
 * address it then takes is checked against the running kernel itself
 * (kallsyms names that very address, at offset 0, with the name wanted)
 * and any failure for a name sends that name to the kallsyms search
 * (never an address from the file).  A name the file does not list is
 * searched as before; so are globs and module functions.  The file only
 * lists a name whose every core-kernel text symbol lies in
 * [_stext, _etext) (not in init text, which the kernel matches too while
 * it is there), so the hint finds exactly what the search would.
 *
 * Layout, little-endian (kdt's targets are x86-64), no padding:
 *
 *	OFFSET SIZE FIELD        DESCRIPTION
 *	     0    8 kh_magic     "KDTKSYM1" (KSH_MAGIC, not NUL-terminated)
 *	     8    4 kh_version   KSH_VERSION (1)
 *	    12    4 kh_bidlen    bytes of kh_bid used, 1..KSH_BIDMAX
 *	    16   32 kh_bid       GNU build id of the vmlinux (zero-padded)
 *	    48    4 kh_nsyms     entries, 0..KSH_MAXSYMS
 *	    52    4 kh_strsz     bytes of the name table, 0..KSH_MAXSTR
 *	    56    8 kh_textsz    _etext - _stext of that vmlinux
 *	    64  8*n entries      struct ksh_ent: ke_off (offset of the
 *	                         function from _stext, < kh_textsz), ke_name
 *	                         (offset of its name in the name table)
 *	64+8n  strsz names       NUL-terminated names
 *
 * The file is exactly 64 + 8 * kh_nsyms + kh_strsz bytes.  Entries are
 * sorted by name (bytes compared unsigned, as strcmp), then by ke_off;
 * one name may have several entries (static functions of one name), no
 * (name, offset) pair twice.  Names are 1..KSH_NAMEMAX - 1 bytes.
 *
 * Validation rules of ksh_check(), in order (each failure an error record
 * naming the offset, the value and the limit; tag in parentheses):
 *	1. at least KSH_HDRSZ bytes and the magic (KSH_MAGIC);
 *	2. kh_version == KSH_VERSION (KSH_VERSION);
 *	3. 1 <= kh_bidlen <= KSH_BIDMAX (KSH_BID);
 *	4. kh_nsyms <= KSH_MAXSYMS, kh_strsz <= KSH_MAXSTR, the file length is
 *	   64 + 8 * kh_nsyms + kh_strsz (KSH_SIZE);
 *	5. the name table is empty or ends with a NUL (KSH_STR);
 *	6. per entry: ke_off < kh_textsz (KSH_OFF), ke_name < kh_strsz and
 *	   the name there 1..KSH_NAMEMAX - 1 bytes (KSH_NAME), the order
 *	   above (KSH_ORDER).
 * Matching the running kernel (build id, text size) is the loader's.
 */
#ifndef KDT_KSH_H
#define KDT_KSH_H

#include "kdt_env.h"
#include "kdt_err.h"

#define KSH_MAGIC	"KDTKSYM1"
#define KSH_MAGICLEN	8
#define KSH_VERSION	1
#define KSH_HDRSZ	64
#define KSH_BIDMAX	32
#define KSH_MAXSYMS	(1u << 20)
#define KSH_MAXSTR	(64u << 20)
#define KSH_NAMEMAX	128		/* DOF_FUNCNAMELEN */

struct ksh_hdr {
	char		kh_magic[KSH_MAGICLEN];
	uint32_t	kh_version;
	uint32_t	kh_bidlen;
	uint8_t		kh_bid[KSH_BIDMAX];
	uint32_t	kh_nsyms;
	uint32_t	kh_strsz;
	uint64_t	kh_textsz;
};

struct ksh_ent {
	uint32_t	ke_off;
	uint32_t	ke_name;
};

/* Check "len" bytes at "buf" (rules above): 0, or -1 with "err" set. */
int ksh_check(const void *buf, size_t len, struct kdt_err *err);

/*
 * In a checked file: the number of entries named "name" (0: none), with
 * the index of the first in *first; entry i with ksh_ent().
 */
uint32_t ksh_find(const void *buf, const char *name, uint32_t *first);
void ksh_ent(const void *buf, uint32_t i, struct ksh_ent *ke);
/* The header of a checked file (copied: the buffer need not be aligned). */
void ksh_hdr(const void *buf, struct ksh_hdr *kh);

#endif /* KDT_KSH_H */
