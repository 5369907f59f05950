/*
 * dof_load.c -- the one DOF decoder: validate a DOF image, then build the
 * loaded enabling (struct dof_enabling, dof_load.h) everyone else trusts.
 *
 * Callers: kdt.ko (DOF from /dev/kdt or from the bootloader), the region
 * reader in kdt-extract / kdt -a (the DOF copy in a region's metadata), the
 * userspace engine, the compiler's self-check, and the fuzz and unit tests.
 * The format is documented in dof.h, the loaded structures and the record
 * layout theory in dof_load.h, the facts behind both in the reference
 * (dof-dif-facts.md sections 1.x).
 *
 * Shape of the file: header checks (dof_hdr_check), per-section checks
 * (dof_sec_check), then the decoders, one per section kind, which may
 * assume those checks passed: options (dof_load_opts), probe descriptions
 * (dof_load_pdesc), DIF objects (dof_load_difo, which also runs
 * dif_validate), action arrays and the record layout (dof_load_acts,
 * dof_act_layout), aggregations (dof_agg_scan, which marks each
 * action's role before the layout is computed), ECBs (dof_load_ecb).  All
 * of them read the private copy of the DOF that dof_load() makes, so the
 * caller's buffer can change or go away without affecting us, and loaded
 * pointers stay valid until dof_free().
 *
 * Every error goes through kdt_err_set with a tag (DOF_*) and the file
 * offset of the offending structure; the message names the section, the
 * value and the limit.  Setup context only: this file allocates.
 */
#include "kdt_env.h"
#include "kdt_err.h"
#include "dof.h"
#include "dof_load.h"
#include "dif.h"
#include "dif_vm.h"
#include "agg.h"
#include "dof_ptype.h"

/* Largest data one action may record, and one ECB in total. */
#define DOF_MAX_RECSIZE		(64u << 10)
#define DOF_MAX_ECBSIZE		(1u << 20)
/* Largest strsize option we accept (it sizes string records). */
#define DOF_MAX_STRSIZE		DOF_MAX_RECSIZE

typedef unsigned long long dof_ull;	/* for printing uint64_t */

/* Loader state while one DOF is being decoded. */
struct dof_ld {
	const uint8_t	*dl_base;	/* private copy */
	uint64_t	dl_loadsz;
	uint64_t	dl_secoff;
	uint32_t	dl_secsize;
	uint32_t	dl_secnum;
	struct dof_enabling *dl_den;
	struct kdt_err	*dl_err;
};

/* Per-type layout rules of loaded sections (reference 1.5, "K" marks). */
struct dof_secrule {
	uint32_t	sr_type;
	uint32_t	sr_align;	/* ds_align must be at least this */
	uint32_t	sr_entsize;	/* exact ds_entsize, 0 = unchecked */
	uint32_t	sr_minsize;	/* ds_size at least */
	uint32_t	sr_unit;	/* ds_size a multiple of, 0 = any */
};

static const struct dof_secrule dof_secrules[] = {
	{ DOF_SECT_ECBDESC, 8, 0, sizeof (struct dof_ecbdesc), 0 },
	{ DOF_SECT_PROBEDESC, 4, 0, sizeof (struct dof_probedesc), 0 },
	{ DOF_SECT_ACTDESC, 8, sizeof (struct dof_actdesc),
	    sizeof (struct dof_actdesc), sizeof (struct dof_actdesc) },
	{ DOF_SECT_DIFOHDR, 4, 0, sizeof (struct dif_type) + 4, 4 },
	{ DOF_SECT_DIF, 4, 4, 0, 4 },
	{ DOF_SECT_STRTAB, 1, 0, 1, 0 },
	{ DOF_SECT_VARTAB, 4, sizeof (struct dif_var), 0,
	    sizeof (struct dif_var) },
	{ DOF_SECT_INTTAB, 8, 8, 0, 8 },
	{ DOF_SECT_OPTDESC, 8, 0, sizeof (struct dof_optdesc), 8 },
};

static const struct dof_sec *
dof_sec_at(const struct dof_ld *dl, uint32_t idx)
{
	return (const struct dof_sec *)(dl->dl_base + dl->dl_secoff +
	    (uint64_t)idx * dl->dl_secsize);
}

static uint64_t
dof_sec_off(const struct dof_ld *dl, uint32_t idx)
{
	return dl->dl_secoff + (uint64_t)idx * dl->dl_secsize;
}

static int
dof_is_loadable_type(uint32_t type)
{
	return type != DOF_SECT_NONE && type != DOF_SECT_COMMENTS &&
	    type != DOF_SECT_SOURCE && type != DOF_SECT_UTSNAME &&
	    type <= DOF_SECT_PRENOFFS;
}

/* Identification bytes (rules H2-H7 on dof_load). */
static int
dof_ident_check(const struct dof_hdr *h, struct kdt_err *err)
{
	const uint8_t *id = h->dh_ident;
	uint32_t i;

	if (id[DOF_ID_MAG0] != DOF_MAG_MAG0 || id[DOF_ID_MAG1] != DOF_MAG_MAG1 ||
	    id[DOF_ID_MAG2] != DOF_MAG_MAG2 || id[DOF_ID_MAG3] != DOF_MAG_MAG3)
		return kdt_err_set(err, EINVAL, "DOF_MAGIC", 0,
		    "DOF header: magic %02x %02x %02x %02x is not 7f 44 4f 46 (\\177DOF)",
		    id[0], id[1], id[2], id[3]);
	if (id[DOF_ID_MODEL] != DOF_MODEL_ILP32 &&
	    id[DOF_ID_MODEL] != DOF_MODEL_LP64)
		return kdt_err_set(err, EINVAL, "DOF_IDENT", DOF_ID_MODEL,
		    "DOF header: data model %u is not 1 (ILP32) or 2 (LP64)",
		    id[DOF_ID_MODEL]);
	if (id[DOF_ID_ENCODING] != DOF_ENCODE_NATIVE)
		return kdt_err_set(err, EINVAL, "DOF_IDENT", DOF_ID_ENCODING,
		    "DOF header: encoding %u is not this machine's byte order %u",
		    id[DOF_ID_ENCODING], DOF_ENCODE_NATIVE);
	if (id[DOF_ID_VERSION] != DOF_VERSION_1 &&
	    id[DOF_ID_VERSION] != DOF_VERSION_2)
		return kdt_err_set(err, EINVAL, "DOF_IDENT", DOF_ID_VERSION,
		    "DOF header: DOF version %u is not 1 or 2",
		    id[DOF_ID_VERSION]);
	if (id[DOF_ID_DIFVERS] != DIF_VERSION_2)
		return kdt_err_set(err, EINVAL, "DOF_IDENT", DOF_ID_DIFVERS,
		    "DOF header: DIF version %u is not 2", id[DOF_ID_DIFVERS]);
	if (id[DOF_ID_DIFIREG] > DIF_DIR_NREGS ||
	    id[DOF_ID_DIFTREG] > DIF_DTR_NREGS)
		return kdt_err_set(err, EINVAL, "DOF_IDENT", DOF_ID_DIFIREG,
		    "DOF header: %u integer / %u tuple registers declared, limit %u / %u",
		    id[DOF_ID_DIFIREG], id[DOF_ID_DIFTREG], DIF_DIR_NREGS,
		    DIF_DTR_NREGS);
	for (i = DOF_ID_PAD; i < DOF_ID_SIZE; i++)
		if (id[i] != 0)
			return kdt_err_set(err, EINVAL, "DOF_IDENT", i,
			    "DOF header: identification byte %u is 0x%02x, must be 0",
			    i, id[i]);
	return 0;
}

