/*
 * freopen() sends the following output to a file and freopen("") back
 * to stdout; system() then shows the file's contents.
 * kdt-args: -q -w
 */
BEGIN
{
	freopen("/tmp/kdt-conf-freopen.%d", pid);
	printf("to the file\n");
	freopen("");
	printf("back on stdout\n");
	system("cat /tmp/kdt-conf-freopen.%d; rm -f /tmp/kdt-conf-freopen.%d",
	    pid, pid);
	exit(0);
}
