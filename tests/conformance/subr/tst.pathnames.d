/*
 * basename(), dirname() and cleanpath().
 * kdt-args: -q
 */
BEGIN
{
	printf("[%s] [%s]\n", basename("/usr/lib/libc.so"),
	    dirname("/usr/lib/libc.so"));
	printf("[%s] [%s] [%s] [%s]\n", basename("/"), dirname("foo"),
	    basename("a/b/"), dirname("/a"));
	printf("[%s]\n", cleanpath("/a/./b/../c//d"));
	exit(0);
}
