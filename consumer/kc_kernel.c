/*
 * kc_kernel.c -- the kernel engine (kdt.ko through /dev/kdt) and the
 * probe listing; kc_kernel.h has the picture, common/kio.h the contract.
 *
 * Called by kc_run() (consumer/kc_run.c) for "kdt -s x.d" and "kdt -n"
 * when kdt.ko is loaded, and by the kdt command for "kdt -l".  The file
 * has four parts: the device (open, errors); setup (the userspace copy
 * of the enabling, KIO_ENABLE, the mirror of the region image, the
 * session); the consumer loop (snapshots, status, drops); the listing.
 *
 * The mirror.  KIO_ENABLE lays out a region (rgn.h) in kernel memory;
 * the engine reads its image once, whole, and from then on only the
 * per-CPU slots change: KIO_SNAP_BUF writes a CPU's struct rgn_cpu and
 * the bytes of its new records into that CPU's slot, at the positions
 * the region layout gives them, so the decoder (kc_dec, which re-reads
 * the per-CPU header at every consume) walks the mirror exactly as it
 * walks a region image from a dump.  Under bufpolicy=switch each
 * snapshot hands over a full buffer and the new records are decoded at
 * once; under fill and ring the kernel hands the data over only after
 * KIO_STOP (before that a snapshot brings the header alone: the drop
 * count, which ends a fill-policy run), so they are decoded at the end.
 *
 * Aggregations.  At aggrate (and before printa, clear() and the end)
 * every CPU's aggregation buffer is snapshotted (KIO_SNAP_AGG) and
 * merged into the session's table (kc_agg.h); after each round the table
 * goes back to kdt.ko with the intervals it holds (KIO_AGGTOT), which
 * keeps it in a live state's region so a crash dump carries the numbers
 * this process had (rgn.h, "Aggregation totals").
 *
 * The userspace copy of the enabling.  The engine loads the DOF it hands
 * to the kernel with dof_load() too: the decoder needs every ECB's
 * record layout, and a description that matched nothing is named from
 * it (ken_badecb).  The DOF in the region is the same bytes.
 *
 * Kernel symbols.  stack(), sym(), mod(), %a and %k print kernel
 * addresses by name from /proc/kallsyms, loaded at setup as the
 * formatter's table (consumer/kc_sym.h); where it cannot be read the
 * addresses print in hex, as dtrace prints addresses it cannot resolve.
 *
 * The claimed anonymous state ("kdt -a", kc_kernel_claimed()).  After
 * KIO_CLAIM the file holds the anonymous state as if it had enabled it:
 * the engine reads the region image into the mirror (the per-CPU
 * cursors of each slot are zeroed first: the copy raced the writers),
 * loads the DOF the region carries, and runs the same loop without
 * KIO_GO (BEGIN fired at boot).  kdt.ko hands over each CPU's records
 * committed since the last snapshot, from the first snapshot on (which
 * brings everything buffered since boot), so they are decoded as they
 * come under every policy.
 *
 * Signals.  SIGINT and SIGTERM end tracing as dtrace's ^C does (END
 * fires, the rest is consumed, aggregations are printed).  The handlers
 * are installed even when the signal was ignored (dtrace leaves an
 * ignored SIGINT alone): a kdt started in the background by a
 * non-interactive shell has SIGINT ignored, and `kill -INT` must still
 * stop it -- the VM scenarios and scripts rely on that.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>

#include "common/dof.h"
#include "common/dof_load.h"
#include "common/rgn.h"
#include "common/agg.h"
#include "common/ecb.h"
#include "common/kio.h"
#include "consumer/kc_agg.h"
#include "consumer/kc_engine.h"
#include "consumer/kc_fmt.h"	/* kc_size_str */
#include "consumer/kc_resize.h"
#include "consumer/kc_sess.h"
#include "consumer/kc_sym.h"
#include "consumer/kc_kernel.h"
#include "consumer/kc_proc.h"
#include "consumer/kc_uprobe.h"
#include "compiler/dc.h"

#define KK_NS		1000000000ULL
#define KK_TICK		(50ULL * 1000000)	/* the loop wakes this often */
#define KK_REGION_MAX	(1ULL << 34)	/* 16 GiB: no bigger region */
#define KK_LIST_CAP	1024		/* first KIO_LIST array */
#define KK_LIST_NARGS	10		/* -l -v: args[] listed (DIF_NARGS) */

struct kk {
	struct kc_sess	kk_sess;	/* decoder, aggregations, drops */
	const struct kc_run_opts *kk_ro;
	FILE		*kk_err;
	const char	*kk_prog;
	int		kk_fd;
	int		kk_failed;	/* an ioctl failed: said once */
	struct dof_enabling *kk_den;	/* our copy of the enabling */
	struct kio_enable kk_en;
	uint8_t		*kk_mirror;	/* ken_rgnsize bytes */
	struct rgn_view	kk_view;
	uint32_t	kk_ncpu;
	uint8_t		*kk_aggbuf;	/* ken_aggsize bytes, or NULL */
	uint64_t	*kk_aggdrops;	/* [cpu]: ab_drops last seen */
	uint8_t		*kk_tot;	/* KIO_AGGTOT buffer: [cpu] intervals
					   merged, then the table image */
	uint64_t	kk_totcap;	/* image bytes a totals slot holds */
	int		kk_notot;	/* kdt.ko keeps no totals (-ENOENT) */
	uint64_t	kk_switchrate;	/* ns between buffer snapshots */
	uint64_t	kk_aggrate;	/* ns between agg. snapshots */
	uint64_t	kk_statusrate;	/* ns between drop reports */
	uint64_t	kk_lastswitch;
	uint64_t	kk_lastsnap;
	uint64_t	kk_lastreport;
	struct kio_status kk_st;	/* the last KIO_STATUS */
	struct kc_symtab *kk_syms;	/* /proc/kallsyms, or NULL */
	int		kk_claimed;	/* the claimed anonymous state */
	struct kc_uptab	kk_up;		/* pid/USDT probes (kc_uprobe.h) */
};

