/*
 * json() is NULL, not a fault, for a missing member, an index past the
 * end, a step into a scalar, a malformed document (unbalanced, trailing
 * bytes or comma, bad literal, number or escape, not an object or array
 * at the top) or a malformed selector.  Printing NULL with %s is what
 * faults (invalid address 0), so each case is its own clause and ERROR
 * says which ones were NULL; the empty string is a value, not NULL.
 * kdt-args: -q
 */
BEGIN { printf("1 [%s]\n", json("{\"a\": \"\"}", "a")); }
BEGIN { printf("2 [%s]\n", json("{\"a\": 1}", "b")); }
BEGIN { printf("3 [%s]\n", json("{\"a\": [1, 2]}", "a[2]")); }
BEGIN { printf("4 [%s]\n", json("{\"a\": 1}", "a.b")); }
BEGIN { printf("5 [%s]\n", json("{\"a\": 1", "a")); }
BEGIN { printf("6 [%s]\n", json("{\"a\": 1} x", "a")); }
BEGIN { printf("7 [%s]\n", json("{\"a\": 1,}", "a")); }
BEGIN { printf("8 [%s]\n", json("{\"a\": tru}", "a")); }
BEGIN { printf("9 [%s]\n", json("{\"a\": 01}", "a")); }
BEGIN { printf("10 [%s]\n", json("{\"a\": \"\\q\"}", "a")); }
BEGIN { printf("11 [%s]\n", json("[{]}", "[0]")); }
BEGIN { printf("12 [%s]\n", json("42", "a")); }
BEGIN { printf("13 [%s]\n", json("{\"a\": [1]}", "a[0")); }
BEGIN { printf("14 [%s]\n", json("", "")); }
BEGIN { printf("15 [%s]\n", json("{\"a\": {\"b\": null}}", "a.b")); }
BEGIN { exit(0); }

ERROR
{
	printf("NULL in clause %d (fault %d, address %d)\n", arg1, arg4,
	    arg5);
}
