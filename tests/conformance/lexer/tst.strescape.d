/*
 * Escapes inside string literals: tab, backslash, quote, hex and octal.
 * kdt-args: -q
 */
BEGIN
{
	printf("a\tb\\c\"d\x41\101\n");
	printf("[%s]\n", "x\ty");
	exit(0);
}
