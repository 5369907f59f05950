/*
 * kc_uprobe.c -- resolve the pid and USDT probe descriptions of an
 * enabling into the struct kio_uprobe table kdt.ko arms (kc_uprobe.h has
 * the naming rules, common/kio.h the contract).  Called by the kernel
 * engine (kc_kernel.c) before KIO_ENABLE.
 *
 * Four parts: USDT argument specs (the note's "size@operand" strings);
 * ELF objects (libelf: PT_LOADs, function symbols, stapsdt notes);
 * processes (/proc/N/maps, /proc/N/exe); the table (descriptions to
 * entries, then sorted and duplicates dropped, since kdt.ko matches
 * every ECB against every entry and two equal entries would fire twice).
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <gelf.h>
#include <libelf.h>

#include "common/dof_load.h"
#include "consumer/kc_uprobe.h"

#define KU_NT_STAPSDT	3		/* note type of sys/sdt.h probes */
#define KU_MAXOBJS	512		/* mapped files per process */

/* ---- USDT argument specs ---- */

/* Registers by name, every width, to their pt_regs slot. */
static const struct {
	const char	*rn_name;
	uint8_t		rn_reg;
} ku_regs[] = {
	{ "rax", KIO_REG_RAX }, { "eax", KIO_REG_RAX }, { "ax", KIO_REG_RAX },
	{ "al", KIO_REG_RAX },
	{ "rbx", KIO_REG_RBX }, { "ebx", KIO_REG_RBX }, { "bx", KIO_REG_RBX },
	{ "bl", KIO_REG_RBX },
	{ "rcx", KIO_REG_RCX }, { "ecx", KIO_REG_RCX }, { "cx", KIO_REG_RCX },
	{ "cl", KIO_REG_RCX },
	{ "rdx", KIO_REG_RDX }, { "edx", KIO_REG_RDX }, { "dx", KIO_REG_RDX },
	{ "dl", KIO_REG_RDX },
	{ "rsi", KIO_REG_RSI }, { "esi", KIO_REG_RSI }, { "si", KIO_REG_RSI },
	{ "sil", KIO_REG_RSI },
	{ "rdi", KIO_REG_RDI }, { "edi", KIO_REG_RDI }, { "di", KIO_REG_RDI },
	{ "dil", KIO_REG_RDI },
	{ "rbp", KIO_REG_RBP }, { "ebp", KIO_REG_RBP }, { "bp", KIO_REG_RBP },
	{ "bpl", KIO_REG_RBP },
	{ "rsp", KIO_REG_RSP }, { "esp", KIO_REG_RSP }, { "sp", KIO_REG_RSP },
	{ "spl", KIO_REG_RSP },
	{ "rip", KIO_REG_RIP }, { "eip", KIO_REG_RIP },
};

/* r8 .. r15 in pt_regs order */
static const uint8_t ku_rn[8] = { KIO_REG_R8, KIO_REG_R9, KIO_REG_R10,
	KIO_REG_R11, KIO_REG_R12, KIO_REG_R13, KIO_REG_R14, KIO_REG_R15 };

/* "%name" at *s (the '%' skipped): its register, advancing *s; -1 if none. */
static int
ku_reg(const char **s)
{
	char name[8];
	size_t n = 0, i;
	char *end;
	long r;

	while (n < sizeof (name) - 1 && isalnum((unsigned char)(*s)[n])) {
		name[n] = (*s)[n];
		n++;
	}
	name[n] = '\0';
	if (isalnum((unsigned char)(*s)[n]))
		return -1;
	for (i = 0; i < sizeof (ku_regs) / sizeof (ku_regs[0]); i++) {
		if (strcmp(name, ku_regs[i].rn_name) == 0) {
			*s += n;
			return ku_regs[i].rn_reg;
		}
	}
	/* r8 r8d r8w r8b r8l ... r15 */
	if (name[0] != 'r' || !isdigit((unsigned char)name[1]))
		return -1;
	r = strtol(name + 1, &end, 10);
	if (r < 8 || r > 15 || (end[0] != '\0' && (strchr("dwbl", end[0]) ==
	    NULL || end[1] != '\0')))
		return -1;
	*s += n;
	return ku_rn[r - 8];
}

/* "sym(%rip)", "sym+8(%rip)": memory at a symbol's address. */
static int
ku_arg_sym(const char *s, struct kio_uparg *a, kc_upsym_fn symval,
    void *symarg, char *why, size_t whysz)
{
	char sym[128], *end;
	uint64_t addr;
	int64_t off = 0;
	size_t n = strcspn(s, "+-(");

	if (n == 0 || n >= sizeof (sym)) {
		snprintf(why, whysz, "bad operand \"%s\"", s);
		return -1;
	}
	memcpy(sym, s, n);
	sym[n] = '\0';
	s += n;
	if (*s == '+' || *s == '-') {
		off = strtoll(s, &end, 0);
		s = end;
	}
	if (symval == NULL || symval(symarg, sym, &addr) != 0) {
		snprintf(why, whysz, "symbol %s is not a known address", sym);
		return -1;
	}
	/* AT&T "sym(%rip)" is the address of sym itself */
	if (strcmp(s, "(%rip)") != 0 && *s != '\0') {
		snprintf(why, whysz, "symbol %s with a base register other than %%rip", sym);
		return -1;
	}
	a->ua_off = (int64_t)(addr + (uint64_t)off);
	return 0;
}

