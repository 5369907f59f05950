/*
 * An integer constant that does not fit in 64 bits is an error.
 */
BEGIN
{
	x = 0x1ffffffffffffffffff;
	exit(0);
}
