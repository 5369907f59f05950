/*
 * What dtrace allows around speculate() and commit() in one clause:
 * discard() after commit() or after data-recording actions, speculate()
 * after assignments and destructive actions (they record nothing), and
 * commit() after what was recorded into the speculation.
 * kdt-args: -q -w -x nspec=3
 */
BEGIN
{
	a = speculation();
	b = speculation();
	c = speculation();
}

BEGIN
{
	speculate(a);
	printf("speculated a\n");
}

BEGIN
{
	x = 1;
	chill(1);
	speculate(b);
	printf("discarded b\n");
}

BEGIN
{
	speculate(c);
	printf("speculated c\n");
	commit(a);
}

BEGIN
{
	commit(c);
	discard(b);
}

BEGIN
{
	printf("principal\n");
	discard(b);
}

BEGIN
{
	exit(0);
}
