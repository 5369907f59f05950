/*
 * kmain.c -- the multiboot2 test kernel: GRUB boots it with an anonymous
 * enabling as a multiboot2 module, and it runs that enabling on its own
 * probes into a reserved region, exactly as kdt.ko would, so that the host
 * can dump guest memory and read the records with kdt-extract
 * (tests/vm/mb2/README.md has the design, the scenario is
 * tests/vm/scenarios/tst.boot-multiboot2.sh).
 *
 * Boot path (boot.S enters kmain in 64-bit mode, identity-mapped 4 GiB):
 *
 *   1. bt_mb2_find_module() (boot/mb2.c) validates the MBI and finds the
 *      module "kdt-anon-dof" and the kernel command line;
 *   2. kdt.region=SIZE@ADDR from the command line places the region; it
 *      must not overlap this kernel, the MBI or the module, and must be
 *      available RAM by the loader's memory map;
 *   3. the module is copied into the kernel's memory and dof_load()
 *      (common/) validates it -- a bad DOF is logged with the loader's
 *      message and dropped, nothing is recorded;
 *   4. its ECBs are matched against our probes (dtrace:::BEGIN/END/ERROR
 *      and the mb2 provider below), the region is laid out with
 *      rgn_init() and the tables published (as kmod/kd_cs.c does), the
 *      ECB runner is created (ecb_create, common/ecb.c);
 *   5. BEGIN fires, then the mb2 probes fire while bt_mb2_walk() walks
 *      the MBI, then the kernel halts with the enabling still ACTIVE --
 *      as a Linux guest's anonymous enabling is when its machine dies.
 *
 * The mb2 provider (module kdt-mb2, function walk):
 *
 *	mb2:kdt-mb2:walk:tag      every MBI tag: arg0 type, arg1 size,
 *	                          arg2 offset in the MBI
 *	mb2:kdt-mb2:walk:cmdline  arg0 the kernel command line (a string)
 *	mb2:kdt-mb2:walk:module   every module: arg0 its command line (a
 *	                          string), arg1 its size, arg2 its physical
 *	                          address, arg3 its index
 *
 * String arguments are copied into the kernel image first: DIF may read
 * only the kernel's own memory (kenv_free.c).
 *
 * Messages go to COM1 prefixed "kdt-mb2: "; "KDT-MB2: halt ..." is the
 * last line (kb_halt).  With "kdt.mb2dump" on the command line the MBI is
 * also printed in hex between "KDT-MB2: mbi begin/end" (the fuzzer's
 * seeds were made that way).
 */
#include "common/kdt_env.h"
#include "common/kdt_err.h"
#include "common/dof_load.h"
#include "common/rgn.h"
#include "common/ecb.h"
#include "boot/mb2.h"
#include "kb.h"

#define KB_MODNAME	"kdt-anon-dof"
#define KB_COM1		0x3f8
#define KB_MAXPAIRS	64		/* ECB x probe pairs */
#define KB_STRLEN	256		/* string arguments */
#define KB_AGGSIZE	(64ULL << 10)	/* default aggregation bytes */
#define KB_PHYS_TOP	(4ULL << 30)	/* the identity map */

enum { KB_P_BEGIN, KB_P_END, KB_P_ERROR, KB_P_TAG, KB_P_CMDLINE,
	KB_P_MODULE, KB_NPROBES };

struct kb_probe {
	struct ecb_probe kp_ep;
	struct ecb_ref	kp_refs[KB_MAXPAIRS];
};

static struct kb_probe kb_probes[KB_NPROBES] = {
	{ { 1, ECB_PK_BEGIN, "dtrace", "", "", "BEGIN", NULL, 0 } },
	{ { 2, ECB_PK_END, "dtrace", "", "", "END", NULL, 0 } },
	{ { 3, ECB_PK_ERROR, "dtrace", "", "", "ERROR", NULL, 0 } },
	{ { 4, ECB_PK_OTHER, "mb2", "kdt-mb2", "walk", "tag", NULL, 0 } },
	{ { 5, ECB_PK_OTHER, "mb2", "kdt-mb2", "walk", "cmdline", NULL, 0 } },
	{ { 6, ECB_PK_OTHER, "mb2", "kdt-mb2", "walk", "module", NULL, 0 } },
};

/* One pair per EPID, in EPID order (EPID = index + 1), as kd_cs.c. */
struct kb_pair {
	uint32_t	pp_probe;	/* index into kb_probes */
	uint32_t	pp_ecb;
};

