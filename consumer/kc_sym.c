/*
 * kc_sym.c -- kernel symbol tables: building them (from kallsyms text or
 * one symbol at a time) and looking addresses up.  The theory (module
 * names, sizes of kallsyms symbols, the sorted invariant) is in kc_sym.h.
 *
 * Called by consumer/kc_fmt.c through kc_sym_default() for %a, %k,
 * stack(), sym() and mod(); tables are installed by the kdt command when
 * the kernel engine runs, and by tests with fake symbols.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <fcntl.h>
#include <unistd.h>
#include <gelf.h>

#include <sys/utsname.h>

#include "common/rgn.h"
#include "consumer/kc_sym.h"

#define KC_SYM_CORE	"vmlinux"	/* module of core kernel symbols */
/* Reach of an unsized symbol followed by another module, or by none. */
#define KC_SYM_MAXREACH	0x10000

static const struct kc_symtab *kc_sym_current;

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
	int64_t i;
	int hasnext;

	if (t == NULL || t->kb_nsyms == 0)
		return KC_SYM_NONE;
	i = kc_sym_floor(t, addr);
	if (i < 0)
		return KC_SYM_NONE;
	s = &t->kb_syms[i];
	hasnext = kc_sym_next(t, addr, i, &next);
	/*
	 * A sized symbol covers its size; an unsized one (kallsyms) reaches
	 * the next symbol of its own module, or KC_SYM_MAXREACH bytes.
	 */
	if ((s->sy_size != 0 && addr - s->sy_addr < s->sy_size) ||
	    (s->sy_size == 0 && ((hasnext &&
	    strcmp(next->sy_mod, s->sy_mod) == 0) ||
	    addr - s->sy_addr < KC_SYM_MAXREACH))) {
		*symp = s;
		return KC_SYM_FOUND;
	}
	if (hasnext && strcmp(next->sy_mod, s->sy_mod) == 0) {
		*modp = s->sy_mod;
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
	char rel[sizeof (h->rh_release) + 1], cand[512], why[600];
	struct kc_symtab *t;
	struct utsname u;
	size_t i;

	*failed = 0;
	if (len < sizeof (*h))
		return NULL;
	memcpy(rel, h->rh_release, sizeof (h->rh_release));
	rel[sizeof (h->rh_release)] = '\0';
	if (path == NULL) {
		if (rel[0] == '\0' || strchr(rel, '/') != NULL)
			return NULL;
		for (i = 0; i < sizeof (fmt) / sizeof (fmt[0]); i++) {
			snprintf(cand, sizeof (cand), fmt[i], rel);
			if (access(cand, R_OK) != 0)
				continue;
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
		if (uname(&u) != 0 || strcmp(u.release, rel) != 0 ||
		    (t = kc_sym_kallsyms_moved(h->rh_kaslr, why,
		    sizeof (why))) == NULL)
			return NULL;
		if (!quiet)
			fprintf(err, "%s: symbols of kernel %s from /proc/kallsyms (this boot runs the same kernel), moved to the region's KASLR offset 0x%llx; module symbols left out\n",
			    prog, rel, (unsigned long long)h->rh_kaslr);
		return t;
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
	return t;
}
