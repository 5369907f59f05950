/*
 * Members of an anonymous struct or union inside a struct are reached
 * as members of the enclosing struct, at their offsets in it.
 * kdt-args: -q
 */
struct rec {
	int	id;
	union {
		int	word;
		char	byte;
	};
	struct {
		short	lo;
		short	hi;
	};
};

BEGIN
{
	printf("%d %d %d %d\n", offsetof(struct rec, word),
	    offsetof(struct rec, byte), offsetof(struct rec, hi),
	    sizeof (struct rec));
	exit(0);
}
