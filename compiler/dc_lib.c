/*
 * dc_lib.c -- the D library every program is compiled with.
 *
 * dtrace(1) reads D declarations from its library directory before each
 * program (procfs.d there defines psinfo_t, lwpsinfo_t and the inlines
 * curpsinfo and curlwpsinfo); kdt compiles this text instead, written for
 * Linux, right before the user's source and with the same parser, so its
 * names behave exactly like ones the program declared itself: a program
 * that declares "struct psinfo" again gets D_DECL's redeclaration error,
 * as it would from dtrace.
 *
 * The translators convert only what every engine can read through the
 * built-in variables (pid, ppid, uid, gid, tid, execname, cpu, curthread,
 * and kdt's __kdt_euid, __kdt_egid, __kdt_pgid, __kdt_sid, __kdt_nlwp and
 * __kdt_lwpstate, common/dif.h, which stand in for the proc_t and
 * kthread_t fields dtrace's translators read): kdt.ko and the userspace
 * engine provide exactly those (kenv_procvar()), so a translated member
 * means the same in both.  pr_state is illumos's SSLEEP..SONPROC and
 * pr_sname its letter (S R Z T I O).  Members that Linux or kdt cannot
 * provide (sizes, CPU and priority statistics, argument and environment
 * vectors) keep their place in the types, as documented by DTrace, but
 * have no conversion: using one is D_XLATE_NOCONV at compile time, which
 * is what dtrace itself reports for members its translators leave out.
 * pr_projid, pr_taskid, pr_poolid and pr_zoneid are 0: Linux has no
 * projects, tasks, pools or zones.  pr_onpro is the CPU the probe fires
 * on, where the thread runs at that moment.
 *
 * The inlines translate curthread: "curpsinfo->pr_pid" compiles to the
 * pid variable (dc_decl.c resolves member access on an xlate inline at
 * compile time), so nothing here costs a DIF instruction until used;
 * "*curpsinfo" builds the whole psinfo_t in scratch memory (dc_decl.c,
 * dc_decl_xlate_sou) with the unconverted members 0.
 *
 * The DTRACEFLT_* fault codes (common/dif.h, what the ERROR probe's
 * arg4 holds) are int inlines here, as dtrace provides them to every
 * program, "#pragma D option nolibs" or not (kdt always reads this text).
 *
 * dc_lib_load() is called by dc_run() (dc_compile.c) once per
 * compilation, before the program; a diagnostic in this text would name
 * "<kdt library>" and its line.
 */
#include <string.h>
#include "dc_impl.h"