static volatile sig_atomic_t kk_intr;

static void
kk_on_signal(int sig)
{
	kk_intr = 1;
}

/* ---- the device ---- */

int
kc_dev_present(void)
{
	return access(KC_DEV, F_OK) == 0;
}

int
kc_dev_open(int flags, FILE *err)
{
	int fd = open(KC_DEV, flags | O_CLOEXEC);

	if (fd >= 0)
		return fd;
	if (errno == EACCES || errno == EPERM)
		fprintf(err, "kdt: %s: permission denied: tracing needs root (CAP_SYS_ADMIN); see kdt(1), DEVICE ACCESS\n",
		    KC_DEV);
	else if (errno == ENOENT || errno == ENXIO || errno == ENODEV)
		fprintf(err, "kdt: %s: kdt.ko is not loaded; see kdt(1), DEVICE ACCESS\n", KC_DEV);
	else
		fprintf(err, "kdt: %s: cannot open: %s\n", KC_DEV,
		    strerror(errno));
	return -1;
}

/* Say once that ioctl "what" failed with errno "e"; returns -1. */
static int
kk_ioctl_failed(struct kk *k, const char *what, uint32_t cpu, int e)
{
	if (k->kk_failed++ != 0)
		return -1;
	fflush(k->kk_sess.se_out);
	if (cpu != KC_SESS_NOCPU)
		fprintf(k->kk_err, "%s: %s: %s of CPU %u: %s\n", k->kk_prog,
		    KC_DEV, what, cpu, strerror(e));
	else
		fprintf(k->kk_err, "%s: %s: %s: %s\n", k->kk_prog, KC_DEV,
		    what, strerror(e));
	return -1;
}

static uint64_t
kk_now(void)
{
	struct timespec ts;

	(void) clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * KK_NS + (uint64_t)ts.tv_nsec;
}

static void
kk_sleep_until(uint64_t t)
{
	struct timespec ts;

	ts.tv_sec = (time_t)(t / KK_NS);
	ts.tv_nsec = (long)(t % KK_NS);
	(void) clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
}

/* ---- setup ---- */

static uint64_t
kk_opt(const struct kk *k, uint32_t opt, uint64_t dflt)
{
	uint64_t v = k->kk_den->den_opts[opt];

	return v == DTRACEOPT_UNSET ? dflt : v;
}

/*
 * KIO_ENABLE failed with errno "e": dtrace's message for a description
 * that matches no probe, else the kernel's reason.
 */
static void
kk_enable_failed(struct kk *k, int e)
{
	const struct kio_enable *en = &k->kk_en;
	const struct kc_run_opts *ro = k->kk_ro;
	const struct dof_pdesc *pd;

	if (e == ENOENT && en->ken_badecb < k->kk_den->den_necbs) {
		pd = &k->kk_den->den_ecbs[en->ken_badecb].le_pdesc;
		if (ro->ro_spec != NULL)
			fprintf(k->kk_err, "%s: invalid probe specifier %s: probe description %s:%s:%s:%s does not match any probes\n",
			    k->kk_prog, ro->ro_spec, pd->lp_prov, pd->lp_mod,
			    pd->lp_func, pd->lp_name);
		else
			fprintf(k->kk_err, "%s: failed to compile script %s: probe description %s:%s:%s:%s does not match any probes\n",
			    k->kk_prog, ro->ro_input != NULL ? ro->ro_input :
			    "-", pd->lp_prov, pd->lp_mod, pd->lp_func,
			    pd->lp_name);
		return;
	}
	/* EPERM: the kernel is locked down (kd_dev.c) */
	fprintf(k->kk_err, "%s: could not enable tracing: %s%s\n", k->kk_prog,
	    en->ken_msg[0] != '\0' ? en->ken_msg : strerror(e),
	    e == EPERM ? "; see kdt(1), DEVICE ACCESS" : "");
}

/*
 * The user-space probes the descriptions name (pid<N>, USDT <prov><N>,
 * globs over the -c/-p processes), resolved here because kdt.ko cannot
 * read ELF files: the table goes along with KIO_ENABLE.  0 or 1.
 */
static int
kk_uprobes(struct kk *k)
{
	uint32_t pids[KC_PROCS_MAX], n;

	n = kc_proc_pids(k->kk_ro->ro_procs, pids);
	if (kc_uprobe_build(&k->kk_up, k->kk_den, pids, n, k->kk_prog,
	    k->kk_err) != 0)
		return 1;
	k->kk_en.ken_uprobes = (uint64_t)(uintptr_t)k->kk_up.ut_ents;
	k->kk_en.ken_nuprobes = k->kk_up.ut_n;
	return 0;
}

