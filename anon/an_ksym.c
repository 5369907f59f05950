/*
 * an_ksym.c -- kdt -A: the kernel symbol hints of an enabling
 * (common/ksh.h): the offsets from _stext of the core-kernel functions
 * its fbt descriptions name, read from the target kernel's vmlinux, with
 * that vmlinux's GNU build id.  kdt.ko takes them at boot instead of
 * searching kallsyms for each name, after checking the build id and each
 * address against the running kernel.
 *
 * The vmlinux is the one given to the compiler for types (--btf=PATH, else
 * $KDT_BTF) when it is an ELF file with a symbol table and a build id (a
 * raw BTF file is not, and /sys/kernel/btf/vmlinux never is): "kdt -A -o
 * DIR --btf=vmlinux" is how an image builder names its target kernel.
 * Without one there are no hints and kdt.ko searches every name, as
 * before; hints are only ever a shortcut.
 *
 * Which names: the function part of every description that may name fbt
 * (provider part empty or matching "fbt") when it is one plain name (no
 * glob character); a name gets entries only when every one of its
 * symbols that lies in the kernel's text or init text lies in
 * [_stext, _etext) -- an init-text function is matched by kdt.ko while
 * the init text is there, which the file cannot say, so such a name is
 * left to the kallsyms search.  Names the vmlinux lacks get no entry.
 *
 * The running kernel: when no vmlinux gives hints (none given, or a raw
 * BTF file such as /sys/kernel/btf/vmlinux, as on a distribution whose
 * /boot/vmlinuz has no symbol table) and the enabling is for the kernel
 * that is running (the caller's "kver" is uname -r), the same file is
 * made from that kernel itself: the symbols of /proc/kallsyms (core
 * kernel only: a line naming a module, "[...]", is skipped) and the build
 * id of /sys/kernel/notes (the kernel's ELF note stream: 4-byte namesz,
 * descsz, type, then name and desc each padded to 4 bytes; the build id
 * is the note of type NT_GNU_BUILD_ID (3) named "GNU").  Offsets and text
 * size are computed from _stext and _etext as from the ELF, KASLR's shift
 * cancelling out.  kallsyms shows zero addresses to a reader the kernel
 * does not trust (kptr_restrict, not root): then, or when a symbol or the
 * build id is missing, there are no hints (only a note saying why).  From
 * kallsyms a name with more than one address (static functions of one
 * name) is left out, to the search, which finds them all.  For tests
 * only, $KDT_KALLSYMS and $KDT_KNOTES name other files to read instead.
 *
 * Aliases: kdt.ko confirms a hinted address by the name kallsyms gives
 * it, and a function with several names gives one of them
 * (__x64_sys_getppid, __do_sys_getppid and __ia32_sys_getppid share an
 * address; kallsyms says __do_sys_getppid).  So the file also lists, at
 * each wanted name's offset, the other names the symbols put there (no
 * wanted name among them), and kdt.ko takes the hint when kallsyms' name
 * is one the file puts at that very offset.  Without them such a name
 * was searched in kallsyms (~33 k instructions at boot, against ~7 k).
 * kdt.ko looks up only the enabling's names in the file, so an alias's
 * entries, which need not be all of its addresses, are never taken for
 * a name's functions.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/utsname.h>

#include "anon/an_impl.h"
#include "common/dof_load.h"
#include "common/ksh.h"

struct an_kname {
	const char	*kn_name;	/* in the DOF's loaded enabling, or */
	uint64_t	kn_off;		/* from _stext */
	int		kn_alias;	/* ... an alias's name, malloc'ed */
};

static int
an_u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

static int
an_kname_cmp(const void *a, const void *b)
{
	const struct an_kname *x = a, *y = b;
	int c = strcmp(x->kn_name, y->kn_name);

	if (c != 0)
		return c;
	return (x->kn_off > y->kn_off) - (x->kn_off < y->kn_off);
}

