/*
 * A string compares with NULL (or a char pointer) as a string, NULL
 * reading as "", and a string variable may be assigned NULL, which
 * empties it.
 * kdt-args: -q
 */
BEGIN
{
	s = "abc";
	printf("%d %d\n", s == NULL, s != NULL);
	printf("%d %d\n", strstr(s, "x") == NULL, strstr(s, "b") != NULL);
	printf("%d\n", NULL == strchr(s, 'z'));
	s = NULL;
	printf("%d %d [%s]\n", s == NULL, s == "", s);
	this->t = "x";
	this->t = NULL;
	printf("%d\n", this->t != NULL);
	printf("[%s] [%s]\n", strstr("", ""), strstr("ab", ""));
	exit(0);
}
