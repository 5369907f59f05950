/*
 * toupper() and tolower() change letters only.
 * kdt-args: -q
 */
BEGIN
{
	printf("%s\n", toupper("Hello, World 1"));
	printf("%s\n", tolower("Hello, World 1"));
	exit(0);
}