/* Load our copy of the DOF and hand the DOF to kdt.ko.  0 or 1. */
static int
kk_enable(struct kk *k, const void *dof, uint64_t dofsz)
{
	struct kio_enable *en = &k->kk_en;
	struct kdt_err ke;

	if (dof_load(dof, dofsz, &k->kk_den, &ke) != 0) {
		fprintf(k->kk_err, "%s: could not enable tracing: DOF: %s\n",
		    k->kk_prog, ke.ke_msg);
		return 1;
	}
	memset(en, 0, sizeof (*en));
	en->ken_dof = (uint64_t)(uintptr_t)dof;
	en->ken_dofsz = dofsz;
	if (k->kk_ro->ro_destructive)
		en->ken_flags |= KIO_EN_DESTRUCTIVE;
	if (k->kk_ro->ro_zdefs)
		en->ken_flags |= KIO_EN_ZDEFS;
	if (k->kk_ro->ro_region)
		en->ken_flags |= KIO_EN_REGION;
	en->ken_badecb = ~0u;
	if (kk_uprobes(k) != 0)
		return 1;
	if (ioctl(k->kk_fd, KIO_ENABLE, en) != 0) {
		en->ken_msg[sizeof (en->ken_msg) - 1] = '\0';
		kk_enable_failed(k, errno);
		return 1;
	}
	en->ken_msg[sizeof (en->ken_msg) - 1] = '\0';
	/* Enabled, but something was not: e.g. a probe kdt.ko could not arm. */
	if (en->ken_msg[0] != '\0')
		fprintf(k->kk_err, "%s: warning: %s\n", k->kk_prog, en->ken_msg);
	return 0;
}

/*
 * The claimed state's region was copied while its CPUs wrote: start
 * every slot empty (head = reserve = tail = 0); the snapshots fill it.
 * The header is checked by rgn_open() right after.
 */
static void
kk_mirror_cursors(uint8_t *img, uint64_t size)
{
	const struct rgn_hdr *rh = (const struct rgn_hdr *)(void *)img;
	struct rgn_cpu *rc;
	uint64_t off;
	uint32_t c;

	if (size < sizeof (*rh) ||
	    rh->rh_cpu_off > size || rh->rh_cpu_stride < RGN_CPU_HDRSIZE)
		return;
	for (c = 0; c < rh->rh_ncpu; c++) {
		off = rh->rh_cpu_off + (uint64_t)c * rh->rh_cpu_stride;
		if (off > size - RGN_CPU_HDRSIZE)
			return;
		rc = (struct rgn_cpu *)(void *)(img + off);
		rc->rc_head = rc->rc_reserve = rc->rc_tail = 0;
	}
}

/* Read the region image, whole, into the mirror and open it.  0 or 1. */
static int
kk_mirror(struct kk *k)
{
	uint64_t size = k->kk_en.ken_rgnsize, done = 0;
	struct kdt_err ke;
	ssize_t n;

	if (size == 0 || size > KK_REGION_MAX) {
		fprintf(k->kk_err, "%s: %s: region size 0x%llx is outside [1, 0x%llx]\n",
		    k->kk_prog, KC_DEV, (unsigned long long)size,
		    (unsigned long long)KK_REGION_MAX);
		return 1;
	}
	if ((k->kk_mirror = malloc(size)) == NULL) {
		fprintf(k->kk_err, "%s: no memory for the 0x%llx-byte region image\n",
		    k->kk_prog, (unsigned long long)size);
		return 1;
	}
	while (done < size) {
		n = pread(k->kk_fd, k->kk_mirror + done, size - done,
		    (off_t)done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			fprintf(k->kk_err, "%s: %s: read at region offset 0x%llx of 0x%llx: %s\n",
			    k->kk_prog, KC_DEV, (unsigned long long)done,
			    (unsigned long long)size,
			    n == 0 ? "unexpected end" : strerror(errno));
			return 1;
		}
		done += (uint64_t)n;
	}
	if (k->kk_claimed)
		kk_mirror_cursors(k->kk_mirror, size);
	if (rgn_open(&k->kk_view, k->kk_mirror, size, RGN_PHYS_ANY,
	    &ke) != 0) {
		fprintf(k->kk_err, "%s: %s: region image: %s\n", k->kk_prog,
		    KC_DEV, ke.ke_msg);
		return 1;
	}
	k->kk_ncpu = k->kk_view.rv_hdr->rh_ncpu;
	if (k->kk_ncpu != k->kk_en.ken_ncpu) {
		fprintf(k->kk_err, "%s: %s: the region image has %u CPU buffers, KIO_ENABLE said %u\n",
		    k->kk_prog, KC_DEV, k->kk_ncpu, k->kk_en.ken_ncpu);
		return 1;
	}
	return 0;
}

/*
 * What bufresize=auto lowered (kio.h, ken_resized), in dtrace's words;
 * on stderr, -q or not, as dtrace.
 */
static void
kk_resized(struct kk *k)
{
	uint64_t bufsize = k->kk_den->den_opts[DTRACEOPT_BUFSIZE], dynvarsize;
	char sz[32];

	if (bufsize == DTRACEOPT_UNSET)
		bufsize = KIO_BUFSIZE_DEFAULT;
	if (k->kk_en.ken_resized & KIO_RS_BUF) {
		kc_size_str(bufsize >> KIO_RS_BUFSHIFT(k->kk_en.ken_resized),
		    sz, sizeof (sz));
		fprintf(k->kk_err, "%s: buffer size lowered to %s\n",
		    k->kk_prog, sz);
	}
	if (k->kk_en.ken_resized & KIO_RS_AGG) {
		kc_size_str(k->kk_en.ken_aggsize, sz, sizeof (sz));
		fprintf(k->kk_err, "%s: aggregation size lowered to %s\n",
		    k->kk_prog, sz);
	}
	if (k->kk_en.ken_resized & KIO_RS_DYN) {
		dynvarsize = k->kk_den->den_opts[DTRACEOPT_DYNVARSIZE];
		if (dynvarsize == DTRACEOPT_UNSET)
			dynvarsize = ECB_DYNVARSIZE_DEFAULT;
		(void) kc_dynvar_lowered(k->kk_err, k->kk_prog, dynvarsize,
		    dynvarsize >> KIO_RS_DYNSHIFT(k->kk_en.ken_resized));
	}
}

