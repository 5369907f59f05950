/*
 * setopt() changes a consumer option at run time: after
 * setopt("quiet"), the unquiet framing is no longer printed.
 */
BEGIN
{
	setopt("quiet");
}

BEGIN
{
	printf("quiet now\n");
	exit(0);
}
