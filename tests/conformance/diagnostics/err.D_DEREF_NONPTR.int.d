/*
 * Only pointers can be dereferenced.
 */
BEGIN
{
	x = 1;
	y = *x;
}