/* Header fields (rules H1, H8-H13 on dof_load). */
static int
dof_hdr_check(const struct dof_hdr *h, uint64_t len, struct kdt_err *err)
{
	uint64_t tabsz = (uint64_t)h->dh_secnum * h->dh_secsize;
	int rc;

	if ((rc = dof_ident_check(h, err)) != 0)
		return rc;
	if (h->dh_flags != 0)
		return kdt_err_set(err, EINVAL, "DOF_HDR", 16,
		    "DOF header: flags 0x%x, no flag is defined (must be 0)",
		    h->dh_flags);
	if (h->dh_hdrsize != sizeof (struct dof_hdr))
		return kdt_err_set(err, EINVAL, "DOF_HDR", 20,
		    "DOF header: hdrsize %u is not %u", h->dh_hdrsize,
		    (uint32_t)sizeof (struct dof_hdr));
	if (h->dh_loadsz > DOF_MAX_SIZE)
		return kdt_err_set(err, EFBIG, "DOF_TOOBIG", 40,
		    "DOF header: loadsz 0x%llx exceeds the limit 0x%x",
		    (dof_ull)h->dh_loadsz, DOF_MAX_SIZE);
	if (h->dh_loadsz > len || h->dh_loadsz < sizeof (*h))
		return kdt_err_set(err, EINVAL, "DOF_SHORT", 40,
		    "DOF header: loadsz 0x%llx is outside [0x%x, input length 0x%llx]",
		    (dof_ull)h->dh_loadsz, (uint32_t)sizeof (*h), (dof_ull)len);
	if (h->dh_filesz < h->dh_loadsz)
		return kdt_err_set(err, EINVAL, "DOF_HDR", 48,
		    "DOF header: filesz 0x%llx is below loadsz 0x%llx",
		    (dof_ull)h->dh_filesz, (dof_ull)h->dh_loadsz);
	if (h->dh_secsize < sizeof (struct dof_sec) || h->dh_secsize % 8 != 0)
		return kdt_err_set(err, EINVAL, "DOF_HDR", 24,
		    "DOF header: secsize %u must be a multiple of 8 and at least %u",
		    h->dh_secsize, (uint32_t)sizeof (struct dof_sec));
	if (h->dh_secoff % 8 != 0 ||
	    !kdt_range_ok(h->dh_secoff, tabsz, h->dh_loadsz))
		return kdt_err_set(err, EINVAL, "DOF_HDR", 32,
		    "DOF header: section table at offset 0x%llx size 0x%llx is misaligned (need 8) or extends past loadsz 0x%llx",
		    (dof_ull)h->dh_secoff, (dof_ull)tabsz,
		    (dof_ull)h->dh_loadsz);
	return 0;
}

static const struct dof_secrule *
dof_secrule(uint32_t type)
{
	uint32_t i;

	for (i = 0; i < sizeof (dof_secrules) / sizeof (dof_secrules[0]); i++)
		if (dof_secrules[i].sr_type == type)
			return &dof_secrules[i];
	return NULL;
}

/* Per-type layout of a loaded section (rule S4 on dof_load). */
static int
dof_sec_layout(const struct dof_ld *dl, uint32_t idx, const struct dof_sec *s)
{
	const struct dof_secrule *sr = dof_secrule(s->ds_type);
	const uint8_t *data = dl->dl_base + s->ds_offset;

	if (sr == NULL)
		return 0;
	if (s->ds_align < sr->sr_align ||
	    (sr->sr_entsize != 0 && s->ds_entsize != sr->sr_entsize) ||
	    s->ds_size < sr->sr_minsize ||
	    (sr->sr_unit != 0 && s->ds_size % sr->sr_unit != 0))
		return kdt_err_set(dl->dl_err, EINVAL, "DOF_SEC",
		    dof_sec_off(dl, idx),
		    "section %u (type %u) at offset 0x%llx: align %u entsize %u size 0x%llx; need align >= %u, entsize %u (0 = any), size >= %u and a multiple of %u",
		    idx, s->ds_type, (dof_ull)s->ds_offset, s->ds_align,
		    s->ds_entsize, (dof_ull)s->ds_size, sr->sr_align,
		    sr->sr_entsize, sr->sr_minsize,
		    sr->sr_unit != 0 ? sr->sr_unit : 1);
	if (s->ds_type == DOF_SECT_STRTAB && data[s->ds_size - 1] != '\0')
		return kdt_err_set(dl->dl_err, EINVAL, "DOF_STRTAB",
		    s->ds_offset + s->ds_size - 1,
		    "section %u (STRTAB) at offset 0x%llx size 0x%llx: last byte is 0x%02x, must be NUL",
		    idx, (dof_ull)s->ds_offset, (dof_ull)s->ds_size,
		    data[s->ds_size - 1]);
	return 0;
}

/* Rules S1-S4 on dof_load, for section "idx". */
static int
dof_sec_check(const struct dof_ld *dl, uint32_t idx)
{
	const struct dof_sec *s = dof_sec_at(dl, idx);

	if (!(s->ds_flags & DOF_SECF_LOAD)) {
		if (!dof_is_loadable_type(s->ds_type))
			return 0;
		return kdt_err_set(dl->dl_err, EINVAL, "DOF_SEC",
		    dof_sec_off(dl, idx),
		    "section %u (type %u) lacks the LOAD flag (flags 0x%x) its type requires",
		    idx, s->ds_type, s->ds_flags);
	}
	if (s->ds_align == 0 || (s->ds_align & (s->ds_align - 1)) != 0 ||
	    s->ds_offset % s->ds_align != 0)
		return kdt_err_set(dl->dl_err, EINVAL, "DOF_SECALIGN",
		    dof_sec_off(dl, idx),
		    "section %u (type %u) at offset 0x%llx: alignment %u is not a power of two or does not divide the offset",
		    idx, s->ds_type, (dof_ull)s->ds_offset, s->ds_align);
	if (!kdt_range_ok(s->ds_offset, s->ds_size, dl->dl_loadsz))
		return kdt_err_set(dl->dl_err, EINVAL, "DOF_SECRANGE",
		    dof_sec_off(dl, idx),
		    "section %u (type %u) at offset 0x%llx size 0x%llx extends past loadsz 0x%llx",
		    idx, s->ds_type, (dof_ull)s->ds_offset,
		    (dof_ull)s->ds_size, (dof_ull)dl->dl_loadsz);
	return dof_sec_layout(dl, idx, s);
}

/*
 * Rule R1: "idx", referenced from the structure at file offset "from"
 * as "what", names a loaded section of type "type".
 */
static int
dof_sect(const struct dof_ld *dl, uint32_t idx, uint32_t type,
    const char *what, uint64_t from, const struct dof_sec **out)
{
	const struct dof_sec *s;

	if (idx >= dl->dl_secnum)
		return kdt_err_set(dl->dl_err, EINVAL, "DOF_SECIDX", from,
		    "%s at offset 0x%llx: section index %u exceeds the last section %u",
		    what, (dof_ull)from, idx, dl->dl_secnum - 1);
	s = dof_sec_at(dl, idx);
	if (s->ds_type != type || !(s->ds_flags & DOF_SECF_LOAD))
		return kdt_err_set(dl->dl_err, EINVAL, "DOF_SECIDX", from,
		    "%s at offset 0x%llx: section %u has type %u flags 0x%x, need type %u with LOAD",
		    what, (dof_ull)from, idx, s->ds_type, s->ds_flags, type);
	*out = s;
	return 0;
}

/* Options (rules O1-O3 on dof_load) from one OPTDESC section. */
static int
dof_load_opts(struct dof_ld *dl, uint32_t idx, const struct dof_sec *s)
{
	const struct dof_optdesc *o;
	uint64_t off;

	if (s->ds_entsize < sizeof (*o) || s->ds_entsize % 8 != 0 ||
	    s->ds_size % s->ds_entsize != 0)
		return kdt_err_set(dl->dl_err, EINVAL, "DOF_OPT",
		    dof_sec_off(dl, idx),
		    "section %u (OPTDESC) at offset 0x%llx: entsize %u size 0x%llx; need entsize >= %u, a multiple of 8 dividing the size",
		    idx, (dof_ull)s->ds_offset, s->ds_entsize,
		    (dof_ull)s->ds_size, (uint32_t)sizeof (*o));
	for (off = 0; off < s->ds_size; off += s->ds_entsize) {
		o = (const struct dof_optdesc *)(dl->dl_base + s->ds_offset +
		    off);
		if (o->dofo_option >= DTRACEOPT_MAX ||
		    o->dofo_strtab != DOF_STRIDX_NONE ||
		    o->dofo_value == DTRACEOPT_UNSET)
			return kdt_err_set(dl->dl_err, EINVAL, "DOF_OPT",
			    s->ds_offset + off,
			    "OPTDESC section %u entry at offset 0x%llx: option %u strtab %u value 0x%llx; need option < %u, no strtab, value not UNSET (-2)",
			    idx, (dof_ull)(s->ds_offset + off), o->dofo_option,
			    o->dofo_strtab, (dof_ull)o->dofo_value,
			    DTRACEOPT_MAX);
		dl->dl_den->den_opts[o->dofo_option] = o->dofo_value;
	}
	return 0;
}

