/*
 * extern declarations and function prototypes are C declarators that
 * declare no D variable: pointers, arrays of any dimensions, functions
 * (with void, unnamed, named, register and variadic parameters) and
 * pointers to functions are accepted, several per declaration.
 * kdt-args: -q
 */
extern int e0, *e1, **e2;
extern int a1[], a2[2][3];
extern int getint(void);
extern int *(*funcptr)(void);
extern int **(**funcptrptr)(int, char *);
extern int varargs(int, ...);
extern e3;
int proto(register int count, char *name);
void noparms();

BEGIN
{
	printf("declared\n");
	exit(0);
}