/* The aggregation snapshot buffer and per-CPU drop counts.  0 or 1. */
static int
kk_aggs(struct kk *k)
{
	if (k->kk_en.ken_aggsize == 0 || k->kk_den->den_naggs == 0)
		return 0;
	k->kk_aggbuf = malloc(k->kk_en.ken_aggsize);
	k->kk_aggdrops = calloc(k->kk_ncpu, sizeof (uint64_t));
	if (k->kk_aggbuf == NULL || k->kk_aggdrops == NULL) {
		fprintf(k->kk_err, "%s: no memory for 0x%llx bytes of aggregation snapshot\n",
		    k->kk_prog, (unsigned long long)k->kk_en.ken_aggsize);
		return 1;
	}
	return 0;
}

/* ---- the consumer loop ---- */

/*
 * After a round of aggregation snapshots, and after decoding a CPU's
 * records when the program uses clear(), trunc(), normalize() or
 * denormalize() (without them a dump has no action to replay): hand the
 * merged table to kdt.ko (KIO_AGGTOT) with where the decoder stands and
 * the normalize() divisors (the replay part), which it keeps in the
 * state's region so a crash dump holds the totals (rgn.h, "Aggregation
 * totals"): a live state's, or the claimed anonymous state's when its
 * region had room.  The first call asks for the slot size; -ENOENT (no
 * totals area: an anonymous region without room, buffers in kernel
 * memory, an older kdt.ko) turns it off for the session.
 */
static void
kk_aggtot(struct kk *k)
{
	struct kio_aggtot kt;
	uint64_t len, xlen, left;

	if (k->kk_notot || k->kk_sess.se_aggs == NULL)
		return;
	memset(&kt, 0, sizeof (kt));
	kt.kt_ncpu = k->kk_ncpu;
	if (k->kk_tot == NULL) {	/* before the first round */
		if (ioctl(k->kk_fd, KIO_AGGTOT, &kt) != 0 ||
		    kt.kt_cap < AGG_BUF_HDRSIZE + 256 ||
		    (k->kk_tot = calloc(1, 8ULL * k->kk_ncpu +
		    kt.kt_cap)) == NULL) {
			if (errno != ENOENT && errno != ENOTTY)
				(void) kk_ioctl_failed(k, "KIO_AGGTOT", 0,
				    errno);
			k->kk_notot = 1;
			return;
		}
		k->kk_totcap = kt.kt_cap;
		return;
	}
	/* the table, then where decoding stands (replay: rgn.h) */
	if (kc_sess_totals(&k->kk_sess, k->kk_tot + 8ULL * k->kk_ncpu,
	    k->kk_totcap, &len, &xlen, &left) != 0 || xlen > UINT32_MAX)
		return;
	kt.kt_buf = (uint64_t)(uintptr_t)k->kk_tot;
	kt.kt_len = len;
	kt.kt_xlen = (uint32_t)xlen;
	kt.kt_left = left;
	if (ioctl(k->kk_fd, KIO_AGGTOT, &kt) != 0) {
		(void) kk_ioctl_failed(k, "KIO_AGGTOT", 0, errno);
		k->kk_notot = 1;
	}
}

/*
 * Merge every CPU's aggregation buffer into the session (its snapshot
 * callback; also at aggrate and at the end).
 */
static void
kk_snap_aggs(void *arg)
{
	struct kk *k = arg;
	const struct agg_buf *ab = (const struct agg_buf *)k->kk_aggbuf;
	struct kio_snap ks;
	struct kdt_err ke;
	uint32_t cpu;

	k->kk_lastsnap = kk_now();
	if (ab == NULL || k->kk_sess.se_aggs == NULL)
		return;
	if (k->kk_tot == NULL)
		kk_aggtot(k);	/* asks for the totals slot size */
	for (cpu = 0; cpu < k->kk_ncpu; cpu++) {
		memset(&ks, 0, sizeof (ks));
		ks.ks_cpu = cpu;
		ks.ks_what = KIO_SNAP_AGG;
		ks.ks_buf = (uint64_t)(uintptr_t)k->kk_aggbuf;
		ks.ks_len = k->kk_en.ken_aggsize;
		if (ioctl(k->kk_fd, KIO_SNAP, &ks) != 0) {
			if (errno == ENOENT && cpu == 0) {
				/* kdt.ko keeps no aggregation buffers */
				free(k->kk_aggbuf);
				k->kk_aggbuf = NULL;
				return;
			}
			(void) kk_ioctl_failed(k, "KIO_SNAP_AGG", cpu, errno);
			return;
		}
		if (agg_buf_check(ab, k->kk_en.ken_aggsize, k->kk_den,
		    &ke) != 0) {
			fprintf(k->kk_err, "%s: aggregation buffer of CPU %u: %s\n",
			    k->kk_prog, cpu, ke.ke_msg);
			continue;
		}
		k->kk_aggdrops[cpu] = ab->ab_drops;
		if (kc_aggs_snap(k->kk_sess.se_aggs, ab) != 0) {
			fprintf(k->kk_err, "%s: out of memory merging aggregations\n",
			    k->kk_prog);
			continue;
		}
		if (k->kk_tot != NULL)	/* this CPU's interval is merged */
			memcpy(k->kk_tot + 8ULL * cpu, &ab->ab_interval, 8);
	}
	kk_aggtot(k);
}

/*
 * Take CPU "cpu"'s principal buffer into its mirror slot.  The records
 * are decoded when the data came along: under the switch policy always,
 * under fill and ring once the enabling is stopped ("final").
 */
