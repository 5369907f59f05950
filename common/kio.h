/*
 * kio.h -- the /dev/kdt interface between kdt.ko and the consumer.
 *
 * /dev/kdt is root-only (mode 0600).  The consumer first asks for the
 * state with KIO_INFO; "kdt -a" then claims the anonymous state with
 * KIO_CLAIM (one claim per boot: a second claim gets -EBUSY, and no
 * anonymous state gets -ENOENT) and reads the region image with pread()
 * at region offsets, decoding it with the same reader (rgn_read.c) that
 * kdt-extract uses on dumps.
 *
 * Every structure is fixed-width; sizes are pinned below.
 */
#ifndef KDT_KIO_H
#define KDT_KIO_H

#include "kdt_env.h"

#define KIO_VERSION	1

#define KIO_ANON_NONE		0	/* kdt.anon not set */
#define KIO_ANON_ACTIVE		1	/* enabled, not claimed */
#define KIO_ANON_CLAIMED	2	/* claimed by a consumer */
#define KIO_ANON_FAILED		3	/* rejected at boot: see ki_reason */

struct kio_info {
	uint32_t	ki_version;	/* KIO_VERSION */
	uint32_t	ki_anon;	/* KIO_ANON_* */
	uint64_t	ki_region_phys;	/* 0 if no region */
	uint64_t	ki_region_size;
	uint32_t	ki_nprobes;	/* probes enabled */
	uint32_t	ki_pad;
	char		ki_reason[256];	/* why not active, NUL-terminated */
};

_Static_assert(sizeof (struct kio_info) == 288, "kio_info");

#define KIO_MAGIC	'k'
#define KIO_INFO	_IOR(KIO_MAGIC, 1, struct kio_info)
#define KIO_CLAIM	_IO(KIO_MAGIC, 2)

#endif /* KDT_KIO_H */
