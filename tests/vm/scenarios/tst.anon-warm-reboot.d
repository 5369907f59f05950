/*
 * tst.anon-warm-reboot.d -- the anonymous enabling of tst.anon-warm-reboot:
 * a line per module initialised, in a small region (bufsize 1m), so that
 * each boot's records are told apart by the modules the scenario loads,
 * and a count per module as an aggregation, which a "kdt -a" that claims
 * the state snapshots every 100 ms (aggrate) and which the next boot must
 * find whole: from before the claim and after it.
 */
#pragma D option quiet
#pragma D option bufsize=1m
#pragma D option aggrate=100ms

BEGIN
{
	printf("boot begin\n");
}

fbt::do_init_module:entry
{
	printf("init module %s\n", stringof(((struct module *)arg0)->name));
	@inits[stringof(((struct module *)arg0)->name)] = count();
}
