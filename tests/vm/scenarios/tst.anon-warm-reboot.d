/*
 * tst.anon-warm-reboot.d -- the anonymous enabling of tst.anon-warm-reboot:
 * a line per module initialised, in a small region (bufsize 1m), so that
 * each boot's records are told apart by the modules the scenario loads.
 */
#pragma D option quiet
#pragma D option bufsize=1m

BEGIN
{
	printf("boot begin\n");
}

fbt::do_init_module:entry
{
	printf("init module %s\n", stringof(((struct module *)arg0)->name));
}
