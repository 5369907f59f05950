/*
 * "#pragma D attributes" may name an identifier that the program defines
 * after the pragma (an inline, a variable), or a built-in one.
 * kdt-args: -q
 */
#pragma D attributes Stable/Stable/Common later
#pragma D attributes Evolving/Evolving/Common counter
#pragma D attributes Stable/Stable/Common timestamp

inline int later = 3;

BEGIN
{
	counter = later + 1;
	printf("%d\n", counter);
	exit(0);
}
