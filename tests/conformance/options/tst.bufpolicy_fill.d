/*
 * With the fill policy output is as usual while the buffer has room.
 * kdt-args: -q -x bufpolicy=fill
 */
BEGIN
{
	printf("fill\n");
	exit(0);
}