static struct kb_state {
	const uint8_t	*ks_mbi;
	uint32_t	ks_mbisize;
	const char	*ks_cmdline;	/* in the MBI, or NULL */
	struct bt_mb2_mod ks_mod;
	struct dof_enabling *ks_den;
	struct kb_pair	ks_pairs[KB_MAXPAIRS];
	uint32_t	ks_npairs;
	uint64_t	ks_rsize;
	uint64_t	ks_rphys;
	void		*ks_region;
	struct ecb_state *ks_es;
	uint32_t	ks_policy;
	char		ks_str[KB_STRLEN];	/* string argument */
} kb;

/* ---- console and halt ---- */

static void
kb_outb(uint16_t port, uint8_t v)
{
	__asm__ volatile("outb %0, %1" : : "a"(v), "Nd"(port));
}

static uint8_t
kb_inb(uint16_t port)
{
	uint8_t v;

	__asm__ volatile("inb %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}

static void
kb_serial_init(void)
{
	kb_outb(KB_COM1 + 1, 0x00);	/* no interrupts */
	kb_outb(KB_COM1 + 3, 0x80);	/* divisor latch */
	kb_outb(KB_COM1 + 0, 0x01);	/* 115200 baud */
	kb_outb(KB_COM1 + 1, 0x00);
	kb_outb(KB_COM1 + 3, 0x03);	/* 8N1 */
	kb_outb(KB_COM1 + 2, 0xc7);	/* FIFO on, cleared */
}

static void
kb_putc(char c)
{
	int spin = 100000;

	while (!(kb_inb(KB_COM1 + 5) & 0x20) && --spin > 0)
		;
	kb_outb(KB_COM1, (uint8_t)c);
}

void
kb_log(const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	int i;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof (buf), fmt, ap);
	va_end(ap);
	for (i = 0; buf[i] != '\0'; i++)
		kb_putc(buf[i]);
	kb_putc('\r');
	kb_putc('\n');
}

void
kb_halt(const char *why)
{
	kb_log("KDT-MB2: halt %s", why);
	for (;;)
		__asm__ volatile("cli; hlt");
}

/* ---- the command line ---- */

/* The value of word "key" (e.g. "kdt.region=") in the cmdline, or NULL. */
static const char *
kb_opt(const char *cmdline, const char *key)
{
	size_t kl = strlen(key);
	const char *p = cmdline;

	while (p != NULL && *p != '\0') {
		if ((p == cmdline || p[-1] == ' ') && strncmp(p, key, kl) == 0)
			return p + kl;
		p = strchr(p, ' ');
		if (p != NULL)
			p++;
	}
	return NULL;
}

/* A number (0x hex or decimal) with an optional K/M/G suffix. */
static const char *
kb_num(const char *p, uint64_t *v, int suffix)
{
	unsigned base = 10, d;
	const char *start;

	*v = 0;
	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
		base = 16;
		p += 2;
	}
	for (start = p;; p++) {
		if (*p >= '0' && *p <= '9')
			d = (unsigned)(*p - '0');
		else if (base == 16 && *p >= 'a' && *p <= 'f')
			d = (unsigned)(*p - 'a' + 10);
		else if (base == 16 && *p >= 'A' && *p <= 'F')
			d = (unsigned)(*p - 'A' + 10);
		else
			break;
		if (*v > ((uint64_t)-1 - d) / base)
			return NULL;
		*v = *v * base + d;
	}
	if (p == start)
		return NULL;
	if (suffix && (*p == 'K' || *p == 'M' || *p == 'G')) {
		*v <<= *p == 'K' ? 10 : *p == 'M' ? 20 : 30;
		p++;
	}
	return p;
}

