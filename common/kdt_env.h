/*
 * kdt_env.h -- the one environment header of common/.
 *
 * Everything in common/ is compiled unchanged into kdt.ko and into the
 * userspace tools (STYLE.md point 6).  A common/ file includes this header
 * and nothing else of the platform: it gets fixed-width integer types, the
 * string and memory primitives, errno values, vsnprintf, and the services
 * declared below.  Each service has exactly two implementations:
 *
 *	kernel:     common/kdt_env_kernel.h (inlines) + kmod/kd_env.c
 *	userspace:  common/kdt_env_user.h   (inlines) + consumer/kc_env.c
 *
 * and a third, freestanding one for the multiboot2 test kernel, selected
 * by KDT_ENV_FREESTANDING: common/kdt_env_free.h + tests/vm/mb2/kenv_free.c.
 *
 * This is the only place where "#ifdef __KERNEL__" (or the freestanding
 * selector) may appear.
 *
 * Prefixes used across the project (STYLE.md point 1), settled here:
 *
 *	common/    dof_ (DOF container), dif_ (DIF validator and VM),
 *	           rgn_ (reserved region and record stream), kenv_ (this
 *	           header), kdt_err_ (error records), kio_ (/dev/kdt ABI)
 *	compiler/  dc_      kmod/  kd_      boot/  bt_
 *	consumer/  kc_      crashdump/  cd_      mdb-module/  mdb_
 *	anon/      an_
 *
 * Context rules: functions marked "Probe context" below may be called with
 * interrupts disabled from any kprobe handler; they never sleep, never
 * allocate and never take a lock.
 */
#ifndef KDT_ENV_H
#define KDT_ENV_H

#if defined(KDT_ENV_FREESTANDING)
#include "kdt_env_free.h"
#elif defined(__KERNEL__)
#include "kdt_env_kernel.h"
#else
#include "kdt_env_user.h"
#endif

/*
 * KENV_NOINIT, after the declarator of a probe-context local that the code
 * writes in full before it reads it: exempt from -ftrivial-auto-var-init,
 * which Debian's kernels build with (CONFIG_INIT_STACK_ALL_ZERO) and which
 * otherwise clears such a local on every firing -- with a rep stos that
 * costs one instruction per 8 bytes: struct ecb_run, the firing's
 * dif_probe_ctx and the interpreter's registers and tuple stack were a
 * fifth of a count() firing (bench/probe-cost/step-profile).  Empty where
 * the compiler lacks the attribute (it then lacks the option too).
 */
#if defined(__has_attribute)
#if __has_attribute(__uninitialized__)
#define KENV_NOINIT	__attribute__((__uninitialized__))
#endif
#endif
#ifndef KENV_NOINIT
#define KENV_NOINIT
#endif

/*
 * Allocation.  Setup context only (DOF loading, enabling); never from
 * probe context.  kenv_zalloc returns zeroed memory or NULL.
 */
void *kenv_zalloc(uint64_t size);
void kenv_free(void *ptr);

/*
 * Fault-safe read of "size" bytes at address "addr" of the traced kernel
 * (userspace: of the memory ranges the userspace engine registered).
 * Returns 0, or -EFAULT when any byte is unreadable; never faults.
 * Probe context.
 */
int kenv_read(void *dst, uint64_t addr, uint32_t size);

/*
 * Fault-safe copy of a NUL-terminated string of at most size - 1 bytes
 * from "addr"; dst is always NUL-terminated and zero-padded to "size".
 * Returns the string length, or -EFAULT.  Probe context.
 */
int kenv_read_str(char *dst, uint64_t addr, uint32_t size);

/*
 * User memory of the current process (copyin(), copyinstr(), copyinto(),
 * copyout(), copyoutstr()).  Fault-safe like kenv_read(): 0 or -EFAULT,
 * never a page fault that sleeps.  kenv_read_user_str() behaves like
 * kenv_read_str() (length or -EFAULT, dst NUL-padded to "size").
 * kenv_write_user() is used only by the destructive subroutines.
 * Userspace: the ranges registered with kc_env (consumer/kc_env.h).
 * Probe context.
 */
