/*
 * Unquiet trace(): integers of 1, 2, 4 and 8 bytes in fields of 3, 5, 8
 * and 16 columns (1- and 2-byte values print unsigned), strings
 * left-justified in 33 columns.
 */
BEGIN
{
	trace((char)-2);
	trace((short)-1);
	trace(-5);
	trace(-5LL);
	trace("str");
	exit(0);
}
