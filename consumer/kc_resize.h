/*
 * kc_resize.h -- how big the dynamic variable area of an enabling may be,
 * for the consumer side: the userspace engine (kc_engine.c) fits
 * dynvarsize to its limit before ecb_create(), and both engines say what
 * bufresize=auto lowered, in dtrace's words.
 *
 * The rule is the one kdt.ko applies to bufsize and aggsize (kio.h,
 * ken_resized) and to dynvarsize (kmod/kd_cs.c, kd_dynvar_fit): the
 * variable state of an enabling -- dif_vstate_size(): its variable tables
 * and global values, plus dynvarsize when it has dynamic variables -- may
 * take at most a limit (a quarter of memory).  Under bufresize=auto
 * (dtrace's default) dynvarsize is halved until it fits, no lower than
 * KC_DYNVARSIZE_MIN, and the consumer prints "PROG: dynamic variable size
 * lowered to 512m"; under bufresize=manual the enabling fails with a
 * message naming the option, its value and the limit.
 */
#ifndef KDT_KC_RESIZE_H
#define KDT_KC_RESIZE_H

#include <stdio.h>
#include <stdint.h>
#include <stddef.h>

struct dof_enabling;

/* bufresize=auto halves dynvarsize no further than this (kmod's too). */
#define KC_DYNVARSIZE_MIN	(4ULL << 10)

/*
 * The dynvarsize "den" runs with when its variable state may take at
 * most "limit" bytes ("limitwhat" says what the limit is, e.g. "a quarter
 * of memory"), in *out: "want" when it fits, else under bufresize=auto
 * (manual 0) the largest want / 2^k >= KC_DYNVARSIZE_MIN that fits; 0
 * (msg[len] empty).  -1 when nothing fits (bufresize=manual, or auto down
 * to the minimum), and msg says why: the option, its value, the bytes
 * needed and the limit.
 */
int kc_dynvar_fit(const struct dof_enabling *den, uint64_t want,
    uint64_t limit, const char *limitwhat, int manual, uint64_t *out,
    char *msg, size_t len);

/* Is bufresize=manual in force in "den" (auto, dtrace's default, else)? */
int kc_resize_manual(const struct dof_enabling *den);

/*
 * "PROG: dynamic variable size lowered to 512m\n" on "err" when "used" is
 * below "want" (the dynvarsize the DOF asked for, or the default); as
 * kc_size_str() prints sizes.  1 if it said so.
 */
int kc_dynvar_lowered(FILE *err, const char *prog, uint64_t want,
    uint64_t used);

#endif /* KDT_KC_RESIZE_H */