/* kdt.region=SIZE@ADDR: page-aligned, below 4 GiB. */
static int
kb_region_opt(void)
{
	const char *v = kb.ks_cmdline ? kb_opt(kb.ks_cmdline,
	    "kdt.region=") : NULL;
	const char *p;

	if (v == NULL) {
		kb_log("kdt-mb2: no kdt.region=SIZE@ADDR on the command line '%s'",
		    kb.ks_cmdline ? kb.ks_cmdline : "");
		return -EINVAL;
	}
	p = kb_num(v, &kb.ks_rsize, 1);
	if (p == NULL || *p != '@' || (p = kb_num(p + 1, &kb.ks_rphys,
	    0)) == NULL || (*p != '\0' && *p != ' ')) {
		kb_log("kdt-mb2: kdt.region=%.40s: not SIZE@ADDR", v);
		return -EINVAL;
	}
	if (kb.ks_rsize == 0 || kb.ks_rsize % RGN_PAGE ||
	    kb.ks_rphys % RGN_PAGE || kb.ks_rphys > KB_PHYS_TOP ||
	    kb.ks_rsize > KB_PHYS_TOP - kb.ks_rphys) {
		kb_log("kdt-mb2: kdt.region: 0x%llx bytes at 0x%llx must be page-aligned and below 0x%llx",
		    (unsigned long long)kb.ks_rsize,
		    (unsigned long long)kb.ks_rphys,
		    (unsigned long long)KB_PHYS_TOP);
		return -EINVAL;
	}
	return 0;
}

/* ---- placing the region ---- */

extern char __kernel_start[], __kernel_end[];

static int
kb_overlaps(uint64_t a, uint64_t alen, uint64_t b, uint64_t blen)
{
	return a < b + blen && b < a + alen;
}

/* The region must not cover this kernel, the MBI or the module. */
static int
kb_region_free(void)
{
	static const char *const what[] = { "the kernel image", "the MBI",
	    "the " KB_MODNAME " module" };
	uint64_t lo[3], len[3];
	int i;

	lo[0] = (uint64_t)(uintptr_t)__kernel_start;
	len[0] = (uint64_t)(uintptr_t)__kernel_end - lo[0];
	lo[1] = (uint64_t)(uintptr_t)kb.ks_mbi;
	len[1] = kb.ks_mbisize;
	lo[2] = kb.ks_mod.bm_start;
	len[2] = kb.ks_mod.bm_size;
	for (i = 0; i < 3; i++)
		if (kb_overlaps(kb.ks_rphys, kb.ks_rsize, lo[i], len[i])) {
			kb_log("kdt-mb2: region [0x%llx, 0x%llx) overlaps %s at [0x%llx, 0x%llx)",
			    (unsigned long long)kb.ks_rphys,
			    (unsigned long long)(kb.ks_rphys + kb.ks_rsize),
			    what[i], (unsigned long long)lo[i],
			    (unsigned long long)(lo[i] + len[i]));
			return -EINVAL;
		}
	return 0;
}

/* mmap tag callback: does a RAM entry hold the whole region? */
static int
kb_mmap_cb(void *arg, const struct mb2_tag *t, uint32_t off)
{
	const struct mb2_tag_mmap *mp = (const void *)t;
	const uint8_t *e = (const uint8_t *)t + sizeof (*mp);
	struct mb2_mmap_entry me;
	int *state = arg;
	uint64_t i;

	if (t->mt_type != MB2_TAG_MMAP)
		return 0;
	if (*state < 0)
		*state = 0;
	/* rule 7 of mb2.h: the entry size is >= 24, a multiple of 8 */
	for (i = 0; sizeof (*mp) + (i + 1) * mp->mp_entry_size <= t->mt_size;
	    i++) {
		memcpy(&me, e + i * mp->mp_entry_size, sizeof (me));
		if (me.me_type == MB2_MMAP_RAM &&
		    kb.ks_rphys >= me.me_base &&
		    kb.ks_rphys - me.me_base <= me.me_length &&
		    kb.ks_rsize <= me.me_length - (kb.ks_rphys - me.me_base))
			*state = 1;
	}
	return 0;
}

/* The region must be RAM by the loader's memory map, when there is one. */
static int
kb_region_ram(void)
{
	int state = -1;		/* -1 no map, 0 not RAM, 1 RAM */

	(void)bt_mb2_walk(kb.ks_mbi, kb.ks_mbisize, kb_mmap_cb, &state, NULL);
	if (state == 0) {
		kb_log("kdt-mb2: region [0x%llx, 0x%llx) is not inside one available-RAM entry of the multiboot2 memory map",
		    (unsigned long long)kb.ks_rphys,
		    (unsigned long long)(kb.ks_rphys + kb.ks_rsize));
		return -EINVAL;
	}
	if (state < 0)
		kb_log("kdt-mb2: no multiboot2 memory map; trusting kdt.region");
	return 0;
}

/* ---- the enabling ---- */

