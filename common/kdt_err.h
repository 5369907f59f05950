/*
 * kdt_err.h -- the error record common/ returns instead of printing.
 *
 * common/ never prints user-facing text (STYLE.md point 6).  A function
 * that rejects input returns -errno and, when given a non-NULL record,
 * fills it with a stable tag, the byte offset in the input where the
 * problem lies (KDT_ERR_NOOFF when there is none) and a message that
 * names the value and the limit.  Each environment renders the record:
 * kdt.ko logs it with pr_err, the tools print "<input>: <message>".
 *
 * Tags are short upper-case words grouped by decoder: "DOF_*" for the DOF
 * loader, "DIF_*" for the DIF validator, "RGN_*" for the region reader.
 */
#ifndef KDT_ERR_H
#define KDT_ERR_H

#include "kdt_env.h"

#define KDT_ERR_NOOFF	((uint64_t)-1)
#define KDT_ERR_MSGLEN	256

struct kdt_err {
	int		ke_errno;	/* positive errno value */
	const char	*ke_tag;	/* stable tag, static storage */
	uint64_t	ke_off;		/* offset in the input, or NOOFF */
	char		ke_msg[KDT_ERR_MSGLEN];
};

/*
 * Fill "err" (if not NULL) and return -errnum, so callers can write
 * "return kdt_err_set(err, EINVAL, "DOF_HDR", off, "...", ...);".
 */
int kdt_err_set(struct kdt_err *err, int errnum, const char *tag,
    uint64_t off, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

#endif /* KDT_ERR_H */
