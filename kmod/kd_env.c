/*
 * kd_env.c -- the kernel half of common/kdt_env.h.
 *
 * common/ code calls these services in kdt.ko (the userspace half is
 * consumer/kc_env.c).  The probe-context ones read traced memory only
 * through the kernel's fault-safe accessors, so a bad address in a D
 * program becomes -EFAULT (a DIF fault), never an oops.
 */
#include <linux/delay.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/crc32.h>
#include <linux/timekeeping.h>
#include <linux/smp.h>
#include <linux/sched.h>
#include <linux/rcupdate.h>
#include <linux/cred.h>
#include <linux/hardirq.h>
#include <linux/sched/cputime.h>
#include <linux/string.h>

#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/ptrace.h>
#include <linux/stacktrace.h>
#include <asm/irq_regs.h>

#include "kd_impl.h"

void *
kenv_zalloc(uint64_t size)
{
	if (size == 0 || size > INT_MAX)
		return NULL;
	/* sizes come from the DOF: fail quietly, the caller says why */
	return kvzalloc((size_t)size, GFP_KERNEL | __GFP_NOWARN);
}

void
kenv_free(void *ptr)
{
	kvfree(ptr);
}

/* Probe context: no locks, no allocation, no sleeping. */
int
kenv_read(void *dst, uint64_t addr, uint32_t size)
{
	if (copy_from_kernel_nofault(dst, (const void *)(uintptr_t)addr,
	    size) != 0)
		return -EFAULT;
	return 0;
}

/*
 * strncpy_from_kernel_nofault and strncpy_from_user_nofault are not
 * exported to modules in 6.1, so strings are copied page by page with
 * "rd" (kenv_read or kenv_read_user): within one page either every byte
 * is readable or none is, so no chunk reads past a mapped string end into
 * an unmapped page.  dst is NUL-padded to size; returns the length or
 * -EFAULT.  Probe context: no locks, no allocation, no sleeping.
 */
static int
kd_read_str(char *dst, uint64_t addr, uint32_t size,
    int (*rd)(void *, uint64_t, uint32_t))
{
	uint32_t got = 0, chunk, i;

	if (size == 0)
		return -EFAULT;
	while (got < size - 1) {
		chunk = PAGE_SIZE - ((addr + got) & (PAGE_SIZE - 1));
		if (chunk > size - 1 - got)
			chunk = size - 1 - got;
		if (rd(dst + got, addr + got, chunk) != 0) {
			memset(dst, 0, size);
			return -EFAULT;
		}
		for (i = 0; i < chunk; i++)
			if (dst[got + i] == '\0')
				break;
		got += i;
		if (i < chunk)
			break;
	}
	memset(dst + got, 0, size - got);
	return (int)got;
}

/* Probe context: no locks, no allocation, no sleeping. */
int
kenv_read_str(char *dst, uint64_t addr, uint32_t size)
{
	return kd_read_str(dst, addr, size, kenv_read);
}

uint32_t
kenv_crc32(const void *buf, uint64_t len)
{
	uint32_t crc = ~0U;
	const uint8_t *p = buf;
	size_t n;

	while (len > 0) {
		n = len > SZ_1G ? SZ_1G : (size_t)len;
		crc = crc32_le(crc, p, n);
		p += n;
		len -= n;
	}
	return crc ^ ~0U;
}

/* Probe context: no locks, no allocation, no sleeping. */
uint64_t
kenv_timestamp(void)
{
	return ktime_get_mono_fast_ns();
}

/* Probe context: no locks, no allocation, no sleeping. */
uint32_t
kenv_cpu(void)
{
	return raw_smp_processor_id();
}

/* Probe context: no locks, no allocation, no sleeping. */
uint64_t
kenv_pid(void)
{
	return task_tgid_nr(current);
}

/* Probe context: no locks, no allocation, no sleeping. */
uint64_t
kenv_tid(void)
{
	return task_pid_nr(current);
}

/*
 * A word of comm with its bytes from the first NUL on cleared; *nul set
 * when it has one.  (x - 0x01..) & ~x & 0x80.. marks zero bytes, the
 * lowest mark exactly: little-endian, so that is the first NUL.
 */
static inline uint64_t
kd_comm_word(uint64_t x, int *nul)
{
	uint64_t z = (x - 0x0101010101010101ULL) & ~x & 0x8080808080808080ULL;

	if (z == 0)
		return x;
	*nul = 1;
	return x & ((1ULL << (__builtin_ctzll(z) & ~7U)) - 1);
}

/*
 * Probe context: no locks, no allocation, no sleeping.  execname is on
 * the hot path of every @[execname] aggregation (bench k_quant), so a
 * buffer longer than comm takes comm as two words, cut at its first NUL
 * (set_task_comm pads with NULs, but a racing rename may leave bytes
 * after one), and zeroes the rest a word at a time: the bytes the
 * byte-by-byte loop writes, in ~30 instructions instead of ~110.
 */
