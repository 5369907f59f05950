/*
 * dof_ptype.c -- parsing and validation of print() type layouts.
 *
 * The format, its limits and a worked example are in dof_ptype.h.  Two
 * kinds of caller: dof_load() validates every layout once with
 * dof_pt_check() (in kdt.ko, in kdt-extract, in kdt -a: a layout may come
 * from a damaged image or a hostile DOF), and the printer
 * (consumer/kc_ptype.c) walks validated layouts with the small parsers
 * here, so the grammar is read by one piece of code.
 */
#include "dof_ptype.h"

int
dof_pt_num(struct dof_ptc *c, uint64_t *v)
{
	uint64_t n = 0;
	int any = 0;

	while (c->pc_p < c->pc_end && *c->pc_p >= '0' && *c->pc_p <= '9') {
		n = n * 10 + (uint64_t)(*c->pc_p++ - '0');
		if (n > 0xffffffffull)
			return -1;
		any = 1;
	}
	if (!any || c->pc_p >= c->pc_end || *c->pc_p != ',')
		return -1;
	c->pc_p++;
	*v = n;
	return 0;
}

int
dof_pt_name(struct dof_ptc *c, const char **s, uint32_t *len)
{
	uint64_t n;

	if (dof_pt_num(c, &n) != 0 || n > (uint64_t)(c->pc_end - c->pc_p))
		return -1;
	*s = c->pc_p;
	*len = (uint32_t)n;
	c->pc_p += n;
	return 0;
}

static int
dof_pt_enum(struct dof_ptc *c, struct dof_pt *t)
{
	uint64_t i, v;
	const char *s;
	uint32_t n;

	if (dof_pt_num(c, &t->pt_n1) != 0 || t->pt_n1 != 4 ||
	    dof_pt_num(c, &t->pt_n2) != 0)
		return -1;
	t->pt_elist = c->pc_p;
	for (i = 0; i < t->pt_n2; i++)
		if (dof_pt_num(c, &v) != 0 || dof_pt_name(c, &s, &n) != 0)
			return -1;
	return 0;
}

int
dof_pt_head(struct dof_ptc *c, struct dof_pt *t)
{
	memset(t, 0, sizeof (*t));
	if (dof_pt_name(c, &t->pt_name, &t->pt_namelen) != 0 ||
	    c->pc_p >= c->pc_end)
		return -1;
	t->pt_kind = *c->pc_p++;
	switch (t->pt_kind) {
	case 'i':
		if (dof_pt_num(c, &t->pt_n1) != 0 || c->pc_p >= c->pc_end ||
		    (t->pt_n1 != 1 && t->pt_n1 != 2 && t->pt_n1 != 4 &&
		    t->pt_n1 != 8))
			return -1;
		t->pt_flag = *c->pc_p++;
		return t->pt_flag == 's' || t->pt_flag == 'u' ||
		    t->pt_flag == 'c' ? 0 : -1;
	case 'p':
		t->pt_n1 = 8;
		return 0;
	case 'z':
	case 'a':
		return dof_pt_num(c, &t->pt_n1);
	case 's':
		return dof_pt_num(c, &t->pt_n1) != 0 ||
		    dof_pt_num(c, &t->pt_n2) != 0 ? -1 : 0;
	case 'c':
		return dof_pt_num(c, &t->pt_n1) != 0 ||
		    dof_pt_num(c, &t->pt_n2) != 0 ||
		    dof_pt_num(c, &t->pt_n3) != 0 ? -1 : 0;
	case 'e':
		return dof_pt_enum(c, t);
	}
	return -1;
}

int
dof_pt_member(struct dof_ptc *c, struct dof_ptm *m)
{
	return dof_pt_num(c, &m->pm_off) != 0 ||
	    dof_pt_num(c, &m->pm_bitoff) != 0 ||
	    dof_pt_num(c, &m->pm_bits) != 0 ||
	    dof_pt_name(c, &m->pm_name, &m->pm_namelen) != 0 ? -1 : 0;
}

int
dof_pt_skip(struct dof_ptc *c, int depth, uint64_t *size)
{
	struct dof_ptm m;
	struct dof_pt t;
	uint64_t i, u, el;

	if (depth > DOF_PT_DEPTH || dof_pt_head(c, &t) != 0)
		return -1;
	switch (t.pt_kind) {
	case 'a':
		if (dof_pt_skip(c, depth + 1, &el) != 0)
			return -1;
		*size = el * t.pt_n1;
		return *size > 0xffffffffull ? -1 : 0;
	case 's':
	case 'c':
		for (i = 0; i < t.pt_n2; i++)
			if (dof_pt_member(c, &m) != 0 ||
			    dof_pt_skip(c, depth + 1, &u) != 0)
				return -1;
		*size = t.pt_n1;
		return 0;
	default:
		*size = t.pt_n1;
		return 0;
	}
}

/* ---- Validation (dof_pt_check) ---- */

struct dof_ptv {
	const char	*pv_base;	/* the string, for positions */
	uint64_t	pv_from;	/* the ACTDESC's offset */
	struct kdt_err	*pv_err;
};