int kenv_read_user(void *dst, uint64_t uaddr, uint32_t size);
int kenv_read_user_str(char *dst, uint64_t uaddr, uint32_t size);
int kenv_write_user(uint64_t uaddr, const void *src, uint32_t size);

/*
 * progenyof(): 1 when the current process is "pid" or one of its
 * descendants, else 0.  Probe context.
 */
int kenv_progenyof(uint64_t pid);

/* Standard CRC-32 (IEEE 802.3, the value zlib's crc32(0, buf, len) gives). */
uint32_t kenv_crc32(const void *buf, uint64_t len);

/*
 * Built-in values of the current execution context.  Probe context.
 * kenv_execname fills "buf" with the NUL-padded task name (at most size-1
 * characters).
 */
uint64_t kenv_timestamp(void);
uint32_t kenv_cpu(void);
uint64_t kenv_pid(void);
uint64_t kenv_tid(void);
void kenv_execname(char *buf, uint32_t size);

/*
 * More built-ins of the current context (D's ppid, uid, gid, curthread,
 * walltimestamp, vtimestamp, ipl).  kenv_walltime: ns since the epoch;
 * kenv_vtime: ns the current thread has run on a CPU; kenv_curthread: an
 * address identifying the thread (the kernel's task_struct); kenv_ipl: 0
 * in process context, 1 in hard interrupt, 2 in NMI (Linux has no SPL).
 * Probe context.
 */
uint64_t kenv_ppid(void);
uint64_t kenv_uid(void);
uint64_t kenv_gid(void);
/*
 * The process and thread facts psinfo_t/lwpsinfo_t translate (dif.h
 * DIF_VAR_KDT_*): the current thread's effective uid and gid, process
 * group, session, thread count and state (DIF_LWP_S*), 0 for an id it
 * does not know.  Kernel: the task that hit the probe; userspace engine:
 * the consumer itself, as kenv_pid().  Probe context.
 */
uint64_t kenv_procvar(uint32_t id);
uint64_t kenv_walltime(void);

/*
 * Spin for "ns" nanoseconds without sleeping (chill()).  The caller
 * bounds ns (ECB_CHILL_MAX).  Probe context: no locks, no sleeping.
 */
void kenv_delay_ns(uint64_t ns);
uint64_t kenv_vtime(void);
uint64_t kenv_curthread(void);
uint32_t kenv_ipl(void);

/*
 * stack(): the kernel stack at the probe, innermost first, up to "max"
 * return addresses into pcs[]; returns how many.  It starts where the
 * probe hit: the probed function for fbt and kinst, the interrupted code
 * for profile, the traced function's caller chain for tracepoints.  0
 * where there is no kernel stack (the userspace engine).
 * Probe context: no locks, no allocation, no sleeping.
 */
uint32_t kenv_stack(uint64_t *pcs, uint32_t max);
/*
 * caller: where the probed code was called from -- at a function's entry
 * its return address, elsewhere the second frame of kenv_stack()'s walk.
 * 0 when unknown (the userspace engine).  Probe context.
 */
uint64_t kenv_caller(void);
/*
 * ustack(): the user stack of the current thread (frame-pointer walk;
 * code built without frame pointers gives one frame), with its pid.
 * Returns the number of frames (0: none or not in a user thread).
 */
uint32_t kenv_ustack(uint64_t *pcs, uint32_t max, uint64_t *pid);
/*
 * panic(): the destructive action.  The kernel panics with the message;
 * never called by the userspace engine (ecb.c refuses panic() there).
 */
void kenv_panic(const char *msg);
/*
 * raise(sig) (1..64, ecb.c checks) and stop() (stop != 0, sig unused):
 * the destructive actions on the current thread's process.  The kernel
 * queues the signal and sends it once the probe has returned (a probe may
 * hold any lock, kmod/kd_signal.c); a kernel thread is left alone; a
 * signal that finds the CPU's queue full is dropped: -1 (ecb.c counts it
 * in ec_sigdrops), 0 otherwise.  Never called by the userspace engine
 * (ecb.c refuses raise() and stop() there).
 * Probe context: no locks, no allocation, no sleeping.
 */
int kenv_signal(uint32_t sig, int stop);

#endif /* KDT_ENV_H */
