/*
 * A struct member declared as a function has no size, like void: dtrace
 * refuses it as a void member.
 */
struct ops {
	int count;
	int open();
};

BEGIN
{
	exit(0);
}
