/*
 * kdt_env_kernel.h -- kernel half of the environment (see kdt_env.h).
 * Included only through kdt_env.h.  The out-of-line services live in
 * kmod/kd_env.c.
 */
#ifndef KDT_ENV_KERNEL_H
#define KDT_ENV_KERNEL_H

#include <linux/types.h>
#include <linux/kernel.h>
#include <linux/string.h>
#include <linux/errno.h>
#include <linux/compiler.h>
#include <asm/barrier.h>
#include <linux/ioctl.h>

#define kenv_wmb()	smp_wmb()
#define kenv_rmb()	smp_rmb()
#define KENV_READ_ONCE(x)	READ_ONCE(x)
#define KENV_WRITE_ONCE(x, v)	WRITE_ONCE(x, v)

#endif /* KDT_ENV_KERNEL_H */
