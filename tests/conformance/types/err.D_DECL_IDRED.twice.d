/*
 * Declaring one identifier twice with different types is an error.
 */
int x;
string x;

BEGIN
{
	exit(0);
}
