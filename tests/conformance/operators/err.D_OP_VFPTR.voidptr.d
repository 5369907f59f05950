/*
 * += and -= need a left operand of known size: an integer or a pointer
 * to something but void.
 */
BEGIN
{
	p = (void *)alloca(4);
	p += 1;
}
