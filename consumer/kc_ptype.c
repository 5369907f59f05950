/*
 * kc_ptype.c -- print() of structs, unions, enums and arrays.
 *
 * A print() record holds the object's bytes; its action's format is the
 * type layout of common/dof_ptype.h, written by the compiler from a D
 * declaration or from the kernel's BTF.  kc_ptype_print() walks the
 * layout over the bytes and prints dtrace's nested form, e.g.
 *
 *	foo_t {
 *	    int [3] a = [ 0x1, 0x2, 0x3 ]
 *	    char [8] s = [ "ab" ]
 *	    int b :4 = 0x1
 *	    struct bar c = {
 *	        long x = 0
 *	    }
 *	}
 *
 * "type name = value" per member, 4 spaces per level, integers in hex
 * (0 as "0"), char as 'c', enums by name, pointers in hex, arrays in
 * [ ], a char array holding a string as "..." (in [ ] inside a struct),
 * and a struct's closing brace without a newline, as dtrace prints it:
 * the next output, or the newline at exit, follows it directly.  A struct
 * the compiler cut at print()'s limits (dof_ptype.h, "Limits") ends with
 * a line saying how many members were not recorded.
 *
 * It serves every front end (kc_print.c's decoder runs under kdt, kdt -a,
 * kdt-extract and crash's kdt): the layout travels in the DOF, so no
 * kernel types are needed at print time.  dof_load() has validated the
 * layout against the record (dof_pt_check(), rules P1-P6); the printer
 * still checks each read against the record it was given and prints
 * nothing on a mismatch, since it costs little.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include "common/dof_ptype.h"
#include "consumer/kc_ptype.h"

static int kc_pt_value(FILE *f, struct dof_ptc *c, const uint8_t *data,
    uint64_t avail, int depth, int top);

static void
kc_pt_indent(FILE *f, int depth)
{
	fprintf(f, "%*s", depth * 4, "");
}

static uint64_t
kc_pt_int(const uint8_t *p, uint64_t size)
{
	uint64_t v = 0;

	memcpy(&v, p, (size_t)size);	/* little-endian */
	return v;
}

static void
kc_pt_char(FILE *f, uint64_t v)
{
	if (v != 0 && isprint((int)v))
		fprintf(f, "'%c'", (int)v);
	else if (v == 0)
		fputs("'\\0'", f);
	else
		fprintf(f, "'\\%03o'", (unsigned)(uint8_t)v);
}

/*
 * An enum's value as dtrace prints it: the name of the first enumerator
 * with that value, else the value in decimal.
 */
static void
kc_pt_enum(FILE *f, const struct dof_pt *t, const uint8_t *data,
    const char *end)
{
	struct dof_ptc c = { t->pt_elist, end };
	int32_t v;
	uint64_t i, ev;
	const char *s;
	uint32_t n;

	memcpy(&v, data, sizeof (v));	/* little-endian */
	for (i = 0; i < t->pt_n2; i++) {
		if (dof_pt_num(&c, &ev) != 0 || dof_pt_name(&c, &s, &n) != 0)
			break;
		if ((int32_t)(uint32_t)ev == v) {
			fprintf(f, "%.*s", (int)n, s);
			return;
		}
	}
	fprintf(f, "%d", v);
}

/* Is this char array a string: printable bytes, then a NUL inside it? */
static int
kc_pt_isstr(const uint8_t *p, uint64_t n, uint64_t *len)
{
	uint64_t i;

	for (i = 0; i < n && p[i] != '\0'; i++)
		if (!isprint(p[i]))
			return 0;
	*len = i;
	return i < n;
}

/* A bitfield member's value: " :width = 0x..". */
static int
kc_pt_bits(FILE *f, const struct dof_ptm *m, const struct dof_pt *mt,
    const uint8_t *data, uint64_t avail)
{
	uint64_t v;

	if ((mt->pt_kind != 'i' && mt->pt_kind != 'e') || m->pm_bits > 64 ||
	    m->pm_bitoff >= 64 || m->pm_off + mt->pt_n1 > avail)
		return -1;
	v = kc_pt_int(data + m->pm_off, mt->pt_n1) >> m->pm_bitoff;
	if (m->pm_bits < 64)
		v &= (1ull << m->pm_bits) - 1;
	fprintf(f, " :%u = %#llx\n", (unsigned)m->pm_bits,
	    (unsigned long long)v);
	return 0;
}

/* The members of a struct (the cursor is past its head), at depth. */
static int
kc_pt_members(FILE *f, struct dof_ptc *c, const struct dof_pt *t,
    const uint8_t *data, uint64_t avail, int depth)
{
	struct dof_ptc peek;
	struct dof_ptm m;
	struct dof_pt mt;
	uint64_t i, sz;

	for (i = 0; i < t->pt_n2; i++) {
		if (dof_pt_member(c, &m) != 0)
			return -1;
		peek = *c;
		if (dof_pt_head(&peek, &mt) != 0 || m.pm_off > avail)
			return -1;
		kc_pt_indent(f, depth);
		/* "type name", "type *name"; an anonymous member: "type" */
		fprintf(f, "%.*s%s%.*s", (int)mt.pt_namelen, mt.pt_name,
		    m.pm_namelen == 0 || (mt.pt_namelen > 0 &&
		    mt.pt_name[mt.pt_namelen - 1] == '*') ? "" : " ",
		    (int)m.pm_namelen, m.pm_name);
		if (m.pm_bits != 0) {
			if (kc_pt_bits(f, &m, &mt, data, avail) != 0 ||
			    dof_pt_skip(c, depth + 1, &sz) != 0)
				return -1;
			continue;
		}
		fputs(" = ", f);
		if (kc_pt_value(f, c, data + m.pm_off, avail - m.pm_off, depth,
		    0) != 0)
			return -1;
		fputc('\n', f);
	}
	if (t->pt_kind == 'c' && t->pt_n3 > 0) {
		kc_pt_indent(f, depth);
		fprintf(f, "... %llu more member%s not recorded (%.*s is %llu bytes; print() records at most %u bytes and %d levels)\n",
		    (unsigned long long)t->pt_n3, t->pt_n3 == 1 ? "" : "s",
		    (int)t->pt_namelen, t->pt_name,
		    (unsigned long long)t->pt_n1, DOF_PT_MAXREC,
		    DOF_PT_DEPTH);
	}
	return 0;
}

