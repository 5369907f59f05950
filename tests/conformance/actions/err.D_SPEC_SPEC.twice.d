/*
 * speculate() may not follow speculate() in one clause.
 */
BEGIN
{
	speculate(1);
	speculate(1);
}
