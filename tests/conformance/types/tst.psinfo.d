/*
 * curpsinfo and curlwpsinfo translate the current thread from the
 * built-in variables (dtrace's procfs.d types, kdt's library): the ids
 * equal pid, ppid, uid, gid and tid, pr_fname is execname, the zone and
 * project are 0, and the whole psinfo_t can be copied (pr_nlwp: kdt
 * runs BEGIN in its one thread).
 * kdt-args: -q
 */
BEGIN
{
	printf("%d %d %d %d %d\n", curpsinfo->pr_pid == pid,
	    curpsinfo->pr_ppid == ppid, curpsinfo->pr_uid == uid,
	    curpsinfo->pr_gid == gid, curlwpsinfo->pr_lwpid == tid);
	printf("%s %d %d %d\n", curpsinfo->pr_fname, curpsinfo->pr_zoneid,
	    curpsinfo->pr_projid, curlwpsinfo->pr_onpro == cpu);
	p = *curpsinfo;
	printf("%d %s %d\n", p.pr_pid == pid, stringof(p.pr_fname),
	    p.pr_nlwp);
	printf("%d %d\n", sizeof (psinfo_t) > sizeof (lwpsinfo_t),
	    PR_MODEL_LP64);
	exit(0);
}