/* An array of structs: one "name {" block per element. */
static int
kc_pt_sarray(FILE *f, const struct dof_ptc *el, uint64_t n, uint64_t esize,
    const uint8_t *data, uint64_t avail, int depth)
{
	struct dof_ptc h;
	struct dof_pt et;
	uint64_t i;

	fputs("[ \n", f);
	for (i = 0; i < n; i++) {
		h = *el;
		if (dof_pt_head(&h, &et) != 0)
			return -1;
		kc_pt_indent(f, depth + 1);
		fprintf(f, "%.*s {\n", (int)et.pt_namelen, et.pt_name);
		if (kc_pt_members(f, &h, &et, data + i * esize,
		    avail - i * esize, depth + 2) != 0)
			return -1;
		kc_pt_indent(f, depth + 1);
		fputs(i + 1 < n ? "}, \n" : "}\n", f);
	}
	kc_pt_indent(f, depth);
	fputc(']', f);
	return 0;
}

/* An array (the cursor is past its head "t"). */
static int
kc_pt_array(FILE *f, struct dof_ptc *c, const struct dof_pt *t,
    const uint8_t *data, uint64_t avail, int depth, int top)
{
	struct dof_ptc el = *c, h;
	struct dof_pt et;
	uint64_t i, esize, len;

	if (dof_pt_skip(c, depth + 1, &esize) != 0 ||
	    esize * t->pt_n1 > avail)
		return -1;
	h = el;
	if (dof_pt_head(&h, &et) != 0)
		return -1;
	if (et.pt_kind == 'i' && et.pt_flag == 'c' &&
	    kc_pt_isstr(data, t->pt_n1, &len)) {
		fprintf(f, top ? "\"%.*s\"" : "[ \"%.*s\" ]", (int)len,
		    (const char *)data);
		return 0;
	}
	if (et.pt_kind == 's' || et.pt_kind == 'c')
		return kc_pt_sarray(f, &el, t->pt_n1, esize, data, avail,
		    depth);
	if (t->pt_n1 == 0) {		/* a flexible array member */
		fputs("[ ]", f);
		return 0;
	}
	fputs("[ ", f);
	for (i = 0; i < t->pt_n1; i++) {
		h = el;
		if (i > 0)
			fputs(", ", f);
		if (kc_pt_value(f, &h, data + i * esize, avail - i * esize,
		    depth + 1, 0) != 0)
			return -1;
	}
	fputs(" ]", f);
	return 0;
}

/*
 * The value of the T at the cursor over data (avail bytes readable), as a
 * member at depth (top: the print() argument itself).
 */
static int
kc_pt_value(FILE *f, struct dof_ptc *c, const uint8_t *data, uint64_t avail,
    int depth, int top)
{
	struct dof_pt t;
	uint64_t len, v;

	if (depth > DOF_PT_DEPTH || dof_pt_head(c, &t) != 0)
		return -1;
	switch (t.pt_kind) {
	case 'i':
	case 'p':
	case 'e':
		if (t.pt_n1 > avail)
			return -1;
		v = kc_pt_int(data, t.pt_n1);
		if (t.pt_kind == 'e')
			kc_pt_enum(f, &t, data, c->pc_end);
		else if (t.pt_flag == 'c')
			kc_pt_char(f, v);
		else
			fprintf(f, "%#llx", (unsigned long long)v);
		return 0;
	case 'z':
		if (t.pt_n1 > avail)
			return -1;
		for (len = 0; len < t.pt_n1 && data[len] != '\0'; len++)
			;
		fprintf(f, "[ \"%.*s\" ]", (int)len, (const char *)data);
		return 0;
	case 's':
	case 'c':
		fputs("{\n", f);
		if ((t.pt_kind == 's' && t.pt_n1 > avail) ||
		    kc_pt_members(f, c, &t, data, avail, depth + 1) != 0)
			return -1;
		kc_pt_indent(f, depth);
		fputc('}', f);
		return 0;
	case 'a':
		return kc_pt_array(f, c, &t, data, avail, depth, top);
	}
	return -1;
}

int
kc_ptype_print(FILE *out, const char *layout, const uint8_t *data,
    uint64_t size)
{
	struct dof_ptc c, h;
	struct dof_pt t;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;
	int rc;

	if (layout == NULL || layout[0] != '@')
		return 0;
	c.pc_p = layout + 1;
	c.pc_end = c.pc_p + strlen(c.pc_p);
	h = c;
	if (dof_pt_head(&h, &t) != 0)
		return 0;
	/* into memory first: a layout that does not fit prints nothing */
	f = open_memstream(&buf, &len);
	if (f == NULL)
		return 0;
	fprintf(f, "%.*s ", (int)t.pt_namelen, t.pt_name);
	rc = kc_pt_value(f, &c, data, size, 0, 1);
	/* as dtrace: no newline after a struct's last } */
	if (t.pt_kind != 's' && t.pt_kind != 'c')
		fputc('\n', f);
	fclose(f);
	if (rc == 0)
		fwrite(buf, 1, len, out);
	free(buf);
	return rc == 0;
}
