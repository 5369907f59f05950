/*
 * strtok(NULL, ...) continues the string of the previous strtok() in a
 * later clause of the same firing, as dtrace's per-firing saved pointer
 * does, even though each clause has its own scratch and string table; a
 * new firing starts with nothing to continue.
 * kdt-args: -q
 */
BEGIN
{
	this->s = ",,,one,,two,three,";
}

BEGIN
/(this->f = strtok(this->s, ",")) != NULL/
{
	printf("1 %s\n", this->f);
}

BEGIN
{
	printf("2 %s\n", strtok(NULL, ","));
}

BEGIN
{
	printf("3 %s\n", strtok(NULL, ","));
	this->g = strtok(NULL, ",");
	printf("4 %s\n", this->g == NULL ? "<null>" : this->g);
}

BEGIN
{
	/* strings made in scratch are continued too */
	this->f = strtok(strjoin("x.y", ".z"), ".");
	n = 0;
}

BEGIN
{
	printf("5 %s %s\n", this->f, strtok(NULL, "."));
	printf("6 %s\n", strtok(NULL, "."));
}

tick-1ms
/n == 0/
{
	this->t = strtok("p q", " ");
	printf("7 %s\n", this->t);
}

tick-1ms
/n == 1/
{
	this->t = strtok(NULL, " ");
	printf("8 %s\n", this->t == NULL ? "<null>" : this->t);
	exit(0);
}

tick-1ms
{
	n++;
}
