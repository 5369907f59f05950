/*
 * A union overlays its members (x86-64 is little-endian).
 * kdt-args: -q
 */
union u {
	int	i;
	char	c[4];
};

BEGIN
{
	this->u = (union u *)alloca(sizeof (union u));
	this->u->i = 0x41424344;
	printf("%c%c %d\n", this->u->c[0], this->u->c[3], sizeof (union u));
	exit(0);
}
