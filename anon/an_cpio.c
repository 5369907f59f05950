/*
 * an_cpio.c -- a small writer of "newc" cpio archives, the format the
 * kernel's initramfs unpacker reads (init/initramfs.c;
 * Documentation/driver-api/early-userspace/buffer-format.rst).
 *
 * kdt -A -o DIR writes DIR/anon.cpio with it: an initrd fragment that a
 * boot loader loads as a second initrd after the distribution's own
 * (GRUB: "initrd /initrd.img /anon.cpio"); the kernel unpacks both into
 * one rootfs, so the fragment's /lib/firmware/kdt/anon.dof (and kdt.ko)
 * appear beside the distribution's files.
 *
 * Each member is a 110-byte ASCII header -- "070701" then 13 fields of
 * eight hex digits: ino, mode, uid, gid, nlink, mtime, filesize,
 * devmajor, devminor, rdevmajor, rdevminor, namesize (with the NUL),
 * check (0) -- the name, NUL, padding to 4 bytes, the data, padding to 4
 * bytes.  The archive ends with the member "TRAILER!!!".  Owner root,
 * mtime 0: the same inputs give the same bytes.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "anon/an_impl.h"

static int
an_cpio_put(struct an_cpio *cp, const void *data, size_t len)
{
	size_t need = cp->cp_len + len + 4;
	uint8_t *b;

	if (need > cp->cp_cap) {
		size_t cap = cp->cp_cap == 0 ? 4096 : cp->cp_cap;

		while (cap < need)
			cap *= 2;
		if ((b = realloc(cp->cp_buf, cap)) == NULL)
			return -1;
		cp->cp_buf = b;
		cp->cp_cap = cap;
	}
	memcpy(cp->cp_buf + cp->cp_len, data, len);
	cp->cp_len += len;
	while ((cp->cp_len & 3) != 0)
		cp->cp_buf[cp->cp_len++] = 0;
	return 0;
}

static int
an_cpio_member(struct an_cpio *cp, const char *name, uint32_t mode,
    uint32_t nlink, const void *data, size_t len)
{
	char hdr[111];
	size_t nlen = strlen(name) + 1;
	size_t start = cp->cp_len;

	snprintf(hdr, sizeof (hdr),
	    "070701%08x%08x%08x%08x%08x%08x%08x%08x%08x%08x%08x%08x%08x",
	    mode == 0 ? 0 : ++cp->cp_ino, mode, 0, 0, nlink, 0,
	    (unsigned)len, 0, 0, 0, 0, (unsigned)nlen, 0);
	/* header and name are padded together */
	if (an_cpio_put(cp, hdr, 110) != 0)
		return -1;
	cp->cp_len = start + 110;
	if (an_cpio_put(cp, name, nlen) != 0)
		return -1;
	if (len != 0 && an_cpio_put(cp, data, len) != 0)
		return -1;
	return 0;
}

int
an_cpio_dir(struct an_cpio *cp, const char *name)
{
	return an_cpio_member(cp, name, S_IFDIR | 0755, 2, NULL, 0);
}

int
an_cpio_file(struct an_cpio *cp, const char *name, uint32_t mode,
    const void *data, size_t len)
{
	if (len > 0xffffffffu)
		return -1;
	return an_cpio_member(cp, name, S_IFREG | mode, 1, data, len);
}

int
an_cpio_finish(struct an_cpio *cp)
{
	return an_cpio_member(cp, "TRAILER!!!", 0, 1, NULL, 0);
}

void
an_cpio_free(struct an_cpio *cp)
{
	free(cp->cp_buf);
	memset(cp, 0, sizeof (*cp));
}
