/*
 * kc_sym.c -- kernel symbol tables: building them (from kallsyms text, a
 * System.map or vmlinux, the region's module table, or one symbol at a
 * time), looking addresses up, and the source lines of code addresses
 * (DWARF line tables read with libdwarf, at the end of this file).  The
 * theory (module names, sizes of kallsyms symbols, module ranges, the
 * sorted invariant, how lines are found) is in kc_sym.h.
 *
 * The one place symbols are resolved: consumer/kc_fmt.c calls it through
 * kc_sym_default() for %a, %k, stack(), sym() and mod(); tables are
 * installed by the kdt command (live engine, kdt -a), by kdt-extract and
 * the crash(8) extension (both through cd_print_region(): one table per
 * region, kc_sym_for_region()), and by tests with fake symbols.
 */
#define _GNU_SOURCE		/* memfd_create */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <fcntl.h>
#include <unistd.h>
#include <gelf.h>
#include <libdwarf/dwarf.h>
#include <libdwarf/libdwarf.h>

#include <dirent.h>
#include <elf.h>
#include <limits.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/utsname.h>

#include "common/rgn.h"
#include "consumer/kc_sym.h"

#define KC_SYM_CORE	"vmlinux"	/* module of core kernel symbols */
/* Reach of an unsized symbol followed by another module, or by none. */
#define KC_SYM_MAXREACH	0x10000

static const struct kc_symtab *kc_sym_current;

/* Source lines (kc_sym.h; the code is at the end of this file). */
/* One row of a line table: code from lr_addr on comes from this line. */
struct kc_lrow {
	uint64_t	lr_addr;	/* file address */
	uint32_t	lr_line;
	uint32_t	lr_file;	/* index into lc_files */
	uint32_t	lr_end;		/* a sequence's end: no code */
	uint32_t	lr_pad;
};

/* The line table of one compilation unit, loaded on first use. */
struct kc_lcu {
	uint64_t	lc_off;		/* CU DIE offset, -1: all CUs */
	struct kc_lrow	*lc_rows;	/* by address, ends first */
	uint32_t	lc_nrows;
	uint32_t	lc_nfiles;
	char		**lc_files;	/* relative to comp_dir */
};

struct kc_linesrc {
	char		*ls_mod;	/* whose code it describes */
	char		*ls_path;
	uint64_t	ls_slide;	/* run-time - file address */
	int		ls_fd;
	Dwarf_Debug	ls_dbg;
	Dwarf_Arange	*ls_aranges;	/* NULL: no .debug_aranges */
	Dwarf_Signed	ls_naranges;
	struct kc_lcu	*ls_cus;
	uint32_t	ls_ncus;
};

static void kc_lines_free(struct kc_linesrc *ls);

struct kc_symtab *
kc_sym_new(void)
{
	return calloc(1, sizeof (struct kc_symtab));
}

void
kc_sym_free(struct kc_symtab *t)
{
	uint32_t i;

	if (t == NULL)
		return;
	if (kc_sym_current == t)
		kc_sym_current = NULL;
	for (i = 0; i < t->kb_nsyms; i++) {
		free(t->kb_syms[i].sy_name);
		free(t->kb_syms[i].sy_mod);
	}
	for (i = 0; i < t->kb_nmods; i++)
		free(t->kb_mods[i].mr_name);
	for (i = 0; i < t->kb_nlines; i++)
		kc_lines_free(&t->kb_lines[i]);
	free(t->kb_lines);
	free(t->kb_mods);
	free(t->kb_syms);
	free(t);
}

int
kc_sym_add(struct kc_symtab *t, uint64_t addr, uint64_t size,
    const char *name, const char *mod)
{
	struct kc_sym *s;

	if (t->kb_nsyms == t->kb_cap) {
		uint32_t cap = t->kb_cap ? t->kb_cap * 2 : 256;

		s = realloc(t->kb_syms, (size_t)cap * sizeof (*s));
		if (s == NULL)
			return -ENOMEM;
		t->kb_syms = s;
		t->kb_cap = cap;
	}
	s = &t->kb_syms[t->kb_nsyms];
	s->sy_addr = addr;
	s->sy_size = size;
	s->sy_name = strdup(name);
	s->sy_mod = strdup(mod != NULL ? mod : KC_SYM_CORE);
	if (s->sy_name == NULL || s->sy_mod == NULL) {
		free(s->sy_name);
		free(s->sy_mod);
		return -ENOMEM;
	}
	t->kb_nsyms++;
	t->kb_sorted = 0;
	return 0;
}

int
kc_sym_add_module(struct kc_symtab *t, uint64_t base, uint64_t size,
    const char *name)
{
	struct kc_modrange *m;

	m = realloc(t->kb_mods, (t->kb_nmods + 1) * sizeof (*m));
	if (m == NULL)
		return -ENOMEM;
	t->kb_mods = m;
	m += t->kb_nmods;
	m->mr_base = base;
	m->mr_size = size;
	if ((m->mr_name = strdup(name)) == NULL)
		return -ENOMEM;
	t->kb_nmods++;
	return 0;
}

/* The newest module range holding addr, or NULL. */
static const struct kc_modrange *
kc_sym_modrange(const struct kc_symtab *t, uint64_t addr)
{
	uint32_t i;

	for (i = t->kb_nmods; i-- > 0;)
		if (addr >= t->kb_mods[i].mr_base &&
		    addr - t->kb_mods[i].mr_base < t->kb_mods[i].mr_size)
			return &t->kb_mods[i];
	return NULL;
}

static int
kc_sym_cmp(const void *a, const void *b)
{
	const struct kc_sym *x = a, *y = b;

	if (x->sy_addr != y->sy_addr)
		return x->sy_addr < y->sy_addr ? -1 : 1;
	return strcmp(x->sy_name, y->sy_name);
}

void
kc_sym_finish(struct kc_symtab *t)
{
	if (t->kb_nsyms > 1)
		qsort(t->kb_syms, t->kb_nsyms, sizeof (struct kc_sym),
		    kc_sym_cmp);
	t->kb_sorted = 1;
}

/*
 * Index of the symbol with the highest address <= addr (the first such in
 * table order for an unsorted table), or -1.
 */
static int64_t
kc_sym_floor(const struct kc_symtab *t, uint64_t addr)
{
	int64_t lo = 0, hi = (int64_t)t->kb_nsyms - 1, best = -1, i;

	if (!t->kb_sorted) {
		for (i = 0; i < (int64_t)t->kb_nsyms; i++)
			if (t->kb_syms[i].sy_addr <= addr && (best < 0 ||
			    t->kb_syms[i].sy_addr > t->kb_syms[best].sy_addr))
				best = i;
		return best;
	}
	while (lo <= hi) {
		int64_t mid = lo + (hi - lo) / 2;

		if (t->kb_syms[mid].sy_addr <= addr) {
			best = mid;
			lo = mid + 1;
		} else {
			hi = mid - 1;
		}
	}
	/* Several symbols at one address: the first by name. */
	while (best > 0 && t->kb_syms[best - 1].sy_addr ==
	    t->kb_syms[best].sy_addr)
		best--;
	return best;
}

/*
 * The symbol with the lowest address above addr into *next (NULL when
 * none); "from" is kc_sym_floor()'s answer.  Returns whether one exists.
 */
static int
kc_sym_next(const struct kc_symtab *t, uint64_t addr, int64_t from,
    const struct kc_sym **next)
{
	uint32_t i = t->kb_sorted && from > 0 ? (uint32_t)from : 0;

	*next = NULL;
	for (; i < t->kb_nsyms; i++) {
		const struct kc_sym *s = &t->kb_syms[i];

		if (s->sy_addr > addr && (*next == NULL ||
		    s->sy_addr < (*next)->sy_addr))
			*next = s;
		if (t->kb_sorted && *next != NULL)
			break;
	}
	return *next != NULL;
}

