/*
 * "dtrace:::" matches every dtrace provider probe; ERROR does not fire in
 * a program without faults.
 * kdt-args: -q
 */
dtrace:::
{
	printf("%s\n", probename);
}

BEGIN
{
	exit(0);
}
