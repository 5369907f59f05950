/*
 * kc_anon.c -- "kdt -a": claim the anonymous state and consume it;
 * "kdt -a --previous": print the previous boot's region.
 *
 * Called by the kdt front end (consumer/kdt_main.c).  The protocol is the
 * /dev/kdt ABI of common/kio.h:
 *
 *   KIO_INFO    is there an anonymous state, and if not, why not (no
 *               kdt.anon on the command line, rejected at boot and the
 *               reason, already claimed and by whom);
 *   KIO_CLAIM   it becomes this file's consumer state (struct kio_claim:
 *               what KIO_ENABLE would have said);
 *   kdt -a      the kernel engine's loop over it (kc_kernel_claimed():
 *               what was buffered since boot, then new records as they
 *               come, drops and errors as dtrace reports them, until
 *               exit(), a full fill buffer, SIGINT or SIGTERM; END and
 *               the aggregations at the end);
 *   kdt -ae     KIO_STOP at once (END fires into the region), then the
 *               region image, read whole with pread(), goes to the decoder
 *               kdt-extract uses on dumps (kc_print_region), and kdt
 *               exits: everything recorded is printed once;
 *   closing     the file ends the claimed state (kio.h).
 *
 * --previous reads /dev/kdt-previous (kio.h: kdt.ko's copy of the region
 * a previous boot left behind) whole and prints it with the same decoder.
 * --format=json|perfetto|html (cl_format) goes to the export writers
 * (consumer/kc_export.h) through the same call; an export is one finished
 * document, so with it -a acts as -ae.
 *
 * Every "there is nothing to claim" case is one line on the error stream
 * saying why, and exit status 1.
 *
 * A region kdt -A sized for fewer CPUs than the boot has: kdt.ko divides
 * it among all of them (kd_cs.c, rgn_init()), each buffer smaller than
 * the enabling asked for.  Once claimed, kdt says so as dtrace says
 * bufresize=auto lowered a buffer (kc_region_lowered(), which kdt-extract
 * calls too), before any record.
 */
#include <errno.h>
#include <stdio.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>

#include "common/dof.h"
#include "common/dof_load.h"
#include "common/kio.h"
#include "common/rgn.h"
#include "consumer/kc.h"
#include "consumer/kc_sym.h"
#include "consumer/kc_fmt.h"	/* kc_fmt_drops */
#include "consumer/kc_kernel.h"	/* KC_DEV, kc_kernel_claimed */
#include "consumer/kc_run.h"

#define KC_REGION_MAX	(1ULL << 34)	/* 16 GiB: larger is not a region */

/* kc_anon_bufsize_default()'s rule (kc.h) */
#define KC_ANON_BUFSIZE		(4ULL << 20)
#define KC_ANON_BUFTOTAL	(64ULL << 20)
#define KC_ANON_BUFSIZE_MIN	(256ULL << 10)

uint64_t
kc_anon_bufsize_default(uint32_t ncpu)
{
	uint64_t b = KC_ANON_BUFTOTAL / (ncpu != 0 ? ncpu : 1);

	if (b > KC_ANON_BUFSIZE)
		b = KC_ANON_BUFSIZE;
	if (b < KC_ANON_BUFSIZE_MIN)
		b = KC_ANON_BUFSIZE_MIN;
	return b;
}

int
kc_region_lowered(const void *img, uint64_t len, const char *prog,
    FILE *err)
{
	struct dof_enabling *den = NULL;
	const struct rgn_hdr *h;
	struct rgn_view v;
	struct kdt_err ke;
	uint64_t want;
	char got[32], asked[32], total[32];

	if (rgn_open(&v, img, len, RGN_PHYS_ANY, &ke) != 0 ||
	    dof_load(v.rv_dof, v.rv_meta->rm_dof_size, &den, &ke) != 0)
		return 0;	/* the decoder says why */
	h = v.rv_hdr;
	want = den->den_opts[DTRACEOPT_BUFSIZE];
	dof_free(den);
	if (want == DTRACEOPT_UNSET) {
		if ((h->rh_flags & RGN_F_ANON) == 0)
			return 0;	/* a live session's: no rule to hold */
		want = kc_anon_bufsize_default(h->rh_ncpu);
	}
	/* rgn_size_for() rounds the request up to 8 bytes, then pages */
	if (h->rh_bufsize >= ((want + 7) & ~7ULL))
		return 0;
	kc_size_str(h->rh_bufsize, got, sizeof (got));
	kc_size_str(want, asked, sizeof (asked));
	kc_size_str(h->rh_size, total, sizeof (total));
	fprintf(err, "%s: buffer size lowered to %s (the %s region is divided among %u CPUs; the enabling asked for %s per CPU: the region was sized for fewer CPUs or a smaller bufsize)\n",
	    prog, got, total, h->rh_ncpu, asked);
	return 1;
}

