/*
 * A D array takes one index, not an associative array tuple.
 */
int x[5];

BEGIN
{
	x[1, 2] = 1;
}
