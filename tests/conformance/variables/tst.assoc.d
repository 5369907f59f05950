/*
 * Associative arrays with string keys; a missing element reads as 0.
 * kdt-args: -q
 */
BEGIN
{
	a["x"] = 1;
	a["y"] = 2;
	a["x"] += 10;
	printf("%d %d %d\n", a["x"], a["y"], a["z"]);
	exit(0);
}
