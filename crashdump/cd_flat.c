/*
 * cd_flat.c -- the bytes of a kdump-compressed dump, plain or flattened.
 *
 * makedumpfile -F (and QEMU's dump-guest-memory -z/-l/-s, which always
 * writes this way) emit a "flattened" stream so that the dump can go to a
 * pipe: a 4096-byte header starting "makedumpfile" (be64 type, be64
 * version at 16 and 24), then records { be64 offset, be64 size,
 * data[size] } until a record whose offset is -1.  Replaying the records
 * at their offsets gives the ordinary kdump-compressed file.
 *
 * Instead of rewriting the file we index it in one pass: one struct
 * cd_flrec (24 bytes) per record, sorted by logical offset, and serve
 * logical reads from the records with pread().  Memory is 24 bytes per
 * record and nothing else: QEMU writes one record per header block and
 * per page-data cache flush, makedumpfile one per 4 KiB..1 MiB write, so a
 * multi-GiB dump needs an index of a few MiB at most.  When records
 * overlap, the one written later wins for bytes at its start (records
 * with equal offsets sort by file position, and lookup takes the last
 * record starting at or below the offset).  A plain file is read with
 * pread() directly.  Used by cd_kdump.c; both are opened by cd_open().
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "crashdump/cd.h"

#define CD_FLAT_HDR	4096ULL
#define CD_FLAT_END	((uint64_t)-1)

static uint64_t
cd_be64(const uint8_t *p)
{
	uint64_t v = 0;
	int i;

	for (i = 0; i < 8; i++)
		v = v << 8 | p[i];
	return v;
}

/* pread exactly n bytes at off: 0, -EIO at end of file, -errno. */
int
cd_pread_all(int fd, void *buf, uint64_t n, uint64_t off)
{
	ssize_t k;

	while (n > 0) {
		k = pread(fd, buf, n, (off_t)off);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return k == 0 ? -EIO : -errno;
		buf = (uint8_t *)buf + k;
		off += (uint64_t)k;
		n -= (uint64_t)k;
	}
	return 0;
}

static int
cd_flrec_cmp(const void *a, const void *b)
{
	const struct cd_flrec *x = a, *y = b;

	if (x->fr_off != y->fr_off)
		return x->fr_off < y->fr_off ? -1 : 1;
	return x->fr_pos < y->fr_pos ? -1 : x->fr_pos > y->fr_pos;
}

static int
cd_flat_add(struct cd_file *f, uint64_t off, uint64_t size, uint64_t pos,
    uint64_t *cap)
{
	struct cd_flrec *r;

	if (f->cf_nrecs == *cap) {
		*cap = *cap ? *cap * 2 : 256;
		r = realloc(f->cf_recs, *cap * sizeof (*r));
		if (r == NULL)
			return -ENOMEM;
		f->cf_recs = r;
	}
	f->cf_recs[f->cf_nrecs].fr_off = off;
	f->cf_recs[f->cf_nrecs].fr_size = size;
	f->cf_recs[f->cf_nrecs].fr_pos = pos;
	f->cf_nrecs++;
	if (off + size > f->cf_size)
		f->cf_size = off + size;
	return 0;
}

/* One record header at pos: 0 more, 1 end marker, -1 after printing. */
static int
cd_flat_rec(struct cd_file *f, uint64_t *pos, uint64_t fsize, uint64_t *cap)
{
	uint8_t h[16];
	uint64_t off, size;

	if (*pos + 16 > fsize) {
		fprintf(f->cf_err, "%s: %s: flattened record %llu at file offset 0x%llx: the file ends at 0x%llx before the record header (16 bytes) and no end marker was seen (file truncated?)\n",
		    f->cf_prog, f->cf_name, (unsigned long long)f->cf_nrecs,
		    (unsigned long long)*pos, (unsigned long long)fsize);
		return -1;
	}
	if (cd_pread_all(f->cf_fd, h, 16, *pos) != 0) {
		fprintf(f->cf_err, "%s: %s: cannot read flattened record %llu at file offset 0x%llx: %s\n",
		    f->cf_prog, f->cf_name, (unsigned long long)f->cf_nrecs,
		    (unsigned long long)*pos, strerror(errno));
		return -1;
	}
	off = cd_be64(h);
	size = cd_be64(h + 8);
	if (off == CD_FLAT_END)
		return 1;
	if (size > fsize - *pos - 16 || off + size < off) {
		fprintf(f->cf_err, "%s: %s: flattened record %llu at file offset 0x%llx: %llu data bytes for logical offset 0x%llx run past the end of the file (%llu bytes)\n",
		    f->cf_prog, f->cf_name, (unsigned long long)f->cf_nrecs,
		    (unsigned long long)*pos, (unsigned long long)size,
		    (unsigned long long)off, (unsigned long long)fsize);
		return -1;
	}
	if (size > 0 && cd_flat_add(f, off, size, *pos + 16, cap) != 0) {
		fprintf(f->cf_err, "%s: %s: no memory for the index of %llu flattened records\n",
		    f->cf_prog, f->cf_name, (unsigned long long)f->cf_nrecs);
		return -1;
	}
	*pos += 16 + size;
	return 0;
}