static int
an_kname_strcmp(const void *a, const void *b)
{
	return strcmp(*(const char * const *)a, *(const char * const *)b);
}

/* The first GNU build id of the SHT_NOTE sections: its length, or 0. */
static uint32_t
an_ksym_bid(Elf *e, uint8_t *id)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	GElf_Nhdr nh;
	Elf_Data *d;
	size_t off, noff, doff;

	while ((scn = elf_nextscn(e, scn)) != NULL) {
		if (gelf_getshdr(scn, &sh) == NULL || sh.sh_type != SHT_NOTE ||
		    (d = elf_getdata(scn, NULL)) == NULL)
			continue;
		for (off = 0; (off = gelf_getnote(d, off, &nh, &noff,
		    &doff)) != 0; ) {
			if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
			    memcmp((char *)d->d_buf + noff, "GNU", 4) == 0 &&
			    nh.n_descsz >= 1 && nh.n_descsz <= KSH_BIDMAX) {
				memcpy(id, (char *)d->d_buf + doff,
				    nh.n_descsz);
				return nh.n_descsz;
			}
		}
	}
	return 0;
}

/*
 * The distinct plain fbt function names of the DOF, sorted, in *namesp
 * (pointers into *denp); their count, or -1 when the DOF does not load.
 */
static int
an_ksym_names(const struct dc_out *o, struct dof_enabling **denp,
    const char ***namesp, char *why, size_t whysz)
{
	struct dof_enabling *den;
	const struct dof_pdesc *pd;
	const char **v;
	struct kdt_err ke;
	uint32_t i, n = 0, k;

	if (dof_load(o->dco_dof, o->dco_dofsz, &den, &ke) != 0) {
		snprintf(why, whysz, "the DOF does not load: %s", ke.ke_msg);
		return -1;
	}
	v = calloc(den->den_necbs + 1, sizeof (*v));
	if (v == NULL) {
		dof_free(den);
		snprintf(why, whysz, "out of memory");
		return -1;
	}
	for (i = 0; i < den->den_necbs; i++) {
		pd = &den->den_ecbs[i].le_pdesc;
		if ((pd->lp_prov[0] != '\0' &&
		    fnmatch(pd->lp_prov, "fbt", 0) != 0) ||
		    pd->lp_func[0] == '\0' ||
		    strpbrk(pd->lp_func, "*?[\\") != NULL ||
		    strlen(pd->lp_func) >= KSH_NAMEMAX)
			continue;
		v[n++] = pd->lp_func;
	}
	qsort(v, n, sizeof (*v), an_kname_strcmp);
	for (i = k = 0; i < n; i++)
		if (k == 0 || strcmp(v[k - 1], v[i]) != 0)
			v[k++] = v[i];
	*denp = den;
	*namesp = v;
	return (int)k;
}

static const char *
an_ksym_want(const char **names, int n, const char *s)
{
	const char **p = bsearch(&s, names, n, sizeof (*names),
	    an_kname_strcmp);

	return p != NULL ? *p : NULL;
}

/* The hints file in *bufp (malloc'ed); see an_impl.h. */
static int
an_ksym_write(const uint8_t *bid, uint32_t bidlen, uint64_t textsz,
    struct an_kname *kn, uint32_t nk, uint8_t **bufp, size_t *lenp)
{
	struct ksh_hdr kh;
	struct ksh_ent ke;
	size_t strsz = 0, len, s;
	uint32_t i, nent = 0;
	uint8_t *b;

