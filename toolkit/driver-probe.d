/*
 * driver-probe.d -- which drivers failed to bind to which devices, and
 * with what error?
 *
 * really_probe() binds one driver to one device and returns the probe
 * routine's result: 0 bound, -EPROBE_DEFER (-517) to be retried later
 * (a resource is not ready yet), -ENODEV (-19) or -ENXIO (-6) "not my
 * device" (silent by design), anything else a real failure.
 *
 * Run it:
 *	kdt -A -s toolkit/driver-probe.d	(then reboot)
 *	kdt -ae  or  kdt-extract DUMP
 *
 * Output, one line per probe attempt:
 *	probe <driver> <device> <us> us ret <value>
 * then the aggregations: attempts by driver and result, and the time
 * spent probing per driver in microseconds.
 */
#pragma D option quiet
#pragma D option bufsize=1m

fbt::really_probe:entry
{
	self->dp_ts = timestamp;
	self->dp_drv = stringof(((struct device_driver *)arg1)->name);
	self->dp_dev = stringof(((struct device *)arg0)->kobj.name);
	printf("probe-start %s %s\n", self->dp_drv, self->dp_dev);
}

fbt::really_probe:return
/self->dp_ts/
{
	this->us = (timestamp - self->dp_ts) / 1000;
	printf("probe %s %s %d us ret %d\n", self->dp_drv, self->dp_dev,
	    this->us, (int)arg1);
	@probe_results[self->dp_drv, (int)arg1] = count();
	@probe_us[self->dp_drv] = sum(this->us);
	self->dp_ts = 0;
}
