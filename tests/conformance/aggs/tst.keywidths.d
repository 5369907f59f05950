/*
 * Keys of 1, 2 and 8 bytes print in 3, 5 and 16 columns (the narrow
 * ones unsigned).
 * kdt-args: -q
 */
BEGIN
{
	@a[(char)7, (short)300, 1LL << 40] = count();
	@b[(uint8_t)255, (int16_t)-1] = count();
	exit(0);
}