/* "disp(%reg)", "(%reg)", "0x1234", or a symbol: memory. */
static int
ku_arg_mem(const char *s, struct kio_uparg *a, kc_upsym_fn symval,
    void *symarg, char *why, size_t whysz)
{
	char *end;
	int reg;

	a->ua_kind = KIO_UA_MEM;
	a->ua_reg = KIO_REG_NONE;
	if (*s == '-' || isdigit((unsigned char)*s)) {
		errno = 0;
		a->ua_off = strtoll(s, &end, 0);
		if (end == s || errno != 0) {
			snprintf(why, whysz, "bad displacement in \"%s\"", s);
			return -1;
		}
		s = end;
	} else if (*s != '(') {
		return ku_arg_sym(s, a, symval, symarg, why, whysz);
	}
	if (*s == '\0')
		return 0;		/* absolute address */
	if (s[0] != '(' || s[1] != '%') {
		snprintf(why, whysz, "bad memory operand at \"%s\"", s);
		return -1;
	}
	s += 2;
	if ((reg = ku_reg(&s)) < 0 || reg == KIO_REG_RIP) {
		snprintf(why, whysz, "unknown base register at \"%s\"", s);
		return -1;
	}
	if (*s == ',') {
		snprintf(why, whysz, "index registers are not supported");
		return -1;
	}
	if (strcmp(s, ")") != 0) {
		snprintf(why, whysz, "bad memory operand at \"%s\"", s);
		return -1;
	}
	a->ua_reg = (uint8_t)reg;
	return 0;
}

int
kc_uparg_parse(const char *spec, struct kio_uparg *a, kc_upsym_fn symval,
    void *symarg, char *why, size_t whysz)
{
	const char *s = spec, *at = strchr(spec, '@');
	char *end;
	long size = 8;
	int reg;

	memset(a, 0, sizeof (*a));
	if (at != NULL) {
		size = strtol(spec, &end, 10);
		if (end != at || (labs(size) != 1 && labs(size) != 2 &&
		    labs(size) != 4 && labs(size) != 8)) {
			snprintf(why, whysz, "bad size in \"%s\" (1, 2, 4 or 8, negative if signed)", spec);
			return -1;
		}
		s = at + 1;
	}
	a->ua_size = (int8_t)size;
	if (*s == '%') {
		s++;
		if (strcmp(s, "ah") == 0 || strcmp(s, "bh") == 0 ||
		    strcmp(s, "ch") == 0 || strcmp(s, "dh") == 0) {
			snprintf(why, whysz, "high-byte register %%%s is not supported", s);
			return -1;
		}
		if ((reg = ku_reg(&s)) < 0 || *s != '\0') {
			snprintf(why, whysz, "unknown register in \"%s\"", spec);
			return -1;
		}
		a->ua_kind = KIO_UA_REG;
		a->ua_reg = (uint8_t)reg;
		return 0;
	}
	if (*s == '$') {
		errno = 0;
		a->ua_off = strtoll(s + 1, &end, 0);
		if (end == s + 1 || *end != '\0' || errno != 0) {
			snprintf(why, whysz, "bad constant in \"%s\"", spec);
			return -1;
		}
		a->ua_kind = KIO_UA_CONST;
		return 0;
	}
	if (*s == '\0') {
		snprintf(why, whysz, "empty operand in \"%s\"", spec);
		return -1;
	}
	return ku_arg_mem(s, a, symval, symarg, why, whysz);
}

int
kc_uparg_parse_all(const char *args, struct kio_uparg *out, uint32_t *nargs,
    kc_upsym_fn symval, void *symarg, char *why, size_t whysz)
{
	char spec[128], w[128];
	const char *s = args;
	int bad = 0;
	size_t n;

	*nargs = 0;
	why[0] = '\0';
	for (;;) {
		s += strspn(s, " \t");
		if (*s == '\0' || *nargs == KIO_UP_NARGS)
			break;
		n = strcspn(s, " \t");
		snprintf(spec, sizeof (spec), "%.*s", (int)n, s);
		s += n;
		if (kc_uparg_parse(spec, &out[*nargs], symval, symarg, w,
		    sizeof (w)) != 0) {
			memset(&out[*nargs], 0, sizeof (out[0]));
			if (bad++ == 0)
				snprintf(why, whysz, "arg%u \"%s\": %s",
				    *nargs, spec, w);
		}
		(*nargs)++;
	}
	return bad;
}

/* ---- ELF objects ---- */

struct ku_sym {
	char		*us_name;
	uint64_t	us_value;
	uint64_t	us_size;
	int		us_global;
};

struct ku_note {
	char		*un_prov;
	char		*un_name;	/* "__" already made "-" */
	char		*un_args;
	uint64_t	un_pc;
	uint64_t	un_sem;
};

struct ku_elf {
	GElf_Phdr	*ue_load;	/* PT_LOADs */
	uint32_t	ue_nload;
	struct ku_sym	*ue_syms;	/* functions, sorted by value */
	uint32_t	ue_nsyms;
	struct ku_note	*ue_notes;
	uint32_t	ue_nnotes;
};

static void
ku_elf_free(struct ku_elf *ue)
{
	uint32_t i;

	if (ue == NULL)
		return;
	for (i = 0; i < ue->ue_nsyms; i++)
		free(ue->ue_syms[i].us_name);
	for (i = 0; i < ue->ue_nnotes; i++) {
		free(ue->ue_notes[i].un_prov);
		free(ue->ue_notes[i].un_name);
		free(ue->ue_notes[i].un_args);
	}
	free(ue->ue_syms);
	free(ue->ue_notes);
	free(ue->ue_load);
	free(ue);
}

