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
 *
 * The same physical memory can be described twice.  kexec (kexec-tools'
 * kexec_load and kexec_file_load alike) gives /proc/vmcore a PT_LOAD for
 * the kernel image (p_vaddr in the kernel text mapping, p_paddr where
 * it was loaded, _text to _end) besides the PT_LOADs of System RAM, which
 * include those pages again; makedumpfile -E keeps both, each cut where
 * its -d level excluded pages.  The kernel image's range includes the
 * init memory freed after boot, so vmalloc'd pages -- a live session's
 * region (common/rgn.h "Page list") -- can sit in both: the locator would
 * find and print such a region twice.  So the ranges are merged into a
 * set with each physical byte once (cd_elf_merge): sorted by p_paddr,
 * the longer first at equal addresses, and each range trimmed to what
 * the ranges before it do not cover.  Both copies are of the same
 * memory, so which file bytes serve an address does not matter.
 *
 * makedumpfile -E's layout otherwise: -d drops excluded pages by ending a
 * PT_LOAD early (p_filesz < p_memsz) and starting a new one after them;
 * a segment of excluded pages only has p_filesz 0 (and p_offset 0).  The
 * part of p_memsz past p_filesz is not memory we hold, never zeros; when
 * a file has such segments, a missing address is said to be in no
 * PT_LOAD or excluded by -d (cs_hole: one phrase for the whole source).
 *
 * An ELF vmcore can also come as a flattened stream (cd_flat.c):
 * makedumpfile -F -E, which is what Debian's kdump-tools writes when
 * MAKEDUMP_ARGS holds -E (kdump-config always adds -F).  cd_kdump_open()
 * indexes the stream, sees "\177ELF" at logical offset 0 and hands the
 * indexed file to cd_elf_open_flat(): the ELF header, the program header
 * table and (PN_XNUM) section header 0 are copied from the stream into
 * one buffer for libelf's elf_memory(), at most CD_ELF_HDRMAX bytes, and
 * memory is read through the index (cd_file_read) instead of pread().
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

/* A flattened ELF vmcore: the logical file and libelf's copy of the
 * headers (the file comment). */
struct cd_elf_flat {
	Elf		*ef_elf;
	struct cd_file	ef_f;
	uint8_t		*ef_hdrs;
};

#define CD_ELF_HDRMAX	(64ULL << 20)	/* ~1.2 M program headers */

static int
cd_elf_flat_read(struct cd_src *s, const struct cd_range *r, uint64_t roff,
    void *buf, uint64_t n)
{
	struct cd_elf_flat *ef = s->cs_priv;

	return cd_file_read(&ef->ef_f, r->cr_off + roff, buf, n);
}

static void
cd_elf_flat_close(struct cd_src *s)
{
	struct cd_elf_flat *ef = s->cs_priv;

	if (ef == NULL)
		return;
	if (ef->ef_elf != NULL)
		elf_end(ef->ef_elf);
	free(ef->ef_hdrs);
	free(ef->ef_f.cf_recs);
	free(ef);
	s->cs_priv = NULL;
}

static const struct cd_ops cd_elf_flat_ops = {
	cd_elf_flat_read, cd_elf_flat_close
};

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

/*
 * Add one PT_LOAD, clipped to the file; note what a short file lost.  In
 * a flattened stream ("flat", else NULL) only the parts its records hold
 * become ranges: its logical size is the end of the furthest record, and
 * a damaged stream can put one 8-byte record terabytes out, which made
 * the region scan walk the empty terabytes (fuzz_dump: a 4 KB file, 26 s
 * for 16 TiB and growing with the offset).
 */
static int
cd_elf_load(struct cd_src *s, const GElf_Phdr *ph, uint64_t fsize,
    const struct cd_file *flat)
{
	uint64_t have = ph->p_filesz, off, pa, k, gap;
	int rv;

	if (ph->p_offset >= fsize)
		have = 0;
	else if (have > fsize - ph->p_offset)
		have = fsize - ph->p_offset;
	if (have < ph->p_filesz && ph->p_paddr + have < s->cs_cut_pa)
		s->cs_cut_pa = ph->p_paddr + have;
	if (flat == NULL)
		return cd_src_add(s, ph->p_paddr, have, ph->p_offset);
	for (off = ph->p_offset, pa = ph->p_paddr; have > 0;
	    off += k + gap, pa += k + gap, have -= k + gap) {
		k = cd_file_held(flat, off, have, &gap);
		if (k > 0 && (rv = cd_src_add(s, pa, k, off)) != 0)
			return rv;
		if (k == 0 && gap == 0)
			break;
	}
	return 0;
}

/* By p_paddr; at equal addresses the longer range first. */
static int
cd_elf_range_cmp(const void *a, const void *b)
{
	const struct cd_range *x = a, *y = b;

	if (x->cr_pa != y->cr_pa)
		return x->cr_pa < y->cr_pa ? -1 : 1;
	return x->cr_size > y->cr_size ? -1 : x->cr_size < y->cr_size;
}

/*
 * Sort the ranges and keep each physical byte once (the file comment):
 * a range wholly inside those before it goes, one that overlaps their
 * end starts where they end.  cs_total becomes the bytes held.
 */
static void
cd_elf_merge(struct cd_src *s)
{
	struct cd_range *r = s->cs_ranges, c;
	uint64_t end = 0, cend;
	uint32_t i, k;

	if (s->cs_nranges > 1)
		qsort(r, s->cs_nranges, sizeof (*r), cd_elf_range_cmp);
	s->cs_total = 0;
	for (i = k = 0; i < s->cs_nranges; i++) {
		c = r[i];
		cend = c.cr_pa + c.cr_size;	/* cd_src_add: no wrap */
		if (k > 0 && c.cr_pa < end) {
			if (cend <= end)
				continue;
			c.cr_off += end - c.cr_pa;
			c.cr_size = cend - end;
			c.cr_pa = end;
		}
		r[k++] = c;
		end = cend;
		s->cs_total += c.cr_size;
	}
	s->cs_nranges = k;
}

