/*
 * Quiet runs print no notice: stderr stays empty.
 * kdt-args: -q
 */
BEGIN
{
	printf("quiet\n");
	exit(0);
}
