/*
 * mb2.h -- the Multiboot2 handoff as kdt uses it: the header a kernel
 * carries so that a Multiboot2 loader (GRUB's "multiboot2" command) boots
 * it, and the boot information (MBI) the loader hands over, in which an
 * anonymous enabling arrives as a boot module ("module2 /boot/anon.dof
 * kdt-anon-dof").
 *
 * Written from the published Multiboot2 specification (version 2.0); only
 * what kdt needs is defined.  The parser and validator is boot/mb2.c,
 * freestanding: it runs in the multiboot2 test kernel (tests/vm/mb2/) and,
 * under ASan, in the unit tests and the fuzzer.  Everything is
 * little-endian (the loader and the kernel are the same x86 machine).
 * This header is also included from assembly (__ASSEMBLER__): only the
 * constants are visible there.
 *
 * The kernel's header, within the first 32 KiB of the image, 8-aligned:
 *
 *	OFFSET SIZE FIELD            DESCRIPTION
 *	     0    4 mh_magic         MB2_HEADER_MAGIC
 *	     4    4 mh_arch          MB2_ARCH_I386 (0): 32-bit protected mode
 *	     8    4 mh_length        bytes of the header, tags included
 *	    12    4 mh_checksum      -(magic + arch + length) mod 2^32
 *	    16    -  header tags     each { u16 type, u16 flags, u32 size },
 *	                             8-aligned, ending with type 0 size 8
 *
 * The loader enters the kernel in 32-bit protected mode, paging off, with
 * EAX = MB2_LOADER_MAGIC and EBX = the physical address of the MBI:
 *
 *	+------------------------+  0 (8-aligned)
 *	| u32 total_size         |  bytes of the whole MBI, end tag included
 *	| u32 reserved           |  0, ignored
 *	+------------------------+  8
 *	| tag: u32 type          |  every tag starts 8-aligned;
 *	|      u32 size          |  size counts the 8-byte tag header but
 *	|      ... payload       |  not the padding to the next 8 bytes
 *	+------------------------+  8 + align8(size)
 *	| ... more tags          |
 *	+------------------------+
 *	| end tag: type 0, size 8|
 *	+------------------------+  total_size
 *
 * The tags kdt reads (struct mb2_tag_*, below):
 *
 *	TYPE NAME           OFFSET SIZE FIELD
 *	   1 cmdline             8    - mt_string: the kernel command
 *	                                line, NUL-terminated
 *	   2 boot loader name    8    - mt_string, NUL-terminated
 *	   3 module              8    4 mm_mod_start: physical address of
 *	                                the module's first byte
 *	                        12    4 mm_mod_end: physical address one
 *	                                past its last byte
 *	                        16    - mm_string: the words after the file
 *	                                name on the module2 line, NUL-
 *	                                terminated ("" when none)
 *	   4 basic meminfo       8    4 mb_mem_lower: KiB below 1 MiB
 *	                        12    4 mb_mem_upper: KiB above 1 MiB
 *	   6 memory map          8    4 mp_entry_size (a multiple of 8, >= 24)
 *	                        12    4 mp_entry_version (0)
 *	                        16    - entries: { u64 base, u64 length,
 *	                                u32 type (1 = RAM), u32 reserved }
 * Other tag types (5, 7..21: boot device, framebuffer, ELF sections,
 * APM, EFI tables, ACPI, SMBIOS, network, load base address) are checked
 * by the generic rules only and skipped.
 *
 * Worked example: GRUB booting "multiboot2 /boot/k.elf x=1" with
 * "module2 /boot/anon.dof kdt-anon-dof", the module placed at 0x105000,
 * 0x27 bytes long; an MBI cut down to cmdline, module and end tags (GRUB
 * adds loader name, meminfo, mmap and more), 0x40 bytes:
 *
 *	off   bytes
 *	0x00  40 00 00 00 00 00 00 00   total_size 0x40, reserved 0
 *	0x08  01 00 00 00 0c 00 00 00   tag 1 (cmdline), size 12
 *	0x10  78 3d 31 00 00 00 00 00   "x=1\0", 4 bytes of padding
 *	0x18  03 00 00 00 1d 00 00 00   tag 3 (module), size 0x1d
 *	0x20  00 50 10 00 27 50 10 00   mod_start 0x105000, mod_end 0x105027
 *	0x28  6b 64 74 2d 61 6e 6f 6e   "kdt-anon"
 *	0x30  2d 64 6f 66 00 00 00 00   "-dof\0", 3 bytes of padding
 *	0x38  00 00 00 00 08 00 00 00   tag 0 (end), size 8
 *
 * tests/unit/test_mb2.c checks these very bytes (t_example).
 */
