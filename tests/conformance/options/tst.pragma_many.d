/*
 * Several #pragma D option lines take effect together.
 */
#pragma D option quiet
#pragma D option aggsortrev
#pragma D option aggsortkey

BEGIN
{
	@a["a"] = sum(3);
	@a["b"] = sum(1);
	@a["c"] = sum(2);
	exit(0);
}
