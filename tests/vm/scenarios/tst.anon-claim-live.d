/*
 * tst.anon-claim-live.d -- the anonymous enabling of tst.anon-claim-live:
 * one line per module initialised (those /init loads before "kdt -a"
 * claims the state and those the scenario loads after), a count per
 * module kept as an aggregation, exit(3) when xor is initialised, and an
 * END line: every ending of "kdt -a" shows in its output.
 */
#pragma D option quiet

BEGIN
{
	printf("anon begin\n");
}

fbt::do_init_module:entry
{
	printf("init module %s\n", stringof(((struct module *)arg0)->name));
	@inits[stringof(((struct module *)arg0)->name)] = count();
}

fbt::do_init_module:entry
/stringof(((struct module *)arg0)->name) == "xor"/
{
	exit(3);
}

END
{
	printf("anon end\n");
}
