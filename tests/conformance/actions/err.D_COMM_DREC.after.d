/*
 * commit() may not follow a data-recording action.
 */
BEGIN
{
	printf("x");
	commit(1);
}