static void
kb_err(const char *what, const struct kdt_err *ke)
{
	kb_log("kdt-mb2: %s: %s [%s]", what, ke->ke_msg,
	    ke->ke_tag != NULL ? ke->ke_tag : "?");
}

/* Copy the module out of the loader's memory and load it. */
static int
kb_load(void)
{
	struct kdt_err ke;
	void *copy;
	int rv;

	if (kb.ks_mod.bm_size == 0 || kb.ks_mod.bm_size > (16ULL << 20)) {
		kb_log("kdt-mb2: module " KB_MODNAME ": size %llu is outside [1, %llu]",
		    (unsigned long long)kb.ks_mod.bm_size, 16ULL << 20);
		return -EINVAL;
	}
	copy = kenv_zalloc(kb.ks_mod.bm_size);
	if (copy == NULL)
		return -ENOMEM;
	memcpy(copy, (const void *)(uintptr_t)kb.ks_mod.bm_start,
	    kb.ks_mod.bm_size);
	memset(&ke, 0, sizeof (ke));
	rv = dof_load(copy, kb.ks_mod.bm_size, &kb.ks_den, &ke);
	if (rv != 0) {
		kb_err("module " KB_MODNAME, &ke);
		return rv;
	}
	kb_log("kdt-mb2: module " KB_MODNAME " at 0x%llx, %llu bytes: %u ECBs",
	    (unsigned long long)kb.ks_mod.bm_start,
	    (unsigned long long)kb.ks_mod.bm_size, kb.ks_den->den_necbs);
	return 0;
}

static int
kb_desc_matches(const struct dof_pdesc *pd, const struct ecb_probe *ep)
{
	return dof_glob_match(pd->lp_prov, ep->ep_prov) &&
	    dof_glob_match(pd->lp_mod, ep->ep_mod) &&
	    dof_glob_match(pd->lp_func, ep->ep_func) &&
	    dof_glob_match(pd->lp_name, ep->ep_name);
}

/* Pair every ECB with the probes its description matches. */
static int
kb_match(void)
{
	const struct dof_pdesc *pd;
	struct kb_probe *kp;
	uint32_t e, p, n;

	for (e = 0; e < kb.ks_den->den_necbs; e++) {
		pd = &kb.ks_den->den_ecbs[e].le_pdesc;
		for (p = 0, n = 0; p < KB_NPROBES; p++) {
			kp = &kb_probes[p];
			if (!kb_desc_matches(pd, &kp->kp_ep))
				continue;
			if (kb.ks_npairs == KB_MAXPAIRS) {
				kb_log("kdt-mb2: more than %u ECB-probe pairs",
				    KB_MAXPAIRS);
				return -E2BIG;
			}
			kb.ks_pairs[kb.ks_npairs].pp_probe = p;
			kb.ks_pairs[kb.ks_npairs].pp_ecb = e;
			kp->kp_refs[kp->kp_ep.ep_necbs].er_ecb = e;
			kp->kp_refs[kp->kp_ep.ep_necbs].er_epid =
			    ++kb.ks_npairs;
			kp->kp_ep.ep_necbs++;
			n++;
		}
		if (n == 0)
			kb_log("kdt-mb2: ECB %u (%s:%s:%s:%s) matches no probe of this kernel",
			    e, pd->lp_prov, pd->lp_mod, pd->lp_func,
			    pd->lp_name);
	}
	for (p = 0; p < KB_NPROBES; p++)
		kb_probes[p].kp_ep.ep_ecbs = kb_probes[p].kp_refs;
	return 0;
}

static uint64_t
kb_opt_or(uint32_t opt, uint64_t def)
{
	uint64_t v = kb.ks_den->den_opts[opt];

	return v == DTRACEOPT_UNSET ? def : v;
}

