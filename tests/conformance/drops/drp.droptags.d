/*
 * With the droptags option every drop message starts with its tag, as
 * dtrace -x droptags prints it: here dynamic variable drops.
 * kdt-args: -q -x dynvarsize=1k -x droptags
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