#ifndef KDT_MB2_H
#define KDT_MB2_H

#define MB2_HEADER_MAGIC	0xe85250d6	/* in the kernel image */
#define MB2_LOADER_MAGIC	0x36d76289	/* in EAX at entry */
#define MB2_ARCH_I386		0
#define MB2_HEADER_ALIGN	8
#define MB2_SEARCH		32768	/* the header lies in this prefix */

/* Header tag types (kernel -> loader). */
#define MB2_HTAG_END		0
#define MB2_HTAG_INFO_REQ	1
#define MB2_HTAG_FLAGS_OPTIONAL	1	/* flags bit 0: loader may ignore */

/* MBI tag types (loader -> kernel). */
#define MB2_TAG_END		0
#define MB2_TAG_CMDLINE		1
#define MB2_TAG_LOADER_NAME	2
#define MB2_TAG_MODULE		3
#define MB2_TAG_BASIC_MEMINFO	4
#define MB2_TAG_BOOTDEV		5
#define MB2_TAG_MMAP		6
#define MB2_TAG_VBE		7
#define MB2_TAG_FRAMEBUFFER	8
#define MB2_TAG_ELF_SECTIONS	9
#define MB2_TAG_APM		10
#define MB2_TAG_EFI32		11
#define MB2_TAG_EFI64		12
#define MB2_TAG_SMBIOS		13
#define MB2_TAG_ACPI_OLD	14
#define MB2_TAG_ACPI_NEW	15
#define MB2_TAG_NETWORK		16
#define MB2_TAG_EFI_MMAP	17
#define MB2_TAG_EFI_BS		18
#define MB2_TAG_EFI32_IH	19
#define MB2_TAG_EFI64_IH	20
#define MB2_TAG_LOAD_BASE	21

#define MB2_TAG_ALIGN		8
#define MB2_MMAP_RAM		1	/* mmap entry type: available RAM */
/* The largest MBI bt_mb2_walk() accepts: GRUB's are a few KiB. */
#define MB2_INFO_MAX		(1U << 20)

#ifndef __ASSEMBLER__

#include "common/kdt_env.h"
#include "common/kdt_err.h"

/* The kernel's header (mh_ prefix), followed by header tags. */
struct mb2_header {
	uint32_t	mh_magic;	/* MB2_HEADER_MAGIC */
	uint32_t	mh_arch;	/* MB2_ARCH_I386 */
	uint32_t	mh_length;	/* header bytes, tags included */
	uint32_t	mh_checksum;	/* magic + arch + length + this = 0 */
};

struct mb2_htag {
	uint16_t	mht_type;	/* MB2_HTAG_* */
	uint16_t	mht_flags;	/* MB2_HTAG_FLAGS_OPTIONAL */
	uint32_t	mht_size;	/* bytes, this header included */
};

/* The MBI's fixed part (mi_ prefix). */
struct mb2_info {
	uint32_t	mi_total_size;	/* bytes of the MBI */
	uint32_t	mi_reserved;	/* 0, ignored */
};

/* Every MBI tag starts with this (mt_ prefix). */
struct mb2_tag {
	uint32_t	mt_type;	/* MB2_TAG_* */
	uint32_t	mt_size;	/* bytes without the padding */
};

/* Tags 1 and 2: a NUL-terminated string. */
struct mb2_tag_string {
	uint32_t	mt_type;
	uint32_t	mt_size;	/* >= 9: at least the NUL */
	char		mt_string[];
};

/* Tag 3 (mm_ prefix). */
struct mb2_tag_module {
	uint32_t	mm_type;
	uint32_t	mm_size;	/* >= 17: at least the NUL */
	uint32_t	mm_mod_start;	/* physical, first byte */
	uint32_t	mm_mod_end;	/* physical, one past the last */
	char		mm_string[];	/* the module's command line */
};

/* Tag 4 (mb_ prefix). */
struct mb2_tag_meminfo {
	uint32_t	mb_type;
	uint32_t	mb_size;	/* 16 */
	uint32_t	mb_mem_lower;	/* KiB of memory from 0 */
	uint32_t	mb_mem_upper;	/* KiB of memory from 1 MiB */
};

/* Tag 6 (mp_ prefix) and its entries (me_ prefix). */
struct mb2_tag_mmap {
	uint32_t	mp_type;
	uint32_t	mp_size;	/* 16 + n * mp_entry_size */
	uint32_t	mp_entry_size;	/* >= 24, multiple of 8 */
	uint32_t	mp_entry_version; /* 0 */
};

