/*
 * More associative-array elements than fit in a 1 KiB dynamic variable
 * area: the stores that do not fit are dropped and reported.
 * kdt-args: -q -x dynvarsize=1k
 */
tick-1ms
{
	n++;
	a[n] = n;
}

tick-1ms
/n == 200/
{
	exit(0);
}
