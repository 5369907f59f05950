/*
 * What looks close to a float but is an integer constant or a member
 * access: suffixes and hex digits e and f.
 * kdt-args: -q
 */
int arr[2];

BEGIN
{
	arr[1] = 0xef;
	printf("%d %d %d %d %d\n", 10UL, 0x1e5, 0xf, 7ll, arr[1]);
	exit(0);
}
