/*
 * kdt_err.c -- filling error records (theory in kdt_err.h).
 * Compiled unchanged into kdt.ko and the userspace tools.
 */
#include "kdt_err.h"

int
kdt_err_set(struct kdt_err *err, int errnum, const char *tag, uint64_t off,
    const char *fmt, ...)
{
	va_list ap;

	if (err != NULL) {
		err->ke_errno = errnum;
		err->ke_tag = tag;
		err->ke_off = off;
		va_start(ap, fmt);
		vsnprintf(err->ke_msg, sizeof (err->ke_msg), fmt, ap);
		va_end(ap);
	}
	return -errnum;
}
