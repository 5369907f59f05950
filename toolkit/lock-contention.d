/*
 * lock-contention.d -- which locks are fought over during boot, by whom,
 * and for how long?
 *
 * lockstat:::contention-begin fires when a task starts waiting for a
 * lock someone else holds (arg0 the lock's address, arg1 the LCB_F_*
 * kind: 0x1 spin, 0x2 read, 0x4 write, 0x8 rt, 0x10 percpu, 0x20 mutex),
 * contention-end when it got the lock (arg1 0, or an error for an
 * interrupted wait).  Uncontended acquisitions cost nothing here.
 *
 * Run it:
 *	kdt -A -s toolkit/lock-contention.d	(then reboot)
 *	kdt -ae  or  kdt-extract DUMP		(--format=perfetto: one slice
 *						 per wait)
 *
 * Output, one line per wait longer than 10 us:
 *	wait <us> us on lock <address> kind <flags> by <program>
 * then the aggregations: waits by lock kind and program, total wait in
 * ns by lock address, and the distribution of waits in ns.
 */
#pragma D option quiet
#pragma D option bufsize=1m

lockstat:::contention-begin
{
	self->lc_ts = timestamp;
	self->lc_kind = arg1;
}

lockstat:::contention-end
/self->lc_ts/
{
	this->ns = timestamp - self->lc_ts;
	@waits[self->lc_kind, execname] = count();
	@wait_ns_by_lock[arg0] = sum(this->ns);
	@wait_ns = quantize(this->ns);
	self->lc_ts = 0;
}

lockstat:::contention-end
/this->ns > 10000/
{
	printf("wait %d us on lock %p kind %x by %s\n", this->ns / 1000, arg0,
	    self->lc_kind, execname);
}
