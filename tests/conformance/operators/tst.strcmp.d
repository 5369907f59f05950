/*
 * Relational operators on strings compare their contents.
 * kdt-args: -q
 */
BEGIN
{
	s = "hello";
	printf("%d %d %d\n", "abc" < "abd", "abc" == "abc", s != "world");
	printf("%d %d %d\n", "b" > "abc", "" < "a", s == "hello");
	printf("%d %d\n", "abc" >= "abc", "abc" <= "ab");
	exit(0);
}
