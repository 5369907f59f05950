/*
 * Globbing in probe descriptions: *, ? and [...], and omitted fields.
 * kdt-args: -q
 */
dtrace:::BEG*
{
	printf("star\n");
}

::BE?IN
{
	printf("question\n");
}

dtrace:::[AB]EGIN
{
	printf("bracket\n");
}

BEGIN
{
	exit(0);
}
