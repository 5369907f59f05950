/*
 * "#pragma D depends_on" and "#pragma D attributes" are accepted.
 * kdt-args: -q
 */
#pragma D depends_on provider dtrace
#pragma D attributes Evolving/Evolving/Common provider dtrace provider

BEGIN
{
	printf("accepted\n");
	exit(0);
}