int
kc_sym_lookup(const struct kc_symtab *t, uint64_t addr,
    const struct kc_sym **symp, const char **modp)
{
	const struct kc_sym *s, *next;
	const struct kc_modrange *mr;
	int64_t i;
	int hasnext;

	if (t == NULL || (t->kb_nsyms == 0 && t->kb_nmods == 0))
		return KC_SYM_NONE;
	mr = kc_sym_modrange(t, addr);
	i = t->kb_nsyms != 0 ? kc_sym_floor(t, addr) : -1;
	if (i < 0)
		goto range;
	s = &t->kb_syms[i];
	hasnext = kc_sym_next(t, addr, i, &next);
	/*
	 * A sized symbol covers its size; an unsized one (kallsyms) reaches
	 * the next symbol of its own module, or KC_SYM_MAXREACH bytes --
	 * but not into a known module range of another module.
	 */
	if ((s->sy_size != 0 && addr - s->sy_addr < s->sy_size) ||
	    (s->sy_size == 0 && (mr == NULL ||
	    strcmp(mr->mr_name, s->sy_mod) == 0) && ((hasnext &&
	    strcmp(next->sy_mod, s->sy_mod) == 0) ||
	    addr - s->sy_addr < KC_SYM_MAXREACH))) {
		*symp = s;
		return KC_SYM_FOUND;
	}
	if (mr == NULL && hasnext && strcmp(next->sy_mod, s->sy_mod) == 0) {
		*modp = s->sy_mod;
		return KC_SYM_MODULE;
	}
range:
	if (mr != NULL) {
		*modp = mr->mr_name;
		return KC_SYM_MODULE;
	}
	return KC_SYM_NONE;
}

void
kc_sym_set_default(const struct kc_symtab *t)
{
	kc_sym_current = t;
}

const struct kc_symtab *
kc_sym_default(void)
{
	return kc_sym_current;
}

/*
 * One kallsyms line: "<hex address> <type> <name>[\t[<module>]]".
 * Returns 1 for a symbol, 0 for a line to skip, -1 when malformed.
 */
static int
kc_sym_parse_line(char *line, uint64_t *addr, char **name, char **mod)
{
	char *end, *p, *q;

	*addr = strtoull(line, &end, 16);
	if (end == line || *end != ' ' || end[1] == '\0' || end[2] != ' ')
		return -1;
	p = end + 3;
	p[strcspn(p, "\r\n")] = '\0';
	*mod = NULL;
	q = strchr(p, '\t');
	if (q == NULL)
		q = strchr(p, ' ');
	if (q != NULL) {
		*q++ = '\0';
		q += strspn(q, " \t");
		if (*q == '[') {
			*mod = q + 1;
			q[strcspn(q, "]")] = '\0';
		}
	}
	*name = p;
	if (*p == '\0')
		return -1;
	return *addr != 0;
}

static int
kc_sym_read(struct kc_symtab *t, FILE *f, const char *path, uint64_t slide,
    char *why, size_t whysz)
{
	char line[512], *name, *mod;
	uint64_t addr, lineno = 0, placeholders = 0;
	int rv;

	while (fgets(line, sizeof (line), f) != NULL) {
		lineno++;
		rv = kc_sym_parse_line(line, &addr, &name, &mod);
		if (rv < 0) {
			snprintf(why, whysz, "%s: line %" PRIu64 ": not a kallsyms line \"<hex address> <type> <name>\"", path, lineno);
			return -1;
		}
		if (rv == 0)
			continue;
		if (addr == UINT64_MAX) {
			placeholders++;	/* Debian's stand-in System.map */
			continue;
		}
		if (kc_sym_add(t, addr + slide, 0, name, mod) != 0) {
			snprintf(why, whysz, "%s: line %" PRIu64 ": out of memory after %u symbols", path, lineno, t->kb_nsyms);
			return -1;
		}
	}
	if (t->kb_nsyms == 0 && placeholders != 0) {
		snprintf(why, whysz, "%s: a placeholder without symbols (Debian's /boot/System.map-*: the real one is /usr/lib/debug/boot/System.map-RELEASE in the linux-image-RELEASE-dbg package)", path);
		return -1;
	}
	if (t->kb_nsyms == 0) {
		snprintf(why, whysz, "%s: no symbol with a non-zero address in %" PRIu64 " lines (kptr_restrict hides them from this user)", path, lineno);
		return -1;
	}
	return 0;
}

struct kc_symtab *
kc_sym_load_kallsyms(const char *path, char *why, size_t whysz)
{
	struct kc_symtab *t;
	FILE *f = fopen(path, "r");

	if (f == NULL) {
		snprintf(why, whysz, "%s: cannot open: %s", path,
		    strerror(errno));
		return NULL;
	}
	t = kc_sym_new();
	if (t == NULL) {
		snprintf(why, whysz, "%s: out of memory", path);
		fclose(f);
		return NULL;
	}
	if (kc_sym_read(t, f, path, 0, why, whysz) != 0) {
		kc_sym_free(t);
		t = NULL;
	} else {
		kc_sym_finish(t);
	}
	fclose(f);
	return t;
}

/* The symbol table of ELF file "fd" ("path"), each address + slide. */
static int
kc_sym_read_elf(struct kc_symtab *t, int fd, const char *path,
    uint64_t slide, char *why, size_t whysz)
{
	Elf *e;
	Elf_Scn *scn = NULL;
	Elf_Data *d;
	GElf_Shdr sh;
	GElf_Sym sym;
	const char *name;
	size_t i, n;
	int rv = -1, found = 0;

	(void) elf_version(EV_CURRENT);
	if ((e = elf_begin(fd, ELF_C_READ, NULL)) == NULL) {
		snprintf(why, whysz, "%s: not readable as ELF: %s", path,
		    elf_errmsg(-1));
		return -1;
	}
	while ((scn = elf_nextscn(e, scn)) != NULL) {
		if (gelf_getshdr(scn, &sh) == NULL || sh.sh_type != SHT_SYMTAB)
			continue;
		found = 1;
		if ((d = elf_getdata(scn, NULL)) == NULL || sh.sh_entsize == 0) {
			snprintf(why, whysz, "%s: symbol table unreadable: %s",
			    path, elf_errmsg(-1));
			goto out;
		}
		n = sh.sh_size / sh.sh_entsize;
		for (i = 0; i < n; i++) {
			if (gelf_getsym(d, (int)i, &sym) == NULL)
				break;
			if ((GELF_ST_TYPE(sym.st_info) != STT_FUNC &&
			    GELF_ST_TYPE(sym.st_info) != STT_OBJECT &&
			    GELF_ST_TYPE(sym.st_info) != STT_NOTYPE) ||
			    sym.st_value == 0 || sym.st_shndx == SHN_UNDEF)
				continue;
			name = elf_strptr(e, sh.sh_link, sym.st_name);
			if (name == NULL || *name == '\0')
				continue;
			if (kc_sym_add(t, sym.st_value + slide, sym.st_size,
			    name, NULL) != 0) {
				snprintf(why, whysz, "%s: out of memory after %u symbols",
				    path, t->kb_nsyms);
				goto out;
			}
		}
	}
	if (!found)
		snprintf(why, whysz, "%s: ELF file without a symbol table (stripped?)",
		    path);
	else if (t->kb_nsyms == 0)
		snprintf(why, whysz, "%s: no function or object symbols", path);
	else
		rv = 0;
out:
	elf_end(e);
	return rv;
}

struct kc_symtab *
kc_sym_load_map(const char *path, uint64_t slide, char *why, size_t whysz)
{
	unsigned char magic[4] = { 0 };
	struct kc_symtab *t;
	FILE *f;
	int rv;

	if ((f = fopen(path, "r")) == NULL) {
		snprintf(why, whysz, "%s: cannot open: %s", path,
		    strerror(errno));
		return NULL;
	}
	if ((t = kc_sym_new()) == NULL) {
		snprintf(why, whysz, "%s: out of memory", path);
		fclose(f);
		return NULL;
	}
	if (fread(magic, 1, 4, f) == 4 && memcmp(magic, ELFMAG, SELFMAG) == 0) {
		rv = kc_sym_read_elf(t, fileno(f), path, slide, why, whysz);
	} else {
		rewind(f);
		rv = kc_sym_read(t, f, path, slide, why, whysz);
	}
	fclose(f);
	if (rv != 0) {
		kc_sym_free(t);
		return NULL;
	}
	kc_sym_finish(t);
	return t;
}

/* The link address of the x86-64 kernel's _text (no KASLR). */
#define KC_SYM_TEXT_LINK	0xffffffff81000000ULL

/*
 * This boot's core-kernel symbols from /proc/kallsyms, moved so that
 * this boot's KASLR offset becomes "kaslr".  NULL when kallsyms hides
 * its addresses or has no _text.
 */
