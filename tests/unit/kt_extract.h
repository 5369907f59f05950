/*
 * kt_extract.h -- run kdt-extract in-process with one or two arguments
 * (cd_extract_main(), crashdump/cd.h) and capture what it prints: out
 * and err are 4096-byte buffers, NUL-terminated (output past 4095 bytes
 * is cut).  The exit status is returned.  Static; include after
 * kt_check.h and crashdump/cd.h.  Used by the tests that only need
 * "kdt-extract [OPT] FILE" (test_rgn_pagelist.c, test_extract_gaps.c).
 */
#ifndef KT_EXTRACT_H
#define KT_EXTRACT_H

#include <stdio.h>
#include <string.h>

static int
kt_extract(char *out, char *err, const char *a1, const char *a2)
{
	char *argv[4] = { "kdt-extract", (char *)a1, (char *)a2, NULL };
	FILE *fo, *fe;
	int rv;

	memset(out, 0, 4096);
	memset(err, 0, 4096);
	fo = fmemopen(out, 4095, "w");
	fe = fmemopen(err, 4095, "w");
	ck_assert_ptr_nonnull(fo);
	ck_assert_ptr_nonnull(fe);
	rv = cd_extract_main(a2 != NULL ? 3 : 2, argv, fo, fe);
	fclose(fo);
	fclose(fe);
	return rv;
}

#endif /* KT_EXTRACT_H */