static int
kk_snap_buf(struct kk *k, uint32_t cpu, int final)
{
	const struct rgn_hdr *rh = k->kk_view.rv_hdr;
	struct kio_snap ks;

	memset(&ks, 0, sizeof (ks));
	ks.ks_cpu = cpu;
	ks.ks_what = KIO_SNAP_BUF;
	ks.ks_buf = (uint64_t)(uintptr_t)(k->kk_mirror + rh->rh_cpu_off +
	    (uint64_t)cpu * rh->rh_cpu_stride);
	ks.ks_len = rh->rh_cpu_stride;
	if (ioctl(k->kk_fd, KIO_SNAP, &ks) != 0)
		return kk_ioctl_failed(k, "KIO_SNAP_BUF", cpu, errno);
	if ((final || k->kk_claimed ||
	    k->kk_en.ken_policy == DTRACEOPT_BUFPOLICY_SWITCH) &&
	    kc_dec_consume(k->kk_sess.se_dec, cpu) > 0 &&
	    (k->kk_den == NULL || kc_den_aggacts(k->kk_den)))
		kk_aggtot(k);	/* where decoding stands (rgn.h: replay) */
	return 0;
}

/*
 * Probes can be added while tracing runs (fbt probes of a module that
 * loads later): kdt.ko then publishes more probe and EPID entries in
 * the region's metadata (rgn.h: counts after entries).  Re-read the
 * metadata area into the mirror when its counts changed, before
 * decoding records that may use the new EPIDs.
 */
static void
kk_refresh_meta(struct kk *k)
{
	const struct rgn_hdr *rh = k->kk_view.rv_hdr;
	struct rgn_meta *mm = (struct rgn_meta *)(void *)(k->kk_mirror +
	    rh->rh_meta_off);
	struct rgn_meta m;
	uint64_t done = 0;
	ssize_t n;

	if (pread(k->kk_fd, &m, sizeof (m), (off_t)rh->rh_meta_off) !=
	    (ssize_t)sizeof (m))
		return;
	if (m.rm_nprobes == mm->rm_nprobes && m.rm_nepids == mm->rm_nepids)
		return;
	if (m.rm_nprobes > mm->rm_probe_cap || m.rm_nepids > mm->rm_epid_cap ||
	    m.rm_probe_off != mm->rm_probe_off ||
	    m.rm_epid_off != mm->rm_epid_off) {
		fprintf(k->kk_err, "%s: %s: the region's probe tables changed shape (%u probes, %u EPIDs): not used\n",
		    k->kk_prog, KC_DEV, m.rm_nprobes, m.rm_nepids);
		return;
	}
	while (done < rh->rh_meta_size) {
		n = pread(k->kk_fd, k->kk_mirror + rh->rh_meta_off + done,
		    rh->rh_meta_size - done, (off_t)(rh->rh_meta_off + done));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return;
		done += (uint64_t)n;
	}
}

static void
kk_switch(struct kk *k, int final)
{
	uint32_t cpu;

	kk_refresh_meta(k);
	k->kk_lastswitch = kk_now();
	for (cpu = 0; cpu < k->kk_ncpu; cpu++)
		if (kk_snap_buf(k, cpu, final) != 0)
			return;
}

static int
kk_status(struct kk *k)
{
	if (ioctl(k->kk_fd, KIO_STATUS, &k->kk_st) != 0)
		return kk_ioctl_failed(k, "KIO_STATUS", KC_SESS_NOCPU, errno);
	return 0;
}

/*
 * Report every counter's growth: principal drops per CPU from the mirror
 * (the snapshots bring rc_drops), firings the kernel missed, aggregation
 * drops per CPU from the aggregation snapshots, the rest from KIO_STATUS.
 */
static void
kk_report(struct kk *k)
{
	const struct kio_status *st = &k->kk_st;
	struct kc_sess *s = &k->kk_sess;
	uint32_t cpu;

	k->kk_lastreport = kk_now();
	kc_sess_drops_begin(s);
	for (cpu = 0; cpu < k->kk_ncpu; cpu++)
		kc_sess_drop(s, KC_DROP_PRINCIPAL, cpu,
		    rgn_view_cpu(&k->kk_view, cpu)->rc_drops);
	kc_sess_drop(s, KC_DROP_PRINCIPAL, KC_SESS_NOCPU, st->kst_missed);
	for (cpu = 0; k->kk_aggdrops != NULL && cpu < k->kk_ncpu; cpu++)
		kc_sess_drop(s, KC_DROP_AGGREGATION, cpu, k->kk_aggdrops[cpu]);
	kc_sess_drop(s, KC_DROP_DYNAMIC, 0, st->kst_dyndrops);
	kc_sess_drop(s, KC_DROP_SPEC, 0, st->kst_specdrops);
	kc_sess_drop(s, KC_DROP_SPECBUSY, 0, st->kst_specbusy);
	kc_sess_drop(s, KC_DROP_SPECUNAVAIL, 0, st->kst_specunavail);
	kc_sess_drop(s, KC_DROP_DBLERROR, 0, st->kst_dblerrors);
	kc_sess_drop(s, KC_DROP_SIGNAL, 0, st->kst_sigdrops);
}

/* Tracing must stop: exit(), a signal, a full fill buffer, a failure. */
static int
kk_stopping(const struct kk *k)
{
	if (kk_intr || k->kk_failed || k->kk_st.kst_state >= ECB_ST_DRAINING)
		return 1;
	return k->kk_en.ken_policy == DTRACEOPT_BUFPOLICY_FILL &&
	    k->kk_st.kst_drops != 0;
}

