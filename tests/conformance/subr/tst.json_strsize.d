/*
 * json() reads at most strsize bytes of the document, like every string
 * subroutine (dtrace keeps a string of exactly strsize characters whole):
 * a document of 32 bytes with strsize 32 is whole, one of 33 is cut
 * before its closing brace, so malformed and NULL (which %s faults on, as
 * ERROR reports).
 * kdt-args: -q -x strsize=32
 */
BEGIN { printf("31 bytes: [%s]\n",
	    json("{\"k\": \"abcdefghijklmnopqrstuv\"}", "k")); }
BEGIN { printf("32 bytes: [%s]\n",
	    json("{\"k\": \"abcdefghijklmnopqrstuvw\"}", "k")); }
BEGIN { printf("33 bytes: [%s]\n",
	    json("{\"k\": \"abcdefghijklmnopqrstuvwx\"}", "k")); }
BEGIN { printf("30 bytes: [%s]\n",
	    json("[\"abcdefghijklmnopqrstuvwxyz\"]", "[0]")); }
BEGIN { exit(0); }

ERROR
{
	printf("NULL in clause %d (fault %d, address %d)\n", arg1, arg4,
	    arg5);
}
