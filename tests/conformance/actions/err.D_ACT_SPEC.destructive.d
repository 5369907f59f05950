/*
 * No destructive action after speculate().
 * kdt-args: -w
 */
BEGIN
{
	speculate(1);
	chill(1);
}
