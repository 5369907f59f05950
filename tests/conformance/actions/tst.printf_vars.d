/*
 * printf of variables of every scope and of subroutine results.
 * kdt-args: -q
 */
BEGIN
{
	g = 1;
	self->t = 2;
	this->c = 3;
	a["k"] = 4;
	printf("%d %d %d %d %s\n", g, self->t, this->c, a["k"],
	    strjoin("fi", "ve"));
	exit(0);
}
