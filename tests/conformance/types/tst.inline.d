/*
 * inline declares named constants of integer and string type.
 * kdt-args: -q
 */
inline int LIMIT = 10;
inline string NAME = "kdt";

BEGIN
{
	printf("%d %s\n", LIMIT * 2, NAME);
	exit(0);
}
