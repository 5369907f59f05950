/*
 * Kernel types come from BTF by name: struct list_head is two pointers
 * on every x86-64 kernel.
 * kdt-args: -q
 */
BEGIN
{
	printf("%d %d\n", sizeof (struct list_head),
	    offsetof(struct list_head, prev));
	exit(0);
}
