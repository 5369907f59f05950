/*
 * Predicates on built-in variables and on global variables.
 * kdt-args: -q
 */
BEGIN
{
	n = 3;
}

BEGIN
/probename == "BEGIN" && n == 3/
{
	printf("matched\n");
}

BEGIN
/n > 5/
{
	printf("not matched\n");
}

BEGIN
{
	exit(0);
}
