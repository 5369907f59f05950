/*
 * kt_check.h -- the one main() every unit test program shares.
 *
 * Each tests/unit/test_*.c is a standalone libcheck program.  It defines a
 * function returning a Suite and ends with KT_MAIN(that_function).  The
 * generated main() runs the suite with CK_NORMAL output, which prints the
 * summary line "N%: Checks: X, Failures: F, Errors: E" followed by one line
 * per failed check; tests/run-tests parses exactly that.  The exit status is
 * 0 when every check passed and 1 otherwise.
 *
 * CK_FORK is left at libcheck's default (fork per test, overridable with the
 * CK_FORK environment variable), so a crashing test is reported as an error
 * of that test and the suite carries on.
 */
#ifndef KT_CHECK_H
#define KT_CHECK_H

#include <stdlib.h>
#include <check.h>

#define KT_MAIN(suite_fn)						\
int									\
main(void)								\
{									\
	SRunner *kt_sr;							\
	int kt_failed;							\
									\
	kt_sr = srunner_create((suite_fn)());				\
	srunner_run_all(kt_sr, CK_NORMAL);				\
	kt_failed = srunner_ntests_failed(kt_sr);			\
	srunner_free(kt_sr);						\
	return kt_failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;		\
}

#endif /* KT_CHECK_H */
