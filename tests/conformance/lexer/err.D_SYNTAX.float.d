/*
 * D has no floating-point constants: dtrace's lexer reports one as a
 * syntax error, whatever its form (here an exponent without a '.').
 */
BEGIN
{
	x = 25e-1;
	exit(0);
}
