/*
 * aggpack draws a packed histogram in Unicode blocks U+2581..U+2588 with
 * encoding=utf8 and in "__xxxxXX" with encoding=ascii (the default, with
 * no encoding option, depends on $TERM as in dtrace); negative buckets are
 * "vvvvVV" either way.  setopt("encoding") changes it for the next printa.
 * kdt-args: -q -x aggpack -x encoding=ascii
 */
BEGIN
{
	@ = lquantize(0, 0, 5, 1, 1);
	@ = lquantize(1, 0, 5, 1, 2);
	@ = lquantize(2, 0, 5, 1, 4);
	@ = lquantize(3, 0, 5, 1, 8);
	@ = lquantize(4, 0, 5, 1, -4);
	printa(@);
	setopt("encoding", "utf8");
	printa(@);
	exit(0);
}
