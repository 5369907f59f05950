/*
 * kt_ksh.h -- reading a kernel symbol hints file (common/ksh.h) as
 * kdt.ko does, for the tests of the format (test_ksh.c: files built by
 * hand) and of its writer (test_an_ksym.c: the file "kdt -A" makes from
 * a fake running kernel): ksh_check() must pass, and a name must be
 * found by ksh_find() with exactly the entries expected.  Static
 * functions, marked unused: include it once per test program.
 */
#ifndef KT_KSH_H
#define KT_KSH_H

#include <stddef.h>
#include <stdint.h>

#include "kt_check.h"
#include "ksh.h"

/* "b" ("len" bytes) passes ksh_check() with "nsyms" entries; *kh. */
static __attribute__((unused)) void
kt_ksh_valid(const uint8_t *b, size_t len, uint32_t nsyms,
    struct ksh_hdr *kh)
{
	struct kdt_err ke;

	ck_assert_msg(ksh_check(b, len, &ke) == 0, "%s", ke.ke_msg);
	ksh_hdr(b, kh);
	ck_assert_uint_eq(kh->kh_nsyms, nsyms);
}

#define KT_KSH_MAXDUP	2

/* What ksh_find() must give for one name. */
struct kt_ksh_want {
	const char	*kw_name;
	uint32_t	kw_n;			/* entries; 0: absent */
	uint32_t	kw_first;		/* index of the first */
	uint32_t	kw_off[KT_KSH_MAXDUP];	/* their text offsets */
};

/*
 * Each name of w[0..nw-1] has exactly kw_n entries in "b"; when it has
 * any, the first is entry kw_first and their offsets are kw_off[].
 */
static __attribute__((unused)) void
kt_ksh_find(const uint8_t *b, const struct kt_ksh_want *w, size_t nw)
{
	struct ksh_ent e;
	uint32_t f, got, i;
	size_t k;

	for (k = 0; k < nw; k++, w++) {
		ck_assert_uint_le(w->kw_n, KT_KSH_MAXDUP);
		f = UINT32_MAX;
		got = ksh_find(b, w->kw_name, &f);
		ck_assert_msg(got == w->kw_n, "%s: %u entries, want %u",
		    w->kw_name, got, w->kw_n);
		if (got == 0)
			continue;
		ck_assert_msg(f == w->kw_first, "%s: first entry %u, want %u",
		    w->kw_name, f, w->kw_first);
		for (i = 0; i < got; i++) {
			ksh_ent(b, f + i, &e);
			ck_assert_msg(e.ke_off == w->kw_off[i],
			    "%s: entry %u at +0x%x, want +0x%x", w->kw_name,
			    f + i, e.ke_off, w->kw_off[i]);
		}
	}
}

#endif /* KT_KSH_H */
