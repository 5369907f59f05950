/*
 * print() of kernel structs from BTF (the compiling machine's kernel):
 * members with their kernel type names, nested structs indented, pointers
 * in hex and function pointers spelled as C prototypes.  The layout
 * travels with the enabling, so the printer needs no BTF.
 * kdt-args: -q
 */
BEGIN
{
	this->l = (struct list_head *)alloca(sizeof (struct list_head));
	this->l->next = (struct list_head *)0x1000;
	this->l->prev = this->l->next;
	print(*this->l);
	printf("\n");
	this->c = (struct callback_head *)alloca(sizeof (struct callback_head));
	this->c->next = (struct callback_head *)0x2000;
	print(*this->c);
	printf("\n");
	this->h = (struct hlist_head *)alloca(sizeof (struct hlist_head));
	print(*this->h);
	exit(0);
}
