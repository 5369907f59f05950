/*
 * count() accumulates over many firings.
 * kdt-args: -q
 */
tick-1ms
{
	@ticks = count();
	n++;
}

tick-1ms
/n == 25/
{
	exit(0);
}
