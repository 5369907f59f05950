/*
 * Several unquiet trace() records of one firing share its line.
 */
BEGIN
{
	trace(1);
	trace(2);
}

END
{
	trace("end");
}

BEGIN
{
	exit(0);
}
