/*
 * initcall-latency.d -- which initcalls make boot slow, and which fail?
 *
 * Every call of do_one_initcall(): the built-in initcalls when kdt is
 * built into the kernel (built-in mode), every module's init function
 * in module mode (kdt.ko loads first in the initramfs, so every module
 * after it; a module without an init function, such as a table like
 * crc7, has no initcall).  For each: the module it belongs to ("-" for built-in
 * code), the init function, how long it ran and what it returned.
 *
 * Run it:
 *	kdt -A -s toolkit/initcall-latency.d	(then reboot)
 *	kdt -ae					(after boot), or
 *	kdt-extract /var/crash/.../vmcore	(after a panic)
 * and, for a picture, kdt -ae --format=perfetto > boot.json (one slice
 * per initcall in ui.perfetto.dev) or --format=html > boot.html.
 *
 * Output: one line per initcall as it returns,
 *	initcall <module> <function> <us> us ret <value>
 * where <function> is module`symbol when kdt knows the kernel's symbols
 * and the address otherwise, and a non-zero ret is the initcall's
 * error (-19 is -ENODEV: no such device, usually harmless).  At the end,
 * the aggregations: microseconds per module, then the distribution of
 * initcall times in microseconds.
 */
#pragma D option quiet
#pragma D option bufsize=1m

fbt::do_init_module:entry
{
	self->ic_mod = stringof(((struct module *)arg0)->name);
	self->ic_inmod = 1;
}

fbt::do_init_module:return
{
	self->ic_inmod = 0;
}

fbt::do_one_initcall:entry
{
	self->ic_ts = timestamp;
	self->ic_fn = arg0;
	printf("initcall-start %s %a\n",
	    self->ic_inmod ? self->ic_mod : "-", arg0);
}

fbt::do_one_initcall:return
/self->ic_ts/
{
	this->us = (timestamp - self->ic_ts) / 1000;
	printf("initcall %s %a %d us ret %d\n",
	    self->ic_inmod ? self->ic_mod : "-", self->ic_fn, this->us,
	    (int)arg1);
	@initcall_us[self->ic_inmod ? self->ic_mod : "-"] = sum(this->us);
	@initcall_dist = quantize(this->us);
	self->ic_ts = 0;
}
