/*
 * json() takes exactly two arguments, the document and the selector.
 */
BEGIN
{
	x = json("{\"a\": 1}");
	exit(0);
}
