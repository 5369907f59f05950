/*
 * tick-N fires repeatedly; a counter decides when to stop.
 * kdt-args: -q
 */
tick-10ms
{
	n++;
}

tick-10ms
/n == 3/
{
	printf("ticked %d times\n", n);
	exit(0);
}
