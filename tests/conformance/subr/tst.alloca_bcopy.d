/*
 * alloca() gives scratch memory that bcopy() can fill.
 * kdt-args: -q
 */
BEGIN
{
	this->buf = (char *)alloca(8);
	bcopy("hello", this->buf, 6);
	printf("%s\n", stringof(this->buf));
	exit(0);
}
