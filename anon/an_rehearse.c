/*
 * an_rehearse.c -- kdt -A --estimate: what arming the enabling will cost
 * at boot, rehearsed on the running kernel.
 *
 * The per-firing model (consumer/kc_est.h) says nothing of the one-time
 * arming, which for an anonymous enabling is most of what it costs the
 * boot (bench/run-boot-overhead: 100 fbt entry probes, 11 M instructions
 * armed, against ~0.9 M more until the initramfs ends, module loads
 * matched and 63 firings among it), and which no
 * live enabling can stand in for: a live one searches kallsyms for every
 * name where the boot takes kdt -A's symbol hints, allocates its buffers
 * where the boot lays out the reserved region, and below
 * KD_FBT_FTRACE_MIN functions arms kprobes one by one where the boot arms
 * one ftrace_ops (measured: fbt100 live 15.3 M against 11.2 M at boot,
 * the initcall enabling's 3 functions 24 M against 10 M).  So kdt.ko
 * runs the boot's own path, KIO_REHEARSE (common/kio.h), on a scratch
 * state: with the region size kdt -A would reserve on this machine
 * (an_size.c, this machine's possible CPUs and memory) and the hints it
 * would write for this kernel (an_ksym.c, from /proc/kallsyms), and
 * stops it at once.  Nothing records meanwhile (the state never starts:
 * no BEGIN, no firing reaches a clause).
 *
 * It measures this kernel on this machine, now: for another target (a
 * --btf vmlinux of another kernel, another machine) it is an indication,
 * which the caller says.  As a share of the boot: against the time this
 * boot took to start init, from the kernel log (an_boot_tinit), the
 * measure of the boot benchmarks' anchors.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/klog.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "anon/an_impl.h"
#include "common/kio.h"

int
an_boot_tinit(const char *log, size_t len, uint64_t *ns)
{
	const char *p = log, *end = log + len, *nl, *b, *r, *q;
	uint64_t s, us;

	for (; p < end; p = nl + 1) {
		if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL)
			nl = end;
		/* "[   1.769825] Run /init as init process" */
		if ((b = memchr(p, '[', (size_t)(nl - p))) == NULL ||
		    (r = memchr(b, ']', (size_t)(nl - b))) == NULL ||
		    (size_t)(nl - r) < sizeof ("] Run  as init process") - 1 ||
		    strncmp(r, "] Run ", 6) != 0 ||
		    strncmp(nl - 16, " as init process", 16) != 0)
			continue;
		for (q = b + 1; q < r && *q == ' '; q++)
			;
		for (s = 0; q < r && *q >= '0' && *q <= '9' &&
		    s < 1000000000; q++)
			s = s * 10 + (uint64_t)(*q - '0');
		if (q == r || *q++ != '.' || r - q != 6)
			continue;	/* seconds, a dot, six digits */
		for (us = 0; q < r && *q >= '0' && *q <= '9'; q++)
			us = us * 10 + (uint64_t)(*q - '0');
		if (q != r || s >= 1000000000)
			continue;
		*ns = s * 1000000000ULL + us * 1000ULL;
		return 0;
	}
	return -1;
}

/* ar_tinit_ns from this boot's kernel log, or ar_tinit_why. */
static void
an_rehearse_tinit(struct an_rehearsal *ar)
{
	int size = klogctl(10, NULL, 0), n;	/* SYSLOG_ACTION_SIZE_BUFFER */
	char *buf;

	if (size <= 0 || (buf = malloc((size_t)size)) == NULL) {
		snprintf(ar->ar_tinit_why, sizeof (ar->ar_tinit_why),
		    "cannot read the kernel log: %s",
		    size < 0 ? strerror(errno) : "out of memory");
		return;
	}
	n = klogctl(3, buf, size);		/* SYSLOG_ACTION_READ_ALL */
	if (n < 0)
		snprintf(ar->ar_tinit_why, sizeof (ar->ar_tinit_why),
		    "cannot read the kernel log: %s", strerror(errno));
	else if (an_boot_tinit(buf, (size_t)n, &ar->ar_tinit_ns) != 0)
		snprintf(ar->ar_tinit_why, sizeof (ar->ar_tinit_why),
		    "the kernel log no longer says when init started");
	free(buf);
}

