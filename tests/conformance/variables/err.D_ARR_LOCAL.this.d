/*
 * Clause-local variables cannot be associative arrays.
 */
BEGIN
{
	this->a["k"] = 1;
	exit(0);
}
