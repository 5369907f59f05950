/*
 * A negative increment makes a negative bucket count; with counts of
 * both signs the bars are half width on either side of the | line.
 * kdt-args: -q
 */
BEGIN
{
	@q = quantize(1, 3);
	@q = quantize(2, -2);
	exit(0);
}
