/*
 * print() describes at most 16 levels of nested structs, unions and
 * arrays (common/dof_ptype.h, "Limits"): a struct at the limit says how
 * many of its members were not recorded.
 * kdt-args: -q
 */
struct s0 { int v; };
struct s1 { int v1; struct s0 in; };
struct s2 { int v2; struct s1 in; };
struct s3 { int v3; struct s2 in; };
struct s4 { int v4; struct s3 in; };
struct s5 { int v5; struct s4 in; };
struct s6 { int v6; struct s5 in; };
struct s7 { int v7; struct s6 in; };
struct s8 { int v8; struct s7 in; };
struct s9 { int v9; struct s8 in; };
struct s10 { int v10; struct s9 in; };
struct s11 { int v11; struct s10 in; };
struct s12 { int v12; struct s11 in; };
struct s13 { int v13; struct s12 in; };
struct s14 { int v14; struct s13 in; };
struct s15 { int v15; struct s14 in; };
struct s16 { int v16; struct s15 in; };
struct s17 { int v17; struct s16 in; };
struct s18 { int v18; struct s17 in; };

BEGIN
{
	this->p = (struct s18 *)alloca(sizeof (struct s18));
	this->p->v18 = 1;
	this->p->in.in.v16 = 16;
	print(*this->p);
	printf("\n");
	exit(0);
}
