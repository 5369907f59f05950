/*
 * module-load.d -- how long does each module take to load, and which
 * loads fail?
 *
 * load_module() reads, checks, relocates and links a module's image
 * (finit_module/init_module); do_init_module() then runs its init
 * function.  For each module: both times, and the error of a load or an
 * init that failed (a module refused by signature checks, a missing
 * symbol, an init that returned an error).
 *
 * Run it:
 *	kdt -A -s toolkit/module-load.d		(then reboot)
 *	kdt -ae  or  kdt-extract DUMP		(--format=perfetto: one slice
 *						 per module init, named by it)
 *
 * Output, one line per event:
 *	module-init-start <name>
 *	module <name> init <us> us ret <value>	(ret 0: loaded)
 *	module-load-failed error <errno> after <us> us by <program>
 *				(load_module() failed before the module had
 *				 a name; <program> is insmod, modprobe, ...)
 * then the aggregations: init time in microseconds per module, and
 * failed loads counted by error (negative errno: -2 ENOENT, -8 ENOEXEC
 * bad image, -17 EEXIST already loaded, -22 EINVAL, -61 ENODATA).
 */
#pragma D option quiet
#pragma D option bufsize=1m

fbt::load_module:entry
{
	self->ml_load = timestamp;
}

fbt::load_module:return
/self->ml_load && (int)arg1 < 0/
{
	printf("module-load-failed error %d after %d us by %s\n", (int)arg1,
	    (timestamp - self->ml_load) / 1000, execname);
	@module_load_errors[(int)arg1] = count();
}

fbt::load_module:return
{
	self->ml_load = 0;
}

fbt::do_init_module:entry
{
	self->ml_name = stringof(((struct module *)arg0)->name);
	self->ml_init = timestamp;
	printf("module-init-start %s\n", self->ml_name);
}

fbt::do_init_module:return
/self->ml_init/
{
	this->us = (timestamp - self->ml_init) / 1000;
	printf("module %s init %d us ret %d\n", self->ml_name, this->us,
	    (int)arg1);
	@module_init_us[self->ml_name] = sum(this->us);
	self->ml_init = 0;
}