/* 1 when the running kernel's command line asks for an anonymous state. */
static int
kc_anon_cmdline(void)
{
	char buf[4096], *w, *save;
	FILE *fp = fopen("/proc/cmdline", "r");
	int found = 0;

	if (fp == NULL)
		return 1;	/* cannot tell: do not claim it was not */
	if (fgets(buf, sizeof (buf), fp) != NULL)
		for (w = strtok_r(buf, " \t\n", &save); w != NULL;
		    w = strtok_r(NULL, " \t\n", &save))
			if (strcmp(w, "kdt.anon=1") == 0 ||
			    strcmp(w, "kdt.anon=Y") == 0 ||
			    strcmp(w, "kdt.anon=y") == 0)
				found = 1;
	fclose(fp);
	return found;
}

/* Open "path" for "what"; -1 after one line saying why. */
static int
kc_anon_open(const char *path, int flags, const char *what, FILE *err)
{
	int fd = open(path, flags | O_CLOEXEC);

	if (fd >= 0)
		return fd;
	if (errno == EACCES || errno == EPERM)
		fprintf(err, "kdt: %s: permission denied: %s needs root (CAP_SYS_ADMIN); see kdt(1), DEVICE ACCESS\n",
		    path, what);
	else if (errno == ENOENT || errno == ENXIO || errno == ENODEV)
		fprintf(err, "kdt: no anonymous state: %skdt.ko is not loaded (%s is missing); see kdt(1), ANONYMOUS TRACING\n",
		    kc_anon_cmdline() ? "" :
		    "the kernel was not booted with kdt.anon=1 and ", path);
	else
		fprintf(err, "kdt: %s: cannot open: %s\n", path,
		    strerror(errno));
	return -1;
}

static int
kc_anon_info(int fd, struct kio_info *ki, FILE *err)
{
	memset(ki, 0, sizeof (*ki));
	if (ioctl(fd, KIO_INFO, ki) != 0) {
		if (errno == ENOTTY || errno == EINVAL)
			fprintf(err, "kdt: %s: KIO_INFO refused: kdt.ko does not speak /dev/kdt version %u (load the kdt.ko built with this kdt)\n",
			    KC_DEV, (unsigned)KIO_VERSION);
		else
			fprintf(err, "kdt: %s: KIO_INFO: %s\n", KC_DEV,
			    strerror(errno));
		return 1;
	}
	ki->ki_reason[sizeof (ki->ki_reason) - 1] = '\0';
	ki->ki_prev_msg[sizeof (ki->ki_prev_msg) - 1] = '\0';
	if (ki->ki_version != KIO_VERSION) {
		fprintf(err, "kdt: %s: kdt.ko speaks /dev/kdt version %u, this kdt speaks version %u\n",
		    KC_DEV, ki->ki_version, (unsigned)KIO_VERSION);
		return 1;
	}
	return 0;
}

