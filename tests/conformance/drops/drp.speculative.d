/*
 * A speculation larger than specsize: the records that do not fit are
 * speculative drops.
 * kdt-args: -q -x specsize=64 -x strsize=128
 */
BEGIN
{
	s = speculation();
}

BEGIN
{
	speculate(s);
	trace("one");
}

BEGIN
{
	speculate(s);
	trace("two");
}

BEGIN
{
	commit(s);
}

BEGIN
{
	exit(0);
}
