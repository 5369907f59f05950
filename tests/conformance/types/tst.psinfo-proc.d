/*
 * The psinfo_t/lwpsinfo_t members that need the process's credentials,
 * group, session, threads and state (kdt's __kdt_* built-ins, read by
 * both engines through kenv_procvar()): in BEGIN the probe fires in the
 * consumer, which is not set-id and is running, so the effective ids are
 * the real ones, it has a thread, and its thread is on a CPU (SONPROC,
 * 'O').  The group and session depend on how the test is started (a
 * container may show 0), so only their sign is checked here;
 * tests/vm/scenarios/tst.live-signal compares them with /proc.
 * kdt-args: -q
 */
BEGIN
{
	printf("%d %d\n", curpsinfo->pr_euid == uid,
	    curpsinfo->pr_egid == gid);
	printf("%d %d %d\n", curpsinfo->pr_pgid >= 0, curpsinfo->pr_sid >= 0,
	    curpsinfo->pr_nlwp >= 1);
	printf("%d %c\n", curlwpsinfo->pr_state, curlwpsinfo->pr_sname);
	p = *curpsinfo;
	printf("%d %d\n", p.pr_euid == uid, p.pr_nlwp == curpsinfo->pr_nlwp);
	exit(0);
}
