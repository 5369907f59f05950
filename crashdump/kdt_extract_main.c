/*
 * kdt_extract_main.c -- main() of kdt-extract.  All behaviour lives in
 * cd_extract_main() (cd_extract.c) so the unit tests can run it in-process.
 */
#include <stdio.h>

#include "crashdump/cd.h"

int
main(int argc, char **argv)
{
	return cd_extract_main(argc, argv, stdout, stderr);
}
