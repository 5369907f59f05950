/*
 * -C runs the C preprocessor; -D defines a macro on the command line.
 * kdt-args: -q -C -DVAL=7
 */
#define	TWICE(x)	((x) * 2)

BEGIN
{
#ifdef VAL
	printf("%d\n", TWICE(VAL));
#else
	printf("VAL undefined\n");
#endif
	exit(0);
}
