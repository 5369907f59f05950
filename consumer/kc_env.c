/*
 * kc_env.c -- the userspace implementation of the environment services
 * declared in common/kdt_env.h (the kernel's twin is kmod/kd_env.c).
 *
 * Linked into every tool and test through libkdt.a, so the common/ code
 * (DOF loader, DIF emulator, region reader) runs in userspace unchanged.
 * Memory "of the traced kernel" is, in userspace, only what the engine or
 * a test registered with kc_env_add_readable() (kc_env.h): kenv_read()
 * and kenv_read_str() check every byte against those ranges and never
 * dereference anything else.  The other services map onto libc: calloc,
 * zlib's crc32, CLOCK_MONOTONIC, sched_getcpu, getpid, gettid and the
 * program's short name.  "User memory" (copyin and friends) is the same
 * registered ranges; copyout writes only into ranges registered writable.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "kdt_env.h"
#include "dif.h"
#include "consumer/kc_env.h"

struct kc_range {
	uintptr_t	kr_base;
	uint64_t	kr_len;
};

static struct kc_range kc_ranges[KC_ENV_MAX_READABLE];
static uint32_t kc_nranges;
static struct kc_range kc_wranges[KC_ENV_MAX_READABLE];
static uint32_t kc_nwranges;

int
kc_env_add_readable(const void *p, uint64_t len)
{
	if (len == 0 || p == NULL)
		return -EINVAL;
	if (kc_nranges >= KC_ENV_MAX_READABLE)
		return -ENOSPC;
	kc_ranges[kc_nranges].kr_base = (uintptr_t)p;
	kc_ranges[kc_nranges].kr_len = len;
	kc_nranges++;
	return 0;
}

void
kc_env_clear_readable(void)
{
	kc_nranges = 0;
	kc_nwranges = 0;
}

int
kc_env_add_writable(void *p, uint64_t len)
{
	if (len == 0 || p == NULL)
		return -EINVAL;
	if (kc_nwranges >= KC_ENV_MAX_READABLE)
		return -ENOSPC;
	kc_wranges[kc_nwranges].kr_base = (uintptr_t)p;
	kc_wranges[kc_nwranges].kr_len = len;
	kc_nwranges++;
	return 0;
}

/* True when [addr, addr + size) lies inside one writable range. */
static int
kc_writable(uint64_t addr, uint32_t size)
{
	uint32_t i;
	uint64_t off;

	for (i = 0; i < kc_nwranges; i++) {
		if (addr < kc_wranges[i].kr_base)
			continue;
		off = addr - kc_wranges[i].kr_base;
		if (off <= kc_wranges[i].kr_len &&
		    size <= kc_wranges[i].kr_len - off)
			return 1;
	}
	return 0;
}

/* Bytes readable from "addr" on within one registered range, or 0. */
static uint64_t
kc_readable(uint64_t addr)
{
	uint32_t i;
	uint64_t off;

	for (i = 0; i < kc_nranges; i++) {
		if (addr < kc_ranges[i].kr_base)
			continue;
		off = addr - kc_ranges[i].kr_base;
		if (off < kc_ranges[i].kr_len)
			return kc_ranges[i].kr_len - off;
	}
	return 0;
}

void *
kenv_zalloc(uint64_t size)
{
	if (size == 0 || size > SIZE_MAX)
		return NULL;
	return calloc(1, (size_t)size);
}

void
kenv_free(void *ptr)
{
	free(ptr);
}

int
kenv_read(void *dst, uint64_t addr, uint32_t size)
{
	uint64_t done = 0, n;

	while (done < size) {
		if ((n = kc_readable(addr + done)) == 0)
			return -EFAULT;
		if (n > size - done)
			n = size - done;
		memcpy((char *)dst + done, (const void *)(uintptr_t)(addr + done),
		    (size_t)n);
		done += n;
	}
	return 0;
}

int
kenv_read_str(char *dst, uint64_t addr, uint32_t size)
{
	const char *src;
	uint32_t n = 0;
	uint64_t avail = 0;

	if (size == 0)
		return -EINVAL;
	while (n + 1 < size) {
		if (avail == 0 && (avail = kc_readable(addr + n)) == 0) {
			memset(dst, 0, size);
			return -EFAULT;
		}
		src = (const char *)(uintptr_t)(addr + n);
		if (*src == '\0')
			break;
		dst[n++] = *src;
		avail--;
	}
	memset(dst + n, 0, size - n);
	return (int)n;
}

uint32_t
kenv_crc32(const void *buf, uint64_t len)
{
	return (uint32_t)crc32_z(0, buf, (z_size_t)len);
}