/* File offset of "vaddr" through the PT_LOAD holding it; -1 if none. */
static int
ku_elf_off(const struct ku_elf *ue, uint64_t vaddr, uint64_t *off, int exec)
{
	const GElf_Phdr *p;
	uint32_t i;

	for (i = 0; i < ue->ue_nload; i++) {
		p = &ue->ue_load[i];
		if (exec && !(p->p_flags & PF_X))
			continue;
		if (vaddr >= p->p_vaddr && vaddr - p->p_vaddr < p->p_filesz) {
			*off = vaddr - p->p_vaddr + p->p_offset;
			return 0;
		}
	}
	return -1;
}

/* The function holding "vaddr", or NULL. */
static const struct ku_sym *
ku_elf_func_at(const struct ku_elf *ue, uint64_t vaddr)
{
	const struct ku_sym *best = NULL;
	uint32_t i;

	for (i = 0; i < ue->ue_nsyms; i++) {
		const struct ku_sym *s = &ue->ue_syms[i];

		if (s->us_value > vaddr)
			break;
		if (vaddr < s->us_value + (s->us_size ? s->us_size : 1) &&
		    (best == NULL || s->us_global > best->us_global))
			best = s;
	}
	return best;
}

static int
ku_sym_cmp(const void *a, const void *b)
{
	const struct ku_sym *x = a, *y = b;

	/* by address; a global name before weak and local aliases */
	if (x->us_value != y->us_value)
		return x->us_value < y->us_value ? -1 : 1;
	if (x->us_global != y->us_global)
		return y->us_global - x->us_global;
	return strcmp(x->us_name, y->us_name);
}

static int
ku_elf_phdrs(Elf *e, struct ku_elf *ue)
{
	GElf_Phdr ph;
	size_t n, i;

	if (elf_getphdrnum(e, &n) != 0)
		return -1;
	if ((ue->ue_load = calloc(n + 1, sizeof (ph))) == NULL)
		return -1;
	for (i = 0; i < n; i++)
		if (gelf_getphdr(e, (int)i, &ph) != NULL && ph.p_type == PT_LOAD)
			ue->ue_load[ue->ue_nload++] = ph;
	return 0;
}

/* Add the STT_FUNC symbols of symbol table section "scn". */
static int
ku_elf_syms(Elf *e, Elf_Scn *scn, const GElf_Shdr *sh, struct ku_elf *ue)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	size_t i, n = sh->sh_entsize ? sh->sh_size / sh->sh_entsize : 0;
	struct ku_sym *ns;
	const char *name;
	GElf_Sym sym;

	if (d == NULL || n == 0)
		return 0;
	ns = realloc(ue->ue_syms, (ue->ue_nsyms + n) * sizeof (*ns));
	if (ns == NULL)
		return -1;
	ue->ue_syms = ns;
	for (i = 1; i < n; i++) {
		if (gelf_getsym(d, (int)i, &sym) == NULL ||
		    GELF_ST_TYPE(sym.st_info) != STT_FUNC ||
		    sym.st_shndx == SHN_UNDEF || sym.st_value == 0)
			continue;
		name = elf_strptr(e, sh->sh_link, sym.st_name);
		if (name == NULL || *name == '\0')
			continue;
		if ((ns[ue->ue_nsyms].us_name = strdup(name)) == NULL)
			return -1;
		ns[ue->ue_nsyms].us_value = sym.st_value;
		ns[ue->ue_nsyms].us_size = sym.st_size;
		ns[ue->ue_nsyms].us_global =
		    GELF_ST_BIND(sym.st_info) == STB_GLOBAL ? 2 :
		    GELF_ST_BIND(sym.st_info) == STB_WEAK ? 1 : 0;
		ue->ue_nsyms++;
	}
	return 0;
}

/* Sort the symbols; drop .dynsym's copies of .symtab entries. */
static void
ku_elf_sort(struct ku_elf *ue)
{
	uint32_t i, j = 0;

	qsort(ue->ue_syms, ue->ue_nsyms, sizeof (ue->ue_syms[0]), ku_sym_cmp);
	for (i = 0; i < ue->ue_nsyms; i++) {
		if (j > 0 && ue->ue_syms[j - 1].us_value ==
		    ue->ue_syms[i].us_value && strcmp(ue->ue_syms[j - 1].us_name,
		    ue->ue_syms[i].us_name) == 0) {
			free(ue->ue_syms[i].us_name);
			continue;
		}
		ue->ue_syms[j++] = ue->ue_syms[i];
	}
	ue->ue_nsyms = j;
}

static char *
ku_dashes(const char *s)
{
	char *r = strdup(s), *p;

	if (r == NULL)
		return NULL;
	while ((p = strstr(r, "__")) != NULL) {
		*p = '-';
		memmove(p + 1, p + 2, strlen(p + 2) + 1);
	}
	return r;
}