int
cd_flat_index(struct cd_file *f)
{
	uint64_t pos = CD_FLAT_HDR, cap = 0;
	struct stat st;
	int rv;

	if (fstat(f->cf_fd, &st) != 0) {
		fprintf(f->cf_err, "%s: %s: cannot stat: %s\n", f->cf_prog,
		    f->cf_name, strerror(errno));
		return 1;
	}
	f->cf_flat = 1;
	f->cf_size = 0;
	while ((rv = cd_flat_rec(f, &pos, (uint64_t)st.st_size, &cap)) == 0)
		;
	if (rv < 0)
		return 1;
	/*
	 * A stream of no records leaves cf_recs NULL, and qsort(NULL, 0)
	 * is undefined (found by tests/fuzz/fuzz_dump,
	 * bad-flat-no-records); the empty file then fails as too short.
	 */
	if (f->cf_nrecs > 1)
		qsort(f->cf_recs, f->cf_nrecs, sizeof (*f->cf_recs),
		    cd_flrec_cmp);
	return 0;
}

/* The last record starting at or below off, or NULL. */
static const struct cd_flrec *
cd_flat_find(const struct cd_file *f, uint64_t off)
{
	uint64_t lo = 0, hi = f->cf_nrecs, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (f->cf_recs[mid].fr_off <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo == 0 ? NULL : &f->cf_recs[lo - 1];
}

uint64_t
cd_file_held(const struct cd_file *f, uint64_t off, uint64_t n,
    uint64_t *gap)
{
	const struct cd_flrec *r;
	uint64_t held = 0, at, k, next;

	*gap = 0;
	if (!f->cf_flat)
		return n;
	while (held < n) {
		at = off + held;
		r = cd_flat_find(f, at);
		if (r != NULL && at - r->fr_off < r->fr_size) {
			k = r->fr_size - (at - r->fr_off);
			held += k < n - held ? k : n - held;
			continue;
		}
		/* a gap: to the next record's start, or the end of the ask */
		next = r == NULL ? 0 : (uint64_t)(r - f->cf_recs) + 1;
		k = n - held;
		if (next < f->cf_nrecs && f->cf_recs[next].fr_off - at < k)
			k = f->cf_recs[next].fr_off - at;
		*gap = k;
		break;
	}
	return held;
}

int
cd_file_read(const struct cd_file *f, uint64_t off, void *buf, uint64_t n)
{
	const struct cd_flrec *r;
	uint64_t k;
	int rv;

	if (off > f->cf_size || n > f->cf_size - off)
		return -EIO;
	if (!f->cf_flat)
		return cd_pread_all(f->cf_fd, buf, n, off);
	while (n > 0) {
		r = cd_flat_find(f, off);
		if (r == NULL || off - r->fr_off >= r->fr_size)
			return -EIO;	/* a gap no record fills */
		k = r->fr_size - (off - r->fr_off);
		k = k < n ? k : n;
		rv = cd_pread_all(f->cf_fd, buf, k,
		    r->fr_pos + (off - r->fr_off));
		if (rv != 0)
			return rv;
		buf = (uint8_t *)buf + k;
		off += k;
		n -= k;
	}
	return 0;
}
