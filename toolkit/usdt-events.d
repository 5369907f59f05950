/*
 * usdt-events.d -- which USDT probes does a program hit, how often, and
 * when did each first and last fire?
 *
 * Programs built with <sys/sdt.h> carry their probes as .note.stapsdt
 * ELF notes; kdt reads them and arms each as a uprobe (kdt(1), "pid and
 * usdt").  This script enables every probe of one provider in one
 * process and tells, per probe, how many times it fired and at what
 * offset from the start of tracing its first and last firing came -- a
 * first look at where a daemon spends its start-up.
 *
 * systemd and udev: Debian 12 builds them without <sys/sdt.h>
 * ("readelf -n /lib/systemd/systemd /lib/systemd/systemd-udevd" shows
 * no stapsdt note), so there is nothing to trace in them there; the
 * script works on any binary that has notes, on Debian for example
 * python3 (provider "python"), libstdc++ ("libstdcxx") and the JVM
 * ("hotspot"), and on systemd or udevd wherever a distribution builds
 * them with probes.  List what a binary offers with
 * "readelf -n BINARY | grep -A2 stapsdt" or "kdt -l -c BINARY".
 *
 * User-space probes need a process, so this is a live script, not an
 * anonymous one: start the program under it, or attach to it.
 *
 * Run it:
 *	kdt -s toolkit/usdt-events.d -c 'COMMAND ARGS' PROVIDER
 *	kdt -s toolkit/usdt-events.d -p PID PROVIDER	(^C to stop)
 *
 * Output, when the process exits (or at ^C), one line per probe, in
 * increasing order of count (printa's order):
 *	<provider>:<module>:<function>:<name>  <count>  first <us> us  last <us> us
 * (times in microseconds since tracing began; <provider> carries the
 * process id, as in "kdttest1234").
 */
#pragma D option quiet

BEGIN
{
	start = timestamp;
}

$1$target:::
{
	@count[probeprov, probemod, probefunc, probename] = count();
	@first[probeprov, probemod, probefunc, probename] =
	    min((timestamp - start) / 1000);
	@last[probeprov, probemod, probefunc, probename] =
	    max((timestamp - start) / 1000);
}

END
{
	printa("%s:%s:%s:%s  %@d  first %@d us  last %@d us\n",
	    @count, @first, @last);
}
