/*
 * Twenty clauses of one BEGIN firing each record a 512-byte string into
 * a 4 KiB principal buffer before the consumer reads it: the records
 * that do not fit are dropped and the drops are reported.
 * kdt-args: -q -x bufsize=4k -x strsize=512
 */
BEGIN
{
	trace("01");
}

BEGIN
{
	trace("02");
}

BEGIN
{
	trace("03");
}

BEGIN
{
	trace("04");
}

BEGIN
{
	trace("05");
}

BEGIN
{
	trace("06");
}

BEGIN
{
	trace("07");
}

BEGIN
{
	trace("08");
}

BEGIN
{
	trace("09");
}

BEGIN
{
	trace("10");
}

BEGIN
{
	trace("11");
}

BEGIN
{
	trace("12");
}

BEGIN
{
	trace("13");
}

BEGIN
{
	trace("14");
}

BEGIN
{
	trace("15");
}

BEGIN
{
	trace("16");
}

BEGIN
{
	trace("17");
}

BEGIN
{
	trace("18");
}

BEGIN
{
	trace("19");
}

BEGIN
{
	trace("20");
}

BEGIN
{
	exit(0);
}