static struct kc_symtab *
kc_sym_kallsyms_moved(uint64_t kaslr, char *why, size_t whysz)
{
	struct kc_symtab *all, *t;
	uint64_t text = 0, cur;
	uint32_t i;

	all = kc_sym_load_kallsyms("/proc/kallsyms", why, whysz);
	if (all == NULL)
		return NULL;
	for (i = 0; i < all->kb_nsyms; i++)
		if (strcmp(all->kb_syms[i].sy_name, "_text") == 0 &&
		    strcmp(all->kb_syms[i].sy_mod, KC_SYM_CORE) == 0)
			text = all->kb_syms[i].sy_addr;
	if (text < KC_SYM_TEXT_LINK || (t = kc_sym_new()) == NULL) {
		snprintf(why, whysz, "/proc/kallsyms: no _text address");
		kc_sym_free(all);
		return NULL;
	}
	cur = text - KC_SYM_TEXT_LINK;
	for (i = 0; i < all->kb_nsyms; i++) {
		const struct kc_sym *y = &all->kb_syms[i];

		if (strcmp(y->sy_mod, KC_SYM_CORE) != 0)
			continue;
		if (kc_sym_add(t, y->sy_addr - cur + kaslr, y->sy_size,
		    y->sy_name, NULL) != 0) {
			kc_sym_free(t);
			kc_sym_free(all);
			snprintf(why, whysz, "/proc/kallsyms: out of memory");
			return NULL;
		}
	}
	kc_sym_free(all);
	kc_sym_finish(t);
	return t;
}

/* A module symbol and its place in the module's symbol table. */
struct kc_msym {
	const struct rgn_modsym	*ms;
	const char		*name;
	uint32_t		idx;
};

static int
kc_msym_cmp(const void *a, const void *b)
{
	const struct kc_msym *x = a, *y = b;

	if (x->ms->ms_off != y->ms->ms_off)
		return x->ms->ms_off < y->ms->ms_off ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/*
 * The symbols of module entry "md".  Of several at one address (aliases:
 * null_init and init_module) only the first in the module's own table is
 * kept, the one the kernel's kallsyms names.  0, -ENOMEM, or -EINVAL
 * with "err" for a damaged symbol.
 */
static int
kc_sym_add_modsyms(struct kc_symtab *t, const struct rgn_mod *md,
    struct kdt_err *err)
{
	const struct rgn_modsym *ms;
	struct kc_msym *v;
	const char *name;
	uint64_t scur;
	uint32_t i, n = 0;
	int rv = 0;

	if ((v = calloc(md->md_nsyms + 1, sizeof (*v))) == NULL)
		return -ENOMEM;
	for (scur = 0; n < md->md_nsyms &&
	    (rv = rgn_modsym_next(md, &scur, &ms, &name, err)) == 1; n++)
		v[n] = (struct kc_msym){ ms, name, n };
	if (rv >= 0) {
		rv = 0;
		qsort(v, n, sizeof (*v), kc_msym_cmp);
		for (i = 0; i < n && rv == 0; i++)
			if (i == 0 || v[i].ms->ms_off != v[i - 1].ms->ms_off)
				rv = kc_sym_add(t,
				    md->md_base + v[i].ms->ms_off,
				    v[i].ms->ms_size, v[i].name, md->md_name);
	}
	free(v);
	return rv;
}

/*
 * Open a region image for its module table alone.  The table lies in the
 * metadata, before the CPU buffers; a dump may lack some of those (the
 * printer reports them, rgn.h "gaps"), which must not cost the modules'
 * names: when the whole image does not open, it is opened again with
 * everything from rh_cpu_off on taken as missing.
 */
static int
kc_sym_rgn_open(struct rgn_view *v, const void *img, uint64_t len,
    struct kdt_err *err)
{
	const struct rgn_hdr *h = img;
	struct rgn_gap g;

	if (rgn_open(v, img, len, RGN_PHYS_ANY, err) == 0)
		return 0;
	if (len < sizeof (*h) || h->rh_cpu_off == 0 || h->rh_cpu_off >= len)
		return -1;
	g.rg_off = h->rh_cpu_off;
	g.rg_len = len - h->rh_cpu_off;
	g.rg_why = "not needed for the module table";
	return rgn_open_gaps(v, img, len, RGN_PHYS_ANY, &g, 1, err);
}

/* ---- build ids (rgn.h, "Build ids"; kc_sym.h) ---- */

/* "id" in hexadecimal, as readelf -n prints it. */
static void
kc_bid_hex(const uint8_t *id, uint32_t len, char *buf, size_t size)
{
	uint32_t i;

	buf[0] = '\0';
	for (i = 0; i < len && 2 * (size_t)i + 2 < size; i++)
		snprintf(buf + 2 * i, size - 2 * i, "%02x", id[i]);
}

/*
 * The first GNU build-id note (NT_GNU_BUILD_ID, owner "GNU") in the
 * notes p[0, n): its descriptor's length with *idp, or 0.
 */
static uint32_t
kc_bid_notes(const uint8_t *p, size_t n, const uint8_t **idp)
{
	Elf64_Nhdr nh;
	size_t off = 0, nlen, dlen;

	while (n - off >= sizeof (nh)) {
		memcpy(&nh, p + off, sizeof (nh));
		nlen = ((size_t)nh.n_namesz + 3) & ~(size_t)3;
		dlen = ((size_t)nh.n_descsz + 3) & ~(size_t)3;
		if (nh.n_namesz > n || nh.n_descsz > n ||
		    nlen + dlen > n - off - sizeof (nh))
			return 0;
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
		    memcmp(p + off + sizeof (nh), "GNU", 4) == 0 &&
		    nh.n_descsz != 0) {
			*idp = p + off + sizeof (nh) + nlen;
			return nh.n_descsz;
		}
		off += sizeof (nh) + nlen + dlen;
	}
	return 0;
}

/*
 * The GNU build id of ELF file "path" from its SHT_NOTE sections: 1
 * with id[0, *len) (at most RGN_BUILDID_MAX bytes are kept: a longer id
 * never matches a recorded one), 0 when it has none, -2 when the file
 * is not ELF (a System.map), -1 with why[0, whysz) when it cannot be
 * read.
 */
static int
kc_bid_file(const char *path, uint8_t *id, uint32_t *len, char *why,
    size_t whysz)
{
	unsigned char magic[SELFMAG];
	const uint8_t *p;
	Elf_Scn *scn = NULL;
	Elf_Data *d;
	GElf_Shdr sh;
	uint32_t n;
	Elf *e;
	int fd, rv = 0;

	*len = 0;
	if ((fd = open(path, O_RDONLY)) < 0) {
		snprintf(why, whysz, "%s: cannot open: %s", path,
		    strerror(errno));
		return -1;
	}
	if (pread(fd, magic, sizeof (magic), 0) != (ssize_t)sizeof (magic) ||
	    memcmp(magic, ELFMAG, SELFMAG) != 0) {
		close(fd);
		return -2;
	}
	(void) elf_version(EV_CURRENT);
	if ((e = elf_begin(fd, ELF_C_READ, NULL)) == NULL) {
		snprintf(why, whysz, "%s: not readable as ELF: %s", path,
		    elf_errmsg(-1));
		close(fd);
		return -1;
	}
	while (rv == 0 && (scn = elf_nextscn(e, scn)) != NULL) {
		if (gelf_getshdr(scn, &sh) == NULL || sh.sh_type != SHT_NOTE ||
		    (d = elf_rawdata(scn, NULL)) == NULL || d->d_buf == NULL)
			continue;
		if ((n = kc_bid_notes(d->d_buf, d->d_size, &p)) != 0) {
			*len = n < RGN_BUILDID_MAX ? n : RGN_BUILDID_MAX;
			memcpy(id, p, *len);
			if (n > RGN_BUILDID_MAX)
				*len = RGN_BUILDID_MAX + 1;	/* no match */
			rv = 1;
		}
	}
	elf_end(e);
	close(fd);
	return rv;
}

/*
 * The build id of the kernel that wrote region image img[0, len): 1
 * with *idp, *lenp; 0 when the image does not record one (or cannot be
 * opened: the printer reports that).
 */
static int
kc_bid_region(const void *img, uint64_t len, const uint8_t **idp,
    uint32_t *lenp)
{
	struct rgn_view v;
	struct kdt_err err;

	*idp = NULL;
	*lenp = 0;
	if (len < sizeof (struct rgn_hdr) ||
	    kc_sym_rgn_open(&v, img, len, &err) != 0)
		return 0;
	return rgn_view_kbid(&v, idp, lenp, &err) == 1;
}

/*
 * Is kernel file "path" (vmlinux or System.map) of the build that wrote
 * the region?  KC_BID_SAME, KC_BID_OTHER (why[] says both ids and what
 * to do), KC_BID_NOFILE (an ELF file without a build id), KC_BID_NOREGION
 * (the region records none), KC_BID_UNKNOWN (not ELF, or unreadable:
 * the loaders report that).  *hex gets the region's id when it has one.
 */
#define KC_BID_SAME	0
#define KC_BID_OTHER	1
#define KC_BID_NOFILE	2
#define KC_BID_NOREGION	3
#define KC_BID_UNKNOWN	4

