/*
 * A #pragma line may appear inside a clause.
 */
BEGIN
{
#pragma D option quiet
	printf("quiet\n");
	exit(0);
}
