/*
 * Discarded speculative output never appears.
 * kdt-args: -q
 */
BEGIN
{
	spec = speculation();
}

BEGIN
{
	speculate(spec);
	printf("discarded\n");
}

BEGIN
{
	discard(spec);
	printf("kept\n");
	exit(0);
}
