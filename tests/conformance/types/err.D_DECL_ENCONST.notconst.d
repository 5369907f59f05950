/*
 * An enumerator must be assigned an integer constant expression.
 */
enum e { A = "x" };

BEGIN
{
	exit(0);
}
