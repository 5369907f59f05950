/*
 * Clause-local string variables.
 * kdt-args: -q
 */
BEGIN
{
	this->s = "clause";
	this->t = strjoin(this->s, "-local");
	printf("%s\n", this->t);
	exit(0);
}
