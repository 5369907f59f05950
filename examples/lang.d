/*
 * lang.d -- a tour of the D language kdt compiles: variables of every
 * scope, associative arrays, strings, subroutines, a struct defined in D
 * and aggregations printed with printa().  It needs only BEGIN, tick and
 * END probes, so it runs on the userspace engine without root:
 *
 *	kdt -s examples/lang.d 3
 *
 * ($1, here 3, is how many ticks to count before exiting.)
 */
#pragma D option quiet

struct span {
	uint64_t	start;
	uint64_t	ticks;
};

struct span s;
inline int LIMIT = $1;

BEGIN
{
	s.start = timestamp;
	names[0] = "zero";
	names[1] = "one";
	self->depth = 1;
	printf("counting %d ticks; %s has %d letters\n", LIMIT,
	    strjoin(names[0], names[1]), strlen(strjoin(names[0], names[1])));
}

tick-10ms
/s.ticks < LIMIT/
{
	s.ticks++;
	this->kind = s.ticks % 2 == 0 ? "even" : "odd";
	@ticks[this->kind] = count();
	@spread = quantize(s.ticks);
	@range = lquantize(s.ticks, 0, 10, 2);
}

tick-10ms
/s.ticks == LIMIT/
{
	printa("%-6s %@d\n", @ticks);
	printf("elapsed > 0: %d\n", timestamp > s.start);
	exit(0);
}