/* All OPTDESC sections, then the effective strsize (rule O4). */
static int
dof_load_allopts(struct dof_ld *dl)
{
	struct dof_enabling *den = dl->dl_den;
	const struct dof_sec *s;
	uint64_t v;
	uint32_t i;
	int rc;

	for (i = 0; i < DTRACEOPT_MAX; i++)
		den->den_opts[i] = DTRACEOPT_UNSET;
	for (i = 0; i < dl->dl_secnum; i++) {
		s = dof_sec_at(dl, i);
		if (s->ds_type == DOF_SECT_OPTDESC &&
		    (s->ds_flags & DOF_SECF_LOAD) &&
		    (rc = dof_load_opts(dl, i, s)) != 0)
			return rc;
	}
	v = den->den_opts[DTRACEOPT_STRSIZE];
	if (v == DTRACEOPT_UNSET) {
		den->den_strsize = DTRACE_STRSIZE_DEFAULT;
		return 0;
	}
	if (v == 0 || v > DOF_MAX_STRSIZE)
		return kdt_err_set(dl->dl_err, EINVAL, "DOF_OPT", KDT_ERR_NOOFF,
		    "option strsize %llu is outside 1..%u",
		    (dof_ull)v, DOF_MAX_STRSIZE);
	den->den_strsize = (uint32_t)v;
	return 0;
}

/* One probe-description string (rule P2): in its table, short enough. */
static int
dof_load_pstr(struct dof_ld *dl, const struct dof_sec *str, uint32_t off,
    const char *what, uint64_t from, char *dst, uint32_t lim)
{
	const char *s;
	uint64_t len;

	if (off >= str->ds_size)
		return kdt_err_set(dl->dl_err, EINVAL, "DOF_PROBE", from,
		    "PROBEDESC at offset 0x%llx: %s string offset %u is outside its STRTAB (size 0x%llx)",
		    (dof_ull)from, what, off, (dof_ull)str->ds_size);
	s = (const char *)dl->dl_base + str->ds_offset + off;
	len = strlen(s);	/* the STRTAB ends in NUL (rule S4) */
	if (len >= lim)
		return kdt_err_set(dl->dl_err, ENAMETOOLONG, "DOF_PROBE", from,
		    "PROBEDESC at offset 0x%llx: %s \"%.32s...\" is %llu bytes long, limit %u",
		    (dof_ull)from, what, s, (dof_ull)len, lim - 1);
	memcpy(dst, s, len + 1);
	return 0;
}

/* A PROBEDESC section (rules P1-P2). */
static int
dof_load_pdesc(struct dof_ld *dl, uint32_t idx, uint64_t from,
    struct dof_pdesc *pd)
{
	const struct dof_sec *s, *str;
	const struct dof_probedesc *p;
	int rc;

	if ((rc = dof_sect(dl, idx, DOF_SECT_PROBEDESC, "ECBDESC probes",
	    from, &s)) != 0)
		return rc;
	p = (const struct dof_probedesc *)(dl->dl_base + s->ds_offset);
	from = s->ds_offset;
	if ((rc = dof_sect(dl, p->dofp_strtab, DOF_SECT_STRTAB,
	    "PROBEDESC strtab", from, &str)) != 0)
		return rc;
	if ((rc = dof_load_pstr(dl, str, p->dofp_provider, "provider", from,
	    pd->lp_prov, DOF_PROVNAMELEN)) != 0 ||
	    (rc = dof_load_pstr(dl, str, p->dofp_mod, "module", from,
	    pd->lp_mod, DOF_MODNAMELEN)) != 0 ||
	    (rc = dof_load_pstr(dl, str, p->dofp_func, "function", from,
	    pd->lp_func, DOF_FUNCNAMELEN)) != 0 ||
	    (rc = dof_load_pstr(dl, str, p->dofp_name, "name", from,
	    pd->lp_name, DOF_NAMELEN)) != 0)
		return rc;
	pd->lp_id = p->dofp_id;
	return 0;
}

/* Attach one DIFOHDR member section to the object (rule D2). */
static int
dof_difo_member(struct dof_ld *dl, struct dif_object *d, uint32_t idx,
    uint64_t from, uint64_t *total, const struct dof_sec **dif)
{
	const struct dof_sec *s;
	const void *data;
	const void *prev;

	if (idx >= dl->dl_secnum)
		return dof_sect(dl, idx, DOF_SECT_DIF, "DIFOHDR member", from,
		    &s);
	s = dof_sec_at(dl, idx);
	if (!(s->ds_flags & DOF_SECF_LOAD))
		return dof_sect(dl, idx, s->ds_type, "DIFOHDR member", from,
		    &s);
	data = dl->dl_base + s->ds_offset;
	switch (s->ds_type) {
	case DOF_SECT_DIF:
		prev = d->do_text;
		d->do_text = data;
		d->do_textlen = (uint32_t)(s->ds_size / 4);
		*dif = s;
		break;
	case DOF_SECT_INTTAB:
		prev = d->do_inttab;
		d->do_inttab = data;
		d->do_intlen = (uint32_t)(s->ds_size / 8);
		break;
	case DOF_SECT_STRTAB:
		prev = d->do_strtab;
		d->do_strtab = data;
		d->do_strlen = (uint32_t)s->ds_size;
		break;
	case DOF_SECT_VARTAB:
		prev = d->do_vartab;
		d->do_vartab = data;
		d->do_varlen = (uint32_t)(s->ds_size / sizeof (struct dif_var));
		break;
	default:
		return kdt_err_set(dl->dl_err, EINVAL, "DOF_DIFO", from,
		    "DIFOHDR at offset 0x%llx: member section %u has type %u; only DIF (7), STRTAB (8), VARTAB (9) and INTTAB (19) are supported",
		    (dof_ull)from, idx, s->ds_type);
	}
	if (prev != NULL)
		return kdt_err_set(dl->dl_err, EINVAL, "DOF_DIFO", from,
		    "DIFOHDR at offset 0x%llx: member section %u repeats type %u",
		    (dof_ull)from, idx, s->ds_type);
	*total += s->ds_size;
	return 0;
}

/*
 * Re-issue a dif_validate() error with the DOF context and the file offset
 * of the offending instruction (or VARTAB entry).
 */
static int
dof_difo_verr(struct dof_ld *dl, int rc, uint32_t idx, uint64_t hdroff,
    const struct dof_sec *dif, const struct dif_object *d)
{
	struct kdt_err *err = dl->dl_err;
	char msg[KDT_ERR_MSGLEN];
	uint64_t off = hdroff;

	if (err == NULL)
		return rc;
	if (err->ke_off != KDT_ERR_NOOFF && dif != NULL)
		off = dif->ds_offset + err->ke_off;
	if (err->ke_off != KDT_ERR_NOOFF && d->do_vartab != NULL &&
	    strcmp(err->ke_tag, "DIF_VARTAB") == 0)
		off = (uint64_t)((const uint8_t *)d->do_vartab -
		    dl->dl_base) + err->ke_off;
	memcpy(msg, err->ke_msg, sizeof (msg));
	return kdt_err_set(err, -rc, err->ke_tag, off,
	    "DIFOHDR section %u at offset 0x%llx: %s", idx, (dof_ull)hdroff,
	    msg);
}

