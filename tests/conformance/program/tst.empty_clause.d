/*
 * A clause with an empty action list still records the firing: unquiet
 * output shows one line per clause.
 */
BEGIN
{
}

BEGIN
{
	exit(0);
}
