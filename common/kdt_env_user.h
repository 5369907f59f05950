/*
 * kdt_env_user.h -- userspace half of the environment (see kdt_env.h).
 * Included only through kdt_env.h.  The out-of-line services live in
 * consumer/kc_env.c.
 */
#ifndef KDT_ENV_USER_H
#define KDT_ENV_USER_H

#include <stdint.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <errno.h>
#include <sys/ioctl.h>

#define kenv_wmb()	__atomic_thread_fence(__ATOMIC_RELEASE)
#define kenv_rmb()	__atomic_thread_fence(__ATOMIC_ACQUIRE)
#define KENV_READ_ONCE(x)	__atomic_load_n(&(x), __ATOMIC_RELAXED)
#define KENV_WRITE_ONCE(x, v)	__atomic_store_n(&(x), (v), __ATOMIC_RELAXED)

#endif /* KDT_ENV_USER_H */
