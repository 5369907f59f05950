/*
 * A probe description that matches no probe is an error.
 */
dtrace:::NOSUCHPROBE
{
	exit(0);
}