void
kenv_execname(char *buf, uint32_t size)
{
	uint64_t w0, w1, zero = 0;
	uint32_t i;
	int nul = 0;

	BUILD_BUG_ON(TASK_COMM_LEN != 16);
	if (size > TASK_COMM_LEN) {
		memcpy(&w0, current->comm, 8);
		memcpy(&w1, current->comm + 8, 8);
		w0 = kd_comm_word(w0, &nul);
		w1 = nul ? 0 : kd_comm_word(w1, &nul);
		memcpy(buf, &w0, 8);
		memcpy(buf + 8, &w1, 8);
		/* two words a turn: ecb.c's 32-byte execname key is one */
		for (i = 16; i + 16 <= size; i += 16) {
			memcpy(buf + i, &zero, 8);
			memcpy(buf + i + 8, &zero, 8);
		}
		if (i + 8 <= size) {
			memcpy(buf + i, &zero, 8);
			i += 8;
		}
		for (; i < size; i++)
			buf[i] = '\0';
		return;
	}
	if (size == 0)
		return;
	for (i = 0; i < size - 1 && current->comm[i] != '\0'; i++)
		buf[i] = current->comm[i];
	memset(buf + i, 0, size - i);
}

/* Probe context: no locks, no allocation, no sleeping. */
int
kenv_read_user(void *dst, uint64_t uaddr, uint32_t size)
{
	if (copy_from_user_nofault(dst, (const void __user *)(uintptr_t)uaddr,
	    size) != 0)
		return -EFAULT;
	return 0;
}

/* Probe context: no locks, no allocation, no sleeping. */
int
kenv_read_user_str(char *dst, uint64_t uaddr, uint32_t size)
{
	return kd_read_str(dst, uaddr, size, kenv_read_user);
}

/* Probe context: no locks, no allocation, no sleeping. */
int
kenv_write_user(uint64_t uaddr, const void *src, uint32_t size)
{
	if (copy_to_user_nofault((void __user *)(uintptr_t)uaddr, src,
	    size) != 0)
		return -EFAULT;
	return 0;
}

/*
 * Walk the parents of the current task under RCU, at most 4096 steps
 * (a loop in the tree cannot exist, the bound only caps the cost).
 * Probe context: no locks taken beyond RCU, no allocation, no sleeping.
 */
int
kenv_progenyof(uint64_t pid)
{
	struct task_struct *t;
	int n, found = 0;

	rcu_read_lock();
	for (t = current, n = 0; t != NULL && n < 4096; n++) {
		if ((uint64_t)task_tgid_nr(t) == pid) {
			found = 1;
			break;
		}
		if (t->pid == 0 || t == rcu_dereference(t->real_parent))
			break;
		t = rcu_dereference(t->real_parent);
	}
	rcu_read_unlock();
	return found;
}

/* Probe context: no locks taken beyond RCU, no allocation, no sleeping. */
uint64_t
kenv_ppid(void)
{
	uint64_t ppid;

	rcu_read_lock();
	ppid = task_ppid_nr(current);
	rcu_read_unlock();
	return ppid;
}

/* Probe context: no locks, no allocation, no sleeping. */
uint64_t
kenv_uid(void)
{
	return from_kuid_munged(&init_user_ns, current_uid());
}

/* Probe context: no locks, no allocation, no sleeping. */
uint64_t
kenv_gid(void)
{
	return from_kgid_munged(&init_user_ns, current_gid());
}

/*
 * The current task's state as illumos names a thread's (DIF_LWP_S*):
 * TASK_RUNNING is on this CPU (it hit the probe); a task that set a
 * sleeping state and is on its way into schedule() (sched:::off-cpu,
 * a wait) sleeps; stopped and traced tasks stop; an exit state wins.
 */
static uint64_t
kd_env_lwpstate(struct task_struct *t)
{
	unsigned int st = READ_ONCE(t->__state);

	if (READ_ONCE(t->exit_state) & (EXIT_ZOMBIE | EXIT_DEAD))
		return DIF_LWP_SZOMB;
	if (st & (__TASK_STOPPED | __TASK_TRACED))
		return DIF_LWP_SSTOP;
	if (st & TASK_NEW)
		return DIF_LWP_SIDL;
	if (st == TASK_RUNNING)
		return DIF_LWP_SONPROC;
	return DIF_LWP_SSLEEP;
}

/*
 * Probe context: no locks beyond RCU (the pid lookups take it
 * themselves), no allocation, no sleeping.  Ids in the initial
 * namespaces, as kenv_pid() and kenv_uid() give them.
 */
