/*
 * driver-init.d -- follow one driver's initialisation from boot, and stop
 * the machine where it matters.
 *
 * The xor module is not loaded when this enabling starts: kdt keeps the
 * fbt:xor:... descriptions and matches them when the module arrives,
 * before its init function runs, so calibrate_xor_blocks() -- xor's
 * module_init function, gone from memory once init is over -- is traced
 * from its first instruction.  When it returns, the panic() action stops
 * the machine on the spot -- after the clause's own record is written.
 * The records and the aggregation survive the panic in the reserved
 * region, and `kdt-extract` prints them from the dump.
 *
 *	kdt -A -o DIR -s examples/driver-init.d	(destructive: see the pragma)
 */
#pragma D option destructive

BEGIN
{
	printf("waiting for the xor module");
}

fbt::do_init_module:entry
/stringof(((struct module *)arg0)->name) == "xor"/
{
	printf("xor loaded, calling its init");
}

/* Every function of xor that runs, counted; printed after the records. */
fbt:xor::entry
{
	@calls[probefunc] = count();
}

fbt:xor:calibrate_xor_blocks:entry
{
	self->t = timestamp;
	printf("calibrating");
}

fbt:xor:calibrate_xor_blocks:return
/self->t/
{
	printf("calibrated: returned %d", (int)arg1);
	panic();
}
