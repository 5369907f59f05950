/*
 * setopt() of switchrate and aggrate takes effect at run time, as in
 * dtrace: while both are 1ms each printa() is printed right after its
 * firing with the count so far; once switchrate is 10sec the records
 * wait in the buffer until the end, where the last snapshot is what
 * every waiting printa() shows.
 * kdt-args: -q
 */
#pragma D option switchrate=1ms
#pragma D option aggrate=1ms

tick-50ms
{
	i++;
	@ = count();
	printa("%@d\n", @);
}

tick-50ms
/i == 3/
{
	setopt("switchrate", "10sec");
	setopt("aggrate", "10sec");
}

tick-50ms
/i == 6/
{
	exit(0);
}