	for (i = 0; i < nk; i++)
		if (i == 0 || strcmp(kn[i].kn_name, kn[i - 1].kn_name) != 0)
			strsz += strlen(kn[i].kn_name) + 1;
	len = KSH_HDRSZ + (size_t)nk * sizeof (ke) + strsz;
	b = calloc(1, len);
	if (b == NULL)
		return -1;
	memset(&kh, 0, sizeof (kh));
	memcpy(kh.kh_magic, KSH_MAGIC, KSH_MAGICLEN);
	kh.kh_version = KSH_VERSION;
	kh.kh_bidlen = bidlen;
	memcpy(kh.kh_bid, bid, bidlen);
	kh.kh_nsyms = nk;
	kh.kh_strsz = (uint32_t)strsz;
	kh.kh_textsz = textsz;
	memcpy(b, &kh, sizeof (kh));
	for (i = 0, s = 0; i < nk; i++) {
		if (i != 0 && strcmp(kn[i].kn_name, kn[i - 1].kn_name) == 0 &&
		    kn[i].kn_off == kn[i - 1].kn_off)
			continue;	/* one (name, offset) once */
		if (i == 0 || strcmp(kn[i].kn_name, kn[i - 1].kn_name) != 0) {
			ke.ke_name = (uint32_t)s;
			strcpy((char *)b + KSH_HDRSZ + (size_t)nk *
			    sizeof (ke) + s, kn[i].kn_name);
			s += strlen(kn[i].kn_name) + 1;
		}
		ke.ke_off = (uint32_t)kn[i].kn_off;
		memcpy(b + KSH_HDRSZ + (size_t)nent * sizeof (ke), &ke,
		    sizeof (ke));
		nent++;
	}
	if (nent != nk) {	/* duplicates dropped: close the gap */
		memmove(b + KSH_HDRSZ + (size_t)nent * sizeof (ke),
		    b + KSH_HDRSZ + (size_t)nk * sizeof (ke), strsz);
		kh.kh_nsyms = nent;
		memcpy(b, &kh, sizeof (kh));
		len = KSH_HDRSZ + (size_t)nent * sizeof (ke) + strsz;
	}
	*bufp = b;
	*lenp = len;
	return 0;
}

/* What the symbols of one kernel give: text bounds, build id, entries. */
struct an_ksrc {
	uint64_t	ks_stext, ks_etext, ks_sinit, ks_einit;
	uint8_t		ks_bid[KSH_BIDMAX];
	uint32_t	ks_bidlen;
	struct an_kname	*ks_kn;
	uint32_t	ks_nk, ks_cap;
	uint64_t	*ks_offs;	/* the wanted names' text offsets */
	uint32_t	ks_noffs;
};

/* Append an entry; -1 when out of memory. */
static int
an_ksym_push(struct an_ksrc *ks, const char *name, uint64_t off, int alias)
{
	struct an_kname *t;

	if (ks->ks_nk == ks->ks_cap) {
		ks->ks_cap = ks->ks_cap ? 2 * ks->ks_cap : 256;
		t = realloc(ks->ks_kn, ks->ks_cap * sizeof (*t));
		if (t == NULL)
			return -1;
		ks->ks_kn = t;
	}
	ks->ks_kn[ks->ks_nk].kn_name = name;
	ks->ks_kn[ks->ks_nk].kn_off = off;
	ks->ks_kn[ks->ks_nk++].kn_alias = alias;
	return 0;
}

/* The entries and the aliases' names. */
static void
an_ksrc_free(struct an_ksrc *ks)
{
	uint32_t i;

	for (i = 0; i < ks->ks_nk; i++)
		if (ks->ks_kn[i].kn_alias)
			free((char *)ks->ks_kn[i].kn_name);
	free(ks->ks_kn);
	free(ks->ks_offs);
	memset(ks, 0, sizeof (*ks));
}

/* Pass 0 of both sources: is "nm" one of the text bounds?  Keep it. */
static void
an_ksym_bound(struct an_ksrc *ks, const char *nm, uint64_t a)
{
	if (strcmp(nm, "_stext") == 0)
		ks->ks_stext = a;
	else if (strcmp(nm, "_etext") == 0)
		ks->ks_etext = a;
	else if (strcmp(nm, "_sinittext") == 0)
		ks->ks_sinit = a;
	else if (strcmp(nm, "_einittext") == 0)
		ks->ks_einit = a;
}

