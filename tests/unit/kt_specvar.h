/*
 * kt_specvar.h -- the region-backed state the speculation and variable
 * tests share (test_rgn_specvar.c, test_export_specvar.c): a D program
 * compiled with dc_compile(), a region written by rgn_write.c with a
 * speculation area and a variable area, and the runner's speculations
 * and variable state moved there exactly as kdt.ko does for a
 * region-backed state (kmod/kd_cs.c, kd_specvar_place: spec_create_in,
 * dif_vstate_init, rgn_set_dvar); BEGIN is fired by hand.  Static
 * functions: include it once per test program, after kt_check.h and the
 * headers of compiler/, consumer/ and common/ it uses.
 *
 * Speculation 1 is left uncommitted, 2 is discarded, 3 committed; the
 * variables: two global scalars (an int, a string), a thread-local, an
 * associative array with a two-part key and one with a string value.
 */
#ifndef KT_SPECVAR_H
#define KT_SPECVAR_H

static const char ts_src[] =
    "#pragma D option quiet\n"
    "#pragma D option nspec=4\n"
    "#pragma D option specsize=512\n"
    "#pragma D option dynvarsize=4k\n"
    "int g; string s;\n"
    "BEGIN { g = 42; s = \"hello\"; self->t = 7; a[\"foo\", 3] = 9;\n"
    "    a[\"bar\", -1] = 11; b[5] = \"five\"; }\n"
    "BEGIN { k = speculation(); }\n"
    "BEGIN { speculate(k); printf(\"kept %d\\n\", 5); }\n"
    "BEGIN { d = speculation(); }\n"
    "BEGIN { speculate(d); printf(\"gone %d\\n\", 6); }\n"
    "BEGIN { discard(d); }\n"
    "BEGIN { c = speculation(); }\n"
    "BEGIN { speculate(c); printf(\"committed %d\\n\", 7); }\n"
    "BEGIN { commit(c); }\n"
    "BEGIN { printf(\"principal\\n\"); }\n";

#define TS_PHYS		0x10000000ULL	/* where the region "was" */

struct ts {
	struct dc_out	t_out;
	struct dof_enabling *t_den;
	struct ecb_state *t_es;
	uint8_t		*t_rgn;
	uint64_t	t_size;		/* rgn_size_for(): the smallest */
	struct ecb_probe t_probe;
	struct ecb_ref	t_refs[32];
};

static void
ts_setup(struct ts *t, const char *src)
{
	struct dc_opts opts;
	struct ecb_params p;
	struct rgn_params rp;
	struct spec_state *ss;
	struct kdt_err ke;
	uint64_t len, dynoff;
	uint32_t i;
	void *area;

	memset(t, 0, sizeof (*t));
	memset(&opts, 0, sizeof (opts));
	opts.dco_btf = "build/kernel/vmlinux";
	ck_assert_msg(dc_compile(src, strlen(src), "t.d", &opts,
	    &t->t_out) == 0, "%s", t->t_out.dco_diag);
	ck_assert_int_eq(dof_load(t->t_out.dco_dof, t->t_out.dco_dofsz,
	    &t->t_den, &ke), 0);
	ecb_params_init(&p, t->t_den, 1);
	p.ep_policy = DTRACEOPT_BUFPOLICY_FILL;
	p.ep_user = 1;

	memset(&rp, 0, sizeof (rp));
	rp.rp_phys = TS_PHYS;
	rp.rp_ncpu = 1;
	rp.rp_policy = DTRACEOPT_BUFPOLICY_FILL;
	rp.rp_probe_cap = 8;
	rp.rp_epid_cap = 32;
	rp.rp_flags = RGN_F_ANON;
	rp.rp_specarea = spec_area_size(p.ep_nspec, 1, p.ep_specsize);
	rp.rp_vararea = dif_vstate_size(t->t_den, p.ep_dynvarsize);
	ck_assert_uint_ne(rp.rp_specarea, 0);
	ck_assert_uint_ne(rp.rp_vararea, 0);
	rp.rp_dof = t->t_den->den_dof;
	rp.rp_dofsz = t->t_den->den_dofsz;
	t->t_size = rgn_size_for(&rp, 4096);
	t->t_rgn = aligned_alloc(4096, t->t_size);
	ck_assert_ptr_nonnull(t->t_rgn);
	memset(t->t_rgn, 0, t->t_size);
	ck_assert_int_eq(rgn_init(t->t_rgn, t->t_size, &rp, &ke), 0);
	ck_assert_int_eq(rgn_add_probe(t->t_rgn, 1, "dtrace", "", "",
	    "BEGIN", &ke), 0);
	ck_assert_uint_le(t->t_den->den_necbs, 32);
	for (i = 0; i < t->t_den->den_necbs; i++) {
		ck_assert_int_eq(rgn_add_epid(t->t_rgn, i + 1, 1, i,
		    t->t_den->den_ecbs[i].le_size, &ke), 0);
		t->t_refs[i].er_ecb = i;
		t->t_refs[i].er_epid = i + 1;
	}
	t->t_probe.ep_id = 1;
	t->t_probe.ep_kind = ECB_PK_BEGIN;
	t->t_probe.ep_prov = "dtrace";
	t->t_probe.ep_mod = "";
	t->t_probe.ep_func = "";
	t->t_probe.ep_name = "BEGIN";
	t->t_probe.ep_ecbs = t->t_refs;
	t->t_probe.ep_necbs = t->t_den->den_necbs;

	ck_assert_int_eq(ecb_create(t->t_den, &p, &t->t_es, &ke), 0);
	/* kd_specvar_place(), as kdt.ko does it */
	area = rgn_spec_area(t->t_rgn, &len);
	ck_assert_ptr_nonnull(area);
	ck_assert_int_eq(spec_create_in(&ss, p.ep_nspec, 1, p.ep_specsize,
	    area, len, &ke), 0);
	spec_destroy(t->t_es->es_spec);
	t->t_es->es_spec = ss;
	area = rgn_var_area(t->t_rgn, &len);
	ck_assert_ptr_nonnull(area);
	ck_assert_int_eq(dif_vstate_init(&t->t_es->es_vstate, area, len,
	    t->t_den, &ke), 0);
	free(t->t_es->es_varea);
	t->t_es->es_varea = NULL;
	dynoff = dif_vstate_dynoff(&t->t_es->es_vstate);
	ck_assert_uint_ne(dynoff, 0);
	rgn_set_dvar(t->t_rgn, dynoff, len - dynoff);
	ecb_set_region(t->t_es, t->t_rgn);
	kc_env_clear_readable();
	ck_assert_int_eq(kc_env_add_readable(t, sizeof (*t)), 0);
	ecb_fire(t->t_es, &t->t_probe, 0, NULL, 1000);
}

static void
ts_free(struct ts *t)
{
	kc_env_clear_readable();
	ecb_destroy(t->t_es);
	dof_free(t->t_den);
	dc_out_free(&t->t_out);
	free(t->t_rgn);
}

#endif /* KT_SPECVAR_H */
