/*
 * Every run-time option of dtrace(1) that applies is accepted with -x,
 * -b and #pragma, in its usual units.
 * kdt-args: -q -b 1m -x bufpolicy=switch -x switchrate=10hz -x aggrate=1s -x dynvarsize=2m -x cleanrate=50hz -x nspec=2 -x specsize=64k -x aggsize=1m -x bufresize=manual -x stackframes=10 -x ustackframes=10 -x statusrate=1s -x zdefs
 */
#pragma D option strsize=512
#pragma D option bufsize=2m

BEGIN
{
	printf("accepted\n");
	exit(0);
}