/* A DIFOHDR section and its members, validated (rules D1-D4). */
static int
dof_load_difo(struct dof_ld *dl, uint32_t idx, const char *what,
    uint64_t from, struct dif_object **out)
{
	const struct dof_sec *s, *dif = NULL;
	const struct dof_difohdr *h;
	const uint32_t *links;
	struct dif_object *d;
	uint64_t i, n, total = 0;
	int rc;

	if ((rc = dof_sect(dl, idx, DOF_SECT_DIFOHDR, what, from, &s)) != 0)
		return rc;
	h = (const struct dof_difohdr *)(dl->dl_base + s->ds_offset);
	links = (const uint32_t *)(dl->dl_base + s->ds_offset +
	    sizeof (struct dif_type));
	n = (s->ds_size - sizeof (struct dif_type)) / 4;
	if ((d = kenv_zalloc(sizeof (*d))) == NULL)
		return kdt_err_set(dl->dl_err, ENOMEM, "DOF_NOMEM",
		    s->ds_offset, "out of memory for a DIF object");
	*out = d;
	d->do_rtype = h->dofd_rtype;
	for (i = 0; i < n; i++)
		if ((rc = dof_difo_member(dl, d, links[i], s->ds_offset,
		    &total, &dif)) != 0)
			return rc;
	if (d->do_text == NULL)
		return kdt_err_set(dl->dl_err, EINVAL, "DOF_DIFO",
		    s->ds_offset,
		    "DIFOHDR section %u at offset 0x%llx: no DIF member section among its %llu members",
		    idx, (dof_ull)s->ds_offset, (dof_ull)n);
	if (total > DOF_MAX_DIFO_SIZE)
		return kdt_err_set(dl->dl_err, EFBIG, "DOF_DIFO",
		    s->ds_offset,
		    "DIFOHDR section %u at offset 0x%llx: DIF object size 0x%llx exceeds the limit 0x%x",
		    idx, (dof_ull)s->ds_offset, (dof_ull)total,
		    DOF_MAX_DIFO_SIZE);
	if ((rc = dif_validate(d, dl->dl_err)) != 0)
		return dof_difo_verr(dl, rc, idx, s->ds_offset, dif, d);
	/* Calls copyout()/copyoutstr(): the runner asks for -w first. */
	d->do_destructive = dif_destructive(d);
	return 0;
}

/* The format string of an action that names a STRTAB (rule A3). */
static int
dof_load_fmt(struct dof_ld *dl, const struct dof_actdesc *a, uint64_t from,
    const char **fmt)
{
	const struct dof_sec *s;
	const char *f;
	int rc;

	if ((rc = dof_sect(dl, a->dofa_strtab, DOF_SECT_STRTAB,
	    "ACTDESC format strtab", from, &s)) != 0)
		return rc;
	if (a->dofa_arg >= s->ds_size)
		return kdt_err_set(dl->dl_err, EINVAL, "DOF_FMT", from,
		    "ACTDESC entry at offset 0x%llx: format offset 0x%llx is outside STRTAB section %u (size 0x%llx), so the format is unterminated",
		    (dof_ull)from, (dof_ull)a->dofa_arg, a->dofa_strtab,
		    (dof_ull)s->ds_size);
	f = (const char *)dl->dl_base + s->ds_offset + a->dofa_arg;
	if (*f == '\0')
		return kdt_err_set(dl->dl_err, EINVAL, "DOF_FMT", from,
		    "ACTDESC entry at offset 0x%llx: format at STRTAB section %u offset 0x%llx is empty",
		    (dof_ull)from, a->dofa_strtab, (dof_ull)a->dofa_arg);
	*fmt = f;
	return 0;
}

/*
 * How an action kind is loaded (rule A2): whether it must, may or must not
 * carry a DIF object, and what it records (rule L1).
 */
#define DOF_DIFO_NEED	0
#define DOF_DIFO_MAY	1

#define DOF_SZ_TYPE	0	/* the DIF object's return type */
#define DOF_SZ_FIXED	1	/* ak_size bytes */
#define DOF_SZ_ARG	2	/* la_arg bytes (tracemem) */
#define DOF_SZ_FRAMES	3	/* la_arg frames of 8 bytes (stack) */
#define DOF_SZ_USTACK	4	/* (nframes + 1) x 8 + strsize rounded up */
#define DOF_SZ_LIBACT	5	/* a string result as a string, else 8 */

struct dof_actkind {
	uint32_t	ak_kind;
	uint8_t		ak_difo;	/* DOF_DIFO_* */
	uint8_t		ak_sz;		/* DOF_SZ_* */
	uint16_t	ak_size;	/* DOF_SZ_FIXED */
};

static const struct dof_actkind dof_actkinds[] = {
	{ DTRACEACT_DIFEXPR, DOF_DIFO_NEED, DOF_SZ_TYPE, 0 },
	{ DTRACEACT_EXIT, DOF_DIFO_NEED, DOF_SZ_FIXED, 4 },
	{ DTRACEACT_PRINTF, DOF_DIFO_NEED, DOF_SZ_TYPE, 0 },
	{ DTRACEACT_PRINTA, DOF_DIFO_NEED, DOF_SZ_FIXED, 8 },
	{ DTRACEACT_LIBACT, DOF_DIFO_NEED, DOF_SZ_LIBACT, 8 },
	{ DTRACEACT_TRACEMEM, DOF_DIFO_NEED, DOF_SZ_ARG, 0 },
	{ DTRACEACT_USTACK, DOF_DIFO_MAY, DOF_SZ_USTACK, 0 },
	{ DTRACEACT_JSTACK, DOF_DIFO_MAY, DOF_SZ_USTACK, 0 },
	{ DTRACEACT_USYM, DOF_DIFO_NEED, DOF_SZ_FIXED, 16 },
	{ DTRACEACT_UMOD, DOF_DIFO_NEED, DOF_SZ_FIXED, 16 },
	{ DTRACEACT_UADDR, DOF_DIFO_NEED, DOF_SZ_FIXED, 16 },
	{ DTRACEACT_STOP, DOF_DIFO_MAY, DOF_SZ_FIXED, 0 },
	{ DTRACEACT_RAISE, DOF_DIFO_MAY, DOF_SZ_FIXED, 0 },
	{ DTRACEACT_SYSTEM, DOF_DIFO_NEED, DOF_SZ_TYPE, 0 },
	{ DTRACEACT_FREOPEN, DOF_DIFO_NEED, DOF_SZ_TYPE, 0 },
	{ DTRACEACT_STACK, DOF_DIFO_MAY, DOF_SZ_FRAMES, 0 },
	{ DTRACEACT_SYM, DOF_DIFO_NEED, DOF_SZ_FIXED, 8 },
	{ DTRACEACT_MOD, DOF_DIFO_NEED, DOF_SZ_FIXED, 8 },
	{ DTRACEACT_BREAKPOINT, DOF_DIFO_MAY, DOF_SZ_FIXED, 0 },
	{ DTRACEACT_PANIC, DOF_DIFO_MAY, DOF_SZ_FIXED, 0 },
	{ DTRACEACT_CHILL, DOF_DIFO_MAY, DOF_SZ_FIXED, 0 },
	{ DTRACEACT_SPECULATE, DOF_DIFO_NEED, DOF_SZ_FIXED, 0 },
	{ DTRACEACT_COMMIT, DOF_DIFO_NEED, DOF_SZ_FIXED, 0 },
	{ DTRACEACT_DISCARD, DOF_DIFO_NEED, DOF_SZ_FIXED, 0 },
	{ DTRACEAGG_COUNT, DOF_DIFO_MAY, DOF_SZ_FIXED, 0 },
	{ DTRACEAGG_MIN, DOF_DIFO_NEED, DOF_SZ_FIXED, 0 },
	{ DTRACEAGG_MAX, DOF_DIFO_NEED, DOF_SZ_FIXED, 0 },
	{ DTRACEAGG_AVG, DOF_DIFO_NEED, DOF_SZ_FIXED, 0 },
	{ DTRACEAGG_SUM, DOF_DIFO_NEED, DOF_SZ_FIXED, 0 },
	{ DTRACEAGG_STDDEV, DOF_DIFO_NEED, DOF_SZ_FIXED, 0 },
	{ DTRACEAGG_QUANTIZE, DOF_DIFO_NEED, DOF_SZ_FIXED, 0 },
	{ DTRACEAGG_LQUANTIZE, DOF_DIFO_NEED, DOF_SZ_FIXED, 0 },
	{ DTRACEAGG_LLQUANTIZE, DOF_DIFO_NEED, DOF_SZ_FIXED, 0 },
};

static const struct dof_actkind *
dof_actkind(uint32_t kind)
{
	uint32_t i;

	for (i = 0; i < sizeof (dof_actkinds) / sizeof (dof_actkinds[0]); i++)
		if (dof_actkinds[i].ak_kind == kind)
			return &dof_actkinds[i];
	return NULL;
}

/* One ACTDESC entry (rules A2-A4). */
static int
dof_load_act(struct dof_ld *dl, const struct dof_actdesc *a, uint64_t from,
    struct dof_laction *la)
{
	const struct dof_actkind *ak = dof_actkind(a->dofa_kind);
	int rc;

