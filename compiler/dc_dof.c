/*
 * dc_dof.c -- the DOF writer: compiled clauses -> one DOF image.
 *
 * The layout follows reference 1.8 (and common/dof.h, which documents the
 * format): section 0 is the global STRTAB (probe-description and printf
 * format strings; offset 0 is ""), whose data is placed after all other
 * loadable data.  Then, for every probe description of every clause (one
 * ECB each): a PROBEDESC; the predicate's DIF object (DIF, INTTAB, STRTAB,
 * VARTAB, then its DIFOHDR naming them); one DIF object per action that
 * has one; one ACTDESC array (none for an empty clause); the ECBDESC.
 * One OPTDESC section carries every option that was set.  A non-loadable
 * COMMENTS section names the compiler.  Every piece of data starts 8-byte
 * aligned; dh_loadsz ends with the global STRTAB,
 * dh_filesz with the comments.  Called once per compilation by
 * dc_compile.c; the result is malloc'ed and owned by the caller.
 */
#include <stdlib.h>
#include <string.h>
#include "dc_impl.h"

#define DC_COMMENT	"kdt 0.1"

struct dw_sec {
	struct dof_sec	ws_hdr;
	const void	*ws_data;
};

struct dw {
	struct dc_ctx	*dw_cx;
	struct dw_sec	*dw_secs;
	uint32_t	dw_nsecs;
	uint32_t	dw_cap;
	char		*dw_str;	/* global STRTAB */
	uint32_t	dw_strlen;
	uint32_t	dw_strcap;
};

static uint32_t
dw_sec(struct dw *w, uint32_t type, uint32_t align, uint32_t entsize,
    const void *data, uint64_t size)
{
	struct dw_sec *s;

	if (w->dw_nsecs == w->dw_cap) {
		uint32_t cap = w->dw_cap ? w->dw_cap * 2 : 64;
		struct dw_sec *ns = dc_alloc(w->dw_cx, sizeof (*ns) * cap);

		if (w->dw_nsecs > 0)
			memcpy(ns, w->dw_secs, sizeof (*ns) * w->dw_nsecs);
		w->dw_secs = ns;
		w->dw_cap = cap;
	}
	s = &w->dw_secs[w->dw_nsecs];
	memset(s, 0, sizeof (*s));
	s->ws_hdr.ds_type = type;
	s->ws_hdr.ds_align = align;
	s->ws_hdr.ds_flags = type == DOF_SECT_COMMENTS ? 0 : DOF_SECF_LOAD;
	s->ws_hdr.ds_entsize = entsize;
	s->ws_hdr.ds_size = size;
	s->ws_data = data;
	return w->dw_nsecs++;
}

/* Offset of "s" in the global STRTAB, adding it once. */
static uint32_t
dw_str(struct dw *w, const char *s)
{
	uint32_t off = 0, len = (uint32_t)strlen(s) + 1;

	while (off < w->dw_strlen) {
		if (strcmp(w->dw_str + off, s) == 0)
			return off;
		off += (uint32_t)strlen(w->dw_str + off) + 1;
	}
	if (w->dw_strlen + len > w->dw_strcap) {
		uint32_t cap = (w->dw_strcap + len) * 2;
		char *ns = dc_alloc(w->dw_cx, cap);

		if (w->dw_strlen > 0)
			memcpy(ns, w->dw_str, w->dw_strlen);
		w->dw_str = ns;
		w->dw_strcap = cap;
	}
	memcpy(w->dw_str + off, s, len);
	w->dw_strlen += len;
	return off;
}

/* DIF, INTTAB, STRTAB, VARTAB, then the DIFOHDR; returns its index. */
static uint32_t
dw_difo(struct dw *w, const struct dc_difo *df)
{
	uint32_t links[4], n = 0;
	uint8_t *h;
	size_t hsz;

	links[n++] = dw_sec(w, DOF_SECT_DIF, 4, 4, df->df_text,
	    (uint64_t)df->df_len * 4);
	if (df->df_nints > 0)
		links[n++] = dw_sec(w, DOF_SECT_INTTAB, 8, 8, df->df_ints,
		    (uint64_t)df->df_nints * 8);
	if (df->df_strlen > 0)
		links[n++] = dw_sec(w, DOF_SECT_STRTAB, 1, 0, df->df_strs,
		    df->df_strlen);
	if (df->df_nvars > 0)
		links[n++] = dw_sec(w, DOF_SECT_VARTAB, 4,
		    sizeof (struct dif_var), df->df_vars,
		    (uint64_t)df->df_nvars * sizeof (struct dif_var));
	hsz = sizeof (struct dif_type) + sizeof (uint32_t) * n;
	h = dc_alloc(w->dw_cx, hsz);
	memcpy(h, &df->df_rtype, sizeof (struct dif_type));
	memcpy(h + sizeof (struct dif_type), links, sizeof (uint32_t) * n);
	return dw_sec(w, DOF_SECT_DIFOHDR, 4, 0, h, hsz);
}

