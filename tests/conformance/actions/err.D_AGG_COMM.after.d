/*
 * No aggregation after commit() in one clause.
 */
BEGIN
{
	commit(1);
	@a = count();
}
