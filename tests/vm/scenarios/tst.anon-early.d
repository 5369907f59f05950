/*
 * tst.anon-early.d -- how early module mode starts: BEGIN's timestamp
 * (the enabling's first record) and every module initialisation after
 * it, with its timestamp (ns of the monotonic clock, i.e. since boot).
 */
#pragma D option quiet
#pragma D option bufsize=1m

BEGIN
{
	printf("begin %d\n", timestamp);
}

fbt::do_init_module:entry
{
	printf("module %d %s\n", timestamp,
	    stringof(((struct module *)arg0)->name));
}
