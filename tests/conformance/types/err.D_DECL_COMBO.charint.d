/*
 * "char int" names two integer types at once.
 */
BEGIN
{
	trace((char int)1);
	exit(0);
}
