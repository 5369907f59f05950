/*
 * A translation (curpsinfo is xlate <psinfo_t *> (curthread)) has a
 * dynamic type and cannot be an aggregation key.
 */
BEGIN
{
	@a[curpsinfo] = count();
}
