/*
 * %S and %C print strings and characters with C escapes.  %S escapes
 * the whole string record, as dtrace does: the NULs after the string up
 * to strsize print as \0 each (strsize 8 here keeps the line short).
 * kdt-args: -q
 */
#pragma D option strsize=8

BEGIN
{
	printf("%S|%C\n", "a\tb\n", '\n');
	printf("%S|\n", "abcdefg");
	exit(0);
}