static int
kc_bid_kernel_file(const void *img, uint64_t len, const char *path,
    char *hex, size_t hexsz, char *why, size_t whysz)
{
	const struct rgn_hdr *h = img;
	const uint8_t *rid;
	uint8_t fid[RGN_BUILDID_MAX];
	char fhex[2 * RGN_BUILDID_MAX + 1];
	uint32_t rlen, flen;
	int r;

	hex[0] = '\0';
	r = kc_bid_file(path, fid, &flen, why, whysz);
	if (!kc_bid_region(img, len, &rid, &rlen))
		return r == -2 ? KC_BID_UNKNOWN : KC_BID_NOREGION;
	kc_bid_hex(rid, rlen, hex, hexsz);
	if (r < 0)
		return KC_BID_UNKNOWN;
	if (r == 0)
		return KC_BID_NOFILE;
	if (flen == rlen && memcmp(fid, rid, rlen) == 0)
		return KC_BID_SAME;
	kc_bid_hex(fid, flen <= RGN_BUILDID_MAX ? flen : RGN_BUILDID_MAX,
	    fhex, sizeof (fhex));
	snprintf(why, whysz, "%s: not the build of kernel %.65s that wrote the region: the file's build id is %s%s, the region records %s (a rebuilt package keeps the release); give the vmlinux of that very build (its -dbg package, same version and build) or leave it out",
	    path, h->rh_release[0] != '\0' ? h->rh_release : "(unknown)",
	    fhex, flen > RGN_BUILDID_MAX ? "..." : "", hex);
	return KC_BID_OTHER;
}

/*
 * Does the running kernel have the build id the region records?  1 yes
 * or nothing to compare (the region records none, /sys/kernel/notes is
 * unreadable), 0 no with its id in hex[].
 */
static int
kc_bid_running(const void *img, uint64_t len, char *hex, size_t hexsz)
{
	uint8_t buf[4096];
	const uint8_t *rid, *id;
	uint32_t rlen, n;
	ssize_t got;
	int fd;

	hex[0] = '\0';
	if (!kc_bid_region(img, len, &rid, &rlen) ||
	    (fd = open("/sys/kernel/notes", O_RDONLY)) < 0)
		return 1;
	got = read(fd, buf, sizeof (buf));
	close(fd);
	if (got <= 0 || (n = kc_bid_notes(buf, (size_t)got, &id)) == 0)
		return 1;
	if (n == rlen && memcmp(id, rid, n) == 0)
		return 1;
	kc_bid_hex(id, n < RGN_BUILDID_MAX ? n : RGN_BUILDID_MAX, hex, hexsz);
	return 0;
}

int
kc_sym_add_region_mods(struct kc_symtab *t, const void *img, uint64_t len,
    uint32_t *notes, char *why, size_t whysz)
{
	const struct rgn_modarea *a;
	const struct rgn_mod *md, *later;
	struct rgn_view v;
	struct kdt_err err;
	uint64_t cur, lcur;
	int n = 0, rv, skip;

	if (notes != NULL)
		*notes = 0;
	/* the region itself is the printer's to judge and report */
	if (kc_sym_rgn_open(&v, img, len, &err) != 0)
		return 0;
	if (rgn_mod_first(&v, &a, &err) != 0) {
		snprintf(why, whysz, "region's module table: %s", err.ke_msg);
		return -1;
	}
	if (a == NULL)
		return 0;
	if (notes != NULL)
		*notes = a->ma_trunc + a->ma_lost;
	for (cur = 0; (rv = rgn_mod_next(&v, &cur, &md, &err)) == 1;) {
		/* an unloaded module whose place a later one took */
		skip = 0;
		for (lcur = cur; !skip && (md->md_flags & RGN_MOD_F_GONE) &&
		    rgn_mod_next(&v, &lcur, &later, &err) == 1;)
			skip = later->md_base < md->md_base + md->md_size &&
			    md->md_base < later->md_base + later->md_size;
		if (skip)
			continue;
		if (kc_sym_add_module(t, md->md_base, md->md_size,
		    md->md_name) != 0 || (rv = kc_sym_add_modsyms(t, md,
		    &err)) == -ENOMEM)
			goto nomem;
		if (rv < 0)
			break;
		n++;
	}
	kc_sym_finish(t);
	if (rv < 0) {
		snprintf(why, whysz, "region's module table: %s", err.ke_msg);
		return -1;
	}
	return n;
nomem:
	kc_sym_finish(t);
	snprintf(why, whysz, "region's module table: out of memory after %u symbols",
	    t->kb_nsyms);
	return -1;
}

/*
 * The region's modules into "t" (a new table when NULL).  The table is
 * part of the region, not a file the user chose, so it is used silently
 * (the crash(8) extension prints what kdt-extract prints, stderr too);
 * only a damaged table and modules kdt.ko left out are said, unless
 * quiet.  Returns the table, NULL when it would be empty.
 */
static struct kc_symtab *
kc_sym_region_mods(struct kc_symtab *t, const void *img, uint64_t len,
    int quiet, const char *prog, FILE *err)
{
	struct kc_symtab *nt = t != NULL ? t : kc_sym_new();
	char why[600];
	uint32_t notes;
	int n;

	if (nt == NULL)
		return t;
	n = kc_sym_add_region_mods(nt, img, len, &notes, why, sizeof (why));
	if (n < 0 && !quiet)
		fprintf(err, "%s: %s\n", prog, why);
	else if (n >= 0 && notes != 0 && !quiet)
		fprintf(err, "%s: region's module table: %u modules' symbols were cut short or left out by kdt.ko for lack of room (their addresses print as module`0xaddr or in hex)\n",
		    prog, notes);
	if (t == NULL && nt->kb_nsyms == 0 && nt->kb_nmods == 0) {
		kc_sym_free(nt);
		return NULL;
	}
	return nt;
}

struct kc_symtab *
kc_sym_for_region(const void *img, uint64_t len, const char *path,
    int quiet, const char *prog, FILE *err, int *failed)
{
	static const char *const fmt[] = {
		"/usr/lib/debug/boot/System.map-%s",
		"/usr/lib/debug/boot/vmlinux-%s",
		"/usr/lib/debug/lib/modules/%s/vmlinux",
		"/boot/System.map-%s",
	};
	const struct rgn_hdr *h = img;
	char rel[sizeof (h->rh_release) + 1], cand[512], why[800];
	char hex[2 * RGN_BUILDID_MAX + 1];
	struct kc_symtab *t = NULL;
	struct utsname u;
	size_t i;

	*failed = 0;
	if (len < sizeof (*h))
		return NULL;
	memcpy(rel, h->rh_release, sizeof (h->rh_release));
	rel[sizeof (h->rh_release)] = '\0';
	if (path == NULL) {
		if (rel[0] == '\0' || strchr(rel, '/') != NULL)
			goto mods;
		for (i = 0; i < sizeof (fmt) / sizeof (fmt[0]); i++) {
			snprintf(cand, sizeof (cand), fmt[i], rel);
			if (access(cand, R_OK) != 0)
				continue;
			/* another build of the release: a warning only */
			if (kc_bid_kernel_file(img, len, cand, hex,
			    sizeof (hex), why, sizeof (why)) == KC_BID_OTHER) {
				if (!quiet)
					fprintf(err, "%s: not used: %s\n", prog,
					    why);
				continue;
			}
			t = kc_sym_load_map(cand, h->rh_kaslr, why,
			    sizeof (why));
			if (t != NULL) {
				path = cand;
				goto found;
			}
			/* found by the search: a warning only */
			if (!quiet)
				fprintf(err, "%s: %s\n", prog, why);
		}
		if (uname(&u) != 0 || strcmp(u.release, rel) != 0)
			goto mods;
		if (!kc_bid_running(img, len, hex, sizeof (hex))) {
			if (!quiet)
				fprintf(err, "%s: /proc/kallsyms not used: this boot runs kernel %s too, but another build of it (build id %s, not the one the region records)\n",
				    prog, rel, hex);
			goto mods;
		}
		if ((t = kc_sym_kallsyms_moved(h->rh_kaslr, why,
		    sizeof (why))) == NULL)
			goto mods;
		if (!quiet)
			fprintf(err, "%s: symbols of kernel %s from /proc/kallsyms (this boot runs the same kernel), moved to the region's KASLR offset 0x%llx; module symbols left out\n",
			    prog, rel, (unsigned long long)h->rh_kaslr);
		goto mods;
	}
	/* a file the user named, of another build: refused */
	if (kc_bid_kernel_file(img, len, path, hex, sizeof (hex), why,
	    sizeof (why)) == KC_BID_OTHER) {
		fprintf(err, "%s: %s\n", prog, why);
		*failed = 1;
		return NULL;
	}
	t = kc_sym_load_map(path, h->rh_kaslr, why, sizeof (why));
	if (t == NULL) {
		fprintf(err, "%s: --symbols: %s\n", prog, why);
		*failed = 1;
		return NULL;
	}
found:
	if (!quiet)
		fprintf(err, "%s: symbols of kernel %s from %s, moved by its KASLR offset 0x%llx\n",
		    prog, rel[0] != '\0' ? rel : "(unknown)", path,
		    (unsigned long long)h->rh_kaslr);
mods:
	return kc_sym_region_mods(t, img, len, quiet, prog, err);
}