int
an_rehearse(const struct dc_out *o, struct an_rehearsal *ar, char *why,
    size_t whysz)
{
	struct kio_rehearse kr;
	struct an_size as;
	struct utsname u;
	const char *from;
	uint8_t *ksh = NULL;
	size_t kshlen = 0, msglen = 0;
	char *msg = NULL, hwhy[256];
	FILE *mf;
	int fd, rv = -1, hr;

	memset(ar, 0, sizeof (*ar));
	if (uname(&u) == 0)
		snprintf(ar->ar_release, sizeof (ar->ar_release), "%s",
		    u.release);
	/* an_size_compute() and an_target_cpus() say why on a stream */
	if ((mf = open_memstream(&msg, &msglen)) == NULL) {
		snprintf(why, whysz, "out of memory");
		return -1;
	}
	if (an_target_cpus("/", &ar->ar_ncpu, &from, mf) != 0 ||
	    an_size_compute(o->dco_dof, o->dco_dofsz, ar->ar_ncpu,
	    an_memtotal(), (o->dco_regset & DC_REGSET_SIZE) ?
	    o->dco_regsize : 0, &as, mf) != 0) {
		fclose(mf);
		snprintf(why, whysz, "sizing the region: %s",
		    msg != NULL && msg[0] != '\0' ? msg : "failed");
		free(msg);
		return -1;
	}
	fclose(mf);
	free(msg);
	ar->ar_rgnsize = as.as_size;
	/* this kernel's hints, as kdt -A writes them installing on it */
	hr = an_ksym_build(o, "", ar->ar_release, &ksh, &kshlen,
	    &ar->ar_nhints, hwhy, sizeof (hwhy));
	snprintf(ar->ar_hints, sizeof (ar->ar_hints), "%s", hwhy);
	if (hr != 1)		/* no file (ksh NULL, kshlen 0) */
		ar->ar_nhints = 0;
	if ((fd = open("/dev/kdt", O_RDWR)) < 0) {
		snprintf(why, whysz, "/dev/kdt: %s%s", strerror(errno),
		    errno == ENOENT ? " (load kdt.ko)" : errno == EACCES ||
		    errno == EPERM ? " (it takes root)" : "");
		goto out;
	}
	memset(&kr, 0, sizeof (kr));
	kr.kr_dof = (uint64_t)(uintptr_t)o->dco_dof;
	kr.kr_dofsz = o->dco_dofsz;
	kr.kr_ksh = (uint64_t)(uintptr_t)ksh;
	kr.kr_kshsz = kshlen;
	kr.kr_rgnsize = as.as_size;
	if (ioctl(fd, KIO_REHEARSE, &kr) != 0) {
		if (errno == ENOTTY)
			snprintf(why, whysz, "this kdt.ko cannot rehearse (it predates KIO_REHEARSE): load the kdt.ko of this kdt");
		else
			snprintf(why, whysz, "kdt.ko: %s", kr.kr_msg[0] != '\0' ?
			    kr.kr_msg : strerror(errno));
	} else {
		ar->ar_load_ns = kr.kr_load_ns;
		ar->ar_arm_ns = kr.kr_arm_ns;
		ar->ar_ftrace_ns = kr.kr_ftrace_ns;
		ar->ar_nfuncs = kr.kr_nfuncs;
		ar->ar_nprobes = kr.kr_nprobes;
		ar->ar_nmatched = kr.kr_nmatched;
		an_rehearse_tinit(ar);
		rv = 0;
	}
	close(fd);
out:
	free(ksh);
	return rv;
}
