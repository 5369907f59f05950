/*
 * tst.anon-bad.d -- the valid anonymous enabling tst.anon-bad corrupts
 * and misplaces: a small region (bufsize 1m) and a line per module.
 */
#pragma D option quiet
#pragma D option bufsize=1m

BEGIN
{
	printf("anon begin\n");
}

fbt::do_init_module:entry
{
	printf("init module %s\n", stringof(((struct module *)arg0)->name));
}
