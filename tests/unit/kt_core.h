/*
 * kt_core.h -- small synthetic ELF core files for the dump-reading tests
 * (test_extract.c, test_extract_dir.c, test_extract_elf.c,
 * test_rgn_pagelist.c, test_mdb.c),
 * written at run time so there are no binary fixtures.  Static
 * functions, marked unused (a test uses the file or the mkstemp form,
 * rarely both): each test program includes it once.
 *
 * A core is the memory of a few physical segments (struct kt_seg: its
 * physical address, size and bytes), laid out as the kernel's
 * /proc/vmcore and makedumpfile's ELF output are, to the extent the
 * readers (crashdump/cd_elf.c) look at them:
 *
 *   Elf64_Ehdr       ELF64, little-endian, x86-64, e_type as asked
 *                    (ET_CORE, or another type to test its refusal);
 *                    the program headers follow it at once
 *   Elf64_Phdr       with KT_CORE_NOTE: first a PT_NOTE of 64 zero
 *                    bytes, as a vmcore's ELF notes (never parsed here)
 *   Elf64_Phdr * n   one PT_LOAD per segment, in the given order,
 *                    p_paddr = p_vaddr = its physical address, p_filesz
 *                    = p_memsz = its size
 *   64 zero bytes    with KT_CORE_NOTE: the note's contents
 *   segment bytes    each segment's, in order, back to back
 *
 * Every write is checked (a short write fails the test, not the reader).
 */
#ifndef KT_CORE_H
#define KT_CORE_H

#include <elf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kt_check.h"

/* One segment of physical memory: ks_size bytes at ks_pa. */
struct kt_seg {
	uint64_t	ks_pa;
	uint64_t	ks_size;
	const void	*ks_data;
};

#define KT_CORE_NOTE	0x1	/* a PT_NOTE (64 zero bytes) before the loads */
#define KT_CORE_NOTESZ	64

/* The ELF header, "nph" program headers to follow it at once. */
static void
kt_core_ehdr(FILE *f, uint16_t type, uint32_t nph)
{
	Elf64_Ehdr eh;

	memset(&eh, 0, sizeof (eh));
	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = ELFCLASS64;
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	eh.e_ident[EI_VERSION] = EV_CURRENT;
	eh.e_type = type;
	eh.e_machine = EM_X86_64;
	eh.e_version = EV_CURRENT;
	eh.e_phoff = sizeof (eh);
	eh.e_ehsize = sizeof (eh);
	eh.e_phentsize = sizeof (Elf64_Phdr);
	eh.e_phnum = (uint16_t)nph;
	ck_assert_uint_eq(fwrite(&eh, sizeof (eh), 1, f), 1);
}

/* The core of sg[0..n) to the open stream f (left open). */
static void
kt_core_fwrite(FILE *f, const struct kt_seg *sg, uint32_t n, uint16_t type,
    uint32_t flags)
{
	static const uint8_t zero[KT_CORE_NOTESZ];
	uint32_t i, nph = n + ((flags & KT_CORE_NOTE) ? 1 : 0);
	uint64_t off = sizeof (Elf64_Ehdr) + nph * sizeof (Elf64_Phdr);
	Elf64_Phdr ph;

	kt_core_ehdr(f, type, nph);
	if (flags & KT_CORE_NOTE) {
		memset(&ph, 0, sizeof (ph));
		ph.p_type = PT_NOTE;
		ph.p_offset = off;
		ph.p_filesz = KT_CORE_NOTESZ;
		ck_assert_uint_eq(fwrite(&ph, sizeof (ph), 1, f), 1);
		off += KT_CORE_NOTESZ;
	}
	for (i = 0; i < n; i++) {
		memset(&ph, 0, sizeof (ph));
		ph.p_type = PT_LOAD;
		ph.p_offset = off;
		ph.p_paddr = ph.p_vaddr = sg[i].ks_pa;
		ph.p_filesz = ph.p_memsz = sg[i].ks_size;
		ck_assert_uint_eq(fwrite(&ph, sizeof (ph), 1, f), 1);
		off += sg[i].ks_size;
	}
	if (flags & KT_CORE_NOTE)
		ck_assert_uint_eq(fwrite(zero, 1, sizeof (zero), f),
		    sizeof (zero));
	for (i = 0; i < n; i++)
		ck_assert_uint_eq(fwrite(sg[i].ks_data, 1, sg[i].ks_size, f),
		    sg[i].ks_size);
}

/* The core of sg[0..n) as the file "path" (created or truncated). */
static __attribute__((unused)) void
kt_core_write(const char *path, const struct kt_seg *sg, uint32_t n,
    uint16_t type, uint32_t flags)
{
	FILE *f = fopen(path, "w");

	ck_assert_msg(f != NULL, "cannot create %s", path);
	kt_core_fwrite(f, sg, n, type, flags);
	ck_assert_int_eq(fclose(f), 0);
}

/*
 * The core of sg[0..n) as a new temporary file: "path" holds a mkstemp()
 * template (".../NAME-XXXXXX") and gets the name made.  Returns path.
 */
static __attribute__((unused)) const char *
kt_core_temp(char *path, const struct kt_seg *sg, uint32_t n,
    uint16_t type, uint32_t flags)
{
	int fd = mkstemp(path);
	FILE *f;

	ck_assert_msg(fd >= 0, "mkstemp %s failed", path);
	f = fdopen(fd, "w");
	ck_assert_ptr_nonnull(f);
	kt_core_fwrite(f, sg, n, type, flags);
	ck_assert_int_eq(fclose(f), 0);
	return path;
}

#endif /* KT_CORE_H */
