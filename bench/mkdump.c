/*
 * mkdump.c -- a multi-GiB ELF vmcore for bench/run-extract, made in
 * milliseconds: the file is sparse.
 *
 * Layout: ELF64 header, one PT_LOAD covering physical [0, SIZE) at file
 * offset 4096, and a real region (tests/unit/kt_region.h: made by the
 * writer of common/rgn_write.c, one BEGIN ECB, one record tracing 42 on
 * CPU 1) written at the last KT_RSIZE bytes of that range, so kdt-extract
 * has to scan the whole dump before it finds it.  Everything else is a
 * hole (reads as zeros, takes no disk), unless "dense" is given: then
 * every byte below the region is written with a pattern, so the file is real
 * data on disk and in the page cache (and takes SIZE of disk).
 *
 * Usage: mkdump OUT SIZE_MIB [dense]
 */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/*
 * kt_region.h asserts with the check framework's macros, which only work
 * inside a running test: stand in for them (and keep kt_check.h out).
 */
#define KT_CHECK_H
#define MK_ASSERT(c)	do { if (!(c)) { fprintf(stderr,		\
	"mkdump: %s:%d: %s failed\n", __FILE__, __LINE__, #c);		\
	exit(1); } } while (0)
#define ck_assert_int_eq(a, b)		MK_ASSERT((a) == (b))
#define ck_assert_ptr_nonnull(p)	MK_ASSERT((p) != NULL)
#include "kt_region.h"

#define MK_DATA	4096ull		/* file offset of physical 0 */

/* Write a byte pattern over physical [0, n): the "dense" dump. */
static int
mk_fill(int fd, unsigned long long n)
{
	static uint8_t chunk[1 << 20];
	unsigned long long off, len;
	size_t i;

	for (i = 0; i < sizeof (chunk); i++)
		chunk[i] = (uint8_t)(i * 31 + (i >> 12));
	for (off = 0; off < n; off += len) {
		len = n - off < sizeof (chunk) ? n - off : sizeof (chunk);
		if (pwrite(fd, chunk, len, MK_DATA + off) != (ssize_t)len)
			return -1;
	}
	return 0;
}

int
main(int argc, char **argv)
{
	struct { Elf64_Ehdr eh; Elf64_Phdr ph; } h;
	unsigned long long mib, size;
	uint8_t *rgn;
	char *end;
	int fd;

	if (argc < 3 || argc > 4 || (argc == 4 && strcmp(argv[3], "dense"))) {
		fprintf(stderr, "usage: mkdump OUT SIZE_MIB [dense]\n");
		return 2;
	}
	mib = strtoull(argv[2], &end, 0);
	if (*end != '\0' || mib < 1 || mib > (1ull << 20)) {
		fprintf(stderr, "mkdump: size '%s' MiB: must be 1..%llu\n",
		    argv[2], 1ull << 20);
		return 2;
	}
	size = mib << 20;
	memset(&h, 0, sizeof (h));
	memcpy(h.eh.e_ident, ELFMAG, SELFMAG);
	h.eh.e_ident[EI_CLASS] = ELFCLASS64;
	h.eh.e_ident[EI_DATA] = ELFDATA2LSB;
	h.eh.e_ident[EI_VERSION] = EV_CURRENT;
	h.eh.e_type = ET_CORE;
	h.eh.e_machine = EM_X86_64;
	h.eh.e_version = EV_CURRENT;
	h.eh.e_phoff = sizeof (h.eh);
	h.eh.e_ehsize = sizeof (h.eh);
	h.eh.e_phentsize = sizeof (h.ph);
	h.eh.e_phnum = 1;
	h.ph.p_type = PT_LOAD;
	h.ph.p_offset = MK_DATA;
	h.ph.p_paddr = 0;
	h.ph.p_filesz = h.ph.p_memsz = size;
	h.ph.p_align = 4096;

	rgn = kt_region_new(size - KT_RSIZE);
	kt_region_rec(rgn, 1, 1, 42);
	fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || ftruncate(fd, MK_DATA + size) != 0 ||
	    pwrite(fd, &h, sizeof (h), 0) != (ssize_t)sizeof (h) ||
	    pwrite(fd, rgn, KT_RSIZE, MK_DATA + size - KT_RSIZE) != KT_RSIZE ||
	    (argc == 4 && mk_fill(fd, size - KT_RSIZE) != 0) ||
	    close(fd) != 0) {
		fprintf(stderr, "mkdump: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	free(rgn);
	return 0;
}