/* The next time something is due, at most KK_TICK from "now". */
static uint64_t
kk_next_due(const struct kk *k, uint64_t now)
{
	uint64_t next = now + KK_TICK, t;

	t = k->kk_lastswitch + k->kk_switchrate;
	if (t < next)
		next = t;
	t = k->kk_lastreport + k->kk_statusrate;
	if (t < next)
		next = t;
	t = k->kk_lastsnap + k->kk_aggrate;
	if (k->kk_aggbuf != NULL && t < next)
		next = t;
	return next;
}

/*
 * setopt() of switchrate, aggrate or statusrate in the records just
 * consumed (kc_sess_rate) paces the loop from now on, as in dtrace.
 */
static void
kk_take_rates(struct kk *k)
{
	uint64_t v;

	if ((v = kc_sess_rate(&k->kk_sess, DTRACEOPT_SWITCHRATE)) != 0)
		k->kk_switchrate = v;
	if ((v = kc_sess_rate(&k->kk_sess, DTRACEOPT_AGGRATE)) != 0)
		k->kk_aggrate = v;
	if ((v = kc_sess_rate(&k->kk_sess, DTRACEOPT_STATUSRATE)) != 0)
		k->kk_statusrate = v;
}

/* ACTIVE: snapshots at their rates until tracing must stop. */
static void
kk_loop(struct kk *k)
{
	uint64_t now;

	while (kk_status(k) == 0 && !kk_stopping(k)) {
		/* -c/-p: done when every process has exited */
		if (k->kk_ro->ro_procs != NULL &&
		    k->kk_ro->ro_procs->ps_n != 0 &&
		    kc_proc_poll(k->kk_ro->ro_procs,
		    kc_sess_quiet(&k->kk_sess), k->kk_err) == 0)
			break;
		now = kk_now();
		if (now - k->kk_lastswitch >= k->kk_switchrate) {
			kk_switch(k, 0);
			kk_take_rates(k);
		}
		if (k->kk_aggbuf != NULL &&
		    now - k->kk_lastsnap >= k->kk_aggrate)
			kk_snap_aggs(k);
		if (now - k->kk_lastreport >= k->kk_statusrate)
			kk_report(k);
		kk_sleep_until(kk_next_due(k, kk_now()));
	}
}

/* GO, the loop, STOP, the last snapshots, the final output. */
static int
kk_trace(struct kk *k)
{
	struct sigaction sa, oldint, oldterm;
	int rc;

	memset(&sa, 0, sizeof (sa));
	sa.sa_handler = kk_on_signal;
	sigemptyset(&sa.sa_mask);
	kk_intr = 0;
	(void) sigaction(SIGINT, &sa, &oldint);
	(void) sigaction(SIGTERM, &sa, &oldterm);
	if (!k->kk_claimed && ioctl(k->kk_fd, KIO_GO) != 0) {
		fprintf(k->kk_err, "%s: could not enable tracing: %s: KIO_GO: %s\n",
		    k->kk_prog, KC_DEV, strerror(errno));
		rc = 1;
		goto out;
	}
	k->kk_lastswitch = k->kk_lastsnap = k->kk_lastreport = kk_now();
	kc_proc_release(k->kk_ro->ro_procs);	/* -c: now it may run */
	kk_loop(k);
	if (kk_intr)
		kc_sess_interrupted(&k->kk_sess);
	if (ioctl(k->kk_fd, KIO_STOP) != 0)
		(void) kk_ioctl_failed(k, "KIO_STOP", KC_SESS_NOCPU, errno);
	kk_switch(k, 1);
	kk_snap_aggs(k);
	(void) kk_status(k);
	kk_report(k);
	if (k->kk_st.kst_flags & KIO_ST_DEADMAN) {
		fprintf(k->kk_err, "%s: processing aborted: Abort due to systemic unresponsiveness (kdt.ko's deadman: this consumer was not heard from for %llu s)\n",
		    k->kk_prog, k->kk_st.kst_deadman != 0 ?
		    (unsigned long long)k->kk_st.kst_deadman :
		    (unsigned long long)KIO_DEADMAN_SEC);
		k->kk_failed = 1;
	}
	rc = kc_sess_finish(&k->kk_sess, k->kk_st.kst_exited != 0,
	    k->kk_st.kst_status);
	if (k->kk_failed && rc == 0)
		rc = 1;
out:
	(void) sigaction(SIGINT, &oldint, NULL);
	(void) sigaction(SIGTERM, &oldterm, NULL);
	return rc;
}

static void
kk_free(struct kk *k)
{
	if (k->kk_syms != NULL) {
		kc_sym_set_default(NULL);
		kc_sym_free(k->kk_syms);
	}
	kc_sess_fini(&k->kk_sess);
	if (k->kk_fd >= 0)
		close(k->kk_fd);	/* stops and frees the kernel side */
	free(k->kk_aggbuf);
	free(k->kk_aggdrops);
	free(k->kk_tot);
	free(k->kk_mirror);
	kc_uprobe_fini(&k->kk_up);
	if (k->kk_den != NULL)
		dof_free(k->kk_den);
	free(k);
}

/* What a session needs once its state exists: kernel symbols, rates. */
static void
kk_settle(struct kk *k)
{
	char why[256];

	k->kk_syms = kc_sym_load_kallsyms("/proc/kallsyms", why, sizeof (why));
	if (k->kk_syms != NULL)
		kc_sym_set_default(k->kk_syms);
	k->kk_switchrate = kk_opt(k, DTRACEOPT_SWITCHRATE, KK_NS);
	k->kk_aggrate = kk_opt(k, DTRACEOPT_AGGRATE, KK_NS);
	k->kk_statusrate = kk_opt(k, DTRACEOPT_STATUSRATE, KK_NS);
}

