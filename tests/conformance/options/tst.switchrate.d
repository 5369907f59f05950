/*
 * A fast switchrate keeps output flowing while ticks fire.
 * kdt-args: -q -x switchrate=100hz
 */
tick-10ms
{
	n++;
	printf("%d\n", n);
}

tick-10ms
/n == 3/
{
	exit(0);
}
