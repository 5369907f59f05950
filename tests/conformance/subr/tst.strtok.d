/*
 * strtok() splits on any of the delimiter characters; a NULL first
 * argument continues the previous string.
 * kdt-args: -q
 */
BEGIN
{
	this->a = strtok("a,b;;c", ",;");
	this->b = strtok(NULL, ",;");
	this->c = strtok(NULL, ",;");
	printf("[%s] [%s] [%s]\n", this->a, this->b, this->c);
	exit(0);
}
