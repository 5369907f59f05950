/*
 * stringof() turns a char pointer into a D string.
 * kdt-args: -q
 */
BEGIN
{
	p = (char *)alloca(4);
	p[0] = 'h';
	p[1] = 'i';
	p[2] = '\0';
	s = stringof(p);
	printf("%s %d\n", s, strlen(s));
	exit(0);
}
