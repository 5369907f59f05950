/*
 * The DTRACEFLT_* fault codes are predefined int names, equal to what
 * the ERROR probe's arg4 says, even under "nolibs".
 * kdt-args: -q
 */
#pragma D option nolibs

BEGIN
{
	printf("%d %d %d %d %d %d %d %d %d %d %d\n", DTRACEFLT_UNKNOWN,
	    DTRACEFLT_BADADDR, DTRACEFLT_BADALIGN, DTRACEFLT_ILLOP,
	    DTRACEFLT_DIVZERO, DTRACEFLT_NOSCRATCH, DTRACEFLT_KPRIV,
	    DTRACEFLT_UPRIV, DTRACEFLT_TUPOFLOW, DTRACEFLT_BADSTACK,
	    DTRACEFLT_LIBRARY);
}

BEGIN
{
	x = 0;
	y = 1 / x;
}

ERROR
/arg4 == DTRACEFLT_DIVZERO/
{
	printf("divide-by-zero is DTRACEFLT_DIVZERO (%d)\n", arg4);
	exit(0);
}

ERROR
/arg4 != DTRACEFLT_DIVZERO/
{
	exit(1);
}
