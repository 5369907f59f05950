/*
 * cd_raw.c -- a raw region image as a memory source (cd.h).
 *
 * A raw image is the region itself: copied from /dev/mem with dd (in the
 * capture kernel, or before a panic), or saved by kdt's kdump hook.  It
 * has no notion of physical addresses, so the source is one range at
 * physical address 0 holding the whole file, and cs_raw tells
 * kdt-extract (cd_extract.c) to decode it with the physical-address check
 * of rgn_open() disabled (RGN_PHYS_ANY): the header's rh_phys says where
 * it was, not where it is now.  cd_open() picks this opener when a region
 * header (rgn_probe_hdr) sits at offset 0.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "crashdump/cd.h"

static int
cd_raw_read(struct cd_src *s, const struct cd_range *r, uint64_t roff,
    void *buf, uint64_t n)
{
	return cd_pread_all(s->cs_fd, buf, n, r->cr_off + roff);
}

static const struct cd_ops cd_raw_ops = { cd_raw_read, NULL };

int
cd_raw_open(int fd, const char *path, const char *prog,
    struct cd_src **out, FILE *err)
{
	struct cd_src *s;
	off_t end = lseek(fd, 0, SEEK_END);

	if (end < 0) {
		fprintf(err, "%s: %s: cannot find the file size: %s\n", prog,
		    path, strerror(errno));
		close(fd);
		return 1;
	}
	s = cd_src_new(path, "raw region image", &cd_raw_ops, fd);
	if (s == NULL || cd_src_add(s, 0, (uint64_t)end, 0) != 0) {
		fprintf(err, "%s: %s: out of memory\n", prog, path);
		if (s == NULL)
			close(fd);
		cd_close(s);
		return 1;
	}
	s->cs_raw = 1;
	s->cs_hole = "beyond the end of the image (file truncated?)";
	*out = s;
	return 0;
}
