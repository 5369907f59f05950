/*
 * kc_anon.c -- "kdt -a": claim the anonymous state and print it.
 *
 * Called by the kdt front end (consumer/kdt_main.c).  The protocol is the
 * /dev/kdt ABI of common/kio.h: KIO_INFO says whether an anonymous
 * enabling exists and where its region is, KIO_CLAIM takes it (once per
 * boot), then the region image is read with pread() and handed to the
 * same decoder kdt-extract uses on dumps (kc_print_region()).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>

#include "common/kio.h"
#include "consumer/kc.h"
#include "consumer/kc_kernel.h"	/* kc_dev_open */

#define KC_REGION_MAX	(1ULL << 34)	/* 16 GiB: larger is not a region */

/* 0 when there is an anonymous state to claim, else 1 after saying why. */
static int
kc_anon_state(const struct kio_info *ki, FILE *err)
{
	const char *why = ki->ki_reason[0] != '\0' ? ki->ki_reason : "";
	const char *sep = why[0] != '\0' ? ": " : "";

	if (ki->ki_version != KIO_VERSION) {
		fprintf(err, "kdt: %s: kdt.ko speaks /dev/kdt version %u, this kdt speaks version %u\n",
		    KC_DEV, ki->ki_version, (unsigned)KIO_VERSION);
		return 1;
	}
	switch (ki->ki_anon) {
	case KIO_ANON_ACTIVE:
		return 0;
	case KIO_ANON_NONE:
		fprintf(err, "kdt: no anonymous enabling (was the kernel booted with kdt.anon=1?)%s%s\n",
		    sep, why);
		return 1;
	case KIO_ANON_CLAIMED:
		fprintf(err, "kdt: the anonymous state is already claimed%s%s\n",
		    sep, why);
		return 1;
	case KIO_ANON_FAILED:
		fprintf(err, "kdt: the anonymous enabling was rejected at boot%s%s\n",
		    sep, why);
		return 1;
	}
	fprintf(err, "kdt: %s: unknown anonymous state %u\n", KC_DEV,
	    ki->ki_anon);
	return 1;
}

static int
kc_claim(int fd, FILE *err)
{
	if (ioctl(fd, KIO_CLAIM) == 0)
		return 0;
	if (errno == EBUSY)
		fprintf(err, "kdt: the anonymous state is already claimed\n");
	else if (errno == ENOENT)
		fprintf(err, "kdt: no anonymous state to claim\n");
	else
		fprintf(err, "kdt: %s: KIO_CLAIM: %s\n", KC_DEV,
		    strerror(errno));
	return 1;
}

/* Read the whole region image; NULL after saying why. */
static uint8_t *
kc_read_region(int fd, uint64_t size, FILE *err)
{
	uint8_t *buf;
	uint64_t done = 0;
	ssize_t n;

	if (size == 0 || size > KC_REGION_MAX) {
		fprintf(err, "kdt: %s: region size 0x%llx is outside [1, 0x%llx]\n",
		    KC_DEV, (unsigned long long)size,
		    (unsigned long long)KC_REGION_MAX);
		return NULL;
	}
	buf = malloc(size);
	if (buf == NULL) {
		fprintf(err, "kdt: no memory for the 0x%llx-byte region image\n",
		    (unsigned long long)size);
		return NULL;
	}
	while (done < size) {
		n = pread(fd, buf + done, size - done, (off_t)done);
		if (n <= 0) {
			fprintf(err, "kdt: %s: read at region offset 0x%llx of 0x%llx: %s\n",
			    KC_DEV, (unsigned long long)done,
			    (unsigned long long)size,
			    n == 0 ? "unexpected end" : strerror(errno));
			free(buf);
			return NULL;
		}
		done += (uint64_t)n;
	}
	return buf;
}

int
kc_anon_claim(const struct kc_claim_opts *co, FILE *out, FILE *err)
{
	struct kio_info ki;
	uint8_t *img;
	int fd, rv = 1;

	fd = kc_dev_open(O_RDONLY, err);
	if (fd < 0)
		return 1;
	memset(&ki, 0, sizeof (ki));
	if (ioctl(fd, KIO_INFO, &ki) != 0) {
		fprintf(err, "kdt: %s: KIO_INFO: %s\n", KC_DEV,
		    strerror(errno));
		goto out;
	}
	ki.ki_reason[sizeof (ki.ki_reason) - 1] = '\0';
	if (kc_anon_state(&ki, err) != 0 || kc_claim(fd, err) != 0)
		goto out;
	img = kc_read_region(fd, ki.ki_region_size, err);
	if (img == NULL)
		goto out;
	rv = kc_print_region(img, ki.ki_region_size, ki.ki_region_phys,
	    KC_DEV, out, err);
	free(img);
out:
	close(fd);
	return rv;
}