/* ================================================================
 * source lines (kc_sym.h, "source lines"): DWARF through libdwarf
 * ================================================================ */

static int
kc_lrow_cmp(const void *a, const void *b)
{
	const struct kc_lrow *x = a, *y = b;

	if (x->lr_addr != y->lr_addr)
		return x->lr_addr < y->lr_addr ? -1 : 1;
	/* a sequence's end before the next one's start at that address */
	return (int)y->lr_end - (int)x->lr_end;
}

/*
 * "name" relative to the source tree: without the CU's compilation
 * directory, or else (an assembler unit built in a build directory
 * inside the tree: /build/linux-6.1/debian/build/...) without the
 * directories it shares with it, if at least two; and without "./".
 */
static const char *
kc_lines_rel(const char *name, const char *compdir)
{
	size_t n = compdir != NULL ? strlen(compdir) : 0, i, last = 0;
	int depth = 0;

	if (n != 0 && strncmp(name, compdir, n) == 0 && name[n] == '/') {
		name += n + 1;
	} else if (n != 0 && name[0] == '/') {
		for (i = 0; i < n && name[i] == compdir[i]; i++)
			if (name[i] == '/' && i != 0) {
				last = i;
				depth++;
			}
		if (i == n && name[i] == '/') {
			last = i;
			depth++;
		}
		if (depth >= 2)
			name += last + 1;
	}
	while (name[0] == '.' && name[1] == '/')
		name += 2;
	return name;
}

/* The CU's DW_AT_comp_dir (libdwarf's string), or NULL. */
static char *
kc_lines_compdir(Dwarf_Debug dbg, Dwarf_Die die)
{
	Dwarf_Attribute at;
	Dwarf_Error de = NULL;
	char *s = NULL;

	if (dwarf_attr(die, DW_AT_comp_dir, &at, &de) != DW_DLV_OK)
		return NULL;
	if (dwarf_formstring(at, &s, &de) != DW_DLV_OK)
		s = NULL;
	dwarf_dealloc(dbg, at, DW_DLA_ATTR);
	return s;
}

/* Append CU "die"'s line rows to lc.  0, or -1 when memory runs out. */
static int
kc_lines_cu_rows(struct kc_linesrc *ls, Dwarf_Die die, struct kc_lcu *lc)
{
	Dwarf_Unsigned version, lineno, fileno, lastfile = (Dwarf_Unsigned)-1;
	Dwarf_Small ntables;
	Dwarf_Line_Context ctx;
	Dwarf_Line *lines;
	Dwarf_Signed n, i;
	Dwarf_Error de = NULL;
	Dwarf_Addr addr;
	Dwarf_Bool end;
	struct kc_lrow *r;
	char *compdir, *src, **f;
	uint32_t curfile = 0;
	int rv = 0;

	if (dwarf_srclines_b(die, &version, &ntables, &ctx, &de) != DW_DLV_OK)
		return 0;	/* a CU without lines */
	if (dwarf_srclines_from_linecontext(ctx, &lines, &n, &de) !=
	    DW_DLV_OK || n <= 0) {
		dwarf_srclines_dealloc_b(ctx);
		return 0;
	}
	compdir = kc_lines_compdir(ls->ls_dbg, die);
	r = realloc(lc->lc_rows, (lc->lc_nrows + (size_t)n) * sizeof (*r));
	if (r == NULL) {
		rv = -1;
		goto out;
	}
	lc->lc_rows = r;
	for (i = 0; i < n; i++) {
		if (dwarf_lineaddr(lines[i], &addr, &de) != DW_DLV_OK ||
		    dwarf_lineno(lines[i], &lineno, &de) != DW_DLV_OK ||
		    dwarf_lineendsequence(lines[i], &end, &de) != DW_DLV_OK ||
		    dwarf_line_srcfileno(lines[i], &fileno, &de) != DW_DLV_OK)
			continue;
		if (fileno != lastfile || lc->lc_nfiles == 0) {
			if (dwarf_linesrc(lines[i], &src, &de) != DW_DLV_OK)
				continue;
			f = realloc(lc->lc_files, (lc->lc_nfiles + 1) *
			    sizeof (*f));
			if (f == NULL || (f[lc->lc_nfiles] =
			    strdup(kc_lines_rel(src, compdir))) == NULL) {
				if (f != NULL)
					lc->lc_files = f;
				dwarf_dealloc(ls->ls_dbg, src, DW_DLA_STRING);
				rv = -1;
				goto out;
			}
			dwarf_dealloc(ls->ls_dbg, src, DW_DLA_STRING);
			lc->lc_files = f;
			curfile = lc->lc_nfiles++;
			lastfile = fileno;
		}
		r = &lc->lc_rows[lc->lc_nrows++];
		r->lr_addr = addr;
		r->lr_line = (uint32_t)lineno;
		r->lr_file = curfile;
		r->lr_end = end != 0;
		r->lr_pad = 0;
	}
out:
	if (compdir != NULL)
		dwarf_dealloc(ls->ls_dbg, compdir, DW_DLA_STRING);
	dwarf_srclines_dealloc_b(ctx);
	return rv;
}

/* Every CU's rows (a file without .debug_aranges). */
static int
kc_lines_all_rows(struct kc_linesrc *ls, struct kc_lcu *lc)
{
	Dwarf_Unsigned hlen, abbrev, next;
	Dwarf_Half ver, asize, lsize, xsize, type;
	Dwarf_Sig8 sig;
	Dwarf_Unsigned toff;
	Dwarf_Die die;
	Dwarf_Error de = NULL;
	int rv = 0;

	while (rv == 0 && dwarf_next_cu_header_d(ls->ls_dbg, 1, &hlen, &ver,
	    &abbrev, &asize, &lsize, &xsize, &sig, &toff, &next, &type,
	    &de) == DW_DLV_OK) {
		if (dwarf_siblingof_b(ls->ls_dbg, NULL, 1, &die, &de) !=
		    DW_DLV_OK)
			continue;
		rv = kc_lines_cu_rows(ls, die, lc);
		dwarf_dealloc(ls->ls_dbg, die, DW_DLA_DIE);
	}
	return rv;
}

/* The rows covering file address "addr", loaded on first use; or NULL. */
static struct kc_lcu *
kc_lines_cu(struct kc_linesrc *ls, uint64_t addr)
{
	Dwarf_Arange ar;
	Dwarf_Off off = (Dwarf_Off)-1;
	Dwarf_Error de = NULL;
	Dwarf_Die die;
	struct kc_lcu *lc;
	uint32_t i;
	int rv;

	if (ls->ls_aranges != NULL) {
		if (dwarf_get_arange(ls->ls_aranges, ls->ls_naranges, addr,
		    &ar, &de) != DW_DLV_OK ||
		    dwarf_get_cu_die_offset(ar, &off, &de) != DW_DLV_OK)
			return NULL;
	}
	for (i = 0; i < ls->ls_ncus; i++)
		if (ls->ls_cus[i].lc_off == (uint64_t)off)
			return ls->ls_cus[i].lc_nrows != 0 ? &ls->ls_cus[i] :
			    NULL;
	lc = realloc(ls->ls_cus, (ls->ls_ncus + 1) * sizeof (*lc));
	if (lc == NULL)
		return NULL;
	ls->ls_cus = lc;
	lc = &ls->ls_cus[ls->ls_ncus++];
	memset(lc, 0, sizeof (*lc));
	lc->lc_off = (uint64_t)off;
	if (ls->ls_aranges == NULL) {
		rv = kc_lines_all_rows(ls, lc);
	} else if (dwarf_offdie_b(ls->ls_dbg, off, 1, &die, &de) ==
	    DW_DLV_OK) {
		rv = kc_lines_cu_rows(ls, die, lc);
		dwarf_dealloc(ls->ls_dbg, die, DW_DLA_DIE);
	} else {
		rv = -1;
	}
	if (rv != 0)
		lc->lc_nrows = 0;	/* keep what it holds freeable */
	if (lc->lc_nrows > 1)
		qsort(lc->lc_rows, lc->lc_nrows, sizeof (struct kc_lrow),
		    kc_lrow_cmp);
	return lc->lc_nrows != 0 ? lc : NULL;
}

