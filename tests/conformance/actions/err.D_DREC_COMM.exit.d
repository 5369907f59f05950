/*
 * exit() records its status: it may not follow commit() in a clause.
 */
BEGIN
{
	commit(1);
	exit(0);
}
