/*
 * psinfo_t documents pr_size, but Linux gives kdt no conversion for it:
 * reading it is D_XLATE_NOCONV, as dtrace reports members its translators
 * leave out.
 */
BEGIN
{
	trace(curpsinfo->pr_size);
}
