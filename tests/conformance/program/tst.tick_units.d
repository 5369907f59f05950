/*
 * Rates with units: tick-100ms and tick-20hz both fire.
 * kdt-args: -q
 */
tick-100ms
{
	a = 1;
}

tick-20hz
{
	b = 1;
}

tick-10ms
/a && b/
{
	exit(0);
}

END
{
	printf("%d %d\n", a, b);
}
