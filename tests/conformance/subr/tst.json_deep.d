/*
 * json() follows and skips nesting up to 512 open objects or arrays
 * (DIF_JSON_MAXDEPTH in common/dif_subr.c); a deeper document is NULL
 * (printing NULL with %s faults, which ERROR reports), never a fault of
 * json() itself or a deep recursion.  The documents, over 1000 bytes, are
 * built with strjoin() in global strings.
 * kdt-args: -q -x strsize=2048
 */
BEGIN
{
	o = "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[";
	o = strjoin(o, o);
	o = strjoin(o, o);
	o = strjoin(o, o);
}

BEGIN
{
	c = "]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]";
	c = strjoin(c, c);
	c = strjoin(c, c);
	c = strjoin(c, c);
}

BEGIN
{
	s = "[0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0]";
	s = strjoin(s, s);
	s = strjoin(s, s);
	s = strjoin(s, s);
}

BEGIN
{
	s = strjoin(s, s);
	s = strjoin(s, s);	/* 512 steps of "[0]" */
	d = strjoin(o, strjoin("7", c));	/* 512 arrays around 7 */
}

BEGIN
{
	e = strjoin("[", strjoin(d, "]"));	/* 513 */
	i = json(d, "[0]");			/* 511 */
}

BEGIN { printf("depth 512: [%s]\n", json(d, s)); }
BEGIN { printf("depth 511 inside 512: %d bytes\n", strlen(i)); }
BEGIN { printf("skipped, depth 512: [%s]\n",
	    json(strjoin("{\"a\": ", strjoin(i, ", \"x\": 5}")), "x")); }
BEGIN { printf("skipped, depth 513: [%s]\n",
	    json(strjoin("{\"a\": ", strjoin(d, ", \"x\": 5}")), "x")); }
BEGIN { printf("depth 513: [%s]\n", json(e, "[0]")); }
BEGIN { exit(0); }

ERROR
{
	printf("NULL in clause %d (fault %d, address %d)\n", arg1, arg4,
	    arg5);
}
