/*
 * Strings stored into string members of structs -- global, in memory
 * and in associative arrays -- are copied up to the strsize limit.
 * kdt-args: -q -x strsize=8
 */
struct cmd {
	string s;
	int n;
} cmds[int];

struct cmd g;

BEGIN
{
	cmds[1].s = "foobar";
	cmds[1].n = 3;
	cmds[2].s = "a much longer string";
	g.s = "xyz";
	g.s = "q";
	printf("%s %d [%s] %d %s\n", cmds[1].s, cmds[1].n, cmds[2].s,
	    strlen(cmds[2].s), g.s);
	exit(0);
}