static int
dof_pt_bad(const struct dof_ptv *v, const struct dof_ptc *c, const char *why,
    uint64_t a, uint64_t b)
{
	return kdt_err_set(v->pv_err, EINVAL, "DOF_PTYPE", v->pv_from,
	    "ACTDESC entry at offset 0x%llx: print() type layout at byte %llu: %s (%llu, limit %llu)",
	    (unsigned long long)v->pv_from,
	    (unsigned long long)(c->pc_p - v->pv_base), why,
	    (unsigned long long)a, (unsigned long long)b);
}

static int dof_pt_walk(const struct dof_ptv *v, struct dof_ptc *c, int depth,
    int inarray, uint64_t *size, uint64_t *extent);

/* The members of a struct whose head is t; *extent: bytes they reach. */
static int
dof_pt_members(const struct dof_ptv *v, struct dof_ptc *c,
    const struct dof_pt *t, int depth, uint64_t *extent)
{
	struct dof_ptm m;
	uint64_t i, ms, me;
	int rc;

	*extent = 0;
	for (i = 0; i < t->pt_n2; i++) {
		if (dof_pt_member(c, &m) != 0)
			return dof_pt_bad(v, c, "member is not offset,bitoffset,width,name", i, t->pt_n2);
		if ((rc = dof_pt_walk(v, c, depth + 1, 0, &ms, &me)) != 0)
			return rc;
		if (m.pm_off + ms > t->pt_n1)
			return dof_pt_bad(v, c, "member's offset plus size exceeds its struct's size", m.pm_off + ms, t->pt_n1);
		if (m.pm_bits != 0 && (m.pm_bits > 64 ||
		    m.pm_bitoff + m.pm_bits > ms * 8))
			return dof_pt_bad(v, c, "bitfield's bit offset plus width exceeds its unit's bits", m.pm_bitoff + m.pm_bits, ms * 8);
		if (m.pm_off + me > *extent)
			*extent = m.pm_off + me;
	}
	return 0;
}

/*
 * One T at depth: *size its size, *extent the bytes of it that are
 * described (its size, except for a cut struct).
 */
static int
dof_pt_walk(const struct dof_ptv *v, struct dof_ptc *c, int depth,
    int inarray, uint64_t *size, uint64_t *extent)
{
	struct dof_pt t;
	uint64_t el, ee;
	int rc;

	if (depth > DOF_PT_DEPTH)
		return dof_pt_bad(v, c, "types nest too deeply", depth, DOF_PT_DEPTH);
	if (dof_pt_head(c, &t) != 0)
		return dof_pt_bad(v, c, "not a type (name, then i/e/p/z/a/s/c and its numbers)", 0, 0);
	*size = *extent = t.pt_n1;
	switch (t.pt_kind) {
	case 'a':
		if ((rc = dof_pt_walk(v, c, depth + 1, 1, &el, &ee)) != 0)
			return rc;
		if (el != 0 && t.pt_n1 > 0xffffffffull / el)
			return dof_pt_bad(v, c, "array's count times element size is too large", t.pt_n1, 0xffffffffull / el);
		*size = *extent = el * t.pt_n1;
		return 0;
	case 'c':
		if (inarray)
			return dof_pt_bad(v, c, "a cut struct is an array element", depth, 0);
		if ((rc = dof_pt_members(v, c, &t, depth, extent)) != 0)
			return rc;
		return 0;
	case 's':
		return dof_pt_members(v, c, &t, depth, &ee);
	}
	return 0;
}

/*
 * Rules (rule A5 of dof_load()):
 *  P1  s is at most DOF_PT_MAXLEN bytes, starts with "@" and is exactly
 *      one T by the grammar of dof_ptype.h; every NUM fits 32 bits; "i"
 *      sizes are 1, 2, 4 or 8, "e" sizes 4.
 *  P2  Types nest at most DOF_PT_DEPTH levels.
 *  P3  Each member lies inside its struct (offset + size <= the struct's
 *      size); a bitfield is at most 64 bits wide and its bit offset plus
 *      width fits its type's bits.
 *  P4  An array's size (count x element size) fits 32 bits.
 *  P5  A cut struct ("c") is no array element.
 *  P6  What T describes fits the record: T's size, or for a cut struct
 *      the end of its furthest described member, is at most recsize.
 * The printer relies on P1-P6: every value it prints lies in the record.
 */
int
dof_pt_check(const char *s, uint64_t len, uint64_t recsize, uint64_t from,
    struct kdt_err *err)
{
	struct dof_ptv v = { s, from, err };
	struct dof_ptc c = { s, s + len };
	uint64_t size, extent;
	int rc;

	if (len > DOF_PT_MAXLEN)
		return dof_pt_bad(&v, &c, "layout is too long", len, DOF_PT_MAXLEN);
	if (len < 1 || *s != '@')
		return dof_pt_bad(&v, &c, "layout does not start with @", len, 0);
	c.pc_p++;
	if ((rc = dof_pt_walk(&v, &c, 0, 0, &size, &extent)) != 0)
		return rc;
	if (c.pc_p != c.pc_end)
		return dof_pt_bad(&v, &c, "bytes follow the type", (uint64_t)(c.pc_end - c.pc_p), 0);
	if (extent > recsize)
		return dof_pt_bad(&v, &c, "type's described bytes exceed the record", extent, recsize);
	return 0;
}