	la->la_kind = a->dofa_kind;
	la->la_ntuple = a->dofa_ntuple;
	la->la_arg = a->dofa_arg;
	la->la_uarg = a->dofa_uarg;
	if (ak == NULL)
		return kdt_err_set(dl->dl_err, EOPNOTSUPP, "DOF_ACT", from,
		    "ACTDESC entry at offset 0x%llx: action kind 0x%x is not supported (supported: 0x1-0x6, 0x101-0x105, 0x201-0x204, 0x401-0x403, 0x501-0x503, 0x601-0x603, 0x701-0x709)",
		    (dof_ull)from, a->dofa_kind);
	/*
	 * printf(fmt, a, b) is one PRINTF action per argument and only the
	 * first names the format (reference 3.3): a PRINTF without a STRTAB
	 * continues the previous one and has no format of its own.  PRINTA
	 * without a STRTAB is printa() without a format.  A DIFEXPR with a
	 * STRTAB is print(): the "format" is the value's type name.
	 */
	if (a->dofa_strtab != DOF_SECIDX_NONE &&
	    !DTRACEACT_ISPRINTFLIKE(a->dofa_kind) &&
	    a->dofa_kind != DTRACEACT_DIFEXPR)
		return kdt_err_set(dl->dl_err, EINVAL, "DOF_FMT", from,
		    "ACTDESC entry at offset 0x%llx: action kind 0x%x names format STRTAB section %u but is not printf-like",
		    (dof_ull)from, a->dofa_kind, a->dofa_strtab);
	if (a->dofa_strtab != DOF_SECIDX_NONE &&
	    (rc = dof_load_fmt(dl, a, from, &la->la_fmt)) != 0)
		return rc;
	if (a->dofa_difo == DOF_SECIDX_NONE) {
		if (ak->ak_difo == DOF_DIFO_MAY)
			return 0;
		return kdt_err_set(dl->dl_err, EINVAL, "DOF_ACT", from,
		    "ACTDESC entry at offset 0x%llx: action kind 0x%x has no DIF object",
		    (dof_ull)from, a->dofa_kind);
	}
	return dof_load_difo(dl, a->dofa_difo, "ACTDESC difo", from,
	    &la->la_difo);
}

/* Bytes a value of the DIF object's return type takes (rule L1). */
static uint64_t
dof_type_size(const struct dof_ld *dl, const struct dif_object *d)
{
	const struct dif_type *t = &d->do_rtype;

	if (t->dtdt_kind == DIF_TYPE_STRING)
		return t->dtdt_size != 0 ? t->dtdt_size :
		    dl->dl_den->den_strsize;
	return t->dtdt_size;
}

/* Bytes one REC action records in the principal buffer (rule L1). */
static uint64_t
dof_act_size(const struct dof_ld *dl, const struct dof_laction *la)
{
	const struct dof_actkind *ak = dof_actkind(la->la_kind);
	uint64_t nframes, strsize;

	switch (ak->ak_sz) {
	case DOF_SZ_TYPE:
		return la->la_difo != NULL ? dof_type_size(dl, la->la_difo) : 0;
	case DOF_SZ_LIBACT:
		if (la->la_difo->do_rtype.dtdt_kind == DIF_TYPE_STRING)
			return dof_type_size(dl, la->la_difo);
		return 8;
	case DOF_SZ_ARG:
		return la->la_arg;
	case DOF_SZ_FRAMES:
		return la->la_arg * 8;
	case DOF_SZ_USTACK:
		nframes = la->la_arg & 0xffffffffu;
		strsize = la->la_arg >> 32;
		return (nframes + 1) * 8 + ((strsize + 7) & ~7ull);
	}
	return ak->ak_size;
}

/* Natural alignment of a record or key of "size" bytes (rule L2). */
static uint32_t
dof_rec_align(uint64_t size)
{
	if (size == 0)
		return 1;
	return size % 8 == 0 ? 8 : size % 4 == 0 ? 4 : size % 2 == 0 ? 2 : 1;
}

/* The record layout of one ECB (rules L1-L3; theory in dof_load.h). */
static int
dof_act_layout(struct dof_ld *dl, struct dof_lecb *le, uint64_t from)
{
	struct dof_laction *la;
	uint64_t off = 0, size;
	uint32_t i, align;
	int rc;

	for (i = 0; i < le->le_nacts; i++) {
		la = &le->le_acts[i];
		if (la->la_role != DOF_ROLE_REC)
			continue;	/* dof_agg_layout placed it */
		size = dof_act_size(dl, la);
		if (size > DOF_MAX_RECSIZE)
			return kdt_err_set(dl->dl_err, EINVAL, "DOF_REC", from,
			    "ACTDESC at offset 0x%llx: action %u (kind 0x%x) records %llu bytes, limit %u",
			    (dof_ull)from, i, la->la_kind, (dof_ull)size,
			    DOF_MAX_RECSIZE);
		align = dof_rec_align(size);
		off = (off + align - 1) & ~(uint64_t)(align - 1);
		la->la_rec_off = (uint32_t)off;
		la->la_rec_size = (uint32_t)size;
		la->la_rec_align = (uint16_t)align;
		la->la_rec_isstr = la->la_difo != NULL &&
		    la->la_difo->do_rtype.dtdt_kind == DIF_TYPE_STRING &&
		    (dof_actkind(la->la_kind)->ak_sz == DOF_SZ_TYPE ||
		    dof_actkind(la->la_kind)->ak_sz == DOF_SZ_LIBACT);
		if (la->la_kind == DTRACEACT_DIFEXPR && la->la_fmt != NULL &&
		    la->la_fmt[0] == '@' && (rc = dof_pt_check(la->la_fmt,
		    strlen(la->la_fmt), size, from, dl->dl_err)) != 0)
			return rc;	/* rule A5 */
		off += size;
		if (off > DOF_MAX_ECBSIZE)
			return kdt_err_set(dl->dl_err, EINVAL, "DOF_REC", from,
			    "ACTDESC at offset 0x%llx: records of actions 0..%u need 0x%llx bytes, limit 0x%x",
			    (dof_ull)from, i, (dof_ull)off, DOF_MAX_ECBSIZE);
	}
	le->le_size = (uint32_t)((off + 7) & ~(uint64_t)7);
	return 0;
}

/*
 * Rule G2: tuple[0] of an aggregation is a DIFEXPR whose object is exactly
 * "setx k -> rd; ret rd"; the variable id is INTTAB[k], at least 1.
 */
static int
dof_agg_varid(struct dof_ld *dl, const struct dof_laction *la, uint64_t from,
    uint32_t i, uint32_t *varid)
{
	const struct dif_object *d = la->la_difo;
	uint32_t w0, w1, k;

	if (la->la_kind != DTRACEACT_DIFEXPR || d == NULL ||
	    d->do_textlen != 2)
		goto bad;
	w0 = d->do_text[0];
	w1 = d->do_text[1];
	k = DIF_INSTR_INTEGER(w0);
	if (DIF_INSTR_OP(w0) != DIF_OP_SETX || DIF_INSTR_OP(w1) != DIF_OP_RET ||
	    DIF_INSTR_RD(w0) != DIF_INSTR_RD(w1) || k >= d->do_intlen ||
	    d->do_inttab[k] == 0 || d->do_inttab[k] > 0xffffffffu)
		goto bad;
	*varid = (uint32_t)d->do_inttab[k];
	return 0;
bad:
	return kdt_err_set(dl->dl_err, EINVAL, "DOF_AGGVAR", from,
	    "ACTDESC at offset 0x%llx: action %u (kind 0x%x), tuple[0] of an aggregation, must be a DIFEXPR \"setx k -> rd; ret rd\" with INTTAB[k] in 1..0xffffffff",
	    (dof_ull)from, i, la->la_kind);
}

/* Kernel-data actions that may be aggregation keys (rule G3). */
static int
dof_agg_kdata_key(uint32_t kind)
{
	switch (kind) {
	case DTRACEACT_STACK:
	case DTRACEACT_USTACK:
	case DTRACEACT_JSTACK:
	case DTRACEACT_SYM:
	case DTRACEACT_MOD:
	case DTRACEACT_USYM:
	case DTRACEACT_UMOD:
	case DTRACEACT_UADDR:
		return 1;
	default:
		return 0;
	}
}

/* Rule G3: the key actions, each placed at its natural alignment. */
static int
dof_agg_keys(struct dof_ld *dl, struct dof_lecb *le, uint64_t from,
    struct dof_agg *ag)
{
	struct dof_laction *la;
	uint64_t off = 0, size;
	uint32_t i, align;

