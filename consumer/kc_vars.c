/*
 * kc_vars.c -- printing a dead region's speculations and variables (the
 * output forms are in kc_vars.h, the region parts in common/rgn.h).
 *
 * Speculations: rgn_walk_spec() (common/rgn_read.c) checks the area and
 * hands out the records of every uncommitted buffer; each record goes
 * through kc_dec_record(), the decoder the principal records use, so a
 * speculative record prints exactly as it would have after commit().
 *
 * Variables: the variable area is copied (the reader must not write the
 * image, and dif_vstate_attach() rebuilds the tables in place to check
 * them against the DOF), attached, and then read: global scalar slots
 * and data blocks through the tables, associative arrays and
 * thread-locals through dif_dstore_walk(), which validates every chunk.
 * Each instance must be declared by the DOF in its scope with a dynamic
 * kind; one that is not is reported, not printed.  Lines are collected
 * and sorted, so the output does not depend on hash order.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/dif_vm.h"
#include "common/dof_load.h"
#include "common/rgn.h"
#include "consumer/kc_engine.h"	/* kc_dec_consumed */
#include "consumer/kc_export.h"	/* kc_dec_record */
#include "consumer/kc_vars.h"

/* ---- speculations ---- */

struct kc_sw {
	struct kc_dec	*sw_d;
	const struct rgn_view *sw_v;
	const struct kc_vars_io *sw_io;
	uint32_t	sw_kind;
	uint64_t	sw_nbad;
};

