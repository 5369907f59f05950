/*
 * kc_env.h -- userspace-only controls of the userspace environment
 * (consumer/kc_env.c, which implements the kenv_* services of
 * common/kdt_env.h for the tools and the tests).
 *
 * In the kernel, kenv_read() may read any mapped kernel address.  In
 * userspace there is no traced kernel: the DIF emulator may read only the
 * memory the userspace engine (or a test) explicitly registers here, and
 * kenv_read()/kenv_read_str() return -EFAULT for every other address, so
 * a DIF program with a wild pointer faults (BADADDR) exactly as it would
 * in kdt.ko instead of crashing the tool.  Registered ranges must stay
 * valid until they are cleared.  Not thread-safe: one engine per process.
 */
#ifndef KC_ENV_H
#define KC_ENV_H

#include <stdint.h>

/* Most ranges that can be registered at once. */
#define KC_ENV_MAX_READABLE	64

/* Allow DIF to read [p, p + len).  0, -EINVAL (len 0) or -ENOSPC. */
int kc_env_add_readable(const void *p, uint64_t len);

/* Forget every registered range (readable and writable). */
void kc_env_clear_readable(void);

/*
 * "User memory" of the userspace engine is the same registered ranges:
 * kenv_read_user() reads what kc_env_add_readable() allowed, and
 * kenv_write_user() (copyout, copyoutstr) writes only into ranges given
 * here.  0, -EINVAL (len 0) or -ENOSPC.
 */
int kc_env_add_writable(void *p, uint64_t len);

#endif /* KC_ENV_H */
