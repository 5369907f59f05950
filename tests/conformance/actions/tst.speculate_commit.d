/*
 * Speculative output appears only when committed.
 * kdt-args: -q
 */
BEGIN
{
	spec = speculation();
	printf("spec id %d\n", spec);
}

BEGIN
{
	speculate(spec);
	printf("speculated\n");
}

BEGIN
{
	printf("principal\n");
}

BEGIN
{
	commit(spec);
}

BEGIN
{
	exit(0);
}
