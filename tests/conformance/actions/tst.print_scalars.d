/*
 * print() of a signed character type prints it quoted (an escape when
 * not printable), an unsigned one as a number; a pointer prints its type
 * and address; a string prints quoted.
 * kdt-args: -q
 */
BEGIN
{
	print((char)'a');
	print((char)1);
	print((char)0);
	print((int8_t)'b');
	print((uchar_t)'a');
	print((void *)0x1234);
	print((int *)0x10);
	print("hello");
	s = "world";
	print(s);
	exit(0);
}