/* One stapsdt note: desc = pc, base, semaphore, prov\0 name\0 args\0. */
static int
ku_elf_note(struct ku_elf *ue, const char *desc, size_t len, uint64_t base)
{
	struct ku_note *nn, *n;
	uint64_t v[3];
	const char *p = desc + 24, *end = desc + len;
	const char *prov, *name, *args;

	if (len < 27)
		return 0;
	memcpy(v, desc, sizeof (v));
	prov = p;
	if ((p = memchr(p, '\0', (size_t)(end - p))) == NULL)
		return 0;
	name = ++p;
	if (p >= end || (p = memchr(p, '\0', (size_t)(end - p))) == NULL)
		return 0;
	args = ++p;
	if (p > end || memchr(p, '\0', (size_t)(end - p)) == NULL)
		args = "";
	nn = realloc(ue->ue_notes, (ue->ue_nnotes + 1) * sizeof (*nn));
	if (nn == NULL)
		return -1;
	ue->ue_notes = nn;
	n = &nn[ue->ue_nnotes];
	/* prelink moved the object: .stapsdt.base says by how much */
	n->un_pc = v[0] + (base != 0 ? base - v[1] : 0);
	n->un_sem = v[2] != 0 ? v[2] + (base != 0 ? base - v[1] : 0) : 0;
	n->un_prov = strdup(prov);
	n->un_name = ku_dashes(name);
	n->un_args = strdup(args);
	ue->ue_nnotes++;
	return n->un_prov && n->un_name && n->un_args ? 0 : -1;
}

static int
ku_elf_notes(Elf_Scn *scn, struct ku_elf *ue, uint64_t base)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	size_t off = 0, noff, doff;
	GElf_Nhdr nh;

	while (d != NULL && (off = gelf_getnote(d, off, &nh, &noff,
	    &doff)) > 0) {
		if (nh.n_type != KU_NT_STAPSDT || nh.n_namesz != 8 ||
		    memcmp((char *)d->d_buf + noff, "stapsdt", 8) != 0)
			continue;
		if (ku_elf_note(ue, (char *)d->d_buf + doff, nh.n_descsz,
		    base) != 0)
			return -1;
	}
	return 0;
}

