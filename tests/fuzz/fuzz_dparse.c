/*
 * fuzz_dparse.c -- libFuzzer target: the D compiler (compiler/dc.h) on
 * arbitrary source text.  Every input either compiles or fails with
 * exactly one diagnostic "file:line:col: [D_TAG] message"; a compiled
 * program's DOF must pass our own loader (dof_load), since kdt.ko will
 * refuse anything else.  Kernel types (BTF) are not loaded: a path that
 * does not exist makes every kernel type a D_BTF_LOAD diagnostic, which
 * keeps an execution in the microseconds.
 */
#include "kf.h"
#include "compiler/dc.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const argv[] = { "fuzz.d", "1", "foo", NULL };
	struct dof_enabling *den;
	struct dc_opts o;
	struct dc_out out;
	struct kdt_err ke;
	char *src = kf_copy(data, size);

	memset(&o, 0, sizeof (o));
	memset(&out, 0, sizeof (out));
	o.dco_btf = "/nonexistent/kdt-fuzz-btf";
	o.dco_argv = argv;
	o.dco_argc = 3;
	if (dc_compile(src, size, "fuzz.d", &o, &out) == 0) {
		if (dof_load(out.dco_dof, out.dco_dofsz, &den, &ke) != 0) {
			fprintf(stderr, "compiled DOF rejected: %s\n",
			    ke.ke_msg);
			abort();
		}
		dof_free(den);
	} else if (out.dco_diag[0] == '\0' || out.dco_tag == NULL) {
		abort();	/* a failure must say why, with a tag */
	}
	dc_out_free(&out);
	free(src);
	return 0;
}