static uint32_t
dw_pdesc(struct dw *w, const struct dc_pdesc *pd)
{
	struct dof_probedesc *p = dc_alloc(w->dw_cx, sizeof (*p));

	memset(p, 0, sizeof (*p));
	p->dofp_strtab = 0;
	p->dofp_provider = dw_str(w, pd->pd_prov);
	p->dofp_mod = dw_str(w, pd->pd_mod);
	p->dofp_func = dw_str(w, pd->pd_func);
	p->dofp_name = dw_str(w, pd->pd_name);
	p->dofp_id = 0;
	return dw_sec(w, DOF_SECT_PROBEDESC, 4, sizeof (*p), p, sizeof (*p));
}

static uint32_t
dw_actions(struct dw *w, const struct dc_clause *cl)
{
	struct dof_actdesc *a;
	int i;

	if (cl->cl_nacts == 0)
		return DOF_SECIDX_NONE;
	a = dc_alloc(w->dw_cx, sizeof (*a) * (size_t)cl->cl_nacts);
	memset(a, 0, sizeof (*a) * (size_t)cl->cl_nacts);
	for (i = 0; i < cl->cl_nacts; i++) {
		const struct dc_action *ac = &cl->cl_acts[i];

		a[i].dofa_difo = ac->ac_difo != NULL ? dw_difo(w, ac->ac_difo) :
		    DOF_SECIDX_NONE;
		a[i].dofa_strtab = ac->ac_fmt != NULL ? 0 : DOF_SECIDX_NONE;
		a[i].dofa_kind = ac->ac_kind;
		a[i].dofa_ntuple = ac->ac_ntuple;
		a[i].dofa_arg = ac->ac_fmt != NULL ? dw_str(w, ac->ac_fmt) :
		    ac->ac_arg;
		a[i].dofa_uarg = ac->ac_stmt;
	}
	return dw_sec(w, DOF_SECT_ACTDESC, 8, sizeof (*a), a,
	    sizeof (*a) * (size_t)cl->cl_nacts);
}

static void
dw_ecb(struct dw *w, const struct dc_clause *cl, const struct dc_pdesc *pd)
{
	struct dof_ecbdesc *e = dc_alloc(w->dw_cx, sizeof (*e));

	memset(e, 0, sizeof (*e));
	e->dofe_probes = dw_pdesc(w, pd);
	e->dofe_pred = cl->cl_pred != NULL ? dw_difo(w, cl->cl_pred) :
	    DOF_SECIDX_NONE;
	e->dofe_actions = dw_actions(w, cl);
	dw_sec(w, DOF_SECT_ECBDESC, 8, 0, e, sizeof (*e));
}

static void
dw_options(struct dw *w)
{
	struct dof_optdesc *o;
	uint32_t i, n = 0;

	o = dc_alloc(w->dw_cx, sizeof (*o) * DTRACEOPT_MAX);
	for (i = 0; i < DTRACEOPT_MAX; i++) {
		if (w->dw_cx->cx_optv[i] == DTRACEOPT_UNSET)
			continue;
		o[n].dofo_option = i;
		o[n].dofo_strtab = DOF_STRIDX_NONE;
		o[n].dofo_value = w->dw_cx->cx_optv[i];
		n++;
	}
	if (n > 0)
		dw_sec(w, DOF_SECT_OPTDESC, 8, sizeof (*o), o,
		    sizeof (*o) * n);
}

#define DW_ALIGN(x)	(((x) + 7) & ~(uint64_t)7)

