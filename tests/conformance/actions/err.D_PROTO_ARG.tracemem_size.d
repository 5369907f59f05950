/*
 * tracemem( ) takes an integer size.
 */
BEGIN
{
	tracemem(123, "size");
}