	for (i = ag->ag_firstkey; i < ag->ag_firstkey + ag->ag_nkeys; i++) {
		la = &le->le_acts[i];
		/* a D expression, or kernel data: @[stack()], @[sym(pc)] */
		if (la->la_kind == DTRACEACT_DIFEXPR)
			size = la->la_difo != NULL ?
			    dof_type_size(dl, la->la_difo) : 0;
		else if (dof_agg_kdata_key(la->la_kind))
			size = dof_act_size(dl, la);
		else
			size = 0;
		if (la->la_role != DOF_ROLE_REC || size == 0 ||
		    size > DOF_MAX_RECSIZE)
			return kdt_err_set(dl->dl_err, EINVAL, "DOF_AGGKEY",
			    from,
			    "ACTDESC at offset 0x%llx: action %u (kind 0x%x), key of aggregation %u, must be an unclaimed DIFEXPR or stack/ustack/jstack/sym/mod/usym/umod/uaddr record of 1..%u bytes, has %llu",
			    (dof_ull)from, i, la->la_kind, ag->ag_id,
			    DOF_MAX_RECSIZE, (dof_ull)size);
		align = dof_rec_align(size);
		off = (off + align - 1) & ~(uint64_t)(align - 1);
		la->la_role = DOF_ROLE_AGGKEY;
		la->la_aggid = ag->ag_id;
		la->la_rec_off = (uint32_t)off;
		la->la_rec_size = (uint32_t)size;
		la->la_rec_align = (uint16_t)align;
		la->la_rec_isstr = la->la_kind == DTRACEACT_DIFEXPR &&
		    la->la_difo->do_rtype.dtdt_kind == DIF_TYPE_STRING;
		off += size;
	}
	if (off > DOF_MAX_RECSIZE)
		return kdt_err_set(dl->dl_err, EINVAL, "DOF_AGGKEY", from,
		    "ACTDESC at offset 0x%llx: key of aggregation %u needs %llu bytes, limit %u",
		    (dof_ull)from, ag->ag_id, (dof_ull)off, DOF_MAX_RECSIZE);
	ag->ag_keysize = (uint32_t)((off + 7) & ~7ull);
	return 0;
}

/* Is action "la" the void increment of a *quantize (rule G3)? */
static int
dof_agg_is_incr(const struct dof_laction *agg, const struct dof_laction *la)
{
	return (agg->la_kind == DTRACEAGG_QUANTIZE ||
	    agg->la_kind == DTRACEAGG_LQUANTIZE ||
	    agg->la_kind == DTRACEAGG_LLQUANTIZE) &&
	    la->la_kind == DTRACEACT_DIFEXPR && la->la_difo != NULL &&
	    la->la_difo->do_rtype.dtdt_kind == DIF_TYPE_CTF &&
	    la->la_difo->do_rtype.dtdt_size == 0;
}

/* Rules G1-G4 for the aggregating action "i" of ECB "ecb". */
static int
dof_agg_one(struct dof_ld *dl, struct dof_lecb *le, uint32_t ecb,
    uint32_t i, uint64_t from, struct dof_agg *ag)
{
	struct dof_laction *la = &le->le_acts[i];
	uint32_t first, last;
	int rc;

	if (la->la_ntuple == 0 || la->la_ntuple > i)
		return kdt_err_set(dl->dl_err, EINVAL, "DOF_AGGVAR", from,
		    "ACTDESC at offset 0x%llx: aggregating action %u (kind 0x%x) has a tuple of %u actions; need 1..%u preceding actions",
		    (dof_ull)from, i, la->la_kind, la->la_ntuple, i);
	first = i - la->la_ntuple;
	if (le->le_acts[first].la_role != DOF_ROLE_REC)
		return kdt_err_set(dl->dl_err, EINVAL, "DOF_AGGVAR", from,
		    "ACTDESC at offset 0x%llx: aggregating action %u claims action %u, which already belongs to aggregation %u",
		    (dof_ull)from, i, first, le->le_acts[first].la_aggid);
	if ((rc = dof_agg_varid(dl, &le->le_acts[first], from, first,
	    &ag->ag_varid)) != 0)
		return rc;
	ag->ag_kind = la->la_kind;
	ag->ag_ecb = ecb;
	ag->ag_arg = la->la_arg;
	ag->ag_act = i;
	ag->ag_firstkey = first + 1;
	ag->ag_incr_act = (uint32_t)-1;
	last = i - 1;
	if (last > first && dof_agg_is_incr(la, &le->le_acts[last])) {
		ag->ag_incr_act = last;
		le->le_acts[last].la_role = DOF_ROLE_AGGARG;
		le->le_acts[last].la_aggid = ag->ag_id;
		last--;
	}
	ag->ag_nkeys = last - first;
	if ((rc = dof_agg_keys(dl, le, from, ag)) != 0)
		return rc;
	ag->ag_datasize = agg_data_size(la->la_kind, la->la_arg);
	if (ag->ag_datasize == 0)
		return kdt_err_set(dl->dl_err, EINVAL, "DOF_AGGPARAM", from,
		    "ACTDESC at offset 0x%llx: aggregating action %u (kind 0x%x) has invalid parameters 0x%016llx (reference 3.4; limit %u value bytes)",
		    (dof_ull)from, i, la->la_kind, (dof_ull)la->la_arg,
		    1u << 20);
	le->le_acts[first].la_role = DOF_ROLE_AGGVAR;
	le->le_acts[first].la_aggid = ag->ag_id;
	la->la_role = DOF_ROLE_AGG;
	la->la_aggid = ag->ag_id;
	return 0;
}

/* A stack-kind key: D's type "stack", whatever its depth (rule G5). */
static int
dof_agg_stack_key(const struct dof_laction *k)
{
	return k->la_kind == DTRACEACT_STACK ||
	    k->la_kind == DTRACEACT_USTACK || k->la_kind == DTRACEACT_JSTACK;
}

/* Rule G5: may keys "a" and "b" of one variable differ as they do? */
static int
dof_agg_keys_alike(const struct dof_laction *a, const struct dof_laction *b)
{
	if (dof_agg_stack_key(a) || dof_agg_stack_key(b))
		return dof_agg_stack_key(a) && dof_agg_stack_key(b);
	return a->la_rec_size == b->la_rec_size &&
	    a->la_rec_isstr == b->la_rec_isstr;
}

/*
 * Rule G5: statements naming one @variable agree on its shape: kind,
 * parameters, key count, and key by key the same size -- except stack
 * keys: stack(), stack(n), ustack(), jstack() all have D's key type
 * "stack", so one variable may be keyed by records of several depths
 * (each aggregation id keeps its own key layout; the per-CPU buffer
 * hashes by aggregation id and the consumer merges by key bytes, agg.h).
 */
static int
dof_agg_match(struct dof_ld *dl, const struct dof_agg *ag, uint64_t from)
{
	const struct dof_enabling *den = dl->dl_den;
	const struct dof_laction *a, *b;
	const struct dof_agg *o;
	uint32_t i, k;

	for (i = 0; i + 1 < ag->ag_id; i++) {
		o = &den->den_aggs[i];
		if (o->ag_varid != ag->ag_varid)
			continue;
		if (o->ag_kind != ag->ag_kind || o->ag_arg != ag->ag_arg ||
		    o->ag_nkeys != ag->ag_nkeys)
			return kdt_err_set(dl->dl_err, EINVAL, "DOF_AGGMATCH",
			    from,
			    "ACTDESC at offset 0x%llx: aggregation %u (variable %u, kind 0x%x, arg 0x%llx, %u keys, %u key bytes) differs from aggregation %u of the same variable (kind 0x%x, arg 0x%llx, %u keys, %u key bytes)",
			    (dof_ull)from, ag->ag_id, ag->ag_varid,
			    ag->ag_kind, (dof_ull)ag->ag_arg, ag->ag_nkeys,
			    ag->ag_keysize, o->ag_id, o->ag_kind,
			    (dof_ull)o->ag_arg, o->ag_nkeys, o->ag_keysize);
		for (k = 0; k < ag->ag_nkeys; k++) {
			a = &den->den_ecbs[ag->ag_ecb].le_acts[ag->ag_firstkey +
			    k];
			b = &den->den_ecbs[o->ag_ecb].le_acts[o->ag_firstkey +
			    k];
			if (dof_agg_keys_alike(a, b))
				continue;
			return kdt_err_set(dl->dl_err, EINVAL, "DOF_AGGMATCH",
			    from,
			    "ACTDESC at offset 0x%llx: key %u of aggregation %u (variable %u; action kind 0x%x, %u bytes%s) differs from key %u of aggregation %u of the same variable (kind 0x%x, %u bytes%s); only stack keys may differ in size",
			    (dof_ull)from, k + 1, ag->ag_id, ag->ag_varid,
			    a->la_kind, a->la_rec_size,
			    a->la_rec_isstr ? ", string" : "", k + 1,
			    o->ag_id, b->la_kind, b->la_rec_size,
			    b->la_rec_isstr ? ", string" : "");
		}
		return 0;
	}
	return 0;
}

