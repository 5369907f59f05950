/*
 * After freopen(), everything the program prints goes to the new file,
 * as in dtrace: printa() and the aggregations printed at the end too,
 * not only printf() and trace().
 * kdt-args: -q -w
 */
BEGIN
{
	@a = count();
	@b = sum(5);
	printa("before %@d\n", @a);
	freopen("/dev/null");
	printf("hidden\n");
	printa("hidden %@d\n", @a);
	exit(0);
}
