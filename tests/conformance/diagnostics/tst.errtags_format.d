/*
 * With -xerrtags a compile error prints as dtrace's
 * "failed to compile script FILE: [TAG] line N: message" and kdt exits 1.
 * kdt-args: -xerrtags
 */
BEGIN
{
	x = 1 +;
}