/* Lay out the region and publish probes and EPIDs (kd_cs.c's kd_region). */
static int
kb_region(void)
{
	const struct dof_enabling *den = kb.ks_den;
	struct rgn_params rp;
	struct kdt_err ke;
	uint64_t tsc = kenv_timestamp();
	uint32_t i, p;
	int rv;

	kb.ks_policy = kb_opt_or(DTRACEOPT_BUFPOLICY,
	    DTRACEOPT_BUFPOLICY_RING) == DTRACEOPT_BUFPOLICY_FILL ?
	    DTRACEOPT_BUFPOLICY_FILL : DTRACEOPT_BUFPOLICY_RING;
	memset(&rp, 0, sizeof (rp));
	rp.rp_phys = kb.ks_rphys;
	rp.rp_ncpu = 1;
	rp.rp_policy = kb.ks_policy;
	rp.rp_probe_cap = KB_NPROBES;
	rp.rp_epid_cap = kb.ks_npairs + 1;
	rp.rp_flags = RGN_F_ANON;
	if (den->den_naggs != 0)
		rp.rp_aggsize = kb_opt_or(DTRACEOPT_AGGSIZE, KB_AGGSIZE);
	memcpy(rp.rp_bootid, &tsc, sizeof (tsc));
	rp.rp_release = "kdt-mb2";
	rp.rp_dof = den->den_dof;
	rp.rp_dofsz = den->den_dofsz;
	kb.ks_region = (void *)(uintptr_t)kb.ks_rphys;
	memset(&ke, 0, sizeof (ke));
	rv = rgn_init(kb.ks_region, kb.ks_rsize, &rp, &ke);
	for (p = 0; rv == 0 && p < KB_NPROBES; p++) {
		const struct ecb_probe *ep = &kb_probes[p].kp_ep;

		if (ep->ep_necbs != 0)
			rv = rgn_add_probe(kb.ks_region, ep->ep_id,
			    ep->ep_prov, ep->ep_mod, ep->ep_func,
			    ep->ep_name, &ke);
	}
	for (i = 0; rv == 0 && i < kb.ks_npairs; i++)
		rv = rgn_add_epid(kb.ks_region, i + 1,
		    kb_probes[kb.ks_pairs[i].pp_probe].kp_ep.ep_id,
		    kb.ks_pairs[i].pp_ecb,
		    den->den_ecbs[kb.ks_pairs[i].pp_ecb].le_size, &ke);
	if (rv != 0)
		kb_err("region", &ke);
	return rv;
}

static int
kb_runner(void)
{
	struct ecb_params p;
	struct kdt_err ke;
	int rv;

	ecb_params_init(&p, kb.ks_den, 1);
	p.ep_policy = kb.ks_policy;
	if (kb.ks_den->den_opts[DTRACEOPT_AGGSIZE] == DTRACEOPT_UNSET)
		p.ep_aggsize = KB_AGGSIZE;
	memset(&ke, 0, sizeof (ke));
	rv = ecb_create(kb.ks_den, &p, &kb.ks_es, &ke);
	if (rv != 0) {
		kb_err("enabling", &ke);
		return rv;
	}
	ecb_set_region(kb.ks_es, kb.ks_region);
	ecb_set_aggbufs(kb.ks_es, kb.ks_region);
	if (kb_probes[KB_P_ERROR].kp_ep.ep_necbs != 0)
		ecb_set_error_probe(kb.ks_es, &kb_probes[KB_P_ERROR].kp_ep);
	return 0;
}

/* Probe context (interrupts are off for good here). */
static void
kb_fire(uint32_t p, uint64_t a0, uint64_t a1, uint64_t a2, uint64_t a3)
{
	uint64_t args[DIF_NARGS];

	if (kb_probes[p].kp_ep.ep_necbs == 0)
		return;
	memset(args, 0, sizeof (args));
	args[0] = a0;
	args[1] = a1;
	args[2] = a2;
	args[3] = a3;
	ecb_fire(kb.ks_es, &kb_probes[p].kp_ep, 0, args, kenv_timestamp());
}

/* A string argument: a copy in the kernel's memory (kenv_read's rule). */
static uint64_t
kb_strarg(const char *s)
{
	memset(kb.ks_str, 0, sizeof (kb.ks_str));
	memcpy(kb.ks_str, s, strnlen(s, sizeof (kb.ks_str) - 1));
	return (uint64_t)(uintptr_t)kb.ks_str;
}

static int
kb_walk_cb(void *arg, const struct mb2_tag *t, uint32_t off)
{
	const struct mb2_tag_module *m;
	uint32_t *nmods = arg;

	kb_fire(KB_P_TAG, t->mt_type, t->mt_size, off, 0);
	if (t->mt_type == MB2_TAG_CMDLINE)
		kb_fire(KB_P_CMDLINE, kb_strarg(((const struct mb2_tag_string *)
		    (const void *)t)->mt_string), 0, 0, 0);
	if (t->mt_type == MB2_TAG_MODULE) {
		m = (const struct mb2_tag_module *)(const void *)t;
		kb_fire(KB_P_MODULE, kb_strarg(m->mm_string),
		    (uint64_t)m->mm_mod_end - m->mm_mod_start,
		    m->mm_mod_start, (*nmods)++);
	}
	return 0;
}

