/*
 * cd_src.c -- the format-independent half of a memory source (cd.h):
 * building the range list, reading physical bytes across ranges, and
 * choosing the opener by the dump's first bytes.
 *
 * Openers (cd_elf.c, cd_kdump.c, cd_raw.c) call cd_src_new, cd_src_add
 * and cd_src_sort; the locator (cd_scan.c) and kdt-extract call cd_open,
 * cd_read_phys, cd_hole_end and cd_close.  cd_open sniffs quietly: ELF
 * by "\177ELF", kdump-compressed by "KDUMP   ", the flattened form of
 * either by "makedumpfile" (cd_kdump_open looks inside), a raw region image by a valid region header at offset
 * 0; anything else gets the list of supported formats.  The previous
 * boot's region that kdt.ko keeps (/dev/kdt-previous, common/kio.h) is a
 * raw region image; when it is absent kdt.ko's reason is given.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>

#include "common/kio.h"
#include "common/rgn.h"
#include "crashdump/cd.h"

#define CD_SUPPORTED	"supported: ELF vmcore (kdump, makedumpfile -E, plain or flattened; QEMU dump-guest-memory), kdump-compressed (makedumpfile -c/-l/-p/-z, QEMU kdump-zlib/lzo/snappy; plain or flattened), raw kdt region image (dd of the region, kdt's kdump hook)"

struct cd_src *
cd_src_new(const char *name, const char *format, const struct cd_ops *ops,
    int fd)
{
	struct cd_src *s = calloc(1, sizeof (*s));

	if (s == NULL)
		return NULL;
	s->cs_name = name;
	s->cs_format = format;
	s->cs_ops = ops;
	s->cs_fd = fd;
	s->cs_cut_pa = CD_NOADDR;
	return s;
}

int
cd_src_add(struct cd_src *s, uint64_t pa, uint64_t size, uint64_t off)
{
	struct cd_range *r;

	if (size == 0)
		return 0;
	if (pa + size < pa)
		size = UINT64_MAX - pa;	/* a header claiming to wrap 2^64 */
	r = realloc(s->cs_ranges, (s->cs_nranges + 1) * sizeof (*r));
	if (r == NULL)
		return -ENOMEM;
	s->cs_ranges = r;
	r[s->cs_nranges].cr_pa = pa;
	r[s->cs_nranges].cr_size = size;
	r[s->cs_nranges].cr_off = off;
	s->cs_nranges++;
	s->cs_total += size;
	return 0;
}

static int
cd_range_cmp(const void *a, const void *b)
{
	const struct cd_range *x = a, *y = b;

	return x->cr_pa < y->cr_pa ? -1 : x->cr_pa > y->cr_pa;
}

void
cd_src_sort(struct cd_src *s)
{
	if (s->cs_nranges > 1)
		qsort(s->cs_ranges, s->cs_nranges,
		    sizeof (*s->cs_ranges), cd_range_cmp);
}

/* The range holding pa, or NULL. */
static const struct cd_range *
cd_range_at(const struct cd_src *s, uint64_t pa)
{
	uint32_t i;

	for (i = 0; i < s->cs_nranges; i++)
		if (pa >= s->cs_ranges[i].cr_pa &&
		    pa - s->cs_ranges[i].cr_pa < s->cs_ranges[i].cr_size)
			return &s->cs_ranges[i];
	return NULL;
}

int
cd_read_phys(struct cd_src *s, uint64_t pa, void *buf, uint64_t n,
    uint64_t *missing)
{
	const struct cd_range *r;
	uint64_t roff, k;
	int rv;

	while (n > 0) {
		r = cd_range_at(s, pa);
		if (r == NULL) {
			*missing = pa;
			return -ENXIO;
		}
		roff = pa - r->cr_pa;
		k = r->cr_size - roff < n ? r->cr_size - roff : n;
		rv = s->cs_ops->co_read(s, r, roff, buf, k);
		if (rv == -ENXIO)
			*missing = s->cs_miss;
		if (rv != 0)
			return rv;
		buf = (uint8_t *)buf + k;
		pa += k;
		n -= k;
	}
	return 0;
}

uint64_t
cd_hole_at(const struct cd_src *s, uint64_t pa)
{
	return cd_range_at(s, pa) != NULL ? pa : cd_hole_end(s, pa);
}

