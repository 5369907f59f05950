/*
 * An associative array may not have a key of type void.
 */
int x[void, char];

BEGIN
{
	exit(0);
}