/* Grow den_aggs by "n" zeroed entries. */
static int
dof_agg_grow(struct dof_ld *dl, uint32_t n, uint64_t from)
{
	struct dof_enabling *den = dl->dl_den;
	struct dof_agg *na;

	na = kenv_zalloc(((uint64_t)den->den_naggs + n) * sizeof (*na));
	if (na == NULL)
		return kdt_err_set(dl->dl_err, ENOMEM, "DOF_NOMEM", from,
		    "out of memory for %u aggregations",
		    den->den_naggs + n);
	if (den->den_naggs != 0)
		memcpy(na, den->den_aggs, den->den_naggs * sizeof (*na));
	kenv_free(den->den_aggs);
	den->den_aggs = na;
	return 0;
}

/* Every aggregating action of one ECB (rules G1-G5). */
static int
dof_agg_scan(struct dof_ld *dl, struct dof_lecb *le, uint32_t ecb,
    uint64_t from)
{
	struct dof_enabling *den = dl->dl_den;
	struct dof_agg *ag;
	uint32_t i, n = 0;
	int rc;

	for (i = 0; i < le->le_nacts; i++)
		n += DTRACEACT_ISAGG(le->le_acts[i].la_kind);
	if (n == 0)
		return 0;
	if ((rc = dof_agg_grow(dl, n, from)) != 0)
		return rc;
	for (i = 0; i < le->le_nacts; i++) {
		if (!DTRACEACT_ISAGG(le->le_acts[i].la_kind))
			continue;
		ag = &den->den_aggs[den->den_naggs];
		ag->ag_id = ++den->den_naggs;
		if ((rc = dof_agg_one(dl, le, ecb, i, from, ag)) != 0 ||
		    (rc = dof_agg_match(dl, ag, from)) != 0)
			return rc;
		if (ag->ag_varid > den->den_nvarids)
			den->den_nvarids = ag->ag_varid;
	}
	return 0;
}

/* The ACTDESC array of an ECB (rule A1), then its layout. */
static int
dof_load_acts(struct dof_ld *dl, uint32_t idx, uint64_t from,
    struct dof_lecb *le)
{
	const struct dof_sec *s;
	const struct dof_actdesc *a;
	uint64_t n, i;
	int rc;

	if ((rc = dof_sect(dl, idx, DOF_SECT_ACTDESC, "ECBDESC actions", from,
	    &s)) != 0)
		return rc;
	n = s->ds_size / sizeof (*a);
	if (n > DOF_MAX_ACTIONS)
		return kdt_err_set(dl->dl_err, E2BIG, "DOF_ACT", s->ds_offset,
		    "ACTDESC section %u at offset 0x%llx: %llu actions, limit %u",
		    idx, (dof_ull)s->ds_offset, (dof_ull)n, DOF_MAX_ACTIONS);
	le->le_acts = kenv_zalloc(n * sizeof (*le->le_acts));
	if (le->le_acts == NULL)
		return kdt_err_set(dl->dl_err, ENOMEM, "DOF_NOMEM",
		    s->ds_offset, "out of memory for %llu actions",
		    (dof_ull)n);
	le->le_nacts = (uint32_t)n;
	for (i = 0; i < n; i++) {
		a = (const struct dof_actdesc *)(dl->dl_base + s->ds_offset) +
		    i;
		if ((rc = dof_load_act(dl, a, s->ds_offset + i * sizeof (*a),
		    &le->le_acts[i])) != 0)
			return rc;
	}
	if ((rc = dof_agg_scan(dl, le, (uint32_t)(le - dl->dl_den->den_ecbs),
	    s->ds_offset)) != 0)
		return rc;
	return dof_act_layout(dl, le, s->ds_offset);
}

/* One ECBDESC section (rule E1). */
static int
dof_load_ecb(struct dof_ld *dl, const struct dof_sec *s, struct dof_lecb *le)
{
	const struct dof_ecbdesc *e;
	int rc;

	e = (const struct dof_ecbdesc *)(dl->dl_base + s->ds_offset);
	le->le_uarg = e->dofe_uarg;
	if ((rc = dof_load_pdesc(dl, e->dofe_probes, s->ds_offset,
	    &le->le_pdesc)) != 0)
		return rc;
	if (e->dofe_pred != DOF_SECIDX_NONE &&
	    (rc = dof_load_difo(dl, e->dofe_pred, "ECBDESC predicate",
	    s->ds_offset, &le->le_pred)) != 0)
		return rc;
	if (e->dofe_actions != DOF_SECIDX_NONE &&
	    (rc = dof_load_acts(dl, e->dofe_actions, s->ds_offset, le)) != 0)
		return rc;
	return 0;
}

/* Every section, then options, then every ECBDESC in section order. */
/*
 * Rule G6: the variable ids are at most the number of actions.  The
 * consumer sizes its per-variable table by the largest id
 * (consumer/kc_agg.c), so an id of 0xffffffff in a hostile DOF -- or in
 * the DOF copy of a corrupt region -- asked it for a 200 GB table
 * (found by tests/fuzz/fuzz_dif, bad-aggvarid-huge).  The compiler
 * numbers variables densely from 1 as it meets their names, and every
 * name is met in some action, so real DOF never comes near the limit.
 */
static int
dof_agg_varids(struct dof_ld *dl)
{
	const struct dof_enabling *den = dl->dl_den;
	uint64_t nacts = 0;
	uint32_t i;

	for (i = 0; i < den->den_necbs; i++)
		nacts += den->den_ecbs[i].le_nacts;
	if (den->den_nvarids > nacts)
		return kdt_err_set(dl->dl_err, EINVAL, "DOF_AGGVAR",
		    KDT_ERR_NOOFF,
		    "aggregation variable id %u exceeds the enabling's %llu actions (ids are numbered from 1 per variable named)",
		    den->den_nvarids, (dof_ull)nacts);
	return 0;
}

static int
dof_load_body(struct dof_ld *dl)
{
	struct dof_enabling *den = dl->dl_den;
	const struct dof_sec *s;
	uint32_t i, n = 0;
	int rc;

	for (i = 0; i < dl->dl_secnum; i++) {
		if ((rc = dof_sec_check(dl, i)) != 0)
			return rc;
		s = dof_sec_at(dl, i);
		if (s->ds_type == DOF_SECT_ECBDESC &&
		    (s->ds_flags & DOF_SECF_LOAD))
			n++;
	}
	if ((rc = dof_load_allopts(dl)) != 0)
		return rc;
	if (n == 0)
		return 0;
	den->den_ecbs = kenv_zalloc((uint64_t)n * sizeof (*den->den_ecbs));
	if (den->den_ecbs == NULL)
		return kdt_err_set(dl->dl_err, ENOMEM, "DOF_NOMEM",
		    KDT_ERR_NOOFF, "out of memory for %u ECBs", n);
	den->den_necbs = n;
	for (i = 0, n = 0; i < dl->dl_secnum; i++) {
		s = dof_sec_at(dl, i);
		if (s->ds_type != DOF_SECT_ECBDESC ||
		    !(s->ds_flags & DOF_SECF_LOAD))
			continue;
		if ((rc = dof_load_ecb(dl, s, &den->den_ecbs[n++])) != 0)
			return rc;
	}
	return dof_agg_varids(dl);
}

