/*
 * Division by a constant expression that folds to zero is rejected at
 * compile time, not only by a literal 0.
 */
BEGIN
{
	x = 123 / ((7 - 7) * 999);
	exit(0);
}