/* Symbol "nm" at "a": an entry when it is a wanted text symbol. */
static int
an_ksym_add(struct an_ksrc *ks, const char **names, int n, const char *nm,
    uint64_t a)
{
	const char *want;

	if (!((a >= ks->ks_stext && a < ks->ks_etext) ||
	    (a >= ks->ks_sinit && a < ks->ks_einit)) ||
	    (want = an_ksym_want(names, n, nm)) == NULL)
		return 0;
	/* init text: the name is dropped by an_ksym_build() */
	return an_ksym_push(ks, want, a >= ks->ks_stext && a < ks->ks_etext ?
	    a - ks->ks_stext : UINT64_MAX, 0);
}

/* After the wanted names' pass: their text offsets, sorted. */
static int
an_ksym_offsets(struct an_ksrc *ks)
{
	uint32_t i, n = 0;

	free(ks->ks_offs);
	ks->ks_noffs = 0;
	if ((ks->ks_offs = malloc((ks->ks_nk + 1) * sizeof (uint64_t))) == NULL)
		return -1;
	for (i = 0; i < ks->ks_nk; i++)
		if (ks->ks_kn[i].kn_off != UINT64_MAX)
			ks->ks_offs[n++] = ks->ks_kn[i].kn_off;
	qsort(ks->ks_offs, n, sizeof (uint64_t), an_u64_cmp);
	ks->ks_noffs = n;
	return 0;
}

/* The aliases' pass: "nm" at "a", another name at a wanted offset. */
static int
an_ksym_alias(struct an_ksrc *ks, const char **names, int n, const char *nm,
    uint64_t a)
{
	uint64_t off = a - ks->ks_stext;
	char *dup;

	if (nm[0] == '\0' || a < ks->ks_stext || a >= ks->ks_etext ||
	    ks->ks_noffs == 0 ||
	    bsearch(&off, ks->ks_offs, ks->ks_noffs, sizeof (off),
	    an_u64_cmp) == NULL || an_ksym_want(names, n, nm) != NULL)
		return 0;
	if ((dup = strdup(nm)) == NULL || an_ksym_push(ks, dup, off, 1) != 0) {
		free(dup);
		return -1;
	}
	return 0;
}

/* The text bounds "what" read: usable, or 0 with "why" set. */
static int
an_ksym_bounds(const struct an_ksrc *ks, const char *what, char *why,
    size_t whysz)
{
	if (ks->ks_stext == 0 || ks->ks_etext <= ks->ks_stext ||
	    ks->ks_etext - ks->ks_stext > UINT32_MAX) {
		snprintf(why, whysz, "%s: no usable _stext/_etext (0x%llx, 0x%llx)",
		    what, (unsigned long long)ks->ks_stext,
		    (unsigned long long)ks->ks_etext);
		return 0;
	}
	return 1;
}

/* From the ELF "vmlinux": 1, 0 (no hints, "why" says why) or -1. */
static int
an_ksym_elf(const char *vmlinux, const char **names, int n,
    struct an_ksrc *ks, char *why, size_t whysz)
{
	Elf *e = NULL;
	Elf_Scn *scn = NULL, *symscn = NULL;
	Elf_Data *d;
	GElf_Shdr sh;
	GElf_Sym sym;
	const char *nm;
	size_t nsym = 0, x;
	uint64_t a;
	int fd, rv = 0, pass;

