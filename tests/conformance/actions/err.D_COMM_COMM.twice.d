/*
 * commit() may not follow commit() in one clause.
 */
BEGIN
{
	commit(1);
	commit(1);
}