static const char dc_lib_src[] =
"typedef struct timestruc { time_t tv_sec; long tv_nsec; } timestruc_t;\n"
"typedef int taskid_t;\n"
"typedef int projid_t;\n"
"typedef int poolid_t;\n"
"inline char PR_MODEL_ILP32 = 1;\n"
"inline char PR_MODEL_LP64 = 2;\n"
"inline int PRFNSZ = 16;\n"
"inline int PRCLSZ = 8;\n"
"inline int PRARGSZ = 80;\n"
"inline int DTRACEFLT_UNKNOWN = 0;\n"
"inline int DTRACEFLT_BADADDR = 1;\n"
"inline int DTRACEFLT_BADALIGN = 2;\n"
"inline int DTRACEFLT_ILLOP = 3;\n"
"inline int DTRACEFLT_DIVZERO = 4;\n"
"inline int DTRACEFLT_NOSCRATCH = 5;\n"
"inline int DTRACEFLT_KPRIV = 6;\n"
"inline int DTRACEFLT_UPRIV = 7;\n"
"inline int DTRACEFLT_TUPOFLOW = 8;\n"
"inline int DTRACEFLT_BADSTACK = 9;\n"
"inline int DTRACEFLT_LIBRARY = 1000;\n"
"typedef struct lwpsinfo {\n"
"	int pr_flag;\n"
"	id_t pr_lwpid;\n"
"	uintptr_t pr_addr;\n"
"	uintptr_t pr_wchan;\n"
"	char pr_stype;\n"
"	char pr_state;\n"
"	char pr_sname;\n"
"	char pr_nice;\n"
"	short pr_syscall;\n"
"	char pr_oldpri;\n"
"	char pr_cpu;\n"
"	int pr_pri;\n"
"	ushort_t pr_pctcpu;\n"
"	ushort_t pr_pad;\n"
"	timestruc_t pr_start;\n"
"	timestruc_t pr_time;\n"
"	char pr_clname[8];\n"
"	char pr_name[16];\n"
"	processorid_t pr_onpro;\n"
"	processorid_t pr_bindpro;\n"
"	int pr_bindpset;\n"
"	int pr_lgrp;\n"
"} lwpsinfo_t;\n"
"typedef struct psinfo {\n"
"	int pr_flag;\n"
"	int pr_nlwp;\n"
"	pid_t pr_pid;\n"
"	pid_t pr_ppid;\n"
"	pid_t pr_pgid;\n"
"	pid_t pr_sid;\n"
"	uid_t pr_uid;\n"
"	uid_t pr_euid;\n"
"	gid_t pr_gid;\n"
"	gid_t pr_egid;\n"
"	uintptr_t pr_addr;\n"
"	size_t pr_size;\n"
"	size_t pr_rssize;\n"
"	size_t pr_pad1;\n"
"	dev_t pr_ttydev;\n"
"	ushort_t pr_pctcpu;\n"
"	ushort_t pr_pctmem;\n"
"	timestruc_t pr_start;\n"
"	timestruc_t pr_time;\n"
"	timestruc_t pr_ctime;\n"
"	char pr_fname[16];\n"
"	char pr_psargs[80];\n"
"	int pr_wstat;\n"
"	int pr_argc;\n"
"	uintptr_t pr_argv;\n"
"	uintptr_t pr_envp;\n"
"	char pr_dmodel;\n"
"	char pr_pad2[3];\n"
"	taskid_t pr_taskid;\n"
"	projid_t pr_projid;\n"
"	int pr_nzomb;\n"
"	poolid_t pr_poolid;\n"
"	zoneid_t pr_zoneid;\n"
"	id_t pr_contract;\n"
"	int pr_filler[1];\n"
"	lwpsinfo_t pr_lwp;\n"
"} psinfo_t;\n"
"translator psinfo_t < void *T > {\n"
"	pr_pid = pid;\n"
"	pr_ppid = ppid;\n"
"	pr_uid = uid;\n"
"	pr_gid = gid;\n"
"	pr_euid = __kdt_euid;\n"
"	pr_egid = __kdt_egid;\n"
"	pr_pgid = __kdt_pgid;\n"
"	pr_sid = __kdt_sid;\n"
"	pr_nlwp = __kdt_nlwp;\n"
"	pr_fname = execname;\n"
"	pr_taskid = 0;\n"
"	pr_projid = 0;\n"
"	pr_poolid = 0;\n"
"	pr_zoneid = 0;\n"
"};\n"
"translator lwpsinfo_t < void *T > {\n"
"	pr_lwpid = tid;\n"
"	pr_addr = (uintptr_t)T;\n"
"	pr_onpro = cpu;\n"
"	pr_state = __kdt_lwpstate;\n"
"	pr_sname = __kdt_lwpstate == 6 ? 'O' : __kdt_lwpstate == 1 ? 'S' :\n"
"	    __kdt_lwpstate == 2 ? 'R' : __kdt_lwpstate == 3 ? 'Z' :\n"
"	    __kdt_lwpstate == 4 ? 'T' : __kdt_lwpstate == 5 ? 'I' : '?';\n"
"};\n"
"inline psinfo_t *curpsinfo = xlate <psinfo_t *> (curthread);\n"
"inline lwpsinfo_t *curlwpsinfo = xlate <lwpsinfo_t *> (curthread);\n";

void
dc_lib_load(struct dc_ctx *cx)
{
	const char *src = cx->cx_src;
	size_t len = cx->cx_len;

	cx->cx_name = "<kdt library>";
	cx->cx_src = dc_lib_src;
	cx->cx_len = sizeof (dc_lib_src) - 1;
	dc_lex_init(cx);
	dc_parse_program(cx);
	cx->cx_src = src;
	cx->cx_len = len;
	cx->cx_name = cx->cx_srcname;
}
