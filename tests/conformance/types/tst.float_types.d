/*
 * float, double and long double can be declared, typedef'd and measured
 * (D has no floating-point arithmetic); printf's %e %f %g print them.
 * kdt-args: -q
 */
typedef double dbl_t;
float f;
dbl_t d;
long double ld;

BEGIN
{
	printf("%d %d %d %d\n", sizeof (float), sizeof (double),
	    sizeof (long double), sizeof (dbl_t));
	printf("%f %e %g\n", f, d, f);
	exit(0);
}
