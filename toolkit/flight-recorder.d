/*
 * flight-recorder.d -- what was each CPU doing just before the panic?
 *
 * A ring buffer per CPU (bufpolicy=ring) of small records: every system
 * call entered (by program), every context switch, every interrupt,
 * every exec, and the panic itself with its message.  A ring keeps the
 * newest records and overwrites the oldest, so whatever ran for hours
 * before, the region holds the last events of each CPU.  How many: each
 * record is about 170 bytes (strings are strsize bytes; 64 here, so
 * longer exec paths are cut), and kdt.ko gives every CPU's buffer its
 * share of the region kdt -A sizes (bufsize is the least it gives; the
 * region is rounded up to 2 MiB, so expect some 15,000 events per CPU
 * with two CPUs; -x regionsize=SIZE at kdt -A time to change it).
 *
 * Run it:
 *	kdt -A -s toolkit/flight-recorder.d	(then reboot)
 * after a panic:
 *	kdt-extract --merge DUMP		(the kdump vmcore, or the
 *						 region image kdt's kdump hook
 *						 saved; --merge: all CPUs in
 *						 time order)
 *	kdt-extract --format=perfetto DUMP > last.json	(ui.perfetto.dev)
 *
 * Output, one line per event, each CPU's oldest first:
 *	<ns> sys <syscall> <program>[<pid>]
 *	<ns> switch <program>[<pid>] -> pid <next pid>
 *	<ns> irq <n> <handler>
 *	<ns> exec <path>
 *	<ns> PANIC <message format> (<program>[<pid>])
 * The last lines of the CPU that has the PANIC line say what led to it.
 */
#pragma D option quiet
#pragma D option bufpolicy=ring
#pragma D option bufsize=64k
#pragma D option strsize=64

syscall:::entry
{
	printf("%d sys %s %s[%d]\n", timestamp, probefunc, execname, pid);
}

sched:::off-cpu
{
	printf("%d switch %s[%d] -> pid %d\n", timestamp, execname, pid,
	    (int)arg1);
}

sdt:irq::irq_handler_entry
{
	printf("%d irq %d %s\n", timestamp, (int)arg0,
	    stringof(((struct irqaction *)arg1)->name));
}

proc:::exec-success
{
	printf("%d exec %s\n", timestamp, stringof((char *)arg0));
}

fbt::panic:entry
{
	printf("%d PANIC %s (%s[%d])\n", timestamp, stringof((char *)arg0),
	    execname, pid);
}
