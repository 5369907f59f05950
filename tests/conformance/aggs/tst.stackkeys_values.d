/*
 * One aggregation keyed by stack(), ustack(), stack(3) and ustack(5): the
 * loader accepts key records of different sizes for one variable when
 * they are stacks, the aggregation buffer keeps each statement's key
 * size, and the consumer merges and sorts the entries.  The format prints
 * only the values (in value order), so the output is the same on kdt.ko,
 * where BEGIN has real stacks, as on the userspace engine.  jstack() is
 * a ustack() of jstackframes (50) frames on Linux: a key size of its own.
 * kdt-args: -q
 */
BEGIN
{
	@s[stack()] = count();
	@s[stack()] = count();
	@s[stack()] = count();
	@s[ustack()] = count();
	@s[ustack()] = count();
	@s[stack(3)] = count();
	@s[ustack(5)] = count();
	@s[ustack(5)] = count();
	@s[ustack(5)] = count();
	@s[ustack(5)] = count();
	@s[jstack()] = count();
	@s[jstack()] = count();
	@s[jstack()] = count();
	@s[jstack()] = count();
	@s[jstack()] = count();
	exit(0);
}

END
{
	printa("%@d\n", @s);
}