struct mb2_mmap_entry {
	uint64_t	me_base;	/* physical start */
	uint64_t	me_length;	/* bytes */
	uint32_t	me_type;	/* MB2_MMAP_RAM, 2 reserved, 3 ACPI... */
	uint32_t	me_reserved;
};

_Static_assert(sizeof (struct mb2_header) == 16, "mb2_header");
_Static_assert(sizeof (struct mb2_htag) == 8, "mb2_htag");
_Static_assert(sizeof (struct mb2_info) == 8, "mb2_info");
_Static_assert(sizeof (struct mb2_tag) == 8, "mb2_tag");
_Static_assert(sizeof (struct mb2_tag_string) == 8, "mb2_tag_string");
_Static_assert(sizeof (struct mb2_tag_module) == 16, "mb2_tag_module");
_Static_assert(sizeof (struct mb2_tag_meminfo) == 16, "mb2_tag_meminfo");
_Static_assert(sizeof (struct mb2_tag_mmap) == 16, "mb2_tag_mmap");
_Static_assert(sizeof (struct mb2_mmap_entry) == 24, "mb2_mmap_entry");

/*
 * Called by bt_mb2_walk() for each tag of a validated MBI, in order, the
 * end tag excluded; "off" is the tag's offset in the MBI.  A non-zero
 * return stops the walk and is bt_mb2_walk()'s result.
 */
typedef int (*bt_mb2_fn)(void *arg, const struct mb2_tag *tag, uint32_t off);

/*
 * Validate the MBI at mbi[0, len) ("len": the bytes the caller may read;
 * at most MB2_INFO_MAX are looked at) and then call fn (if not NULL) for
 * each tag.  The rules, in order -- each failure is an error record with
 * its tag, the offset, the value and the limit:
 *
 *	1. mbi is 8-aligned (MB2_ALIGN);
 *	2. 16 <= total_size, total_size is a multiple of 8 and at most
 *	   min(len, MB2_INFO_MAX) (MB2_SIZE);
 *	3. each tag's size is >= 8 and the tag ends within total_size
 *	   (MB2_TAG_SIZE); tags follow each other at 8-aligned offsets, so
 *	   (with rule 2) every tag header lies within total_size;
 *	4. an end tag (type 0) of size 8 comes before total_size runs out
 *	   (MB2_NO_END; an end tag of another size: MB2_TAG_SIZE); bytes
 *	   after it, inside total_size, are ignored;
 *	5. cmdline and loader name: size >= 9 and a NUL inside the tag
 *	   (MB2_STRING);
 *	6. module: size >= 17, a NUL inside the tag (MB2_MODULE_STRING) and
 *	   mod_start <= mod_end (MB2_MODULE_RANGE);
 *	7. basic meminfo: size >= 16 (MB2_TAG_SIZE); memory map: size >= 16,
 *	   entry size >= 24 and a multiple of 8 (MB2_MMAP).
 * Returns 0 when the MBI is valid (and fn returned 0 throughout), fn's
 * non-zero value, or -EINVAL with "err" filled.  Setup context; reads
 * only mbi[0, total_size), never writes.
 */
int bt_mb2_walk(const void *mbi, uint64_t len, bt_mb2_fn fn, void *arg,
    struct kdt_err *err);

/* A module found by bt_mb2_find_module(). */
struct bt_mb2_mod {
	uint64_t	bm_start;	/* physical address */
	uint64_t	bm_size;	/* mod_end - mod_start */
	const char	*bm_cmdline;	/* inside the MBI, NUL-terminated */
	uint32_t	bm_index;	/* 0 for the first module tag */
	uint32_t	bm_off;		/* offset of its tag in the MBI */
};

/*
 * Validate the MBI (bt_mb2_walk's rules) and find the first module whose
 * command line is "name" or starts with the word "name" followed by a
 * blank (so "kdt-anon-dof v=1" matches "kdt-anon-dof").  *cmdline (when
 * cmdline is not NULL) is set to the kernel command line inside the MBI,
 * or to NULL when there is no cmdline tag.  Returns 1 (found, *mod
 * filled), 0 (no such module), or -EINVAL (invalid MBI, err filled).
 */
int bt_mb2_find_module(const void *mbi, uint64_t len, const char *name,
    struct bt_mb2_mod *mod, const char **cmdline, struct kdt_err *err);

#endif /* __ASSEMBLER__ */
#endif /* KDT_MB2_H */