/* 0 when there is an anonymous state to claim, else 1 after saying why. */
static int
kc_anon_state(const struct kio_info *ki, FILE *err)
{
	const char *why = ki->ki_reason;
	const char *sep = why[0] != '\0' ? ": " : "";

	switch (ki->ki_anon) {
	case KIO_ANON_ACTIVE:
		return 0;
	case KIO_ANON_NONE:
		/* kdt.ko's reason (a capture kernel) replaces the guess */
		if (why[0] != '\0')
			fprintf(err, "kdt: no anonymous state: %s; see kdt(1), ANONYMOUS TRACING\n", why);
		else
			fprintf(err, "kdt: no anonymous state: the kernel was not booted with kdt.anon=1 (kdt -A installs an enabling); see kdt(1), ANONYMOUS TRACING\n");
		return 1;
	case KIO_ANON_CLAIMED:
		if (why[0] != '\0')	/* the claimer has ended it */
			fprintf(err, "kdt: no anonymous state to claim: %s; see kdt(1), ANONYMOUS TRACING\n",
			    why);
		else
			fprintf(err, "kdt: the anonymous state is already claimed by pid %u; see kdt(1), ANONYMOUS TRACING\n",
			    ki->ki_claim_pid);
		return 1;
	case KIO_ANON_FAILED:
		fprintf(err, "kdt: no anonymous state: the anonymous enabling was rejected at boot%s%s; see kdt(1), ANONYMOUS TRACING\n",
		    sep, why);
		return 1;
	}
	fprintf(err, "kdt: %s: unknown anonymous state %u\n", KC_DEV,
	    ki->ki_anon);
	return 1;
}

static int
kc_claim(int fd, struct kio_claim *kc, FILE *err)
{
	memset(kc, 0, sizeof (*kc));
	if (ioctl(fd, KIO_CLAIM, kc) == 0)
		return 0;
	kc->kc_msg[sizeof (kc->kc_msg) - 1] = '\0';
	if (errno == EBUSY)
		fprintf(err, "kdt: %s; see kdt(1), ANONYMOUS TRACING\n", kc->kc_msg[0] != '\0' ? kc->kc_msg :
		    "the anonymous state is already claimed");
	else if (errno == ENOENT)
		fprintf(err, "kdt: no anonymous state to claim%s%s; see kdt(1), ANONYMOUS TRACING\n",
		    kc->kc_msg[0] != '\0' ? ": " : "", kc->kc_msg);
	else
		fprintf(err, "kdt: %s: KIO_CLAIM: %s%s%s\n", KC_DEV,
		    strerror(errno), kc->kc_msg[0] != '\0' ? ": " : "",
		    kc->kc_msg);
	return 1;
}

/* Read "size" bytes of the image "fd" ("path"); NULL after saying why. */
static uint8_t *
kc_read_image(int fd, const char *path, uint64_t size, FILE *err)
{
	uint8_t *buf;
	uint64_t done = 0;
	ssize_t n;

	if (size == 0 || size > KC_REGION_MAX) {
		fprintf(err, "kdt: %s: region size 0x%llx is outside [1, 0x%llx]\n",
		    path, (unsigned long long)size,
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
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			fprintf(err, "kdt: %s: read at region offset 0x%llx of 0x%llx: %s\n",
			    path, (unsigned long long)done,
			    (unsigned long long)size,
			    n == 0 ? "unexpected end" : strerror(errno));
			free(buf);
			return NULL;
		}
		done += (uint64_t)n;
	}
	return buf;
}

/*
 * Print a region image read from fd.  Stack frames and symbols resolve
 * with this boot's /proc/kallsyms for this boot's region, and with the
 * writing kernel's symbols for the previous boot's (kc_sym_for_region():
 * another KASLR offset, maybe another kernel).
 */
static int
kc_print_image(int fd, const char *path, uint64_t size, uint64_t phys,
    int previous, const struct kc_claim_opts *co, FILE *out, FILE *err)
{
	struct kc_opts o = { "kdt", (co->cl_quiet ? KC_F_QUIET : 0) |
	    (co->cl_vars ? KC_F_VARS : 0), co->cl_format, NULL };
	uint8_t *img = kc_read_image(fd, path, size, err);
	struct kc_symtab *syms;
	char why[512];
	int rv, failed;

	if (img == NULL)
		return 1;
	(void) kc_region_lowered(img, size, "kdt", err);
	if (previous)
		syms = kc_sym_for_region(img, size, NULL, co->cl_quiet, "kdt",
		    err, &failed);
	else
		syms = kc_sym_load_kallsyms("/proc/kallsyms", why,
		    sizeof (why));
	if (syms != NULL)
		kc_sym_set_default(syms);
	rv = kc_print_region_opts(img, size, phys, path, out, err, &o);
	if (syms != NULL) {
		kc_sym_set_default(NULL);
		kc_sym_free(syms);
	}
	free(img);
	return rv;
}

