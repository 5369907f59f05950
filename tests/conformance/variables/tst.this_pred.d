/*
 * Clause-local variables first assigned in the predicate take the type of
 * that assignment in the actions: a string stays a string, a char keeps
 * its size, and a clause that reads a this-> variable assigned nowhere
 * before is typed after its predicate.
 * kdt-args: -q
 */
BEGIN
/(this->s = "from-predicate") != NULL && (this->c = (char)-3) != 0 &&
 (this->n = strlen(this->s)) > 0/
{
	printf("%s %d %d %d\n", this->s, this->c, sizeof (this->c), this->n);
	this->t = strjoin(this->s, "!");
	printf("%s\n", this->t);
}

BEGIN
/(this->u = (unsigned short)70000) != 0/
{
	printf("%d %d\n", this->u, sizeof (this->u));
	exit(0);
}