uint64_t
kenv_timestamp(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

uint32_t
kenv_cpu(void)
{
	int cpu = sched_getcpu();

	return cpu < 0 ? 0 : (uint32_t)cpu;
}

uint64_t
kenv_pid(void)
{
	return (uint64_t)getpid();
}

uint64_t
kenv_tid(void)
{
	return (uint64_t)gettid();
}

uint64_t
kenv_ppid(void)
{
	return (uint64_t)getppid();
}

uint64_t
kenv_uid(void)
{
	return (uint64_t)getuid();
}

uint64_t
kenv_gid(void)
{
	return (uint64_t)getgid();
}

/* This process's thread count: /proc/self/status "Threads:", or 1. */
static uint64_t
kc_env_nlwp(void)
{
	char line[128];
	unsigned long n = 1;
	FILE *f = fopen("/proc/self/status", "r");

	if (f == NULL)
		return 1;
	while (fgets(line, sizeof (line), f) != NULL)
		if (sscanf(line, "Threads: %lu", &n) == 1)
			break;
	fclose(f);
	return n;
}

/*
 * The consumer is the process the userspace engine's probes fire in
 * (kenv_pid()), and it is running while they do: its state is SONPROC.
 */
uint64_t
kenv_procvar(uint32_t id)
{
	pid_t v;

	switch (id) {
	case DIF_VAR_KDT_EUID: return (uint64_t)geteuid();
	case DIF_VAR_KDT_EGID: return (uint64_t)getegid();
	case DIF_VAR_KDT_PGID:
		v = getpgid(0);
		return v < 0 ? 0 : (uint64_t)v;
	case DIF_VAR_KDT_SID:
		v = getsid(0);
		return v < 0 ? 0 : (uint64_t)v;
	case DIF_VAR_KDT_NLWP: return kc_env_nlwp();
	case DIF_VAR_KDT_LWPSTATE: return DIF_LWP_SONPROC;
	default: return 0;
	}
}

/* No kernel stack in the userspace engine: stack() records no frames. */
uint32_t
kenv_stack(uint64_t *pcs, uint32_t max)
{
	return 0;
}

uint64_t
kenv_caller(void)
{
	return 0;
}

/* Nor does ustack() walk this process's own stack: no frames. */
uint32_t
kenv_ustack(uint64_t *pcs, uint32_t max, uint64_t *pid)
{
	*pid = kenv_pid();
	return 0;
}

/* Unreachable: ecb_create() refuses panic() in the userspace engine. */
void
kenv_panic(const char *msg)
{
	fprintf(stderr, "kdt: panic() reached the userspace engine: %s\n",
	    msg);
	abort();
}

/* Unreachable: ecb_create() refuses raise() and stop() here too. */
int
kenv_signal(uint32_t sig, int stop)
{
	fprintf(stderr, "kdt: %s reached the userspace engine (signal %u)\n",
	    stop ? "stop()" : "raise()", sig);
	abort();
}

/* chill() in the userspace engine: spin on the monotonic clock. */
void
kenv_delay_ns(uint64_t ns)
{
	uint64_t end = kenv_timestamp() + ns;

	while (kenv_timestamp() < end)
		;
}

uint64_t
kenv_walltime(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

uint64_t
kenv_vtime(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The engine's threads are pthreads: their handle identifies them. */
uint64_t
kenv_curthread(void)
{
	return (uint64_t)pthread_self();
}

/* Userspace runs no interrupt handlers. */
uint32_t
kenv_ipl(void)
{
	return 0;
}

void
kenv_execname(char *buf, uint32_t size)
{
	const char *name = program_invocation_short_name;
	uint32_t n = 0;

	if (size == 0)
		return;
	while (n + 1 < size && name[n] != '\0') {
		buf[n] = name[n];
		n++;
	}
	memset(buf + n, 0, size - n);
}

int
kenv_read_user(void *dst, uint64_t uaddr, uint32_t size)
{
	return kenv_read(dst, uaddr, size);
}

int
kenv_read_user_str(char *dst, uint64_t uaddr, uint32_t size)
{
	return kenv_read_str(dst, uaddr, size);
}

int
kenv_write_user(uint64_t uaddr, const void *src, uint32_t size)
{
	if (size == 0)
		return 0;
	if (!kc_writable(uaddr, size))
		return -EFAULT;
	memmove((void *)(uintptr_t)uaddr, src, size);
	return 0;
}

/*
 * The userspace engine's "current process" is kdt itself: it descends
 * from itself, its parent and init.  Further ancestors are not looked up
 * (that would mean reading /proc on every call).
 */
int
kenv_progenyof(uint64_t pid)
{
	return pid == (uint64_t)getpid() || pid == (uint64_t)getppid() ||
	    pid == 1;
}
