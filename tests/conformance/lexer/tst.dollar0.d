/*
 * $$0 is the name of the script as given to -s, as a string.
 * kdt-args: -q
 */
BEGIN
{
	printf("%s\n", $$0);
	exit(0);
}
