/*
 * speculate() may not follow commit() in one clause.
 */
BEGIN
{
	commit(1);
	speculate(1);
}
