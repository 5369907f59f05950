/*
 * Declarations belong outside clauses: typedef in a clause.
 */
BEGIN
{
	typedef int myint;
}