static void
kc_vjstr(FILE *f, const char *s, size_t n)
{
	size_t i;
	unsigned char c;

	fputc('"', f);
	for (i = 0; i < n; i++) {
		c = (unsigned char)s[i];
		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", f);
		else if (c == '\t')
			fputs("\\t", f);
		else if (c < 0x20 || c >= 0x7f)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

static int
kc_sw_buf(void *arg, uint32_t id, uint32_t cpu, uint32_t kind, uint64_t used)
{
	struct kc_sw *sw = arg;

	(void)used;
	sw->sw_kind = kind;
	if (sw->sw_io->vi_json)
		return 0;
	fprintf(sw->sw_io->vi_out, "\nspeculation %u (%s, CPU %u):\n", id,
	    kind == RGN_SPEC_UNCOMMITTED ? "uncommitted" :
	    "committed on another CPU, not yet copied", cpu);
	return 0;
}

static int
kc_sw_rec(void *arg, uint32_t id, uint32_t cpu, const struct rgn_rec *rec,
    const uint8_t *payload, uint64_t off)
{
	struct kc_sw *sw = arg;
	const struct kc_vars_io *io = sw->sw_io;
	uint64_t loff = kc_dec_consumed(sw->sw_d, cpu);
	char *t = NULL;
	size_t tl = 0;
	FILE *m;

	(void)off;
	if (!io->vi_json) {
		kc_dec_record(sw->sw_d, cpu, rec, payload, loff, io->vi_out,
		    io->vi_err);
		return 0;
	}
	if ((m = open_memstream(&t, &tl)) == NULL)
		return 0;
	kc_dec_record(sw->sw_d, cpu, rec, payload, loff, m, io->vi_err);
	fclose(m);
	fprintf(io->vi_out, "{\"type\":\"speculation\",\"id\":%u,\"cpu\":%u,\"state\":\"%s\",\"timestamp\":%llu,\"epid\":%u,\"text\":",
	    id, cpu, sw->sw_kind == RGN_SPEC_UNCOMMITTED ? "uncommitted" :
	    "committing", (unsigned long long)rec->rr_timestamp,
	    rec->rr_epid);
	kc_vjstr(io->vi_out, t != NULL ? t : "", tl);
	fputs("}\n", io->vi_out);
	free(t);
	return 0;
}

static int
kc_sw_bad(void *arg, uint32_t id, uint32_t cpu, uint64_t off,
    const char *what)
{
	struct kc_sw *sw = arg;
	const struct kc_vars_io *io = sw->sw_io;

	sw->sw_nbad++;
	if (id == 0)
		fprintf(io->vi_err, "%s: %s: speculation area left out: %s\n",
		    io->vi_prog, io->vi_input, what);
	else
		fprintf(io->vi_err, "%s: %s: speculation %u, cpu %u: buffer offset 0x%llx: %s\n",
		    io->vi_prog, io->vi_input, id, cpu,
		    (unsigned long long)off, what);
	return 0;
}

uint64_t
kc_region_specs(struct kc_dec *d, const struct rgn_view *v,
    const struct kc_vars_io *io)
{
	struct kc_sw sw = { d, v, io, 0, 0 };
	struct rgn_spec_cb cb = { kc_sw_buf, kc_sw_rec, kc_sw_bad, &sw };
	struct kdt_err ke;

	(void) rgn_walk_spec(v, &cb, &ke);
	fflush(io->vi_out);
	return sw.sw_nbad;
}

/* ---- variables ---- */

/* One output line, kept for sorting. */
struct kc_vline {
	uint32_t	vl_rank;	/* 0 global, 1 array, 2 thread */
	char		*vl_sort;	/* name and key text */
	char		*vl_text;	/* the whole line */
};

struct kc_vw {
	const struct dof_enabling *vw_den;
	const struct dif_vstate *vw_vs;
	const struct kc_vars_io *vw_io;
	struct kc_vline	*vw_lines;
	size_t		vw_n, vw_cap;
	uint64_t	vw_nbad;
};

static void
kc_vtype(char *buf, size_t n, const struct dif_type *t)
{
	if (t->dtdt_kind == DIF_TYPE_STRING)
		snprintf(buf, n, "string");
	else if (t->dtdt_ckind == DIF_CTF_POINTER)
		snprintf(buf, n, "pointer");
	else if (t->dtdt_ckind == DIF_CTF_STRUCT)
		snprintf(buf, n, "struct[%u]", t->dtdt_size);
	else if (t->dtdt_ckind == DIF_CTF_ARRAY)
		snprintf(buf, n, "array[%u]", t->dtdt_size);
	else
		snprintf(buf, n, "int%u", t->dtdt_size * 8);
}

/* A C-style quoted string of the bytes up to the first NUL in [p, p+n). */
static void
kc_vquote(FILE *f, const uint8_t *p, size_t n, int json)
{
	size_t len = strnlen((const char *)p, n), i;

	if (json) {
		kc_vjstr(f, (const char *)p, len);
		return;
	}
	fputc('"', f);
	for (i = 0; i < len; i++) {
		if (p[i] == '"' || p[i] == '\\')
			fprintf(f, "\\%c", p[i]);
		else if (p[i] == '\n')
			fputs("\\n", f);
		else if (p[i] == '\t')
			fputs("\\t", f);
		else if (!isprint(p[i]))
			fprintf(f, "\\%03o", p[i]);
		else
			fputc(p[i], f);
	}
	fputc('"', f);
}

static void
kc_vhex(FILE *f, const uint8_t *p, size_t n, int json)
{
	size_t i;

	fputs(json ? "\"" : "0x", f);
	for (i = 0; i < n; i++)
		fprintf(f, "%02x", p[i]);
	if (json)
		fputc('"', f);
}

/*
 * Is [p, p + n) a string: printable bytes, then NULs (none when the key
 * was cut at its NUL, as the store encodes strings)?
 */
static int
kc_visstr(const uint8_t *p, size_t n)
{
	size_t len = strnlen((const char *)p, n), i;

	if (len == 0)
		return 0;
	for (i = 0; i < len; i++)
		if (!isprint(p[i]) && p[i] != '\n' && p[i] != '\t')
			return 0;
	for (i = len; i < n; i++)
		if (p[i] != 0)
			return 0;
	return 1;
}

/* A value of type "t" at p (n bytes available). */
static void
kc_vvalue(FILE *f, const struct dif_type *t, const uint8_t *p, size_t n,
    int json)
{
	uint64_t u = 0;
	size_t sz;

	if (t->dtdt_kind == DIF_TYPE_STRING) {
		kc_vquote(f, p, n, json);
		return;
	}
	if (t->dtdt_flags & DIF_TF_BYREF) {
		sz = t->dtdt_size < n ? t->dtdt_size : n;
		kc_vhex(f, p, sz, json);
		return;
	}
	memcpy(&u, p, n < 8 ? n : 8);
	if (t->dtdt_ckind == DIF_CTF_POINTER)
		fprintf(f, json ? "%llu" : "0x%llx", (unsigned long long)u);
	else
		fprintf(f, "%lld", (long long)u);
}

static void
kc_vkey(FILE *f, const struct dif_dkent *k, int json)
{
	if (!k->dke_ref)
		fprintf(f, "%lld", (long long)k->dke_val);
	else if (kc_visstr(k->dke_ptr, k->dke_len))
		kc_vquote(f, k->dke_ptr, k->dke_len, json);
	else
		kc_vhex(f, k->dke_ptr, k->dke_len, json);
}

static int
kc_vadd(struct kc_vw *vw, uint32_t rank, char *sort, char *text)
{
	struct kc_vline *n;

	if (sort == NULL || text == NULL)
		goto nomem;
	if (vw->vw_n == vw->vw_cap) {
		vw->vw_cap = vw->vw_cap != 0 ? vw->vw_cap * 2 : 64;
		n = realloc(vw->vw_lines, vw->vw_cap * sizeof (*n));
		if (n == NULL)
			goto nomem;
		vw->vw_lines = n;
	}
	vw->vw_lines[vw->vw_n].vl_rank = rank;
	vw->vw_lines[vw->vw_n].vl_sort = sort;
	vw->vw_lines[vw->vw_n].vl_text = text;
	vw->vw_n++;
	return 0;
nomem:
	free(sort);
	free(text);
	fprintf(vw->vw_io->vi_err, "%s: %s: out of memory listing the variables\n",
	    vw->vw_io->vi_prog, vw->vw_io->vi_input);
	return -1;
}

static int
kc_vline_cmp(const void *a, const void *b)
{
	const struct kc_vline *x = a, *y = b;

	if (x->vl_rank != y->vl_rank)
		return x->vl_rank < y->vl_rank ? -1 : 1;
	return strcmp(x->vl_sort, y->vl_sort);
}

/* The global scalars, all of them, through the tables. */
static void
kc_vglobals(struct kc_vw *vw)
{
	const struct dif_vstate *vs = vw->vw_vs;
	const struct dif_vinfo *vi;
	const struct dif_var *dv;
	const char *name;
	const uint8_t *p;
	char tbuf[32], *t, *k;
	size_t tl, kl, n;
	uint32_t i;
	FILE *m, *ks;
	int json = vw->vw_io->vi_json;

	for (i = 0; i < vs->vst_nvars[DIFV_SCOPE_GLOBAL]; i++) {
		vi = &vs->vst_vars[DIFV_SCOPE_GLOBAL][i];
		if (vi->vi_kind != DIFV_KIND_SCALAR)
			continue;
		dv = dif_vstate_decl(vw->vw_den, DIFV_SCOPE_GLOBAL,
		    DIF_VAR_OTHER_UBASE + i, &name);
		if (dv == NULL)
			continue;
		if (vi->vi_byref) {
			p = vs->vst_area + vi->vi_off;
			n = vi->vi_size;
		} else {
			p = (const uint8_t *)&vs->vst_gvals[i];
			n = 8;
		}
		kc_vtype(tbuf, sizeof (tbuf), &dv->dtdv_type);
		t = k = NULL;
		if ((m = open_memstream(&t, &tl)) == NULL ||
		    (ks = open_memstream(&k, &kl)) == NULL) {
			if (m != NULL)
				fclose(m);
			free(t);
			(void) kc_vadd(vw, 0, NULL, NULL);
			return;
		}
		fprintf(ks, "%s", name != NULL ? name : "");
		fclose(ks);
		if (json) {
			fputs("{\"type\":\"variable\",\"scope\":\"global\",\"name\":", m);
			kc_vjstr(m, name != NULL ? name : "",
			    name != NULL ? strlen(name) : 0);
			fprintf(m, ",\"id\":%u,\"vtype\":\"%s\",\"value\":",
			    DIF_VAR_OTHER_UBASE + i, tbuf);
			kc_vvalue(m, &dv->dtdv_type, p, n, 1);
			fputs("}\n", m);
		} else {
			fprintf(m, "global %s (%s) = ",
			    name != NULL ? name : "?", tbuf);
			kc_vvalue(m, &dv->dtdv_type, p, n, 0);
			fputc('\n', m);
		}
		fclose(m);
		if (kc_vadd(vw, 0, k, t) != 0)
			return;
	}
}

static int
kc_vw_bad(void *arg, uint32_t chunk, const char *what)
{
	struct kc_vw *vw = arg;

	vw->vw_nbad++;
	fprintf(vw->vw_io->vi_err, "%s: %s: dynamic variables: chunk %u left out: %s\n",
	    vw->vw_io->vi_prog, vw->vw_io->vi_input, chunk, what);
	return 0;
}

/* One instance as a JSON object (kc_vars.h). */
static void
kc_vinst_json(FILE *m, const struct dif_dvisit *v, const struct dif_var *dv,
    const char *name, const char *tbuf, uint32_t nkeys, uint32_t thr)
{
	uint32_t i;

	fprintf(m, "{\"type\":\"variable\",\"scope\":\"%s\",\"name\":",
	    thr ? "thread" : "array");
	kc_vjstr(m, name != NULL ? name : "", name != NULL ? strlen(name) : 0);
	fprintf(m, ",\"id\":%u,\"vtype\":\"%s\"", v->dv_id, tbuf);
	if (!thr || nkeys != 0) {
		fputs(",\"keys\":[", m);
		for (i = 0; i < nkeys; i++) {
			if (i != 0)
				fputc(',', m);
			kc_vkey(m, &v->dv_key[i], 1);
		}
		fputc(']', m);
	}
	if (thr)
		fprintf(m, ",\"tid\":%llu",
		    (unsigned long long)v->dv_key[nkeys].dke_val);
	fputs(",\"value\":", m);
	kc_vvalue(m, &dv->dtdv_type, v->dv_val, v->dv_vallen, 1);
	fputs("}\n", m);
}

/* One instance as a text line (kc_vars.h). */
static void
kc_vinst_text(FILE *m, const struct dif_dvisit *v, const struct dif_var *dv,
    const char *name, const char *tbuf, uint32_t nkeys, uint32_t thr)
{
	uint32_t i;

	fprintf(m, "%s%s", thr ? "self->" : "array ",
	    name != NULL ? name : "?");
	if (nkeys != 0) {
		fputc('[', m);
		for (i = 0; i < nkeys; i++) {
			if (i != 0)
				fputs(", ", m);
			kc_vkey(m, &v->dv_key[i], 0);
		}
		fputc(']', m);
	}
	fprintf(m, " (%s)", tbuf);
	if (thr)
		fprintf(m, " tid %llu",
		    (unsigned long long)v->dv_key[nkeys].dke_val);
	fputs(" = ", m);
	kc_vvalue(m, &dv->dtdv_type, v->dv_val, v->dv_vallen, 0);
	fputc('\n', m);
}

/* One associative-array element or thread-local instance. */
static int
kc_vw_inst(void *arg, const struct dif_dvisit *v)
{
	struct kc_vw *vw = arg;
	const struct dif_var *dv;
	const char *name;
	char tbuf[32], msg[160], *t = NULL, *k = NULL;
	size_t tl, kl;
	uint32_t i, nkeys, thr = v->dv_scope == DIFV_SCOPE_THREAD;
	int json = vw->vw_io->vi_json;
	FILE *m, *ks;

	dv = dif_vstate_decl(vw->vw_den, v->dv_scope, v->dv_id, &name);
	if (dv == NULL || (!thr && dv->dtdv_kind != DIFV_KIND_ARRAY) ||
	    (thr && v->dv_nkeys == 0) ||
	    (thr && v->dv_key[v->dv_nkeys - 1].dke_ref)) {
		snprintf(msg, sizeof (msg), "variable 0x%x of scope %u with %u key entries is not a %s the DOF declares",
		    v->dv_id, v->dv_scope, v->dv_nkeys,
		    thr ? "thread-local (its last key entry the thread id)" :
		    "global associative array");
		return kc_vw_bad(vw, v->dv_chunk, msg);
	}
	nkeys = thr ? v->dv_nkeys - 1 : v->dv_nkeys;
	kc_vtype(tbuf, sizeof (tbuf), &dv->dtdv_type);
	if ((m = open_memstream(&t, &tl)) == NULL)
		return kc_vadd(vw, 0, NULL, NULL);
	if ((ks = open_memstream(&k, &kl)) == NULL) {
		fclose(m);
		free(t);
		return kc_vadd(vw, 0, NULL, NULL);
	}
	/* sort key: name, then the key entries, then the thread id */
	fprintf(ks, "%s", name != NULL ? name : "");
	for (i = 0; i < nkeys; i++) {
		fputc('\001', ks);
		kc_vkey(ks, &v->dv_key[i], 0);
	}
	if (thr)
		fprintf(ks, "\002%020llu",
		    (unsigned long long)v->dv_key[nkeys].dke_val);
	fclose(ks);
	if (json)
		kc_vinst_json(m, v, dv, name, tbuf, nkeys, thr);
	else
		kc_vinst_text(m, v, dv, name, tbuf, nkeys, thr);
	fclose(m);
	return kc_vadd(vw, thr ? 2 : 1, k, t);
}

uint64_t
kc_region_vars(const struct rgn_view *v, const struct dof_enabling *den,
    const struct kc_vars_io *io)
{
	struct kc_vw vw;
	struct dif_dwalk_cb cb;
	struct dif_vstate vs;
	struct kdt_err ke;
	uint64_t len, dvoff, dvlen, dyn;
	const void *area;
	uint8_t *copy;
	size_t i;

	area = rgn_view_vars(v, &len, &dvoff, &dvlen);
	if (area == NULL) {
		fprintf(io->vi_err, "%s: %s: --vars: the region holds no variables (a state that keeps them in kernel memory, a program without variables, or an image written before kdt kept them in the region)\n",
		    io->vi_prog, io->vi_input);
		return 0;
	}
	if ((copy = malloc(len)) == NULL) {
		fprintf(io->vi_err, "%s: %s: out of memory for the %llu-byte variable area\n",
		    io->vi_prog, io->vi_input, (unsigned long long)len);
		return 1;
	}
	memcpy(copy, area, len);
	if (dif_vstate_attach(&vs, copy, len, den, &ke) != 0) {
		fprintf(io->vi_err, "%s: %s: variables left out: %s\n",
		    io->vi_prog, io->vi_input, ke.ke_msg);
		free(copy);
		return 1;
	}
	dyn = dif_vstate_dynoff(&vs);
	if (dyn != dvoff || (dyn != 0 && dvlen != len - dyn)) {
		fprintf(io->vi_err, "%s: %s: variables left out: the region puts the dynamic variable store at 0x%llx (%llu bytes) into the variable area, the DOF at 0x%llx (%llu bytes)\n",
		    io->vi_prog, io->vi_input, (unsigned long long)dvoff,
		    (unsigned long long)dvlen, (unsigned long long)dyn,
		    (unsigned long long)(dyn != 0 ? len - dyn : 0));
		free(copy);
		return 1;
	}
	memset(&vw, 0, sizeof (vw));
	vw.vw_den = den;
	vw.vw_vs = &vs;
	vw.vw_io = io;
	kc_vglobals(&vw);
	if (dif_dstore_busy(&vs.vst_dyn)) {
		fprintf(io->vi_err, "%s: %s: dynamic variables: a CPU was changing them when the image was taken; the instance it was writing may show its old or new value\n",
		    io->vi_prog, io->vi_input);
	}
	cb.dw_inst = kc_vw_inst;
	cb.dw_bad = kc_vw_bad;
	cb.dw_arg = &vw;
	if (dif_dstore_walk(&vs.vst_dyn, &cb) == -ENOMEM)
		fprintf(io->vi_err, "%s: %s: out of memory walking the dynamic variables\n",
		    io->vi_prog, io->vi_input);
	qsort(vw.vw_lines, vw.vw_n, sizeof (*vw.vw_lines), kc_vline_cmp);
	if (!io->vi_json && vw.vw_n != 0)
		fputs("\n", io->vi_out);
	for (i = 0; i < vw.vw_n; i++) {
		fputs(vw.vw_lines[i].vl_text, io->vi_out);
		free(vw.vw_lines[i].vl_text);
		free(vw.vw_lines[i].vl_sort);
	}
	free(vw.vw_lines);
	free(copy);
	fflush(io->vi_out);
	return vw.vw_nbad;
}
