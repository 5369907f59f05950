/*
 * baddof.c -- hand kdt.ko corrupted DOF through /dev/kdt, in the manner of
 * DTrace's baddof test: every single-bit flip of a valid DOF, then random
 * groups of flipped bits.  Each variant must be either rejected by
 * KIO_ENABLE with a reason or enabled safely (then it is run for a moment
 * and stopped).  Prints one summary line; the scenario checks the kernel
 * log for oopses and warnings.
 *
 *	baddof FILE.dof NRANDOM [STRIDE]
 *
 * STRIDE (default 1) flips only every STRIDE-th bit and truncates at
 * every STRIDE-th length: `make check` uses a prime stride to stay
 * short (each variant is a KIO_ENABLE, ~175 per second under TCG);
 * stride 1 is the whole exercise.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "common/kio.h"

static unsigned long naccepted, nrejected, nnomsg, nodd;

static void
try(const uint8_t *dof, size_t n)
{
	struct kio_enable ken;
	int fd = open("/dev/kdt", O_RDWR);

	if ((naccepted + nrejected) % 2000 == 0 && getenv("BADDOF_PROGRESS"))
		fprintf(stderr, "baddof: %lu tried, %lu enabled\n",
		    naccepted + nrejected, naccepted);

	if (fd < 0) {
		perror("baddof: /dev/kdt");
		exit(2);
	}
	memset(&ken, 0, sizeof (ken));
	ken.ken_dof = (uint64_t)(uintptr_t)dof;
	ken.ken_dofsz = n;
	ken.ken_flags = KIO_EN_ZDEFS;
	if (ioctl(fd, KIO_ENABLE, &ken) == 0) {
		naccepted++;
		(void) ioctl(fd, KIO_GO);
		(void) ioctl(fd, KIO_STOP);
	} else {
		nrejected++;
		/* a rejection says why, unless memory or the copy failed */
		if (ken.ken_msg[0] == '\0' && errno != ENOMEM &&
		    errno != EFAULT)
			nnomsg++;
		if (errno == ENOTTY || errno == EBADF)
			nodd++;
	}
	close(fd);
}

int
main(int argc, char **argv)
{
	static uint8_t dof[1 << 20], v[1 << 20];
	unsigned long nrand, stride, i, k, bit;
	size_t n;
	FILE *fp;

	if (argc < 3 || argc > 4 || (fp = fopen(argv[1], "rb")) == NULL) {
		fprintf(stderr, "usage: baddof FILE.dof NRANDOM [STRIDE]\n");
		return 2;
	}
	n = fread(dof, 1, sizeof (dof), fp);
	fclose(fp);
	nrand = strtoul(argv[2], NULL, 10);
	stride = argc == 4 ? strtoul(argv[3], NULL, 10) : 1;
	if (stride == 0)
		stride = 1;
	try(dof, n);			/* the valid one enables */
	if (naccepted != 1) {
		fprintf(stderr, "baddof: the unmodified DOF was rejected\n");
		return 1;
	}
	for (bit = 0; bit < n * 8; bit += stride) {
		memcpy(v, dof, n);
		v[bit / 8] ^= (uint8_t)(1u << (bit % 8));
		try(v, n);
	}
	srand(1);
	for (i = 0; i < nrand; i++) {
		memcpy(v, dof, n);
		for (k = 1 + (unsigned long)rand() % 16; k > 0; k--) {
			bit = (unsigned long)rand() % (n * 8);
			v[bit / 8] ^= (uint8_t)(1u << (bit % 8));
		}
		try(v, n);
	}
	/* and every truncation */
	for (i = 0; i < n; i += stride)
		try(dof, i);
	printf("baddof: %lu variants of %zu bytes: %lu enabled, %lu rejected, %lu rejected without a reason, %lu odd errors\n",
	    naccepted + nrejected - 1, n, naccepted - 1, nrejected, nnomsg,
	    nodd);
	return nnomsg == 0 && nodd == 0 ? 0 : 1;
}
