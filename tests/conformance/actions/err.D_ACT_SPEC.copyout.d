/*
 * copyout() is a destructive action: it may not follow speculate(), which
 * is checked before whether destructive actions are allowed at all.
 */
BEGIN
{
	speculate(1);
	copyout(0, 0, 1);
}