	elf_version(EV_CURRENT);
	if ((fd = open(vmlinux, O_RDONLY)) < 0) {
		snprintf(why, whysz, "%s: %s", vmlinux, strerror(errno));
		return -1;
	}
	e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (e == NULL || elf_kind(e) != ELF_K_ELF) {
		snprintf(why, whysz, "%s is not an ELF file (a BTF file has no addresses)",
		    vmlinux);
		goto out;
	}
	while ((scn = elf_nextscn(e, scn)) != NULL)
		if (gelf_getshdr(scn, &sh) != NULL && sh.sh_type == SHT_SYMTAB &&
		    sh.sh_entsize != 0) {
			symscn = scn;
			nsym = sh.sh_size / sh.sh_entsize;
			break;
		}
	ks->ks_bidlen = an_ksym_bid(e, ks->ks_bid);
	if (symscn == NULL || ks->ks_bidlen == 0 ||
	    (d = elf_getdata(symscn, NULL)) == NULL) {
		snprintf(why, whysz, "%s has no %s", vmlinux, symscn == NULL ?
		    "symbol table" : "GNU build id");
		goto out;
	}
	/*
	 * pass 0: the text bounds; pass 1: the wanted names' symbols; pass
	 * 2: their aliases
	 */
	for (pass = 0; pass < 3; pass++) {
		for (x = 1; x < nsym; x++) {
			if (gelf_getsym(d, (int)x, &sym) == NULL ||
			    (nm = elf_strptr(e, sh.sh_link, sym.st_name)) == NULL)
				continue;
			a = sym.st_value;
			if (pass == 0) {
				an_ksym_bound(ks, nm, a);
			} else if ((pass == 1 ? an_ksym_add(ks, names, n, nm, a) :
			    an_ksym_alias(ks, names, n, nm, a)) != 0) {
				snprintf(why, whysz, "out of memory");
				rv = -1;
				goto out;
			}
		}
		if (pass == 0 && !an_ksym_bounds(ks, vmlinux, why, whysz))
			goto out;
		if (pass == 1 && an_ksym_offsets(ks) != 0) {
			snprintf(why, whysz, "out of memory");
			rv = -1;
			goto out;
		}
	}
	rv = 1;
out:
	if (e != NULL)
		elf_end(e);
	close(fd);
	return rv;
}

/* The GNU build id in the note stream "path" (/sys/kernel/notes). */
static uint32_t
an_ksym_notes(const char *path, uint8_t *id)
{
	uint8_t buf[4096];
	uint32_t nh[3];
	size_t len, off, nsz, dsz;
	ssize_t r;
	int fd;

	if ((fd = open(path, O_RDONLY)) < 0)
		return 0;
	for (len = 0; len < sizeof (buf); len += (size_t)r)
		if ((r = read(fd, buf + len, sizeof (buf) - len)) <= 0)
			break;
	close(fd);
	for (off = 0; off + sizeof (nh) <= len; off += sizeof (nh) + nsz + dsz) {
		memcpy(nh, buf + off, sizeof (nh));
		nsz = ((size_t)nh[0] + 3) & ~(size_t)3;
		dsz = ((size_t)nh[1] + 3) & ~(size_t)3;
		if (nsz > len - off - sizeof (nh) ||
		    dsz > len - off - sizeof (nh) - nsz)
			break;		/* truncated: no build id */
		if (nh[2] == NT_GNU_BUILD_ID && nh[0] == 4 &&
		    memcmp(buf + off + sizeof (nh), "GNU", 4) == 0 &&
		    nh[1] >= 1 && nh[1] <= KSH_BIDMAX) {
			memcpy(id, buf + off + sizeof (nh) + nsz, nh[1]);
			return nh[1];
		}
	}
	return 0;
}

/* One /proc/kallsyms line: 1 with its address and name, 0 to skip it. */
static int
an_ksym_line(char *line, uint64_t *a, const char **nm)
{
	char *p, *end;

	if (strchr(line, '[') != NULL)	/* a module's, bpf's, ftrace's */
		return 0;
	*a = strtoull(line, &end, 16);
	if (end == line || *end != ' ')
		return 0;
	p = end + 1;
	if (*p == '\0' || p[1] != ' ')		/* the type letter */
		return 0;
	p += 2;
	p[strcspn(p, " \t\n")] = '\0';
	if (*p == '\0')
		return 0;
	*nm = p;
	return 1;
}

