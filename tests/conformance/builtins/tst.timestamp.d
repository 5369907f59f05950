/*
 * timestamp is fixed during one firing and grows between firings;
 * walltimestamp is nanoseconds since the epoch (after 2023 here).
 * kdt-args: -q
 */
BEGIN
{
	t1 = timestamp;
	t2 = timestamp;
	w = walltimestamp;
}

tick-10ms
{
	printf("%d %d %d\n", t1 == t2, timestamp > t1,
	    w / 1000000000 > 1700000000);
	exit(0);
}
