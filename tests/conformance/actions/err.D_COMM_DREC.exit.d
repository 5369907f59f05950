/*
 * commit() may not follow exit(), which records data.
 */
BEGIN
{
	exit(0);
	commit(1);
}
