/*
 * A bitfield must have an integer type, not a floating-point one.
 */
struct bits {
	float f : 1;
};

BEGIN
{
	exit(0);
}
