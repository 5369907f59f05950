/*
 * Many distinct keys across tick firings; an END summary reads them back.
 * kdt-args: -q
 */
tick-1ms
{
	n++;
	sq[n] = n * n;
}

tick-1ms
/n == 20/
{
	exit(0);
}

END
{
	printf("%d %d %d %d\n", sq[1], sq[7], sq[20], sq[21]);
}
