/*
 * initcall.d -- the anonymous enabling of bench/run-boot-overhead's
 * "initcall" row: every module load and every initcall of the boot,
 * traced into aggregations (what toolkit/initcall-latency.d and
 * toolkit/module-load.d do, without their printf lines).
 *
 * Module mode: kdt.ko loads first in the initramfs, so "every initcall"
 * is every module's init function (do_init_module -> do_one_initcall);
 * built-in mode: also the kernel's own initcalls after kdt's.
 * load_module() is the whole load (copy, checks, relocation, linking),
 * do_init_module() the init function and what follows it.
 */
#pragma D option quiet
#pragma D option bufsize=256k

fbt::load_module:entry
{
	self->ld = timestamp;
}

fbt::load_module:return
/self->ld/
{
	@load_us[execname] = sum((timestamp - self->ld) / 1000);
	@loads = count();
	self->ld = 0;
}

fbt::do_init_module:entry
{
	self->mod = stringof(((struct module *)arg0)->name);
	self->mi = timestamp;
}

fbt::do_init_module:return
/self->mi/
{
	@init_us[self->mod] = sum((timestamp - self->mi) / 1000);
	self->mi = 0;
}

fbt::do_one_initcall:entry
{
	self->ic = timestamp;
}

fbt::do_one_initcall:return
/self->ic/
{
	@initcalls = count();
	@initcall_us = quantize((timestamp - self->ic) / 1000);
	self->ic = 0;
}
