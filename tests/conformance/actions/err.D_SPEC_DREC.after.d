/*
 * speculate() may not follow a data-recording action.
 */
BEGIN
{
	printf("x");
	speculate(1);
}
