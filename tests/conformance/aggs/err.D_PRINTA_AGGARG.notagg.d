/*
 * printa() takes aggregations.
 */
BEGIN
{
	printa(1);
	exit(0);
}