int
kc_kernel_run(const void *dof, uint64_t dofsz, const struct kc_run_opts *ro,
    FILE *out, FILE *err)
{
	struct kk *k = calloc(1, sizeof (*k));
	int rc = 1;

	if (k == NULL)
		return 1;
	k->kk_ro = ro;
	k->kk_err = err;
	k->kk_prog = ro->ro_prog != NULL ? ro->ro_prog : "kdt";
	k->kk_sess.se_out = out;
	k->kk_fd = kc_dev_open(O_RDWR, err);
	if (k->kk_fd < 0 || kk_enable(k, dof, dofsz) != 0 ||
	    kk_mirror(k) != 0 || kk_aggs(k) != 0 ||
	    kc_sess_init(&k->kk_sess, ro, out, err, k->kk_den, &k->kk_view,
	    k->kk_ncpu, kk_snap_aggs, k) != 0)
		goto out;
	kk_settle(k);
	kc_sess_matched(&k->kk_sess, k->kk_en.ken_nmatched);
	kk_resized(k);
	fflush(err);
	rc = kk_trace(k);
out:
	kk_free(k);
	return rc;
}

/* The claimed anonymous state's DOF, from the region.  0 or 1. */
static int
kk_claimed_dof(struct kk *k)
{
	const struct rgn_view *v = &k->kk_view;
	struct kdt_err ke;

	if (dof_load(v->rv_dof, v->rv_meta->rm_dof_size, &k->kk_den,
	    &ke) != 0) {
		fprintf(k->kk_err, "%s: %s: the anonymous state's DOF in the region: %s\n",
		    k->kk_prog, KC_DEV, ke.ke_msg);
		return 1;
	}
	return 0;
}

int
kc_kernel_claimed(int fd, const struct kio_claim *kc,
    const struct kc_run_opts *ro, FILE *out, FILE *err)
{
	struct kk *k = calloc(1, sizeof (*k));
	int rc = 1;

	if (k == NULL) {
		close(fd);
		return 1;
	}
	k->kk_ro = ro;
	k->kk_err = err;
	k->kk_prog = ro->ro_prog != NULL ? ro->ro_prog : "kdt";
	k->kk_sess.se_out = out;
	k->kk_fd = fd;
	k->kk_claimed = 1;
	k->kk_en.ken_ncpu = kc->kc_ncpu;
	k->kk_en.ken_rgnsize = kc->kc_rgnsize;
	k->kk_en.ken_aggsize = kc->kc_aggsize;
	k->kk_en.ken_policy = kc->kc_policy;
	k->kk_en.ken_nprobes = kc->kc_nprobes;
	k->kk_en.ken_nmatched = kc->kc_nmatched;
	if (kk_mirror(k) != 0 || kk_claimed_dof(k) != 0 || kk_aggs(k) != 0 ||
	    kc_sess_init(&k->kk_sess, ro, out, err, k->kk_den, &k->kk_view,
	    k->kk_ncpu, kk_snap_aggs, k) != 0)
		goto out;
	kk_settle(k);
	rc = kk_trace(k);
out:
	kk_free(k);
	return rc;
}

/* ---- kdt -l ---- */

/*
 * -l -v: whether -v was given, and the kernel types of probe arguments
 * (compiler/dc.h; NULL without -v or without BTF).
 */
struct kk_lv {
	int		lv_verbose;
	struct dc_argtypes *lv_at;
};

/*
 * One line of dtrace's listing for probe "rp"; with -v, followed as in
 * dtrace -l -v by its "Argument Types" section: "args[i]: type" lines,
 * or "None" for a probe without typed arguments.  (dtrace also prints
 * stability attributes; kdt's providers declare none, so that part is
 * left out.)
 */
static void
kk_list_line(FILE *out, const struct rgn_probe *rp, const struct kk_lv *lv)
{
	char types[KK_LIST_NARGS][DC_ARGTYPE_LEN], p[sizeof (rp->rp_prov) + 1];
	char f[sizeof (rp->rp_func) + 1], nm[sizeof (rp->rp_name) + 1];
	int i, n = -1;

	/* widths: dtrace(1)'s list_probe(), see kc_kernel_list() */
	fprintf(out, "%5u %10.*s %17.*s %33.*s %.*s\n", rp->rp_id,
	    (int)sizeof (rp->rp_prov), rp->rp_prov,
	    (int)sizeof (rp->rp_mod), rp->rp_mod,
	    (int)sizeof (rp->rp_func), rp->rp_func,
	    (int)sizeof (rp->rp_name), rp->rp_name);
	if (!lv->lv_verbose)
		return;
	snprintf(p, sizeof (p), "%.*s", (int)sizeof (rp->rp_prov), rp->rp_prov);
	snprintf(f, sizeof (f), "%.*s", (int)sizeof (rp->rp_func), rp->rp_func);
	snprintf(nm, sizeof (nm), "%.*s", (int)sizeof (rp->rp_name),
	    rp->rp_name);
	if (lv->lv_at != NULL)
		n = dc_argtypes_get(lv->lv_at, p, f, nm, types,
		    KK_LIST_NARGS);
	fprintf(out, "\n\tArgument Types\n");
	for (i = 0; i < n; i++)
		fprintf(out, "\t\targs[%d]: %s\n", i, types[i]);
	if (n <= 0)
		fprintf(out, "\t\tNone\n");
	fprintf(out, "\n");
}

/*
 * List the probes matching "pd" (NULL: all) through KIO_LIST, growing
 * the array until every match fits.  0, or 1 after saying why.
 */
/*
 * The entries of user-space probe table "ut" that "pd" matches, listed
 * with the ids kdt.ko gives their names (KIO_PROBE with rp_id 0: ids are
 * global, kmod/kd_cs.c; an enabling of the probe shows the same id), or
 * from "id" on if this kdt.ko cannot number them; their count.
 */