static void
kb_mbidump(void)
{
	char line[80];
	uint32_t off, i;
	int n;

	kb_log("KDT-MB2: mbi begin %u", kb.ks_mbisize);
	for (off = 0; off < kb.ks_mbisize; off += 32) {
		for (i = 0, n = 0; i < 32 && off + i < kb.ks_mbisize; i++)
			n += snprintf(line + n, sizeof (line) - (size_t)n,
			    "%02x", kb.ks_mbi[off + i]);
		kb_log("%s", line);
	}
	kb_log("KDT-MB2: mbi end");
}

/* Find the module and the cmdline; 0 or -errno (logged). */
static int
kb_mbi(uint32_t magic, uint64_t mbi)
{
	struct kdt_err ke;
	uint32_t total;
	int rv;

	if (magic != MB2_LOADER_MAGIC) {
		kb_log("kdt-mb2: entered with magic 0x%08x, not multiboot2's 0x%08x",
		    magic, MB2_LOADER_MAGIC);
		return -EINVAL;
	}
	kb.ks_mbi = (const uint8_t *)(uintptr_t)mbi;
	memcpy(&total, kb.ks_mbi, sizeof (total));
	kb.ks_mbisize = total;
	memset(&ke, 0, sizeof (ke));
	/* only total_size bytes are there; the walk checks the rest */
	rv = bt_mb2_find_module(kb.ks_mbi, total, KB_MODNAME, &kb.ks_mod,
	    &kb.ks_cmdline, &ke);
	if (rv < 0) {
		kb_err("multiboot2 information", &ke);
		return rv;
	}
	kb_log("kdt-mb2: multiboot2 information at 0x%llx, %u bytes; cmdline '%s'",
	    (unsigned long long)mbi, total,
	    kb.ks_cmdline ? kb.ks_cmdline : "");
	if (kb.ks_cmdline != NULL && kb_opt(kb.ks_cmdline, "kdt.mb2dump"))
		kb_mbidump();
	if (rv == 0) {
		kb_log("kdt-mb2: no module named " KB_MODNAME);
		return -ENOENT;
	}
	return 0;
}

void kmain(uint32_t magic, uint32_t mbi);

void
kmain(uint32_t magic, uint32_t mbi)
{
	uint32_t nmods = 0;
	const struct rgn_cpu *rc;

	kb_serial_init();
	kb_log("kdt-mb2: kernel [0x%llx, 0x%llx)",
	    (unsigned long long)(uintptr_t)__kernel_start,
	    (unsigned long long)(uintptr_t)__kernel_end);
	if (kb_mbi(magic, mbi) != 0)
		kb_halt("no-enabling");
	if (kb_region_opt() != 0 || kb_region_free() != 0 ||
	    kb_region_ram() != 0)
		kb_halt("no-enabling");
	if (kb_load() != 0) {
		kb_log("kdt-mb2: anonymous enabling dropped, nothing recorded");
		kb_halt("no-enabling");
	}
	if (kb_match() != 0 || kb_region() != 0 || kb_runner() != 0) {
		kb_log("kdt-mb2: anonymous enabling dropped");
		kb_halt("no-enabling");
	}
	rgn_set_state(kb.ks_region, RGN_STATE_ACTIVE);
	ecb_set_state(kb.ks_es, ECB_ST_WARMUP);
	kb_fire(KB_P_BEGIN, 0, 0, 0, 0);
	if (kb.ks_es->es_state == ECB_ST_WARMUP)
		ecb_set_state(kb.ks_es, ECB_ST_ACTIVE);
	(void)bt_mb2_walk(kb.ks_mbi, kb.ks_mbisize, kb_walk_cb, &nmods, NULL);
	rc = rgn_cpu(kb.ks_region, 0);
	kb_log("kdt-mb2: region at 0x%llx, 0x%llx bytes: %llu bytes of records, %llu drops, %llu errors; arena %llu bytes",
	    (unsigned long long)kb.ks_rphys, (unsigned long long)kb.ks_rsize,
	    (unsigned long long)(rc->rc_head - rc->rc_tail),
	    (unsigned long long)rc->rc_drops,
	    (unsigned long long)rc->rc_errors,
	    (unsigned long long)kb_arena_in_use());
	kb_halt("recorded");
}