/*
 * Validate and load a DOF image.  The rules, in our words (tag of the
 * error in brackets; every message carries the file offset):
 *
 * Header
 *  H1  The input holds at least the 64-byte header.  [DOF_SHORT]
 *  H2  The magic is 7f 'D' 'O' 'F'.  [DOF_MAGIC]
 *  H3  Data model ILP32 or LP64; encoding is this machine's; DOF version
 *      1 or 2; DIF version 2; at most 8 integer and 8 tuple registers;
 *      identification bytes 10..15 are zero.  [DOF_IDENT]
 *  H4  No flags; hdrsize is 64.  [DOF_HDR]
 *  H5  loadsz is at most DOF_MAX_SIZE (8 MiB).  [DOF_TOOBIG]
 *  H6  64 <= loadsz <= input length (only loadsz bytes are used and
 *      copied); filesz >= loadsz.  [DOF_SHORT, DOF_HDR]
 *  H7  secsize is a multiple of 8 and at least 32; the section table is
 *      8-aligned and lies inside loadsz.  [DOF_HDR]
 * Sections
 *  S1  A section of a loadable type (every public type except NONE,
 *      COMMENTS, SOURCE, UTSNAME) has the LOAD flag.  Sections without
 *      LOAD are otherwise ignored (they may lie past loadsz).  [DOF_SEC]
 *  S2  A loaded section's alignment is a power of two dividing its
 *      offset.  [DOF_SECALIGN]
 *  S3  A loaded section lies inside loadsz.  [DOF_SECRANGE]
 *  S4  Per type (table dof_secrules): alignment at least the type's,
 *      entry size, minimum size and size granularity; a STRTAB ends in a
 *      NUL byte.  [DOF_SEC, DOF_STRTAB]
 *  R1  A section index that one structure gives for another is below
 *      secnum and names a loaded section of the expected type.
 *      [DOF_SECIDX]
 * Options
 *  O1  OPTDESC entries are at least 16 bytes, 8-byte multiples that
 *      divide the section.  [DOF_OPT]
 *  O2  Each entry names an option below DTRACEOPT_MAX, has no string
 *      table and a value other than UNSET; later entries win.  [DOF_OPT]
 *  O3  strsize, when set, is 1..64 KiB; unset it is 256.  [DOF_OPT]
 * ECBs (every loaded ECBDESC, in section order)
 *  E1  probes names a PROBEDESC; predicate names a DIFOHDR or none;
 *      actions names an ACTDESC or none.  [DOF_SECIDX]
 *  P1  The PROBEDESC's strtab names a STRTAB.  [DOF_SECIDX]
 *  P2  Its four string offsets lie inside that STRTAB, and the names are
 *      shorter than 64 / 64 / 128 / 64 bytes.  [DOF_PROBE]
 * DIF objects
 *  D1  A DIFOHDR is a type plus at least one member index (S4).
 *  D2  Each member is a loaded DIF, STRTAB, VARTAB or INTTAB section, each
 *      type at most once.  [DOF_DIFO]
 *  D3  DIF is present; the members total at most DOF_MAX_DIFO_SIZE
 *      (256 KiB).  [DOF_DIFO]
 *  D4  The object passes dif_validate() (dif_valid.c).  [DIF_*]
 * Actions
 *  A1  At most DOF_MAX_ACTIONS (16384) per ECB.  [DOF_ACT]
 *  A2  Kind is one of table dof_actkinds (reference 3.1, 3.2: every
 *      public kind except TRACEMEM_DYNSIZE); destructive kinds are
 *      accepted here, the runner decides.  [DOF_ACT]
 *  A3  Only printf-like kinds (PRINTF, PRINTA, SYSTEM, FREOPEN) name a
 *      STRTAB; one that does has a format there: its offset lies inside
 *      the STRTAB, hence NUL-terminated there, and the format is not
 *      empty.  A PRINTF naming none is a further argument of the PRINTF
 *      before it (la_fmt NULL); a PRINTA naming none has no format.
 *      [DOF_FMT]
 *  A4  The action has a DIF object, except stack, ustack, jstack, stop,
 *      raise, breakpoint, panic, chill and count, for which it is
 *      optional.  [DOF_ACT]
 *  A5  A DIFEXPR whose format starts with "@" is print() of a struct,
 *      union, enum or array: the format is a type layout that passes
 *      dof_pt_check() (dof_ptype.h; its rules P1-P6) against the
 *      action's record size.  [DOF_PTYPE]
 * Aggregations (agg.h; each aggregating action, in ECB and action order)
 *  G1  ntuple is 1..(number of preceding actions); the tuple's actions
 *      belong to no other aggregation.  [DOF_AGGVAR]
 *  G2  tuple[0] is a DIFEXPR "setx k -> rd; ret rd" with INTTAB[k] >= 1,
 *      the variable id.  [DOF_AGGVAR]
 *  G3  For quantize, lquantize and llquantize the last tuple action is
 *      the increment (AGGARG) when its object returns a CTF type of size
 *      0 (void); every other tuple action is a key: a DIFEXPR of 1..64
 *      KiB, placed at its natural alignment in the key, the key rounded
 *      up to 8.  [DOF_AGGKEY]
 *  G4  The parameters give a non-zero agg_data_size().  [DOF_AGGPARAM]
 *  G5  Aggregations of one variable agree on kind, parameters, key count
 *      and, key by key, record size and stringness -- except that a
 *      stack, ustack or jstack key matches any of those three, of any
 *      depth (D's key type "stack"), so their key sizes may differ.
 *      [DOF_AGGMATCH]
 *  G6  No variable id exceeds the number of actions of the enabling
 *      (dof_agg_varids).  [DOF_AGGVAR]
 *  Ids are 1.. in order; aggregation actions take no record space.
 * Record layout (dof_load.h)
 *  L1  A REC action records: EXIT 4 bytes; PRINTA, SYM, MOD 8; LIBACT
 *      8, or a string result as a string (setopt);
 *      USYM, UMOD, UADDR 16; TRACEMEM arg bytes; STACK arg x 8; USTACK
 *      and JSTACK (nframes + 1) x 8 + strsize rounded up to 8 (arg =
 *      nframes | strsize << 32); SPECULATE, COMMIT, DISCARD and the
 *      destructive kinds nothing; DIFEXPR, PRINTF, SYSTEM, FREOPEN: a
 *      string result the type's size or, when 0, strsize, anything else
 *      the type's size (dif_validate has restricted scalars to 0, 1, 2,
 *      4, 8).  At most 64 KiB.  [DOF_REC]
 *  L2  Each record is aligned to the largest of 8, 4, 2, 1 dividing its
 *      size (1 for size 0); the ECB's records total at most 1 MiB.
 *      [DOF_REC]
 *  L3  le_size is the end of the last record rounded up to 8.
 */
int
dof_load(const void *buf, uint64_t len, struct dof_enabling **out,
    struct kdt_err *err)
{
	struct dof_hdr h;
	struct dof_ld dl;
	struct dof_enabling *den;
	int rc;

	*out = NULL;
	if (len < sizeof (h))
		return kdt_err_set(err, EINVAL, "DOF_SHORT", 0,
		    "DOF input of %llu bytes is shorter than the %u-byte header",
		    (dof_ull)len, (uint32_t)sizeof (h));
	memcpy(&h, buf, sizeof (h));
	if ((rc = dof_hdr_check(&h, len, err)) != 0)
		return rc;
	if ((den = kenv_zalloc(sizeof (*den))) == NULL ||
	    (den->den_dof = kenv_zalloc(h.dh_loadsz)) == NULL) {
		kenv_free(den);
		return kdt_err_set(err, ENOMEM, "DOF_NOMEM", KDT_ERR_NOOFF,
		    "out of memory for a DOF copy of 0x%llx bytes",
		    (dof_ull)h.dh_loadsz);
	}
	memcpy(den->den_dof, buf, h.dh_loadsz);
	den->den_dofsz = h.dh_loadsz;
	memset(&dl, 0, sizeof (dl));
	dl.dl_base = den->den_dof;
	dl.dl_loadsz = h.dh_loadsz;
	dl.dl_secoff = h.dh_secoff;
	dl.dl_secsize = h.dh_secsize;
	dl.dl_secnum = h.dh_secnum;
	dl.dl_den = den;
	dl.dl_err = err;
	if ((rc = dof_load_body(&dl)) != 0) {
		dof_free(den);
		return rc;
	}
	*out = den;
	return 0;
}

void
dof_free(struct dof_enabling *den)
{
	struct dof_lecb *le;
	uint32_t i, j;

	if (den == NULL)
		return;
	for (i = 0; i < den->den_necbs; i++) {
		le = &den->den_ecbs[i];
		kenv_free(le->le_pred);
		for (j = 0; j < le->le_nacts; j++)
			kenv_free(le->le_acts[j].la_difo);
		kenv_free(le->le_acts);
	}
	kenv_free(den->den_ecbs);
	kenv_free(den->den_aggs);
	kenv_free(den->den_dof);
	kenv_free(den);
}
