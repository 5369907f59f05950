/*
 * Quiet trace() prints values without padding.
 * kdt-args: -q
 */
BEGIN
{
	trace(1);
	trace("x");
	trace(-1LL);
	trace((uint8_t)200);
	printf("\n");
	exit(0);
}