static int
cd_elf_phdrs(struct cd_src *s, Elf *e, const char *prog, uint64_t fsize,
    const struct cd_file *flat, FILE *err)
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
		if (ph.p_type != PT_LOAD)
			continue;
		if (cd_elf_load(s, &ph, fsize, flat) != 0) {
			fprintf(err, "%s: no memory for the range list\n",
			    prog);
			return 1;
		}
		if (ph.p_memsz > ph.p_filesz)
			s->cs_hole = "not held by the dump: in no PT_LOAD, or excluded by makedumpfile -d (past a PT_LOAD's p_filesz)";
	}
	cd_elf_merge(s);
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
	    cd_elf_phdrs(s, e, prog, (uint64_t)st.st_size, NULL, err) != 0)
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

/* Copy [off, off + n) of the stream into the header buffer. */
static int
cd_elf_flat_copy(struct cd_elf_flat *ef, uint64_t off, uint64_t n,
    uint64_t size, const char *what)
{
	const struct cd_file *f = &ef->ef_f;

	if (off > size || n > size - off ||
	    cd_file_read(f, off, ef->ef_hdrs + off, n) != 0) {
		fprintf(f->cf_err, "%s: %s: flattened ELF vmcore: the %s (%llu bytes at logical offset 0x%llx) is not in the stream (%llu logical bytes, %llu records)\n",
		    f->cf_prog, f->cf_name, what, (unsigned long long)n,
		    (unsigned long long)off, (unsigned long long)f->cf_size,
		    (unsigned long long)f->cf_nrecs);
		return 1;
	}
	return 0;
}

int
cd_elf_open_flat(struct cd_file *f, struct cd_src **out)
{
	const char *prog = f->cf_prog, *path = f->cf_name;
	struct cd_elf_flat *ef = calloc(1, sizeof (*ef));
	struct cd_src *s = NULL;
	uint64_t phend, shend, size;
	Elf64_Ehdr eh;

	if (ef == NULL || (s = cd_src_new(path, "ELF vmcore (flattened)",
	    &cd_elf_flat_ops, f->cf_fd)) == NULL) {
		fprintf(f->cf_err, "%s: %s: out of memory\n", prog, path);
		free(ef);
		free(f->cf_recs);
		close(f->cf_fd);
		return 1;
	}
	ef->ef_f = *f;
	s->cs_priv = ef;
	if (cd_file_read(f, 0, &eh, sizeof (eh)) != 0) {
		fprintf(f->cf_err, "%s: %s: flattened ELF vmcore: truncated ELF header: the stream holds %llu logical bytes, an ELF64 header needs %zu\n",
		    prog, path, (unsigned long long)f->cf_size, sizeof (eh));
		goto fail;
	}
	if (eh.e_ident[EI_CLASS] != ELFCLASS64) {
		fprintf(f->cf_err, "%s: %s: ELF class %u is not supported; supported: ELFCLASS64 (%u) core dumps\n",
		    prog, path, eh.e_ident[EI_CLASS], ELFCLASS64);
		goto fail;
	}
	/* the headers libelf reads: Ehdr, program headers, section 0 */
	phend = eh.e_phoff + (uint64_t)eh.e_phnum * eh.e_phentsize;
	shend = eh.e_shnum != 0 || eh.e_phnum == PN_XNUM ?
	    eh.e_shoff + (uint64_t)eh.e_shentsize : 0;
	size = sizeof (eh);
	size = phend > size ? phend : size;
	size = shend > size ? shend : size;
	if (eh.e_phoff > CD_ELF_HDRMAX || (shend != 0 &&
	    eh.e_shoff > CD_ELF_HDRMAX) || size > CD_ELF_HDRMAX) {
		fprintf(f->cf_err, "%s: %s: flattened ELF vmcore: its headers end at logical offset 0x%llx (program headers at 0x%llx, section headers at 0x%llx); the limit is 0x%llx\n",
		    prog, path, (unsigned long long)size,
		    (unsigned long long)eh.e_phoff,
		    (unsigned long long)eh.e_shoff,
		    (unsigned long long)CD_ELF_HDRMAX);
		goto fail;
	}
	ef->ef_hdrs = calloc(1, size);
	if (ef->ef_hdrs == NULL) {
		fprintf(f->cf_err, "%s: %s: out of memory for %llu bytes of ELF headers\n",
		    prog, path, (unsigned long long)size);
		goto fail;
	}
	memcpy(ef->ef_hdrs, &eh, sizeof (eh));
	if (cd_elf_flat_copy(ef, eh.e_phoff, phend - eh.e_phoff, f->cf_size,
	    "program header table") != 0 || (shend != 0 &&
	    cd_elf_flat_copy(ef, eh.e_shoff, eh.e_shentsize, f->cf_size,
	    "section header 0")) != 0)
		goto fail;
	elf_version(EV_CURRENT);
	ef->ef_elf = elf_memory((char *)ef->ef_hdrs, size);
	if (ef->ef_elf == NULL) {
		fprintf(f->cf_err, "%s: %s: libelf cannot read it: %s\n",
		    prog, path, elf_errmsg(-1));
		goto fail;
	}
	if (cd_elf_hdr(s, ef->ef_elf, prog, f->cf_size, f->cf_err) != 0 ||
	    cd_elf_phdrs(s, ef->ef_elf, prog, f->cf_size, &ef->ef_f,
	    f->cf_err) != 0)
		goto fail;
	*out = s;
	return 0;
fail:
	cd_close(s);
	return 1;
}
