/*
 * stack() in BEGIN of the userspace engine records no kernel frames: it
 * prints just the newline that starts a stack.
 * kdt-args: -q
 */
BEGIN
{
	printf("[");
	stack();
	printf("]\n");
	exit(0);
}