/* Read "path": PT_LOADs, functions, stapsdt notes.  NULL with "why". */
static struct ku_elf *
ku_elf_read(const char *path, char *why, size_t whysz)
{
	struct ku_elf *ue = calloc(1, sizeof (*ue));
	Elf_Scn *scn = NULL, *notes = NULL;
	uint64_t base = 0;
	const char *name;
	size_t shstr;
	GElf_Shdr sh;
	Elf *e = NULL;
	int fd, rv = -1;

	(void) elf_version(EV_CURRENT);
	if (ue == NULL || (fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
		snprintf(why, whysz, "cannot open %s: %s", path, strerror(errno));
		free(ue);
		return NULL;
	}
	if ((e = elf_begin(fd, ELF_C_READ, NULL)) == NULL ||
	    elf_kind(e) != ELF_K_ELF || gelf_getclass(e) != ELFCLASS64 ||
	    elf_getshdrstrndx(e, &shstr) != 0) {
		snprintf(why, whysz, "%s is not a 64-bit ELF file", path);
		goto out;
	}
	if (ku_elf_phdrs(e, ue) != 0)
		goto nomem;
	while ((scn = elf_nextscn(e, scn)) != NULL) {
		if (gelf_getshdr(scn, &sh) == NULL)
			continue;
		name = elf_strptr(e, shstr, sh.sh_name);
		if ((sh.sh_type == SHT_SYMTAB || sh.sh_type == SHT_DYNSYM) &&
		    ku_elf_syms(e, scn, &sh, ue) != 0)
			goto nomem;
		if (sh.sh_type == SHT_NOTE && name != NULL &&
		    strcmp(name, ".note.stapsdt") == 0)
			notes = scn;
		if (name != NULL && strcmp(name, ".stapsdt.base") == 0)
			base = sh.sh_addr;
	}
	if (notes != NULL && ku_elf_notes(notes, ue, base) != 0)
		goto nomem;
	ku_elf_sort(ue);
	rv = 0;
	goto out;
nomem:
	snprintf(why, whysz, "%s: out of memory", path);
out:
	if (e != NULL)
		elf_end(e);
	close(fd);
	if (rv != 0) {
		ku_elf_free(ue);
		return NULL;
	}
	return ue;
}

/* ---- processes ---- */

struct ku_map {
	uint64_t	um_start;
	uint64_t	um_end;
	uint64_t	um_pgoff;
};

struct ku_obj {
	char		uo_path[256];
	uint32_t	uo_base;	/* offset of the basename in uo_path */
	int		uo_exe;		/* the main executable */
	struct ku_map	*uo_maps;
	uint32_t	uo_nmaps;
	struct ku_elf	*uo_elf;	/* read on first use */
	int		uo_bad;		/* could not be read */
};

struct ku_proc {
	uint32_t	up_pid;
	struct ku_obj	*up_objs;
	uint32_t	up_nobjs;
};

static void
ku_proc_free(struct ku_proc *p)
{
	uint32_t i;

	for (i = 0; i < p->up_nobjs; i++) {
		free(p->up_objs[i].uo_maps);
		ku_elf_free(p->up_objs[i].uo_elf);
	}
	free(p->up_objs);
	memset(p, 0, sizeof (*p));
}

static struct ku_obj *
ku_proc_obj(struct ku_proc *p, const char *path, const char *exe)
{
	struct ku_obj *o, *no;
	uint32_t i;

	for (i = 0; i < p->up_nobjs; i++)
		if (strcmp(p->up_objs[i].uo_path, path) == 0)
			return &p->up_objs[i];
	if (p->up_nobjs == KU_MAXOBJS || strlen(path) >= sizeof (o->uo_path))
		return NULL;
	no = realloc(p->up_objs, (p->up_nobjs + 1) * sizeof (*no));
	if (no == NULL)
		return NULL;
	p->up_objs = no;
	o = &no[p->up_nobjs++];
	memset(o, 0, sizeof (*o));
	strcpy(o->uo_path, path);
	o->uo_base = (uint32_t)(strrchr(o->uo_path, '/') + 1 - o->uo_path);
	o->uo_exe = strcmp(path, exe) == 0;
	return o;
}

/* One line of /proc/N/maps: a file-backed mapping joins its object. */
static void
ku_proc_line(struct ku_proc *p, const char *line, const char *exe)
{
	unsigned long long start, end, pgoff;
	struct ku_map *nm;
	struct ku_obj *o;
	char path[PATH_MAX];
	int n = 0;

	if (sscanf(line, "%llx-%llx %*s %llx %*s %*s %n", &start, &end,
	    &pgoff, &n) < 3 || n == 0 || line[n] != '/')
		return;
	snprintf(path, sizeof (path), "%s", line + n);
	path[strcspn(path, "\n")] = '\0';
	if (strstr(path, " (deleted)") != NULL)
		return;
	if ((o = ku_proc_obj(p, path, exe)) == NULL)
		return;
	nm = realloc(o->uo_maps, (o->uo_nmaps + 1) * sizeof (*nm));
	if (nm == NULL)
		return;
	o->uo_maps = nm;
	nm[o->uo_nmaps].um_start = start;
	nm[o->uo_nmaps].um_end = end;
	nm[o->uo_nmaps].um_pgoff = pgoff;
	o->uo_nmaps++;
}

/* Read process "pid"'s mapped files.  0, or -errno. */
static int
ku_proc_read(struct ku_proc *p, uint32_t pid)
{
	char file[64], exe[PATH_MAX], line[PATH_MAX + 128];
	ssize_t n;
	FILE *fp;

	memset(p, 0, sizeof (*p));
	p->up_pid = pid;
	snprintf(file, sizeof (file), "/proc/%u/exe", pid);
	n = readlink(file, exe, sizeof (exe) - 1);
	exe[n > 0 ? n : 0] = '\0';
	snprintf(file, sizeof (file), "/proc/%u/maps", pid);
	if ((fp = fopen(file, "r")) == NULL)
		return -errno;
	while (fgets(line, sizeof (line), fp) != NULL)
		ku_proc_line(p, line, exe);
	fclose(fp);
	if (p->up_nobjs == 0)
		return -ESRCH;	/* a zombie or a kernel thread */
	return 0;
}

/* The process's address of file offset "off" of "o"; 0 if unmapped. */
static uint64_t
ku_obj_addr(const struct ku_obj *o, uint64_t off)
{
	uint32_t i;

	for (i = 0; i < o->uo_nmaps; i++)
		if (off >= o->uo_maps[i].um_pgoff && off - o->uo_maps[i].um_pgoff <
		    o->uo_maps[i].um_end - o->uo_maps[i].um_start)
			return o->uo_maps[i].um_start + off -
			    o->uo_maps[i].um_pgoff;
	return 0;
}

/* ---- the table ---- */

struct ku_ctx {
	struct kc_uptab	*kx_ut;
	struct ku_proc	*kx_procs;
	uint32_t	kx_nprocs;
	const char	*kx_prog;
	FILE		*kx_err;
	const struct dof_pdesc *kx_pd;
	int		kx_full;	/* KIO_UPROBES_MAX reached: said */
};

static int
ku_match(const char *pat, const char *s)
{
	return pat[0] == '\0' || dof_glob_match(pat, s);
}

static int
ku_isglob(const char *s)
{
	return strpbrk(s, "*?[\\") != NULL;
}

/* The name the description knows object "o" by, or NULL. */
static const char *
ku_obj_mod(const struct ku_obj *o, const char *pat)
{
	const char *base = o->uo_path + o->uo_base;

	if (o->uo_exe && ku_match(pat, "a.out"))
		return "a.out";
	if (strlen(base) < sizeof (((struct kio_uprobe *)0)->ku_mod) &&
	    ku_match(pat, base))
		return base;
	return NULL;
}

static const struct ku_elf *
ku_obj_elf(struct ku_ctx *kx, struct ku_obj *o)
{
	char why[PATH_MAX + 64];

	if (o->uo_elf == NULL && !o->uo_bad) {
		o->uo_elf = ku_elf_read(o->uo_path, why, sizeof (why));
		o->uo_bad = o->uo_elf == NULL;
		/* quiet for a glob; a module named outright must be read */
		if (o->uo_bad && !ku_isglob(kx->kx_pd->lp_mod) &&
		    kx->kx_pd->lp_mod[0] != '\0')
			fprintf(kx->kx_err, "%s: warning: %s\n", kx->kx_prog, why);
	}
	return o->uo_elf;
}

/* A new entry, zeroed but for the names; NULL when the table is full. */
static struct kio_uprobe *
ku_add(struct ku_ctx *kx, uint32_t pid, const char *prov, const char *mod,
    const char *func, const char *name, const struct ku_obj *o)
{
	struct kc_uptab *ut = kx->kx_ut;
	struct kio_uprobe *e, *ne;
	uint32_t cap;

	if (strlen(func) >= sizeof (e->ku_func) ||
	    strlen(prov) >= sizeof (e->ku_prov) ||
	    strlen(name) >= sizeof (e->ku_name))
		return NULL;
	if (ut->ut_n == KIO_UPROBES_MAX) {
		if (kx->kx_full++ == 0)
			fprintf(kx->kx_err, "%s: probe description %s:%s:%s:%s: more than %u user-space probes\n",
			    kx->kx_prog, kx->kx_pd->lp_prov, kx->kx_pd->lp_mod,
			    kx->kx_pd->lp_func, kx->kx_pd->lp_name,
			    KIO_UPROBES_MAX);
		return NULL;
	}
	if (ut->ut_n == ut->ut_cap) {
		cap = ut->ut_cap ? 2 * ut->ut_cap : 64;
		if ((ne = realloc(ut->ut_ents, cap * sizeof (*ne))) == NULL) {
			kx->kx_full++;
			fprintf(kx->kx_err, "%s: no memory for %u user-space probes\n",
			    kx->kx_prog, cap);
			return NULL;
		}
		ut->ut_ents = ne;
		ut->ut_cap = cap;
	}
	e = &ut->ut_ents[ut->ut_n++];
	memset(e, 0, sizeof (*e));
	e->ku_pid = pid;
	strcpy(e->ku_path, o->uo_path);
	strcpy(e->ku_prov, prov);
	strcpy(e->ku_mod, mod);
	strcpy(e->ku_func, func);
	strcpy(e->ku_name, name);
	return e;
}

/* "name" as a hex offset (dtrace's offset probes: "1c", "0x1c"); -1 if not. */
static int
ku_hexoff(const char *name, uint64_t *off)
{
	char *end;

	if (!isxdigit((unsigned char)name[0]))
		return -1;
	errno = 0;
	*off = strtoull(name, &end, 16);
	return *end == '\0' && errno == 0 ? 0 : -1;
}

/* The probes of one function: entry, return, or an offset. */
static void
ku_pid_func(struct ku_ctx *kx, struct ku_proc *p, const struct ku_obj *o,
    const struct ku_elf *ue, const struct ku_sym *s, const char *mod)
{
	static const char *const names[2] = { "entry", "return" };
	const char *pat = kx->kx_pd->lp_name;
	struct kio_uprobe *e;
	char prov[32];
	uint64_t off, foff;
	int i;

	snprintf(prov, sizeof (prov), "pid%u", p->up_pid);
	if (ku_elf_off(ue, s->us_value, &foff, 1) != 0)
		return;
	if (pat[0] == '\0' || ku_isglob(pat) || strcmp(pat, "entry") == 0 ||
	    strcmp(pat, "return") == 0) {
		for (i = 0; i < 2; i++) {
			if (!ku_match(pat, names[i]) ||
			    (e = ku_add(kx, p->up_pid, prov, mod, s->us_name,
			    names[i], o)) == NULL)
				continue;
			e->ku_offset = foff;
			e->ku_addr = ku_obj_addr(o, foff);
			e->ku_flags = i == 1 ? KIO_UP_RETURN : 0;
		}
		return;
	}
	/* an offset into the function: within its size, nothing more */
	if (ku_hexoff(pat, &off) != 0 || (off != 0 && off >= s->us_size))
		return;
	if ((e = ku_add(kx, p->up_pid, prov, mod, s->us_name, pat, o)) == NULL)
		return;
	e->ku_offset = foff + off;
	e->ku_addr = ku_obj_addr(o, foff + off);
}

static void
ku_pid_obj(struct ku_ctx *kx, struct ku_proc *p, struct ku_obj *o)
{
	const struct dof_pdesc *pd = kx->kx_pd;
	const struct ku_elf *ue;
	const struct ku_sym *s, *last = NULL;
	const char *mod;
	uint32_t i;

	if ((mod = ku_obj_mod(o, pd->lp_mod)) == NULL ||
	    (ue = ku_obj_elf(kx, o)) == NULL)
		return;
	for (i = 0; i < ue->ue_nsyms; i++) {
		s = &ue->ue_syms[i];
		if (!ku_match(pd->lp_func, s->us_name))
			continue;
		/* a glob takes one of the aliases of an address */
		if ((pd->lp_func[0] == '\0' || ku_isglob(pd->lp_func)) &&
		    last != NULL && last->us_value == s->us_value)
			continue;
		last = s;
		ku_pid_func(kx, p, o, ue, s, mod);
	}
}

struct ku_symarg {
	const struct ku_obj *sa_obj;
	const struct ku_elf *sa_elf;
};

/* kc_upsym_fn for %rip-relative USDT arguments: a symbol's address. */
static int
ku_symval(void *arg, const char *name, uint64_t *addr)
{
	const struct ku_symarg *sa = arg;
	uint64_t off;
	uint32_t i;

	for (i = 0; i < sa->sa_elf->ue_nsyms; i++) {
		if (strcmp(sa->sa_elf->ue_syms[i].us_name, name) != 0 ||
		    ku_elf_off(sa->sa_elf, sa->sa_elf->ue_syms[i].us_value,
		    &off, 0) != 0)
			continue;
		*addr = ku_obj_addr(sa->sa_obj, off);
		return *addr != 0 ? 0 : -1;
	}
	return -1;	/* data symbols are not kept: such arguments read 0 */
}

static void
ku_usdt_note(struct ku_ctx *kx, struct ku_proc *p, const struct ku_obj *o,
    const struct ku_elf *ue, const struct ku_note *n, const char *mod)
{
	const struct dof_pdesc *pd = kx->kx_pd;
	struct ku_symarg sa = { o, ue };
	const struct ku_sym *s;
	struct kio_uprobe *e;
	char prov[80], why[256];
	uint64_t off;

	snprintf(prov, sizeof (prov), "%s%u", n->un_prov, p->up_pid);
	s = ku_elf_func_at(ue, n->un_pc);
	if (!ku_match(pd->lp_prov, prov) || !ku_match(pd->lp_name, n->un_name) ||
	    !ku_match(pd->lp_func, s != NULL ? s->us_name : "") ||
	    ku_elf_off(ue, n->un_pc, &off, 1) != 0)
		return;
	if ((e = ku_add(kx, p->up_pid, prov, mod, s != NULL ? s->us_name : "",
	    n->un_name, o)) == NULL)
		return;
	e->ku_offset = off;
	e->ku_addr = ku_obj_addr(o, off);
	if (n->un_sem != 0 && ku_elf_off(ue, n->un_sem, &e->ku_refctr, 0) != 0)
		e->ku_refctr = 0;
	if (kc_uparg_parse_all(n->un_args, e->ku_args, &e->ku_nargs,
	    ku_symval, &sa, why, sizeof (why)) != 0)
		fprintf(kx->kx_err, "%s: warning: %s:%s:%s:%s: %s; it reads 0\n",
		    kx->kx_prog, e->ku_prov, e->ku_mod, e->ku_func, e->ku_name,
		    why);
}

static void
ku_usdt_obj(struct ku_ctx *kx, struct ku_proc *p, struct ku_obj *o)
{
	const struct ku_elf *ue;
	const char *mod;
	uint32_t i;

	if ((mod = ku_obj_mod(o, kx->kx_pd->lp_mod)) == NULL ||
	    (ue = ku_obj_elf(kx, o)) == NULL)
		return;
	for (i = 0; i < ue->ue_nnotes; i++)
		ku_usdt_note(kx, p, o, ue, &ue->ue_notes[i], mod);
}

/* Process "pid", read on first use; NULL after saying it does not exist. */
static struct ku_proc *
ku_proc_get(struct ku_ctx *kx, uint32_t pid)
{
	const struct dof_pdesc *pd = kx->kx_pd;
	struct ku_proc *np;
	uint32_t i;
	int rv;

	for (i = 0; i < kx->kx_nprocs; i++)
		if (kx->kx_procs[i].up_pid == pid)
			return &kx->kx_procs[i];
	np = realloc(kx->kx_procs, (kx->kx_nprocs + 1) * sizeof (*np));
	if (np == NULL)
		return NULL;
	kx->kx_procs = np;
	if ((rv = ku_proc_read(&np[kx->kx_nprocs], pid)) != 0) {
		ku_proc_free(&np[kx->kx_nprocs]);
		fprintf(kx->kx_err, "%s: probe description %s:%s:%s:%s: failed to grab pid %u: %s\n",
		    kx->kx_prog, pd->lp_prov, pd->lp_mod, pd->lp_func,
		    pd->lp_name, pid, rv == -ENOENT || rv == -ESRCH ?
		    "no such process" : strerror(-rv));
		return NULL;
	}
	return &np[kx->kx_nprocs++];
}

/* Split "<name><digits>"; 0 with *pid set, -1 if it is not that. */
static int
ku_prov_pid(const char *prov, size_t *namelen, uint32_t *pid)
{
	size_t n = strlen(prov), d = n;
	unsigned long v;

	while (d > 0 && isdigit((unsigned char)prov[d - 1]))
		d--;
	if (d == 0 || d == n || prov[d] == '0' || n - d > 10)
		return -1;
	v = strtoul(prov + d, NULL, 10);
	if (v == 0 || v > INT32_MAX)
		return -1;
	*namelen = d;
	*pid = (uint32_t)v;
	return 0;
}

/* The probes of one process for the current description. */
static int
ku_desc_proc(struct ku_ctx *kx, uint32_t pid, int pidprov, int usdt)
{
	struct ku_proc *p = ku_proc_get(kx, pid);
	uint32_t i;

	if (p == NULL)
		return -1;
	for (i = 0; i < p->up_nobjs; i++) {
		if (pidprov)
			ku_pid_obj(kx, p, &p->up_objs[i]);
		if (usdt)
			ku_usdt_obj(kx, p, &p->up_objs[i]);
	}
	return kx->kx_full ? -1 : 0;
}

/* One ECB description: which processes and which kind of probes. */
static int
ku_desc(struct ku_ctx *kx, const uint32_t *targets, uint32_t ntargets)
{
	const char *prov = kx->kx_pd->lp_prov;
	char tp[32];
	uint32_t pid, i;
	size_t nl;

	if (prov[0] == '\0')
		return 0;
	if (!ku_isglob(prov)) {
		if (ku_prov_pid(prov, &nl, &pid) != 0)
			return 0;
		if (nl == 3 && strncmp(prov, "pid", 3) == 0)
			return ku_desc_proc(kx, pid, 1, 0);
		return ku_desc_proc(kx, pid, 0, 1);
	}
	for (i = 0; i < ntargets; i++) {
		snprintf(tp, sizeof (tp), "pid%u", targets[i]);
		if (ku_desc_proc(kx, targets[i],
		    strncmp(prov, "pid", 3) == 0 && dof_glob_match(prov, tp),
		    1) != 0)
			return -1;
	}
	return 0;
}

static int
ku_ent_cmp(const void *a, const void *b)
{
	const struct kio_uprobe *x = a, *y = b;
	int c;

	if (x->ku_pid != y->ku_pid)
		return x->ku_pid < y->ku_pid ? -1 : 1;
	if ((c = strcmp(x->ku_prov, y->ku_prov)) != 0 ||
	    (c = strcmp(x->ku_mod, y->ku_mod)) != 0 ||
	    (c = strcmp(x->ku_func, y->ku_func)) != 0 ||
	    (c = strcmp(x->ku_name, y->ku_name)) != 0 ||
	    (c = strcmp(x->ku_path, y->ku_path)) != 0)
		return c;
	if (x->ku_offset != y->ku_offset)
		return x->ku_offset < y->ku_offset ? -1 : 1;
	return 0;
}

/* Sort the table and drop entries equal to their predecessor. */
static void
ku_uniq(struct kc_uptab *ut)
{
	uint32_t i, j = 0;

	if (ut->ut_n == 0)
		return;
	qsort(ut->ut_ents, ut->ut_n, sizeof (ut->ut_ents[0]), ku_ent_cmp);
	for (i = 1; i < ut->ut_n; i++)
		if (ku_ent_cmp(&ut->ut_ents[j], &ut->ut_ents[i]) != 0)
			ut->ut_ents[++j] = ut->ut_ents[i];
	ut->ut_n = j + 1;
}

int
kc_uprobe_build(struct kc_uptab *ut, const struct dof_enabling *den,
    const uint32_t *targets, uint32_t ntargets, const char *prog,
    FILE *err)
{
	struct ku_ctx kx;
	uint32_t i;
	int rv = 0;

	memset(ut, 0, sizeof (*ut));
	memset(&kx, 0, sizeof (kx));
	kx.kx_ut = ut;
	kx.kx_prog = prog;
	kx.kx_err = err;
	for (i = 0; i < den->den_necbs && rv == 0; i++) {
		kx.kx_pd = &den->den_ecbs[i].le_pdesc;
		rv = ku_desc(&kx, targets, ntargets);
	}
	for (i = 0; i < kx.kx_nprocs; i++)
		ku_proc_free(&kx.kx_procs[i]);
	free(kx.kx_procs);
	if (rv != 0) {
		kc_uprobe_fini(ut);
		return -1;
	}
	ku_uniq(ut);
	return 0;
}

void
kc_uprobe_fini(struct kc_uptab *ut)
{
	free(ut->ut_ents);
	memset(ut, 0, sizeof (*ut));
}

/* ---- addresses to names: usym(), umod(), uaddr() ---- */

/*
 * The process last looked up, kept so that a run of records from one
 * process reads its maps and ELF files once.  Re-read when the pid
 * changes or when an address falls in no mapping of the copy (the
 * process may have mapped more since, e.g. dlopen()).
 */
static struct ku_proc ku_look;

/* The object of "p" mapping "addr", with the ELF address in *vaddr. */
static struct ku_obj *
ku_look_obj(struct ku_proc *p, uint64_t addr, uint64_t *vaddr)
{
	const struct ku_map *m;
	struct ku_obj *o;
	uint64_t off;
	uint32_t i, j, k;

	for (i = 0; i < p->up_nobjs; i++) {
		o = &p->up_objs[i];
		for (j = 0; j < o->uo_nmaps; j++) {
			m = &o->uo_maps[j];
			if (addr < m->um_start || addr >= m->um_end)
				continue;
			off = addr - m->um_start + m->um_pgoff;
			*vaddr = 0;
			if (o->uo_elf == NULL && !o->uo_bad) {
				char why[PATH_MAX + 64];

				o->uo_elf = ku_elf_read(o->uo_path, why,
				    sizeof (why));
				o->uo_bad = o->uo_elf == NULL;
			}
			for (k = 0; o->uo_elf != NULL &&
			    k < o->uo_elf->ue_nload; k++) {
				const GElf_Phdr *ph = &o->uo_elf->ue_load[k];

				if (off >= ph->p_offset &&
				    off - ph->p_offset < ph->p_filesz) {
					*vaddr = off - ph->p_offset +
					    ph->p_vaddr;
					break;
				}
			}
			return o;
		}
	}
	return NULL;
}

int
kc_uaddr_lookup(uint32_t pid, uint64_t addr, struct kc_uaddr *ua)
{
	const struct ku_sym *s;
	struct ku_obj *o = NULL;
	uint64_t vaddr = 0;
	int pass;

	memset(ua, 0, sizeof (*ua));
	for (pass = 0; pass < 2 && o == NULL; pass++) {
		if (pass == 1 || ku_look.up_pid != pid ||
		    ku_look.up_nobjs == 0) {
			ku_proc_free(&ku_look);
			if (ku_proc_read(&ku_look, pid) != 0) {
				ku_proc_free(&ku_look);
				return -1;
			}
			pass = 1;
		}
		o = ku_look_obj(&ku_look, addr, &vaddr);
	}
	if (o == NULL)
		return -1;
	snprintf(ua->ua_obj, sizeof (ua->ua_obj), "%s",
	    o->uo_path + o->uo_base);
	if (o->uo_elf != NULL && vaddr != 0 &&
	    (s = ku_elf_func_at(o->uo_elf, vaddr)) != NULL) {
		snprintf(ua->ua_sym, sizeof (ua->ua_sym), "%s", s->us_name);
		ua->ua_off = vaddr - s->us_value;
		ua->ua_hassym = 1;
	}
	return 0;
}
