/*
 * kc_kernel.h -- the kernel engine: a D program run by kdt.ko through
 * /dev/kdt, and the probe listing (kdt -l).
 *
 * The engine is dtrace(1)'s consumer loop over the live interface of
 * common/kio.h (its comment is the contract):
 *
 *   open /dev/kdt --KIO_ENABLE(DOF)--> region image: read() once, whole,
 *        |                             into a mirror; rgn_open() it;
 *        |                             the session's decoder reads it
 *   KIO_GO (BEGIN) --> loop, waking at least every 50 ms:
 *        |   every switchrate  KIO_SNAP_BUF per CPU into its mirror slot,
 *        |                     decode what is new (switch policy; fill and
 *        |                     ring buffers are handed over at the end)
 *        |   every aggrate     KIO_SNAP_AGG per CPU, merge (kc_aggs_snap)
 *        |   every statusrate  drops: principal per CPU from the mirror,
 *        |                     the rest from KIO_STATUS
 *        |   stop on exit() (DRAINING), a full fill buffer, SIGINT/SIGTERM
 *   KIO_STOP (END) --> last snapshots of every CPU --> the session's final
 *                      output --> exit()'s status
 *
 * What is done with records, aggregations and drop counts is the
 * session's (consumer/kc_sess.h), the same code the userspace engine
 * uses, so both print byte for byte alike.
 */
#ifndef KDT_KC_KERNEL_H
#define KDT_KC_KERNEL_H

#include <stdio.h>
#include <stdint.h>

#include "consumer/kc_run.h"

struct dof_pdesc;

#define KC_DEV		"/dev/kdt"

/*
 * Open /dev/kdt with "flags" (O_CLOEXEC is added).  The descriptor, or -1
 * after saying why on "err": not loaded, not root, or the errno.
 */
int kc_dev_open(int flags, FILE *err);

/* Does /dev/kdt exist (kdt.ko is loaded)? */
int kc_dev_present(void);

/*
 * Run the program "dof" on kdt.ko: the whole life cycle above.  Returns
 * the exit status (exit()'s value, or 1 when the program cannot run,
 * after saying why on "err").
 */
int kc_kernel_run(const void *dof, uint64_t dofsz,
    const struct kc_run_opts *ro, FILE *out, FILE *err);

/*
 * "kdt -a": consume the anonymous state that "fd" (/dev/kdt, open for
 * reading and writing) has just claimed with KIO_CLAIM, whose answer is
 * "kc": everything buffered since boot, then new records as they come,
 * until exit() in the program, a full fill buffer or SIGINT/SIGTERM;
 * then KIO_STOP (END) and the final output, as kc_kernel_run().  Takes
 * "fd" over (closing it ends the state).  Returns the exit status.
 */
struct kio_claim;
int kc_kernel_claimed(int fd, const struct kio_claim *kc,
    const struct kc_run_opts *ro, FILE *out, FILE *err);

/*
 * kdt -l: dtrace(1)'s listing of the probes kdt.ko offers that match each
 * description "pds[0, n)" in turn (pds NULL: every probe), under one
 * heading.  A description matching nothing is reported on "err" as
 * dtrace does and the listing goes on.  User-space probes come from "ut"
 * (kc_uprobe.h; NULL: none), listed after the kernel's for each
 * description, numbered on.  Returns 0, or 1 when /dev/kdt cannot be
 * used (said on "err").  With lo_verbose (-v) each probe is followed by
 * its argument types (dtrace -l -v's "Argument Types"), from BTF file
 * lo_btf (NULL: as the compiler finds it).
 */
struct kc_list_opts {
	int		lo_verbose;	/* -v */
	const char	*lo_btf;	/* --btf */
};
struct kc_uptab;
int kc_kernel_list(const struct dof_pdesc *pds, uint32_t n,
    const struct kc_uptab *ut, const struct kc_list_opts *lo, FILE *out,
    FILE *err);

#endif /* KDT_KC_KERNEL_H */