/* Assign file offsets: loadable data, global STRTAB, then the rest. */
static void
dw_layout(struct dw *w, uint64_t *loadsz, uint64_t *filesz)
{
	uint64_t off = DW_ALIGN(sizeof (struct dof_hdr) +
	    (uint64_t)w->dw_nsecs * sizeof (struct dof_sec));
	uint32_t i;

	for (i = 1; i < w->dw_nsecs; i++) {
		struct dof_sec *s = &w->dw_secs[i].ws_hdr;

		if (!(s->ds_flags & DOF_SECF_LOAD))
			continue;
		s->ds_offset = off;
		off = DW_ALIGN(off + s->ds_size);
	}
	w->dw_secs[0].ws_hdr.ds_offset = off;
	off += w->dw_secs[0].ws_hdr.ds_size;
	*loadsz = off;
	off = DW_ALIGN(off);
	for (i = 1; i < w->dw_nsecs; i++) {
		struct dof_sec *s = &w->dw_secs[i].ws_hdr;

		if (s->ds_flags & DOF_SECF_LOAD)
			continue;
		s->ds_offset = off;
		off = DW_ALIGN(off + s->ds_size);
	}
	*filesz = off;
}

static void
dw_header(struct dof_hdr *h, uint32_t nsecs, uint64_t loadsz,
    uint64_t filesz)
{
	memset(h, 0, sizeof (*h));
	h->dh_ident[DOF_ID_MAG0] = DOF_MAG_MAG0;
	h->dh_ident[DOF_ID_MAG1] = DOF_MAG_MAG1;
	h->dh_ident[DOF_ID_MAG2] = DOF_MAG_MAG2;
	h->dh_ident[DOF_ID_MAG3] = DOF_MAG_MAG3;
	h->dh_ident[DOF_ID_MODEL] = DOF_MODEL_LP64;
	h->dh_ident[DOF_ID_ENCODING] = DOF_ENCODE_NATIVE;
	h->dh_ident[DOF_ID_VERSION] = DOF_VERSION_1;
	h->dh_ident[DOF_ID_DIFVERS] = DIF_VERSION_2;
	h->dh_ident[DOF_ID_DIFIREG] = DIF_DIR_NREGS;
	h->dh_ident[DOF_ID_DIFTREG] = DIF_DTR_NREGS;
	h->dh_hdrsize = sizeof (struct dof_hdr);
	h->dh_secsize = sizeof (struct dof_sec);
	h->dh_secnum = nsecs;
	h->dh_secoff = sizeof (struct dof_hdr);
	h->dh_loadsz = loadsz;
	h->dh_filesz = filesz;
}

static void
dw_build(struct dw *w)
{
	const struct dc_clause *cl;
	int i;

	dw_sec(w, DOF_SECT_STRTAB, 1, 0, NULL, 0);
	dw_str(w, "");
	for (cl = w->dw_cx->cx_clauses; cl != NULL; cl = cl->cl_next)
		for (i = 0; i < cl->cl_npdescs; i++)
			dw_ecb(w, cl, &cl->cl_pdescs[i]);
	dw_options(w);
	dw_sec(w, DOF_SECT_COMMENTS, 1, 0, DC_COMMENT, sizeof (DC_COMMENT));
	w->dw_secs[0].ws_data = w->dw_str;
	w->dw_secs[0].ws_hdr.ds_size = w->dw_strlen;
}

int
dc_dof_write(struct dc_ctx *cx, uint8_t **dof, size_t *dofsz)
{
	struct dw w;
	uint64_t loadsz, filesz;
	uint8_t *buf;
	uint32_t i;

	memset(&w, 0, sizeof (w));
	w.dw_cx = cx;
	dw_build(&w);
	dw_layout(&w, &loadsz, &filesz);
	if (filesz > DOF_MAX_SIZE)
		dc_error(cx, 0, 0, "D_DOF_SIZE", "compiled program needs %llu bytes of DOF, limit %u", (unsigned long long)filesz, DOF_MAX_SIZE);
	buf = calloc(1, filesz);
	if (buf == NULL)
		return -1;
	dw_header((struct dof_hdr *)buf, w.dw_nsecs, loadsz, filesz);
	for (i = 0; i < w.dw_nsecs; i++) {
		const struct dw_sec *s = &w.dw_secs[i];

		memcpy(buf + sizeof (struct dof_hdr) +
		    i * sizeof (struct dof_sec), &s->ws_hdr,
		    sizeof (s->ws_hdr));
		if (s->ws_hdr.ds_size > 0)
			memcpy(buf + s->ws_hdr.ds_offset, s->ws_data,
			    s->ws_hdr.ds_size);
	}
	*dof = buf;
	*dofsz = filesz;
	return 0;
}
