/*
 * Integer type keywords combine in any order, as in C.
 * kdt-args: -q
 */
BEGIN
{
	printf("%d %d %d %d\n", sizeof (long long int), sizeof (int long),
	    sizeof (char unsigned), sizeof (short int));
	printf("%d %d\n", (char unsigned)257, (signed char)255);
	exit(0);
}