static uint32_t
kk_list_user(int fd, const struct kc_uptab *ut, const struct dof_pdesc *pd,
    uint32_t id, const struct kk_lv *lv, FILE *out)
{
	const struct kio_uprobe *e;
	struct rgn_probe rp;
	uint32_t i, n = 0;

	for (i = 0; ut != NULL && i < ut->ut_n; i++) {
		e = &ut->ut_ents[i];
		if ((pd->lp_prov[0] && !dof_glob_match(pd->lp_prov, e->ku_prov)) ||
		    (pd->lp_mod[0] && !dof_glob_match(pd->lp_mod, e->ku_mod)) ||
		    (pd->lp_func[0] && !dof_glob_match(pd->lp_func, e->ku_func)) ||
		    (pd->lp_name[0] && !dof_glob_match(pd->lp_name, e->ku_name)))
			continue;
		memset(&rp, 0, sizeof (rp));
		rp.rp_id = id + n++;
		snprintf(rp.rp_prov, sizeof (rp.rp_prov), "%s", e->ku_prov);
		snprintf(rp.rp_mod, sizeof (rp.rp_mod), "%s", e->ku_mod);
		snprintf(rp.rp_func, sizeof (rp.rp_func), "%s", e->ku_func);
		snprintf(rp.rp_name, sizeof (rp.rp_name), "%s", e->ku_name);
		rp.rp_id = 0;
		if (ioctl(fd, KIO_PROBE, &rp) != 0)
			rp.rp_id = id + n - 1;	/* a kdt.ko from before */
		kk_list_line(out, &rp, lv);
	}
	return n;
}

static int
kk_list_one(int fd, const struct dof_pdesc *pd, const struct kc_uptab *ut,
    const struct kk_lv *lv, FILE *out, FILE *err)
{
	struct rgn_probe *buf = NULL, *nb;
	struct kio_list kl;
	uint32_t cap = KK_LIST_CAP, i;

	memset(&kl, 0, sizeof (kl));
	if (pd != NULL) {
		snprintf(kl.kl_prov, sizeof (kl.kl_prov), "%s", pd->lp_prov);
		snprintf(kl.kl_mod, sizeof (kl.kl_mod), "%s", pd->lp_mod);
		snprintf(kl.kl_func, sizeof (kl.kl_func), "%s", pd->lp_func);
		snprintf(kl.kl_name, sizeof (kl.kl_name), "%s", pd->lp_name);
	}
	for (;;) {
		if ((nb = realloc(buf, (size_t)cap * sizeof (*buf))) == NULL) {
			fprintf(err, "kdt: no memory to list %u probes\n", cap);
			free(buf);
			return 1;
		}
		buf = nb;
		kl.kl_buf = (uint64_t)(uintptr_t)buf;
		kl.kl_cap = cap;
		if (ioctl(fd, KIO_LIST, &kl) != 0) {
			fflush(out);
			fprintf(err, "kdt: %s: KIO_LIST %s:%s:%s:%s: %s\n",
			    KC_DEV, kl.kl_prov, kl.kl_mod, kl.kl_func,
			    kl.kl_name, strerror(errno));
			free(buf);
			return 1;
		}
		if (kl.kl_count <= cap)
			break;
		/* probes may appear between the calls: some room to spare */
		cap = kl.kl_count + kl.kl_count / 8 + 16;
	}
	for (i = 0; i < kl.kl_count; i++)
		kk_list_line(out, &buf[i], lv);
	free(buf);
	if (pd != NULL)
		kl.kl_count += kk_list_user(fd, ut, pd, kl.kl_count + 1, lv,
		    out);
	if (kl.kl_count == 0 && pd != NULL) {
		/* dtrace's list_stmt() message; the listing goes on */
		fflush(out);
		fprintf(err, "kdt: failed to match %s:%s:%s:%s: No probe matches description\n",
		    pd->lp_prov, pd->lp_mod, pd->lp_func, pd->lp_name);
	}
	return 0;
}

int
kc_kernel_list(const struct dof_pdesc *pds, uint32_t n,
    const struct kc_uptab *ut, const struct kc_list_opts *lo, FILE *out,
    FILE *err)
{
	char msg[DC_DIAG_LEN];
	struct kk_lv lv;
	int fd, rc = 0;
	uint32_t i;

	fd = kc_dev_open(O_RDWR, err);
	if (fd < 0)
		return 1;
	memset(&lv, 0, sizeof (lv));
	lv.lv_verbose = lo != NULL && lo->lo_verbose;
	if (lv.lv_verbose) {
		lv.lv_at = dc_argtypes_open(lo->lo_btf, msg, sizeof (msg));
		if (lv.lv_at == NULL)
			fprintf(err, "kdt: -v: %s; argument types are not listed\n",
			    msg);
	}
	/*
	 * dtrace(1)'s heading, "%5s %10s %17s %33s %s" (illumos
	 * usr/src/cmd/dtrace/dtrace.c, main(), DMODE_LIST; its list_probe()
	 * prints each probe with the same widths).
	 */
	fprintf(out, "%5s %10s %17s %33s %s\n", "ID", "PROVIDER", "MODULE",
	    "FUNCTION", "NAME");
	if (pds == NULL)
		rc = kk_list_one(fd, NULL, NULL, &lv, out, err);
	for (i = 0; i < n; i++)
		rc |= kk_list_one(fd, &pds[i], ut, &lv, out, err);
	fflush(out);
	close(fd);
	dc_argtypes_close(lv.lv_at);
	return rc;
}