uint64_t
kenv_procvar(uint32_t id)
{
	struct task_struct *t = current;

	switch (id) {
	case DIF_VAR_KDT_EUID:
		return from_kuid_munged(&init_user_ns, current_euid());
	case DIF_VAR_KDT_EGID:
		return from_kgid_munged(&init_user_ns, current_egid());
	case DIF_VAR_KDT_PGID:
		return task_pgrp_nr_ns(t, &init_pid_ns);
	case DIF_VAR_KDT_SID:
		return task_session_nr_ns(t, &init_pid_ns);
	case DIF_VAR_KDT_NLWP:
		return t->signal != NULL ? get_nr_threads(t) : 1;
	case DIF_VAR_KDT_LWPSTATE:
		return kd_env_lwpstate(t);
	default:
		return 0;
	}
}

/*
 * chill(): busy-wait in microsecond steps (udelay's own limit is a few
 * milliseconds per call), the remainder with ndelay.
 * Probe context: no locks, no allocation, no sleeping.
 */
void
kenv_delay_ns(uint64_t ns)
{
	while (ns >= 1000000) {
		udelay(1000);
		ns -= 1000000;
	}
	if (ns >= 1000)
		udelay(ns / 1000);
	ndelay(ns % 1000);
}

/* Probe context: no locks, no allocation, no sleeping. */
uint64_t
kenv_walltime(void)
{
	return ktime_get_real_fast_ns();
}

/*
 * The runtime the scheduler has accounted to the thread so far (updated
 * at scheduler ticks and switches, not at every instruction).
 * Probe context: no locks, no allocation, no sleeping.
 */
uint64_t
kenv_vtime(void)
{
	return READ_ONCE(current->se.sum_exec_runtime);
}

/* Probe context: no locks, no allocation, no sleeping. */
uint64_t
kenv_curthread(void)
{
	return (uint64_t)(uintptr_t)current;
}

/* Probe context: no locks, no allocation, no sleeping. */
uint32_t
kenv_ipl(void)
{
	if (in_nmi())
		return 2;
	return in_hardirq() ? 1 : 0;
}

#define KD_STACK_MAX	128	/* frames one stack() may record */
#define KD_STACK_SKIP	24	/* kdt's own frames, at most */

/* One stack walk at a time per CPU (probe context, interrupts off). */
static DEFINE_PER_CPU(unsigned long [KD_STACK_MAX + KD_STACK_SKIP],
    kd_stackbuf);

/* Probe context: no locks, no allocation, no sleeping. */
uint32_t
kenv_stack(uint64_t *pcs, uint32_t max)
{
	unsigned long *buf = this_cpu_ptr(kd_stackbuf);
	struct pt_regs *regs = this_cpu_read(kd_probe_regs);
	uint32_t n, i = 0, j;

	max = min_t(uint32_t, max, KD_STACK_MAX);
	if (regs == NULL && in_hardirq())
		regs = get_irq_regs();	/* profile: the interrupted code */
	if (regs != NULL && user_mode(regs))
		return 0;		/* no kernel stack to show */
	if (regs != NULL && kd_stack_save_regs != NULL) {
		n = kd_stack_save_regs(regs, buf, max, 0);
	} else {
		n = stack_trace_save(buf, max + KD_STACK_SKIP, 0);
		while (i < n && within_module(buf[i], THIS_MODULE))
			i++;	/* kdt's own frames */
	}
	for (j = 0; i < n && j < max; i++, j++)
		pcs[j] = buf[i];
	return j;
}

/* Probe context: no locks, no allocation, no sleeping. */
uint32_t
kenv_ustack(uint64_t *pcs, uint32_t max, uint64_t *pid)
{
	unsigned long *buf = this_cpu_ptr(kd_stackbuf);
	uint32_t n, i;

	*pid = task_tgid_nr(current);
	if (kd_stack_save_user == NULL || (current->flags & PF_KTHREAD) ||
	    current->mm == NULL)
		return 0;
	n = kd_stack_save_user(buf, min_t(uint32_t, max, KD_STACK_MAX));
	for (i = 0; i < n; i++)
		pcs[i] = buf[i];
	return n;
}

void
kenv_panic(const char *msg)
{
	panic("%s", msg);
}

/* Probe context: no locks, no allocation, no sleeping. */
uint64_t
kenv_caller(void)
{
	struct pt_regs *regs = this_cpu_read(kd_probe_regs);
	unsigned long ra = 0;
	uint64_t pcs[2];

	if (regs != NULL && this_cpu_read(kd_probe_entry) && !user_mode(regs)) {
		/* the call instruction pushed the return address */
		if (copy_from_kernel_nofault(&ra, (void *)regs->sp,
		    sizeof (ra)) != 0)
			ra = 0;
		return ra;
	}
	return kenv_stack(pcs, 2) == 2 ? pcs[1] : 0;
}