/* kdt -a --previous */
static int
kc_anon_previous(const struct kc_claim_opts *co, FILE *out, FILE *err)
{
	struct kio_info ki;
	off_t end;
	int fd, rv;

	fd = open(KIO_PREV_DEV, O_RDONLY | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT) {
		/* kdt.ko says why it kept nothing */
		fd = kc_anon_open(KC_DEV, O_RDONLY, "reading the previous boot's region", err);
		if (fd < 0)
			return 1;
		if (kc_anon_info(fd, &ki, err) == 0)
			fprintf(err, "kdt: no previous boot's region: %s; see kdt(1), ANONYMOUS TRACING\n",
			    ki.ki_prev_msg[0] != '\0' ? ki.ki_prev_msg :
			    "kdt.ko kept none");
		close(fd);
		return 1;
	}
	if (fd < 0) {
		if (errno == EACCES || errno == EPERM)
			fprintf(err, "kdt: %s: permission denied: reading the previous boot's region needs root (CAP_SYS_ADMIN); see kdt(1), DEVICE ACCESS\n",
			    KIO_PREV_DEV);
		else
			fprintf(err, "kdt: %s: cannot open: %s\n",
			    KIO_PREV_DEV, strerror(errno));
		return 1;
	}
	end = lseek(fd, 0, SEEK_END);
	if (end < 0) {
		fprintf(err, "kdt: %s: cannot find its size: %s\n",
		    KIO_PREV_DEV, strerror(errno));
		close(fd);
		return 1;
	}
	rv = kc_print_image(fd, KIO_PREV_DEV, (uint64_t)end, RGN_PHYS_ANY, 1,
	    co, out, err);
	close(fd);
	return rv;
}

int
kc_anon_claim(const struct kc_claim_opts *co, FILE *out, FILE *err)
{
	struct kc_run_opts ro;
	struct kio_status st;
	struct kio_claim kc;
	struct kio_info ki;
	uint8_t *img;
	int fd, rv = 1;

	if (co->cl_previous)
		return kc_anon_previous(co, out, err);
	fd = kc_anon_open(KC_DEV, O_RDWR, "claiming the anonymous state",
	    err);
	if (fd < 0)
		return 1;
	if (kc_anon_info(fd, &ki, err) != 0 || kc_anon_state(&ki, err) != 0 ||
	    kc_claim(fd, &kc, err) != 0)
		goto out;
	if (!co->cl_exit && co->cl_format == KC_FORMAT_TEXT) {
		/* kc_print_image() says it for -ae */
		if ((img = kc_read_image(fd, KC_DEV, kc.kc_rgnsize,
		    err)) != NULL) {
			(void) kc_region_lowered(img, kc.kc_rgnsize, "kdt",
			    err);
			free(img);
		}
		memset(&ro, 0, sizeof (ro));
		ro.ro_prog = "kdt";
		ro.ro_input = "anonymous state";
		ro.ro_quiet = (uint32_t)co->cl_quiet;
		ro.ro_is_script = 1;
		return kc_kernel_claimed(fd, &kc, &ro, out, err);
	}
	/* -ae: stop now (END), print all of it, end the state */
	if (ioctl(fd, KIO_STOP) != 0) {
		fprintf(err, "kdt: %s: KIO_STOP: %s\n", KC_DEV,
		    strerror(errno));
		goto out;
	}
	rv = kc_print_image(fd, KC_DEV, kc.kc_rgnsize, ki.ki_region_phys, 0,
	    co, out, err);
	/*
	 * Firings kdt.ko could not run (a probe in an NMI that interrupted
	 * another on its CPU) leave no trace in the region: only the state
	 * counts them, so say so as the live loop does.
	 */
	if (ioctl(fd, KIO_STATUS, &st) == 0)
		kc_fmt_drops(err, "kdt", KC_DROP_PRINCIPAL, st.kst_missed,
		    KC_DROP_NOCPU);
	else
		fprintf(err, "kdt: %s: KIO_STATUS: %s\n", KC_DEV,
		    strerror(errno));
out:
	close(fd);
	return rv;
}
