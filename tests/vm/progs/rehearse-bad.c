/*
 * rehearse-bad.c -- hand KIO_REHEARSE (common/kio.h) what kdt never
 * sends: each case must fail with its errno and a kr_msg naming the
 * input, the value and the limit, and leave nothing armed (the scenario
 * checks the kernel log and the armed probes afterwards).
 *
 *	rehearse-bad FILE.dof
 *
 * FILE.dof is a valid DOF (kdt -e -o FILE.dof); the cases break one field each
 * (want 0: any errno).
 * Prints "CASE name errno msg" per case and "BAD name why" for a case
 * that did not fail as it must; exits 1 if there was one.
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

static int nbad;

static void
one(int fd, const char *name, struct kio_rehearse kr, int want,
    const char *msgpart)
{
	int rv = ioctl(fd, KIO_REHEARSE, &kr), e = errno;

	printf("CASE %s %d %s\n", name, rv == 0 ? 0 : e, kr.kr_msg);
	if (rv == 0 || (want != 0 && e != want) ||
	    strstr(kr.kr_msg, msgpart) == NULL) {
		printf("BAD %s: want errno %d and \"%s\" in the message\n",
		    name, want, msgpart);
		nbad++;
	}
}

int
main(int argc, char **argv)
{
	static uint8_t dof[1 << 20], junk[4096];
	struct kio_rehearse kr, k;
	ssize_t n;
	int fd, dfd;

	if (argc != 2 || (dfd = open(argv[1], O_RDONLY)) < 0 ||
	    (n = read(dfd, dof, sizeof (dof))) <= 0) {
		fprintf(stderr, "usage: rehearse-bad FILE.dof\n");
		return 2;
	}
	close(dfd);
	if ((fd = open("/dev/kdt", O_RDWR)) < 0) {
		perror("rehearse-bad: /dev/kdt");
		return 2;
	}
	memset(&kr, 0, sizeof (kr));
	kr.kr_dof = (uint64_t)(uintptr_t)dof;
	kr.kr_dofsz = (uint64_t)n;
	kr.kr_rgnsize = 4ULL << 20;

	k = kr;
	k.kr_dofsz = 0;
	one(fd, "dofsz-0", k, E2BIG, "DOF of 0 bytes");
	k = kr;
	k.kr_rgnsize = 4096;
	one(fd, "rgnsize-small", k, E2BIG, "region of 4096 bytes");
	k = kr;
	k.kr_rgnsize = 1ULL << 60;
	one(fd, "rgnsize-huge", k, E2BIG, "a quarter of memory");
	k = kr;
	k.kr_kshsz = 100;	/* no address */
	one(fd, "ksh-noaddr", k, EINVAL, "kernel symbol hints of 100 bytes");
	k = kr;
	k.kr_ksh = (uint64_t)(uintptr_t)junk;
	k.kr_kshsz = KIO_REHEARSE_KSHMAX + 1;
	one(fd, "ksh-huge", k, EINVAL, "at most");
	k = kr;
	memset(junk, 0xa5, sizeof (junk));
	k.kr_dof = (uint64_t)(uintptr_t)junk;
	k.kr_dofsz = sizeof (junk);
	one(fd, "dof-junk", k, 0, "DOF: ");	/* dof_load's errno */
	/* hints that are junk: refused by ksh_check, the names searched */
	k = kr;
	k.kr_ksh = (uint64_t)(uintptr_t)junk;
	k.kr_kshsz = sizeof (junk);
	if (ioctl(fd, KIO_REHEARSE, &k) != 0) {
		printf("BAD ksh-junk: %s (%s)\n", strerror(errno), k.kr_msg);
		nbad++;
	} else {
		printf("CASE ksh-junk 0 armed %u probes in %llu ns\n",
		    k.kr_nprobes, (unsigned long long)k.kr_arm_ns);
	}
	close(fd);
	return nbad != 0;
}
