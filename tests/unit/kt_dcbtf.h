/*
 * kt_dcbtf.h -- compiling D against a BTF file in the compiler's unit
 * tests (test_compiler_btf.c: the pinned kernel's BTF;
 * test_compiler_btfmods.c: a synthetic vmlinux with module splits):
 * compile, expect success, or expect one tagged diagnostic.  Static
 * functions; each test program includes it once.
 */
#ifndef KT_DCBTF_H
#define KT_DCBTF_H

#include <string.h>

#include "kt_check.h"
#include "compiler/dc.h"

/* dc_compile() of "src" with "btf" as its BTF (dco_btf). */
static int
kt_dc_compile(const char *btf, const char *src, struct dc_out *o)
{
	struct dc_opts opts;

	memset(&opts, 0, sizeof (opts));
	opts.dco_btf = btf;
	return dc_compile(src, strlen(src), "t.d", &opts, o);
}

/* "src" compiles. */
static __attribute__((unused)) void
kt_dc_ok(const char *btf, const char *src)
{
	struct dc_out o;

	ck_assert_msg(kt_dc_compile(btf, src, &o) == 0, "%s: %s", src,
	    o.dco_diag);
	dc_out_free(&o);
}

/* "src" fails with "tag" and a message containing "msg". */
static __attribute__((unused)) void
kt_dc_fails(const char *btf, const char *src, const char *tag,
    const char *msg)
{
	struct dc_out o;

	ck_assert_msg(kt_dc_compile(btf, src, &o) != 0, "%s compiled", src);
	ck_assert_msg(o.dco_tag != NULL && strcmp(o.dco_tag, tag) == 0,
	    "%s: %s, not %s", src, o.dco_diag, tag);
	ck_assert_msg(strstr(o.dco_msg, msg) != NULL, "%s: %s", src,
	    o.dco_msg);
	dc_out_free(&o);
}

#endif /* KT_DCBTF_H */
