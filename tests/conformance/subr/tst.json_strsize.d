/*
 * json() reads at most strsize - 1 bytes of the document, like every
 * string subroutine: a document of 31 bytes with strsize 32 is whole, one
 * of 32 is cut before its closing brace, so malformed and NULL (which
 * %s faults on, as ERROR reports).  The result fits in strsize bytes.
 * kdt-args: -q -x strsize=32
 */
BEGIN { printf("31 bytes: [%s]\n",
	    json("{\"k\": \"abcdefghijklmnopqrstuv\"}", "k")); }
BEGIN { printf("32 bytes: [%s]\n",
	    json("{\"k\": \"abcdefghijklmnopqrstuvw\"}", "k")); }
BEGIN { printf("30 bytes: [%s]\n",
	    json("[\"abcdefghijklmnopqrstuvwxyz\"]", "[0]")); }
BEGIN { exit(0); }

ERROR
{
	printf("NULL in clause %d (fault %d, address %d)\n", arg1, arg4,
	    arg5);
}
