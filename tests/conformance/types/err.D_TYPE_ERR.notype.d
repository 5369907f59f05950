/*
 * A cast to an unknown type name is an error.
 */
BEGIN
{
	x = (struct nosuchstruct *)0;
	exit(0);
}
