/*
 * A string of exactly strsize characters is kept whole, as dtrace keeps
 * it: in a global, a thread-local, an associative array, a clause-local,
 * a record and an aggregation key; assigned to itself; returned whole by
 * substr() and toupper(); one character more is cut.  strjoin() of
 * strsize characters is out of scratch, as in dtrace.
 * kdt-args: -q -x strsize=16
 */
BEGIN
{
	g = "0123456789abcdef";
	self->t = "ABCDEFGHIJKLMNOP";
	a["k"] = "0123456789abcdefXYZ";
	this->l = "fedcba9876543210";
	printf("|%s|%s|%s|%s|\n", g, self->t, a["k"], this->l);
	printf("%d %d %d\n", strlen(g), strlen(a["k"]), g == "0123456789abcdef");
	g = g;
	printf("|%s|\n", g);
	printf("|%s|%s|%s|\n", substr("0123456789abcdefgh", 0), substr(g, 2),
	    toupper(g));
	@c[g] = count();
	trace(g);
	printf("\n");
}

BEGIN
{
	trace(strjoin("01234567", "89abcdef"));
}

ERROR
{
	printf("strjoin: fault %d\n", arg4);
	exit(0);
}
