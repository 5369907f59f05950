/*
 * Members of struct values in associative arrays are written in place:
 * the first access to a missing element creates it zeroed (as dtrace
 * does), so a[k].x = v works without assigning the whole struct first.
 * kdt-args: -q
 */
struct pt {
	int x;
	int y;
	long z;
} pts[int];

self struct pt tp[string];

BEGIN
{
	pts[1].x = 3;
	pts[1].y = 4;
	pts[2].x = 5;
	pts[2].z += 7;
	self->tp["a"].y = 9;
	printf("%d %d %d %d %d %d\n", pts[1].x, pts[1].y, pts[1].z, pts[2].x,
	    pts[2].z, self->tp["a"].y);
	printf("%d\n", pts[3].x);
	exit(0);
}