/*
 * One pass over kallsyms "fp": 0: the text bounds, 1: the wanted names'
 * entries, 2: their aliases.  -1 when out of memory.
 */
static int
an_ksym_kpass(FILE *fp, int pass, const char **names, int n,
    struct an_ksrc *ks)
{
	const char *nm;
	char line[1024];
	uint64_t a;
	int skip = 0, rv = 0;

	rewind(fp);
	while (rv == 0 && fgets(line, sizeof (line), fp) != NULL) {
		int whole = strchr(line, '\n') != NULL || feof(fp);

		if (skip || !whole) {	/* a line past the buffer */
			skip = !whole;
			continue;
		}
		if (!an_ksym_line(line, &a, &nm))
			continue;
		if (pass == 0)
			an_ksym_bound(ks, nm, a);
		else if (pass == 1)
			rv = an_ksym_add(ks, names, n, nm, a);
		else
			rv = an_ksym_alias(ks, names, n, nm, a);
	}
	return rv;
}

/*
 * From the running kernel: 1, 0 (no hints, "why" says why) or -1.  A
 * build id "elfbid" (of a vmlinux without symbols, 0 bytes: none) that is
 * not the running kernel's says the target is another kernel: no hints.
 */
static int
an_ksym_running(const char **names, int n, const uint8_t *elfbid,
    uint32_t elfbidlen, const char *vmlinux, struct an_ksrc *ks, char *why,
    size_t whysz)
{
	const char *ksyms = getenv("KDT_KALLSYMS");
	const char *notes = getenv("KDT_KNOTES");
	uint32_t i, j, k;
	int pass, rv = 0;
	FILE *fp;

	if (ksyms == NULL || *ksyms == '\0')
		ksyms = "/proc/kallsyms";
	if (notes == NULL || *notes == '\0')
		notes = "/sys/kernel/notes";
	if ((ks->ks_bidlen = an_ksym_notes(notes, ks->ks_bid)) == 0) {
		snprintf(why, whysz, "no GNU build id in %s", notes);
		return 0;
	}
	if (elfbidlen != 0 && (elfbidlen != ks->ks_bidlen ||
	    memcmp(elfbid, ks->ks_bid, elfbidlen) != 0)) {
		snprintf(why, whysz, "%s, the target kernel, is not the running one (its build id is not the one in %s)",
		    vmlinux, notes);
		return 0;
	}
	if ((fp = fopen(ksyms, "r")) == NULL) {
		snprintf(why, whysz, "%s: %s", ksyms, strerror(errno));
		return 0;
	}
	for (pass = 0; pass < 2; pass++) {
		if (an_ksym_kpass(fp, pass, names, n, ks) != 0)
			goto oom;
		if (pass == 0 && ks->ks_stext == 0 && ks->ks_etext == 0) {
			snprintf(why, whysz, "%s shows no addresses (kptr_restrict; run kdt -A as root)",
			    ksyms);
			goto out;
		}
		if (pass == 0 && !an_ksym_bounds(ks, ksyms, why, whysz))
			goto out;
	}
	/* a name with several addresses is left to the search */
	qsort(ks->ks_kn, ks->ks_nk, sizeof (*ks->ks_kn), an_kname_cmp);
	for (i = j = 0; i < ks->ks_nk; i = k) {
		for (k = i; k < ks->ks_nk &&
		    ks->ks_kn[k].kn_name == ks->ks_kn[i].kn_name; k++)
			;
		if (ks->ks_kn[k - 1].kn_off != ks->ks_kn[i].kn_off)
			continue;
		ks->ks_kn[j++] = ks->ks_kn[i];
	}
	ks->ks_nk = j;
	/* the aliases at the offsets of the names kept */
	if (an_ksym_offsets(ks) != 0 || an_ksym_kpass(fp, 2, names, n, ks) != 0)
		goto oom;
	rv = 1;
out:
	fclose(fp);
	return rv;
oom:
	snprintf(why, whysz, "out of memory");
	fclose(fp);
	return -1;
}

