/*
 * The prototype of a destructive action is checked before permission:
 * chill() with no argument is a prototype error even without -w.
 */
BEGIN
{
	chill();
	exit(0);
}