uint64_t
cd_hole_end(const struct cd_src *s, uint64_t pa)
{
	uint64_t best = CD_NOADDR;
	uint32_t i;

	for (i = 0; i < s->cs_nranges; i++)
		if (s->cs_ranges[i].cr_pa > pa && s->cs_ranges[i].cr_pa < best)
			best = s->cs_ranges[i].cr_pa;
	if (pa == s->cs_miss && s->cs_miss_end > pa && s->cs_miss_end < best)
		best = s->cs_miss_end;
	return best;
}

void
cd_close(struct cd_src *s)
{
	if (s == NULL)
		return;
	if (s->cs_ops != NULL && s->cs_ops->co_close != NULL)
		s->cs_ops->co_close(s);
	if (s->cs_fd >= 0)
		close(s->cs_fd);
	free(s->cs_ranges);
	free(s);
}

/* Say what the file is not, showing its first bytes. */
static void
cd_unknown(const char *path, const char *prog, const uint8_t *b, ssize_t n,
    FILE *err)
{
	ssize_t i;

	fprintf(err, "%s: %s: not an ELF core dump, kdump-compressed dump or kdt region image (first bytes 0x",
	    prog, path);
	for (i = 0; i < n && i < 8; i++)
		fprintf(err, "%02x", b[i]);
	if (n <= 0)
		fprintf(err, ", file is empty");
	fprintf(err, "); %s\n", CD_SUPPORTED);
}

/*
 * /dev/kdt-previous (common/kio.h: kdt.ko's copy of the region a
 * previous boot left) cannot be opened: say why in the words kdt.ko
 * keeps for it (KIO_INFO's ki_prev_msg), not just "no such file".
 */
static void
cd_prev_missing(const char *path, const char *prog, int e, FILE *err)
{
	struct kio_info ki;
	int fd;

	if (e == EACCES || e == EPERM) {
		fprintf(err, "%s: %s: permission denied: the previous boot's region is root's (CAP_SYS_ADMIN)\n",
		    prog, path);
		return;
	}
	if (e != ENOENT) {
		fprintf(err, "%s: %s: cannot open: %s\n", prog, path,
		    strerror(e));
		return;
	}
	fd = open("/dev/kdt", O_RDONLY | O_CLOEXEC);
	memset(&ki, 0, sizeof (ki));
	if (fd < 0 && errno == ENOENT)
		fprintf(err, "%s: %s: no previous boot's region: kdt.ko is not loaded\n",
		    prog, path);
	else if (fd < 0 || ioctl(fd, KIO_INFO, &ki) != 0 ||
	    ki.ki_version != KIO_VERSION)
		fprintf(err, "%s: %s: no previous boot's region (kdt.ko kept none)\n",
		    prog, path);
	else
		fprintf(err, "%s: %s: no previous boot's region: %.*s\n",
		    prog, path, (int)sizeof (ki.ki_prev_msg), ki.ki_prev_msg);
	if (fd >= 0)
		close(fd);
}

int
cd_open(const char *path, const char *prog, struct cd_src **out, FILE *err)
{
	uint64_t mb[sizeof (struct rgn_hdr) / 8];	/* aligned */
	uint8_t *magic = (uint8_t *)mb;
	ssize_t n;
	int fd;

	*out = NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 && strcmp(path, KIO_PREV_DEV) == 0) {
		cd_prev_missing(path, prog, errno, err);
		return 1;
	}
	if (fd < 0) {
		fprintf(err, "%s: %s: cannot open: %s\n", prog, path,
		    strerror(errno));
		return 1;
	}
	n = pread(fd, magic, sizeof (mb), 0);
	if (n >= 4 && memcmp(magic, "\177ELF", 4) == 0)
		return cd_elf_open(fd, path, prog, out, err);
	if (n >= 8 && memcmp(magic, "KDUMP   ", 8) == 0)
		return cd_kdump_open(fd, path, prog, 0, out, err);
	if (n >= 12 && memcmp(magic, "makedumpfile", 12) == 0)
		return cd_kdump_open(fd, path, prog, 1, out, err);
	if (n > 0 && rgn_probe_hdr(magic, (uint64_t)n))
		return cd_raw_open(fd, path, prog, out, err);
	if (n < 0)
		fprintf(err, "%s: %s: cannot read: %s\n", prog, path,
		    strerror(errno));
	else
		cd_unknown(path, prog, magic, n, err);
	close(fd);
	return 1;
}
