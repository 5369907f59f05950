/*
 * stack(), ustack() and jstack() keys of any depth have one D type,
 * "stack", so one aggregation may take all of them although their records
 * differ in size.  Keys of one depth from different statements merge (the
 * two @k[stack(), 1]); keys of different depths are different entries.
 * As in dtrace, entries of equal value sort by key, and of two stack keys
 * of different sizes the smaller comes first: stack(3) (3 frames), stack()
 * (20), ustack() (pid and 20 frames), jstack() (pid, frames and a string
 * area).  The userspace engine has no stacks to walk, so every stack
 * prints empty (a blank line) and the int key tells the entries apart;
 * printa() with a format joins two such aggregations by key.
 * kdt-args: -q
 */
BEGIN
{
	@k[stack(), 1] = count();
	@k[ustack(), 2] = count();
	@k[stack(3), 3] = count();
	@k[jstack(), 4] = count();
	@k[stack(), 1] = count();
	@k[stack(), 5] = count();
	@s[stack(3), 3] = sum(30);
	@s[ustack(), 2] = sum(20);
	@s[stack(), 1] = sum(10);
	exit(0);
}

END
{
	printa(@k);
	setopt("aggsortkey");
	printa("%k%d: %@d %@d\n", @k, @s);
}
