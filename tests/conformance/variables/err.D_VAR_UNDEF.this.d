/*
 * A clause-local variable read before it is assigned or declared anywhere
 * (and not assigned by the clause's predicate) has no type.
 */
BEGIN
{
	trace(this->never);
	exit(0);
}
