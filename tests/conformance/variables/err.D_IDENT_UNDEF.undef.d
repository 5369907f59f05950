/*
 * Reading a variable that is never declared or assigned is an error.
 */
BEGIN
{
	printf("%d\n", nosuchvariable);
	exit(0);
}
