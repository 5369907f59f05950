/*
 * kt_region.h -- a real region for the crashdump/ tests (test_extract.c,
 * test_kdump.c): made by the writer (common/rgn_write.c) around a
 * hand-built one-ECB DOF (dtrace:::BEGIN { trace(int64) }), so the dump
 * readers are tested on exactly the bytes kdt.ko writes.  Static
 * functions: each test program includes it once.
 */
#ifndef KT_REGION_H
#define KT_REGION_H

#include <stdlib.h>
#include <string.h>

#include "kt_check.h"
#include "rgn.h"
#include "dof.h"
#include "dif.h"

#define KT_RSIZE	(64 * 1024)

/* ---- a one-ECB DOF: dtrace:::BEGIN { trace(int64) } ---- */

struct kt_dofimg {
	struct dof_hdr	hdr;
	struct dof_sec	sec[6];
	uint32_t	text;
	uint32_t	pad0;
	struct { struct dif_type t; uint32_t link; } difo;
	struct dof_probedesc pd;
	struct dof_actdesc ad;
	struct dof_ecbdesc ed;
	char		str[16];
};

static void
kt_sec(struct dof_sec *s, uint32_t type, uint32_t align, uint32_t entsize,
    uint64_t off, uint64_t size)
{
	s->ds_type = type;
	s->ds_align = align;
	s->ds_flags = DOF_SECF_LOAD;
	s->ds_entsize = entsize;
	s->ds_offset = off;
	s->ds_size = size;
}

static void
kt_dof(struct kt_dofimg *d)
{
	memset(d, 0, sizeof (*d));
	memcpy(d->hdr.dh_ident, "\177DOF", 4);
	d->hdr.dh_ident[DOF_ID_MODEL] = DOF_MODEL_LP64;
	d->hdr.dh_ident[DOF_ID_ENCODING] = DOF_ENCODE_NATIVE;
	d->hdr.dh_ident[DOF_ID_VERSION] = DOF_VERSION_1;
	d->hdr.dh_ident[DOF_ID_DIFVERS] = DIF_VERSION_2;
	d->hdr.dh_ident[DOF_ID_DIFIREG] = 8;
	d->hdr.dh_ident[DOF_ID_DIFTREG] = 8;
	d->hdr.dh_hdrsize = sizeof (d->hdr);
	d->hdr.dh_secsize = sizeof (struct dof_sec);
	d->hdr.dh_secnum = 6;
	d->hdr.dh_secoff = sizeof (d->hdr);
	d->hdr.dh_loadsz = d->hdr.dh_filesz = sizeof (*d);
	memcpy(d->str, "\0dtrace\0BEGIN", 14);
	kt_sec(&d->sec[0], DOF_SECT_STRTAB, 1, 0,
	    offsetof(struct kt_dofimg, str), sizeof (d->str));
	d->text = DIF_INSTR_RET(0);
	kt_sec(&d->sec[1], DOF_SECT_DIF, 4, 4,
	    offsetof(struct kt_dofimg, text), 4);
	d->difo.t.dtdt_ckind = DIF_CTF_INTEGER;
	d->difo.t.dtdt_size = 8;
	d->difo.link = 1;
	kt_sec(&d->sec[2], DOF_SECT_DIFOHDR, 4, 0,
	    offsetof(struct kt_dofimg, difo), sizeof (d->difo));
	d->pd = (struct dof_probedesc){ 0, 1, 0, 0, 8, 0 };
	kt_sec(&d->sec[3], DOF_SECT_PROBEDESC, 4, 24,
	    offsetof(struct kt_dofimg, pd), 24);
	d->ad = (struct dof_actdesc){ 2, DOF_SECIDX_NONE, DTRACEACT_DIFEXPR,
	    0, 0, 0 };
	kt_sec(&d->sec[4], DOF_SECT_ACTDESC, 8, 32,
	    offsetof(struct kt_dofimg, ad), 32);
	d->ed = (struct dof_ecbdesc){ 3, DOF_SECIDX_NONE, 4, 0, 0 };
	kt_sec(&d->sec[5], DOF_SECT_ECBDESC, 8, 0,
	    offsetof(struct kt_dofimg, ed), sizeof (d->ed));
}

/* A 2-cpu ring region at phys with the BEGIN probe as EPID 1. */
static uint8_t *
kt_region_new(uint64_t phys)
{
	static struct kt_dofimg dof;
	struct rgn_params p;
	struct kdt_err ke;
	uint8_t *b = calloc(1, KT_RSIZE);

	kt_dof(&dof);
	memset(&p, 0, sizeof (p));
	p.rp_phys = phys;
	p.rp_ncpu = 2;
	p.rp_policy = DTRACEOPT_BUFPOLICY_RING;
	p.rp_probe_cap = 4;
	p.rp_epid_cap = 4;
	p.rp_dof = &dof;
	p.rp_dofsz = sizeof (dof);
	p.rp_release = "6.1.0-kt-test";
	memcpy(p.rp_bootid, "\x01\x23\x45\x67\x89\xab\xcd\xef"
	    "\xfe\xdc\xba\x98\x76\x54\x32\x10", 16);
	ck_assert_int_eq(rgn_init(b, KT_RSIZE, &p, &ke), 0);
	ck_assert_int_eq(rgn_add_probe(b, 1, "dtrace", "", "", "BEGIN", &ke),
	    0);
	ck_assert_int_eq(rgn_add_epid(b, 1, 1, 0, 8, &ke), 0);
	return b;
}

/* Commit one record tracing "val" on "cpu" at time "ts". */
static void
kt_region_rec(uint8_t *b, uint32_t cpu, uint64_t ts, int64_t val)
{
	struct rgn_rec *rr;

	rr = rgn_reserve(rgn_cpu(b, cpu), DTRACEOPT_BUFPOLICY_RING, 8);
	ck_assert_ptr_nonnull(rr);
	memcpy(rr + 1, &val, 8);
	rgn_commit(rgn_cpu(b, cpu), rr, 1, ts);
}

#endif /* KT_REGION_H */