static int
an_ksym_is_running(const char *kver)
{
	struct utsname u;

	return kver != NULL && uname(&u) == 0 && strcmp(u.release, kver) == 0;
}

int
an_ksym_build(const struct dc_out *o, const char *vmlinux, const char *kver,
    uint8_t **bufp, size_t *lenp, uint32_t *nnamesp, char *why, size_t whysz)
{
	struct dof_enabling *den = NULL;
	const char **names = NULL;
	struct an_ksrc ks;
	struct an_kname *kn;
	char elfwhy[256];
	uint8_t bid[KSH_BIDMAX];
	uint32_t nk, i, j, k, bidlen;
	int n, rv = 0;

	*bufp = NULL;
	*lenp = 0;
	*nnamesp = 0;
	memset(&ks, 0, sizeof (ks));
	if (vmlinux == NULL)
		vmlinux = getenv("KDT_BTF");
	if ((n = an_ksym_names(o, &den, &names, why, whysz)) < 0)
		return -1;
	if (n == 0) {
		snprintf(why, whysz, "no fbt description names one function");
		goto out;
	}
	elfwhy[0] = '\0';
	if (vmlinux != NULL && *vmlinux != '\0') {
		rv = an_ksym_elf(vmlinux, names, n, &ks, elfwhy,
		    sizeof (elfwhy));
		if (rv != 0) {
			snprintf(why, whysz, rv > 0 ? "from %s" : "%s",
			    rv > 0 ? vmlinux : elfwhy);
			if (rv < 0)
				goto out;
		}
	} else
		snprintf(elfwhy, sizeof (elfwhy),
		    "no vmlinux given (--btf=PATH or $KDT_BTF)");
	if (rv == 0) {
		if (!an_ksym_is_running(kver)) {
			snprintf(why, whysz, "%s, and the target kernel %s is not the running one",
			    elfwhy, kver != NULL ? kver : "(unknown)");
			goto out;
		}
		memcpy(bid, ks.ks_bid, sizeof (bid));
		bidlen = ks.ks_bidlen;
		an_ksrc_free(&ks);
		rv = an_ksym_running(names, n, bid, bidlen, vmlinux, &ks, why,
		    whysz);
		if (rv <= 0)
			goto out;
		snprintf(why, whysz, "from the running kernel %s (%s)", kver,
		    getenv("KDT_KALLSYMS") != NULL &&
		    *getenv("KDT_KALLSYMS") != '\0' ?
		    getenv("KDT_KALLSYMS") : "/proc/kallsyms");
	}
	kn = ks.ks_kn;
	nk = ks.ks_nk;
	qsort(kn, nk, sizeof (*kn), an_kname_cmp);
	/*
	 * drop every name with a symbol in init text (UINT64_MAX sorts
	 * last); aliases have text offsets only, and are not counted
	 */
	for (i = j = 0; i < nk; i = k) {
		for (k = i; k < nk && kn[k].kn_name == kn[i].kn_name; k++)
			;
		if (kn[k - 1].kn_off == UINT64_MAX)
			continue;
		memmove(&kn[j], &kn[i], (k - i) * sizeof (*kn));
		j += k - i;
		*nnamesp += !kn[i].kn_alias;
	}
	ks.ks_nk = nk = j;
	if (an_ksym_write(ks.ks_bid, ks.ks_bidlen, ks.ks_etext - ks.ks_stext,
	    kn, nk, bufp, lenp) != 0) {
		snprintf(why, whysz, "out of memory");
		rv = -1;
		goto out;
	}
	rv = 1;
out:
	an_ksrc_free(&ks);
	free(names);
	if (den != NULL)
		dof_free(den);
	return rv;
}