static void
kc_lines_free(struct kc_linesrc *ls)
{
	Dwarf_Error de = NULL;
	uint32_t c, f;

	for (c = 0; c < ls->ls_ncus; c++) {
		for (f = 0; f < ls->ls_cus[c].lc_nfiles; f++)
			free(ls->ls_cus[c].lc_files[f]);
		free(ls->ls_cus[c].lc_files);
		free(ls->ls_cus[c].lc_rows);
	}
	free(ls->ls_cus);
	/* dwarf_finish() frees the aranges and all else libdwarf made */
	if (ls->ls_dbg != NULL)
		(void) dwarf_finish(ls->ls_dbg, &de);
	if (ls->ls_fd >= 0)
		close(ls->ls_fd);
	free(ls->ls_mod);
	free(ls->ls_path);
}

/* Has ELF file "fd" a .debug_line section (what lines need)? */
static int
kc_lines_has_debug_line(int fd)
{
	Elf *e;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	size_t shstr;
	const char *name;
	int found = 0;

	(void) elf_version(EV_CURRENT);
	if ((e = elf_begin(fd, ELF_C_READ, NULL)) == NULL)
		return 0;
	if (elf_getshdrstrndx(e, &shstr) == 0)
		while (!found && (scn = elf_nextscn(e, scn)) != NULL)
			found = gelf_getshdr(scn, &sh) != NULL &&
			    sh.sh_type != SHT_NOBITS &&
			    (name = elf_strptr(e, shstr, sh.sh_name)) != NULL &&
			    strcmp(name, ".debug_line") == 0;
	elf_end(e);
	return found;
}

/*
 * Attach the line tables of the ELF file open on "fd" (which it owns from
 * here on, closed on failure), named "path" in messages, to module "mod".
 */
static int
kc_lines_attach(struct kc_symtab *t, int fd, const char *path,
    const char *mod, uint64_t slide, char *why, size_t whysz)
{
	struct kc_linesrc *ls, *arr;
	Dwarf_Error de = NULL;
	int rv;

	arr = realloc(t->kb_lines, (t->kb_nlines + 1) * sizeof (*arr));
	if (arr == NULL) {
		close(fd);
		snprintf(why, whysz, "%s: out of memory", path);
		return -1;
	}
	t->kb_lines = arr;
	ls = &arr[t->kb_nlines];
	memset(ls, 0, sizeof (*ls));
	ls->ls_slide = slide;
	ls->ls_fd = fd;
	rv = kc_lines_has_debug_line(ls->ls_fd) ? dwarf_init_b(ls->ls_fd,
	    DW_DLC_READ, DW_GROUPNUMBER_ANY, NULL, NULL, &ls->ls_dbg, &de) :
	    DW_DLV_NO_ENTRY;
	if (rv != DW_DLV_OK) {
		snprintf(why, whysz, "%s: no DWARF debugging information (no .debug_line)%s%s; %s",
		    path, rv == DW_DLV_ERROR ? ": " : "",
		    rv == DW_DLV_ERROR ? dwarf_errmsg(de) : "",
		    strcmp(mod, KC_SYM_CORE) == 0 ?
		    "a vmlinux with debuginfo is /usr/lib/debug/boot/vmlinux-RELEASE from linux-image-RELEASE-dbg" :
		    "modules with debuginfo are in /usr/lib/debug/lib/modules/RELEASE from linux-image-RELEASE-dbg");
		if (rv == DW_DLV_ERROR)
			dwarf_dealloc(NULL, de, DW_DLA_ERROR);
		ls->ls_dbg = NULL;
		kc_lines_free(ls);
		return -1;
	}
	if (dwarf_get_aranges(ls->ls_dbg, &ls->ls_aranges, &ls->ls_naranges,
	    &de) != DW_DLV_OK)
		ls->ls_aranges = NULL;
	ls->ls_mod = strdup(mod);
	ls->ls_path = strdup(path);
	if (ls->ls_mod == NULL || ls->ls_path == NULL) {
		kc_lines_free(ls);
		snprintf(why, whysz, "%s: out of memory", path);
		return -1;
	}
	t->kb_nlines++;
	return 0;
}

int
kc_sym_load_lines(struct kc_symtab *t, const char *path, const char *mod,
    uint64_t slide, char *why, size_t whysz)
{
	int fd;

	if ((fd = open(path, O_RDONLY)) < 0) {
		snprintf(why, whysz, "%s: cannot open: %s", path,
		    strerror(errno));
		return -1;
	}
	return kc_lines_attach(t, fd, path, mod, slide, why, whysz);
}

int
kc_sym_srcline(const struct kc_symtab *t, uint64_t pc, char *buf,
    size_t size)
{
	const struct kc_sym *sym = NULL;
	const char *mod = NULL;
	struct kc_linesrc *ls = NULL;
	struct kc_lcu *lc;
	uint64_t addr;
	int64_t lo, hi, best = -1;
	uint32_t i;

	if (t == NULL || t->kb_nlines == 0 ||
	    kc_sym_lookup(t, pc, &sym, &mod) != KC_SYM_FOUND)
		return 0;
	for (i = 0; i < t->kb_nlines; i++)
		if (strcmp(t->kb_lines[i].ls_mod, sym->sy_mod) == 0)
			ls = &t->kb_lines[i];
	if (ls == NULL)
		return 0;
	/* a return address: the call is the byte before, same function */
	addr = (pc > sym->sy_addr ? pc - 1 : pc) - ls->ls_slide;
	if ((lc = kc_lines_cu(ls, addr)) == NULL)
		return 0;
	for (lo = 0, hi = (int64_t)lc->lc_nrows - 1; lo <= hi;) {
		int64_t mid = lo + (hi - lo) / 2;

		if (lc->lc_rows[mid].lr_addr <= addr) {
			best = mid;
			lo = mid + 1;
		} else {
			hi = mid - 1;
		}
	}
	if (best < 0 || lc->lc_rows[best].lr_end ||
	    lc->lc_rows[best].lr_line == 0)
		return 0;
	snprintf(buf, size, "%s:%u", lc->lc_files[lc->lc_rows[best].lr_file],
	    lc->lc_rows[best].lr_line);
	return 1;
}

int
kc_sym_lines_for_region(struct kc_symtab *t, const void *img, uint64_t len,
    const char *vmlinux, int quiet, const char *prog, FILE *err)
{
	const struct rgn_hdr *h = img;
	char why[800], hex[2 * RGN_BUILDID_MAX + 1], said[200];
	int b;

	if (vmlinux == NULL)
		return 0;
	if (t == NULL || len < sizeof (*h)) {
		fprintf(err, "%s: --vmlinux %s: no symbols to attach source lines to\n",
		    prog, vmlinux);
		return -1;
	}
	/* the build that wrote the region, or no lines (rgn.h) */
	b = kc_bid_kernel_file(img, len, vmlinux, hex, sizeof (hex), why,
	    sizeof (why));
	if (b == KC_BID_OTHER) {
		fprintf(err, "%s: --vmlinux %s\n", prog, why);
		return -1;
	}
	if (kc_sym_load_lines(t, vmlinux, KC_SYM_CORE, h->rh_kaslr, why,
	    sizeof (why)) != 0) {
		fprintf(err, "%s: --vmlinux: %s\n", prog, why);
		return -1;
	}
	said[0] = '\0';
	if (b == KC_BID_SAME)
		snprintf(said, sizeof (said), "; its build id %s is the region's",
		    hex);
	else if (b == KC_BID_NOREGION)
		snprintf(said, sizeof (said), "; build id not checked: the region does not record the kernel's (not recorded)");
	else if (b == KC_BID_NOFILE)
		snprintf(said, sizeof (said), "; build id not checked: the file has no GNU build id note (the region records %s)",
		    hex);
	if (!quiet)
		fprintf(err, "%s: source lines of kernel frames from %s (DWARF), moved by the KASLR offset 0x%llx%s\n",
		    prog, vmlinux, (unsigned long long)h->rh_kaslr, said);
	return 0;
}

/* ================================================================
 * source lines of loadable modules (kc_sym.h, --modules DIR)
 * ================================================================ */

/* A NAME.ko found under DIR; kf_name with '-' turned into '_'. */
struct kc_kofile {
	char		*kf_name;
	char		*kf_path;
};

