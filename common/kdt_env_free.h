/*
 * kdt_env_free.h -- freestanding third of the environment (see
 * kdt_env.h): common/ compiled with no C library and no kernel, for the
 * multiboot2 test kernel (tests/vm/mb2/, which builds common/ with
 * -ffreestanding -DKDT_ENV_FREESTANDING).  Included only through
 * kdt_env.h.
 *
 * The compiler's own freestanding headers give the fixed-width types,
 * size_t and va_list; everything else a common/ file may use -- the
 * string and memory primitives, vsnprintf/snprintf, the errno values
 * (Linux's numbers, so messages and return codes read the same as in
 * kdt.ko) -- is declared here and implemented, with the kenv_ services,
 * in tests/vm/mb2/kenv_free.c.  One CPU, no interrupts, no threads: the
 * barriers only stop the compiler from reordering.
 */
#ifndef KDT_ENV_FREE_H
#define KDT_ENV_FREE_H

#include <stdint.h>
#include <stddef.h>
#include <stdarg.h>

#define EPERM		1
#define ENOENT		2
#define EIO		5
#define ENXIO		6
#define E2BIG		7
#define EBADF		9
#define EAGAIN		11
#define ENOMEM		12
#define EFAULT		14
#define EBUSY		16
#define EEXIST		17
#define ENODEV		19
#define EINVAL		22
#define EFBIG		27
#define ENOSPC		28
#define ERANGE		34
#define ENAMETOOLONG	36
#define ENOSYS		38
#define ELOOP		40
#define ENODATA		61
#define EPROTO		71
#define EBADMSG		74
#define EOVERFLOW	75
#define EPROTONOSUPPORT	93
#define EOPNOTSUPP	95
#define EADDRNOTAVAIL	99

void *memcpy(void *dst, const void *src, size_t n);
void *memmove(void *dst, const void *src, size_t n);
void *memset(void *dst, int c, size_t n);
int memcmp(const void *a, const void *b, size_t n);
size_t strlen(const char *s);
size_t strnlen(const char *s, size_t max);
int strcmp(const char *a, const char *b);
int strncmp(const char *a, const char *b, size_t n);
char *strchr(const char *s, int c);
int vsnprintf(char *buf, size_t size, const char *fmt, va_list ap)
    __attribute__((format(printf, 3, 0)));
int snprintf(char *buf, size_t size, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#define kenv_wmb()	__atomic_signal_fence(__ATOMIC_RELEASE)
#define kenv_rmb()	__atomic_signal_fence(__ATOMIC_ACQUIRE)
#define KENV_READ_ONCE(x)	__atomic_load_n(&(x), __ATOMIC_RELAXED)
#define KENV_WRITE_ONCE(x, v)	__atomic_store_n(&(x), (v), __ATOMIC_RELAXED)

#endif /* KDT_ENV_FREE_H */
