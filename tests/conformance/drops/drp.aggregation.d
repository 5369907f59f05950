/*
 * More aggregation keys than fit in a 1 KiB aggregation buffer: the
 * updates that do not fit are aggregation drops.
 * kdt-args: -q -x aggsize=1k
 */
tick-1ms
{
	n++;
	@a[n] = count();
}

tick-1ms
/n == 200/
{
	exit(0);
}