struct kc_kolist {
	struct kc_kofile *kl_v;
	uint32_t	kl_n;
	uint32_t	kl_cap;
};

/* Where the region says a module's text lies (its latest entries). */
struct kc_modtext {
	char		mt_name[RGN_MOD_NAMELEN + 1];
	uint64_t	mt_core;	/* md_base of the core entry */
	uint64_t	mt_text;	/* its md_text */
	uint64_t	mt_init;	/* RGN_MOD_F_INIT entry's base, or 0 */
	uint32_t	mt_bidlen;	/* core entry's build id, 0: none */
	uint8_t		mt_bid[RGN_BUILDID_MAX];
};

#define KC_KO_MAXSIZE	(1ULL << 30)	/* a .ko larger is not one */
#define KC_KO_PAGE	4096ULL

static void
kc_ko_norm(char *s)
{
	for (; *s != '\0'; s++)
		if (*s == '-')
			*s = '_';
}

static int
kc_kofile_cmp(const void *a, const void *b)
{
	const struct kc_kofile *x = a, *y = b;
	int c = strcmp(x->kf_name, y->kf_name);

	return c != 0 ? c : strcmp(x->kf_path, y->kf_path);
}

/* The .ko files under "dir", "depth" levels down.  0, or -ENOMEM. */
static int
kc_ko_scan(struct kc_kolist *kl, const char *dir, int depth)
{
	struct kc_kofile *v;
	struct dirent *de;
	struct stat st;
	char path[PATH_MAX];
	size_t n;
	DIR *d;
	int rv = 0;

	if ((d = opendir(dir)) == NULL)
		return 0;
	while (rv == 0 && (de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		if ((size_t)snprintf(path, sizeof (path), "%s/%s", dir,
		    de->d_name) >= sizeof (path) || stat(path, &st) != 0)
			continue;
		if (S_ISDIR(st.st_mode)) {
			if (depth + 1 < KC_MODLINES_DEPTH)
				rv = kc_ko_scan(kl, path, depth + 1);
			continue;
		}
		n = strlen(de->d_name);
		if (!S_ISREG(st.st_mode) || n <= 3 ||
		    strcmp(de->d_name + n - 3, ".ko") != 0)
			continue;
		if (kl->kl_n == kl->kl_cap) {
			v = realloc(kl->kl_v, (kl->kl_cap * 2 + 64) *
			    sizeof (*v));
			if (v == NULL) {
				rv = -ENOMEM;
				break;
			}
			kl->kl_v = v;
			kl->kl_cap = kl->kl_cap * 2 + 64;
		}
		v = &kl->kl_v[kl->kl_n];
		v->kf_name = strndup(de->d_name, n - 3);
		v->kf_path = strdup(path);
		if (v->kf_name == NULL || v->kf_path == NULL) {
			free(v->kf_name);
			free(v->kf_path);
			rv = -ENOMEM;
			break;
		}
		kc_ko_norm(v->kf_name);
		kl->kl_n++;
	}
	closedir(d);
	return rv;
}

static const struct kc_kofile *
kc_ko_find(const struct kc_kolist *kl, const char *mod)
{
	char name[RGN_MOD_NAMELEN + 1];
	uint32_t i;

	snprintf(name, sizeof (name), "%s", mod);
	kc_ko_norm(name);
	/* sorted: the first of several is the same on every run */
	for (i = 0; i < kl->kl_n; i++)
		if (strcmp(kl->kl_v[i].kf_name, name) == 0)
			return &kl->kl_v[i];
	return NULL;
}

static uint64_t
kc_ko_align(uint64_t off, uint64_t al)
{
	if (al <= 1)
		return off;
	return (off + al - 1) / al * al;
}

/*
 * The copy of .ko "path" with its symbols moved (kc_sym.h), on a memfd
 * returned in *fdp.  0, or -1 with why[0, whysz) naming the file.
 */
static int
kc_ko_moved(const char *path, const struct kc_modtext *mt, int *fdp,
    char *why, size_t whysz)
{
	unsigned char *buf = NULL;
	const Elf64_Ehdr *eh;
	Elf64_Shdr *sh;
	Elf64_Sym *sym;
	uint64_t *addr = NULL, core = 0, init = 0, *off, end, nsym, j;
	uint64_t shstrsz;
	const char *shstr, *name;
	struct stat st;
	ssize_t got;
	size_t done;
	uint32_t i, shnum;
	int fd, rv = -1;

	*fdp = -1;
	if ((fd = open(path, O_RDONLY)) < 0) {
		snprintf(why, whysz, "%s: cannot open: %s", path,
		    strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) != 0 || st.st_size < (off_t)sizeof (*eh) ||
	    (uint64_t)st.st_size > KC_KO_MAXSIZE) {
		snprintf(why, whysz, "%s: size %lld: not a module file (%zu to %llu bytes)",
		    path, (long long)st.st_size, sizeof (*eh),
		    (unsigned long long)KC_KO_MAXSIZE);
		goto out;
	}
	if ((buf = malloc((size_t)st.st_size)) == NULL) {
		snprintf(why, whysz, "%s: out of memory for its %lld bytes",
		    path, (long long)st.st_size);
		goto out;
	}
	for (done = 0; done < (size_t)st.st_size; done += (size_t)got)
		if ((got = pread(fd, buf + done, (size_t)st.st_size - done,
		    (off_t)done)) <= 0) {
			snprintf(why, whysz, "%s: read error at byte %zu: %s",
			    path, done, got < 0 ? strerror(errno) :
			    "unexpected end of file");
			goto out;
		}
	eh = (const Elf64_Ehdr *)buf;
	if (memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh->e_ident[EI_DATA] != ELFDATA2LSB || eh->e_type != ET_REL ||
	    eh->e_machine != EM_X86_64) {
		snprintf(why, whysz, "%s: not an x86-64 kernel module (a relocatable 64-bit little-endian ELF file: e_type %u, e_machine %u)",
		    path, (unsigned)eh->e_type, (unsigned)eh->e_machine);
		goto out;
	}
	shnum = eh->e_shnum;
	if (eh->e_shentsize != sizeof (Elf64_Shdr) || shnum == 0 ||
	    eh->e_shoff > (uint64_t)st.st_size ||
	    (uint64_t)shnum * sizeof (Elf64_Shdr) >
	    (uint64_t)st.st_size - eh->e_shoff ||
	    eh->e_shoff % 8 != 0 || eh->e_shstrndx >= shnum) {
		snprintf(why, whysz, "%s: damaged section headers (e_shoff 0x%llx, e_shnum %u, e_shentsize %u, e_shstrndx %u; file size %lld)",
		    path, (unsigned long long)eh->e_shoff, shnum,
		    (unsigned)eh->e_shentsize, (unsigned)eh->e_shstrndx,
		    (long long)st.st_size);
		goto out;
	}
	sh = (Elf64_Shdr *)(buf + eh->e_shoff);
	for (i = 0; i < shnum; i++)
		if (sh[i].sh_type != SHT_NOBITS &&
		    (sh[i].sh_offset > (uint64_t)st.st_size ||
		    sh[i].sh_size > (uint64_t)st.st_size - sh[i].sh_offset)) {
			snprintf(why, whysz, "%s: section %u (offset 0x%llx, size 0x%llx) beyond the end of the file (%lld bytes)",
			    path, i, (unsigned long long)sh[i].sh_offset,
			    (unsigned long long)sh[i].sh_size,
			    (long long)st.st_size);
			goto out;
		}
	shstr = (const char *)buf + sh[eh->e_shstrndx].sh_offset;
	/* names out of bounds (or no string table) read as "" */
	shstrsz = sh[eh->e_shstrndx].sh_type == SHT_NOBITS ? 0 :
	    sh[eh->e_shstrndx].sh_size;
	if ((addr = calloc(shnum, sizeof (*addr))) == NULL) {
		snprintf(why, whysz, "%s: out of memory", path);
		goto out;
	}
	/* the module loader's text layout (layout_sections) */
	for (i = 1; i < shnum; i++) {
		if ((sh[i].sh_flags & (SHF_ALLOC | SHF_EXECINSTR)) !=
		    (SHF_ALLOC | SHF_EXECINSTR))
			continue;
		name = sh[i].sh_name < shstrsz &&
		    memchr(shstr + sh[i].sh_name, '\0',
		    shstrsz - sh[i].sh_name) != NULL ?
		    shstr + sh[i].sh_name : "";
		off = strncmp(name, ".init", 5) == 0 ? &init : &core;
		*off = kc_ko_align(*off, sh[i].sh_addralign);
		if (off == &core)
			addr[i] = mt->mt_core + core;
		else if (mt->mt_init != 0)
			addr[i] = mt->mt_init + init;
		*off += sh[i].sh_size;
	}
	if (mt->mt_text != core && mt->mt_text != kc_ko_align(core,
	    KC_KO_PAGE)) {
		snprintf(why, whysz, "%s: not the build that was loaded: its text is 0x%llx bytes (0x%llx page-aligned), the region's module table says 0x%llx",
		    path, (unsigned long long)core,
		    (unsigned long long)kc_ko_align(core, KC_KO_PAGE),
		    (unsigned long long)mt->mt_text);
		goto out;
	}
	for (i = 1; i < shnum; i++) {
		if (sh[i].sh_type != SHT_SYMTAB)
			continue;
		if (sh[i].sh_entsize != sizeof (Elf64_Sym) ||
		    sh[i].sh_offset % 8 != 0) {
			snprintf(why, whysz, "%s: symbol table (section %u) with entries of %llu bytes, not %zu",
			    path, i, (unsigned long long)sh[i].sh_entsize,
			    sizeof (Elf64_Sym));
			goto out;
		}
		sym = (Elf64_Sym *)(buf + sh[i].sh_offset);
		nsym = sh[i].sh_size / sizeof (Elf64_Sym);
		for (j = 0; j < nsym; j++)
			if (sym[j].st_shndx != SHN_UNDEF &&
			    sym[j].st_shndx < shnum &&
			    sym[j].st_shndx < SHN_LORESERVE)
				sym[j].st_value += addr[sym[j].st_shndx];
	}
	close(fd);
	if ((fd = memfd_create("kdt-ko", MFD_CLOEXEC)) < 0) {
		snprintf(why, whysz, "%s: cannot make its relocated copy (memfd_create): %s",
		    path, strerror(errno));
		goto out;
	}
	for (done = 0, end = (uint64_t)st.st_size; done < end;
	    done += (size_t)got)
		if ((got = write(fd, buf + done, end - done)) <= 0) {
			snprintf(why, whysz, "%s: cannot write its relocated copy: %s",
			    path, got < 0 ? strerror(errno) : "short write");
			goto out;
		}
	*fdp = fd;
	fd = -1;
	rv = 0;
out:
	if (fd >= 0)
		close(fd);
	free(addr);
	free(buf);
	return rv;
}

/* The region's modules' text addresses: *nmt entries in *mtp. */
static int
kc_modtext_list(const void *img, uint64_t len, struct kc_modtext **mtp,
    uint32_t *nmt)
{
	const struct rgn_modarea *a;
	const struct rgn_mod *md;
	struct kc_modtext *v = NULL, *nv;
	struct rgn_view rv;
	struct kdt_err err;
	uint64_t cur;
	uint32_t i, n = 0;

	*mtp = NULL;
	*nmt = 0;
	if (kc_sym_rgn_open(&rv, img, len, &err) != 0 ||
	    rgn_mod_first(&rv, &a, &err) != 0 || a == NULL)
		return 0;
	for (cur = 0; rgn_mod_next(&rv, &cur, &md, &err) == 1;) {
		for (i = 0; i < n; i++)
			if (strncmp(v[i].mt_name, md->md_name,
			    RGN_MOD_NAMELEN) == 0)
				break;
		if (i == n) {
			if ((nv = realloc(v, (n + 1) * sizeof (*v))) == NULL) {
				free(v);
				return -ENOMEM;
			}
			v = nv;
			memset(&v[n], 0, sizeof (v[n]));
			memcpy(v[n].mt_name, md->md_name, RGN_MOD_NAMELEN);
			n++;
		}
		/* the latest entries win: a module loaded again */
		if (md->md_flags & RGN_MOD_F_INIT) {
			v[i].mt_init = md->md_base;
		} else {
			const uint8_t *bid = rgn_mod_bid(md, &v[i].mt_bidlen);

			v[i].mt_core = md->md_base;
			v[i].mt_text = md->md_text;
			if (bid != NULL)
				memcpy(v[i].mt_bid, bid, v[i].mt_bidlen);
		}
	}
	*mtp = v;
	*nmt = n;
	return 0;
}

int
kc_sym_modlines_for_region(struct kc_symtab *t, const void *img,
    uint64_t len, const char *dir, int quiet, const char *prog, FILE *err)
{
	struct kc_kolist kl = { NULL, 0, 0 };
	const struct kc_kofile *kf;
	struct kc_modtext *mt = NULL;
	struct stat st;
	char why[800], fhex[2 * RGN_BUILDID_MAX + 1];
	char rhex[2 * RGN_BUILDID_MAX + 1];
	uint8_t fid[RGN_BUILDID_MAX];
	uint32_t nmt = 0, i, nfound = 0, ngood = 0, flen, nsame = 0;
	uint32_t nother = 0, nnorec = 0;
	int fd, rv = -1, b;

	if (dir == NULL)
		return 0;
	if (stat(dir, &st) != 0) {
		fprintf(err, "%s: --modules %s: %s (a directory of NAME.ko files with DWARF, e.g. /usr/lib/debug/lib/modules/RELEASE)\n",
		    prog, dir, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		fprintf(err, "%s: --modules %s: not a directory (a directory of NAME.ko files with DWARF, e.g. /usr/lib/debug/lib/modules/RELEASE)\n",
		    prog, dir);
		return -1;
	}
	if (t == NULL) {
		/* a region from before the table: nothing to attach to */
		fprintf(err, "%s: --modules %s: the region has no module table: no module symbols to attach source lines to\n",
		    prog, dir);
		return 0;
	}
	if (kc_ko_scan(&kl, dir, 0) != 0 ||
	    kc_modtext_list(img, len, &mt, &nmt) != 0) {
		fprintf(err, "%s: --modules %s: out of memory after %u .ko files\n",
		    prog, dir, kl.kl_n);
		goto out;
	}
	if (kl.kl_n > 1)
		qsort(kl.kl_v, kl.kl_n, sizeof (*kl.kl_v), kc_kofile_cmp);
	if (kl.kl_n == 0 && !quiet)
		fprintf(err, "%s: --modules %s: no .ko files there (in %d levels of directories)\n",
		    prog, dir, KC_MODLINES_DEPTH);
	for (i = 0; i < nmt; i++) {
		if (mt[i].mt_core == 0 ||
		    (kf = kc_ko_find(&kl, mt[i].mt_name)) == NULL)
			continue;
		nfound++;
		/* the region's build id of the module, when it has one */
		b = mt[i].mt_bidlen == 0 ? -3 :
		    kc_bid_file(kf->kf_path, fid, &flen, why, sizeof (why));
		kc_bid_hex(mt[i].mt_bid, mt[i].mt_bidlen, rhex,
		    sizeof (rhex));
		if (b == -3) {
			nnorec++;
		} else if (b == 0) {
			fprintf(err, "%s: --modules: %s: no GNU build id note in the file: not checked against the region's %s for module %s\n",
			    prog, kf->kf_path, rhex, mt[i].mt_name);
		} else if (b == 1 && (flen != mt[i].mt_bidlen ||
		    memcmp(fid, mt[i].mt_bid, flen) != 0)) {
			kc_bid_hex(fid, flen <= RGN_BUILDID_MAX ? flen :
			    RGN_BUILDID_MAX, fhex, sizeof (fhex));
			fprintf(err, "%s: --modules: %s: another build of module %s (build id %s%s, the region records %s); no source lines for module %s\n",
			    prog, kf->kf_path, mt[i].mt_name, fhex,
			    flen > RGN_BUILDID_MAX ? "..." : "", rhex,
			    mt[i].mt_name);
			nother++;
			continue;
		} else if (b == 1) {
			nsame++;
		}
		if (kc_ko_moved(kf->kf_path, &mt[i], &fd, why,
		    sizeof (why)) != 0 ||
		    kc_lines_attach(t, fd, kf->kf_path, mt[i].mt_name, 0,
		    why, sizeof (why)) != 0) {
			fprintf(err, "%s: --modules: %s; no source lines for module %s\n",
			    prog, why, mt[i].mt_name);
			continue;
		}
		ngood++;
	}
	if (!quiet)
		fprintf(err, "%s: source lines of module frames from %s (DWARF): %u of the region's %u modules (%u had a .ko there); build ids: %u the region's, %u of another build, %u not recorded\n",
		    prog, dir, ngood, nmt, nfound, nsame, nother, nnorec);
	rv = (int)ngood;
out:
	for (i = 0; i < kl.kl_n; i++) {
		free(kl.kl_v[i].kf_name);
		free(kl.kl_v[i].kf_path);
	}
	free(kl.kl_v);
	free(mt);
	return rv;
}
