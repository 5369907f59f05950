/*
 * cd_elf.c -- ELF vmcores as a memory source (cd.h).
 *
 * Handles every ELF core that describes physical memory with PT_LOAD
 * program headers: kdump's /proc/vmcore copies, makedumpfile -E output
 * and QEMU's dump-guest-memory (paging=false, where p_vaddr == p_paddr).
 * Each PT_LOAD becomes one physical range (p_paddr, p_filesz bytes at
 * file offset p_offset); p_memsz beyond p_filesz is not in the file and
 * is therefore not memory we hold.  A file cut short (an interrupted
 * copy) keeps the part of each segment that is present, and remembers the
 * first physical address lost so that the locator can say where the dump
 * ends.  libelf reads the headers; the data is read with pread() on
 * demand (cd_src.c streams).  Called by cd_open() after it saw "\177ELF".
 */
#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "crashdump/cd.h"

static int
cd_elf_read(struct cd_src *s, const struct cd_range *r, uint64_t roff,
    void *buf, uint64_t n)
{
	ssize_t k;

	while (n > 0) {
		k = pread(s->cs_fd, buf, n, (off_t)(r->cr_off + roff));
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return k == 0 ? -EIO : -errno;
		buf = (uint8_t *)buf + k;
		roff += (uint64_t)k;
		n -= (uint64_t)k;
	}
	return 0;
}

static void
cd_elf_close(struct cd_src *s)
{
	if (s->cs_priv != NULL)
		elf_end(s->cs_priv);
	s->cs_priv = NULL;
}

static const struct cd_ops cd_elf_ops = { cd_elf_read, cd_elf_close };

/* The ELF header checks libelf does not word for us. */
static int
cd_elf_check_ident(int fd, const char *path, const char *prog,
    uint64_t fsize, FILE *err)
{
	unsigned char id[EI_NIDENT];

	if (fsize < sizeof (Elf64_Ehdr)) {
		fprintf(err, "%s: %s: truncated ELF header: the file is %llu bytes, an ELF64 header needs %zu\n",
		    prog, path, (unsigned long long)fsize,
		    sizeof (Elf64_Ehdr));
		return 1;
	}
	if (pread(fd, id, sizeof (id), 0) != (ssize_t)sizeof (id)) {
		fprintf(err, "%s: %s: cannot read the ELF identification: %s\n",
		    prog, path, strerror(errno));
		return 1;
	}
	if (id[EI_CLASS] != ELFCLASS64) {
		fprintf(err, "%s: %s: ELF class %u is not supported; supported: ELFCLASS64 (%u) core dumps\n",
		    prog, path, id[EI_CLASS], ELFCLASS64);
		return 1;
	}
	return 0;
}

/* Add one PT_LOAD, clipped to the file; note what a short file lost. */
static int
cd_elf_load(struct cd_src *s, const GElf_Phdr *ph, uint64_t fsize)
{
	uint64_t have = ph->p_filesz;

	if (ph->p_offset >= fsize)
		have = 0;
	else if (have > fsize - ph->p_offset)
		have = fsize - ph->p_offset;
	if (have < ph->p_filesz && ph->p_paddr + have < s->cs_cut_pa)
		s->cs_cut_pa = ph->p_paddr + have;
	return cd_src_add(s, ph->p_paddr, have, ph->p_offset);
}

static int
cd_elf_phdrs(struct cd_src *s, Elf *e, const char *prog, uint64_t fsize,
    FILE *err)
{
	GElf_Phdr ph;
	size_t i, n;

	if (elf_getphdrnum(e, &n) != 0) {
		fprintf(err, "%s: %s: cannot read the program header count: %s\n",
		    prog, s->cs_name, elf_errmsg(-1));
		return 1;
	}
	for (i = 0; i < n; i++) {
		if (gelf_getphdr(e, (int)i, &ph) == NULL) {
			fprintf(err, "%s: %s: cannot read program header %zu of %zu: %s\n",
			    prog, s->cs_name, i, n, elf_errmsg(-1));
			return 1;
		}
		if (ph.p_type == PT_LOAD && cd_elf_load(s, &ph, fsize) != 0) {
			fprintf(err, "%s: no memory for the range list\n",
			    prog);
			return 1;
		}
	}
	cd_src_sort(s);
	return 0;
}

static int
cd_elf_hdr(struct cd_src *s, Elf *e, const char *prog, uint64_t fsize,
    FILE *err)
{
	uint64_t phend;
	GElf_Ehdr eh;

	if (elf_kind(e) != ELF_K_ELF || gelf_getehdr(e, &eh) == NULL) {
		fprintf(err, "%s: %s: unreadable ELF header: %s\n", prog,
		    s->cs_name, elf_errmsg(-1));
		return 1;
	}
	if (eh.e_type != ET_CORE) {
		fprintf(err, "%s: %s: ELF file of type %u is not a core dump (ET_CORE = %u); supported: ELF vmcore (kdump, makedumpfile -E, QEMU dump-guest-memory)\n",
		    prog, s->cs_name, eh.e_type, ET_CORE);
		return 1;
	}
	/*
	 * A file cut inside its program header table: libelf would read
	 * fewer headers than e_phnum and call the rest "invalid data".
	 * (PN_XNUM: the count is in section 0, libelf checks that one.)
	 */
	phend = (uint64_t)eh.e_phnum * eh.e_phentsize;
	if (eh.e_phnum != PN_XNUM && (eh.e_phoff > fsize ||
	    phend > fsize - eh.e_phoff)) {
		fprintf(err, "%s: %s: truncated program header table: %u headers of %u bytes at file offset 0x%llx end at 0x%llx, past the end of the file (%llu bytes)\n",
		    prog, s->cs_name, eh.e_phnum, eh.e_phentsize,
		    (unsigned long long)eh.e_phoff,
		    (unsigned long long)(eh.e_phoff + phend),
		    (unsigned long long)fsize);
		return 1;
	}
	return 0;
}

int
cd_elf_open(int fd, const char *path, const char *prog,
    struct cd_src **out, FILE *err)
{
	struct cd_src *s;
	struct stat st;
	Elf *e;

	if (fstat(fd, &st) != 0 || cd_elf_check_ident(fd, path, prog,
	    (uint64_t)st.st_size, err) != 0)
		goto fail_fd;
	s = cd_src_new(path, "ELF vmcore", &cd_elf_ops, fd);
	if (s == NULL)
		goto fail_fd;
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ, NULL);
	s->cs_priv = e;
	if (e == NULL) {
		fprintf(err, "%s: %s: libelf cannot read it: %s\n", prog, path,
		    elf_errmsg(-1));
		goto fail_src;
	}
	if (cd_elf_hdr(s, e, prog, (uint64_t)st.st_size, err) != 0 ||
	    cd_elf_phdrs(s, e, prog, (uint64_t)st.st_size, err) != 0)
		goto fail_src;
	*out = s;
	return 0;
fail_src:
	cd_close(s);
	return 1;
fail_fd:
	close(fd);
	return 1;
}
