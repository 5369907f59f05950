/*
 * stddev() of 2, 4, 4, 4, 5, 5, 7, 9 (mean 5, variance 4) is 2.
 * kdt-args: -q
 */
BEGIN
{
	@ = stddev(2);
	@ = stddev(4);
	@ = stddev(4);
	@ = stddev(4);
	@ = stddev(5);
	@ = stddev(5);
	@ = stddev(7);
	@ = stddev(9);
	exit(0);
}
