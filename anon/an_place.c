/*
 * an_place.c -- where in physical memory the reserved region goes.
 *
 * The input is /proc/iomem of the machine that will boot (the caller
 * reads it; the parser takes text so the unit tests run on recorded
 * layouts, tests/unit/fixtures/anon/).  For a non-root reader the kernel
 * prints every address as 0 (kernel/resource.c hides them); that is
 * detected (im_zeroed) and reported, never mistaken for a layout.
 *
 * The rules, for a chosen address and for one given with -x regionaddr:
 *
 *   1. the range lies inside one top-level "System RAM" resource -- never
 *      in Reserved, ACPI Tables / ACPI Non-volatile Storage, PCI windows
 *      or anything else the firmware did not give the kernel as RAM;
 *   2. it overlaps no child of that System RAM: the kernel image ("Kernel
 *      code", "Kernel rodata", "Kernel data", "Kernel bss"), the kdump
 *      reservation ("Crash kernel"), and any other claim a driver or the
 *      firmware made inside RAM;
 *   3. (choice only) it starts at or above 1 GiB when the machine has RAM
 *      above 1 GiB, and at or above 4 GiB when the RAM above 4 GiB can
 *      hold it: low memory is where the boot loader puts the kernel and
 *      initrd, where ZONE_DMA/ZONE_DMA32 serve devices that can only
 *      address 32 bits, and where crashkernel=...,low and swiotlb take
 *      their memory at boot -- none of which shows in this boot's
 *      /proc/iomem before it happens.  A machine with less than 1 GiB
 *      gets the floor 256 MiB (half its RAM if that is less): above the
 *      16 MiB where a kernel without KASLR always loads and its
 *      decompression room, below where GRUB puts the initrd (the top of
 *      RAM).  A -x regionaddr below 1 GiB is accepted with a note: the
 *      user may know better;
 *   4. the address is 2 MiB-aligned (the size is a 2 MiB multiple).
 *
 * The next boot's kernel will be somewhere else (KASLR picks its physical
 * address at every boot), but that is safe: the boot stub's
 * arch/x86/boot/compressed/kaslr.c parses memmap= (mem_avoid_memmap()) and
 * never decompresses the kernel into a memmap= range.  Avoiding this
 * boot's kernel image (rule 2) only keeps the region out of where the
 * non-randomised (nokaslr) kernel always loads.
 *
 * Stability: the choice is the lowest address that passes the rules above
 * the floor, so it depends only on the RAM layout, not on the DOF.  And
 * the install being replaced (its size and address, from the manifest)
 * is preferred: when this boot has that reservation, /proc/iomem shows it
 * as a top-level Reserved range that splits System RAM, and that range
 * counts as usable for the same address -- so a second kdt -A does not
 * move the region.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <inttypes.h>

#include "anon/an_impl.h"

#define AN_GIB		(1ULL << 30)
#define AN_SMALL_FLOOR	(256ULL << 20)	/* floor without RAM above 1 GiB */

static int
an_iomem_line(const char *line, size_t len, struct an_iores *r)
{
	const char *s = line, *end = line + len, *colon;
	char *e;
	size_t n;
	int sp = 0;

	while (s < end && *s == ' ') {
		s++;
		sp++;
	}
	errno = 0;
	r->ir_start = strtoull(s, &e, 16);
	if (e == s || *e != '-' || errno != 0)
		return -1;
	s = e + 1;
	r->ir_end = strtoull(s, &e, 16);
	if (e == s || errno != 0 || r->ir_end < r->ir_start)
		return -1;
	colon = e;
	if (end - colon < 3 || strncmp(colon, " : ", 3) != 0)
		return -1;
	colon += 3;
	n = (size_t)(end - colon);
	if (n >= sizeof (r->ir_name))
		n = sizeof (r->ir_name) - 1;
	memcpy(r->ir_name, colon, n);
	r->ir_name[n] = '\0';
	r->ir_depth = sp / 2;
	return 0;
}

int
an_iomem_parse(const char *text, const char *name, struct an_iomem *im,
    FILE *err)
{
	const char *s = text, *nl;
	size_t cap = 0, lineno = 0;
	int nonzero = 0;
	struct an_iores *r;

	memset(im, 0, sizeof (*im));
	for (; *s != '\0'; s = *nl == '\0' ? nl : nl + 1) {
		nl = strchr(s, '\n');
		if (nl == NULL)
			nl = s + strlen(s);
		lineno++;
		if (nl == s)
			continue;
		if (im->im_n == cap) {
			cap = cap == 0 ? 64 : cap * 2;
			r = realloc(im->im_res, cap * sizeof (*r));
			if (r == NULL) {
				fprintf(err, "kdt: %s: out of memory\n", name);
				an_iomem_free(im);
				return -1;
			}
			im->im_res = r;
		}
		r = &im->im_res[im->im_n];
		if (an_iomem_line(s, (size_t)(nl - s), r) != 0) {
			fprintf(err, "kdt: %s:%zu: expected \"START-END : NAME\" with hex addresses, got \"%.*s\"\n",
			    name, lineno, (int)(nl - s > 80 ? 80 : nl - s), s);
			an_iomem_free(im);
			return -1;
		}
		if (r->ir_end != 0)
			nonzero = 1;
		im->im_n++;
	}
	if (im->im_n == 0) {
		fprintf(err, "kdt: %s: no memory resources listed\n", name);
		return -1;
	}
	im->im_zeroed = !nonzero;
	return 0;
}

void
an_iomem_free(struct an_iomem *im)
{
	free(im->im_res);
	im->im_res = NULL;
	im->im_n = 0;
}

static int
an_is_ram(const struct an_iores *r)
{
	return r->ir_depth == 0 && strcmp(r->ir_name, "System RAM") == 0;
}

static int
an_overlaps(uint64_t a, uint64_t size, const struct an_iores *r)
{
	return a <= r->ir_end && r->ir_start <= a + size - 1;
}

/*
 * Is [a, a+size) inside the usable range "u" (a System RAM, or the
 * previous region's reservation)?  *blocker: the end of the first child
 * of u that is in the way, or 0.
 */
static int
an_fits(const struct an_iomem *im, size_t u, uint64_t a, uint64_t size,
    uint64_t *blocker)
{
	const struct an_iores *ur = &im->im_res[u];
	size_t i;

	*blocker = 0;
	if (a < ur->ir_start || a + size - 1 > ur->ir_end || a + size < a)
		return 0;
	for (i = u + 1; i < im->im_n && im->im_res[i].ir_depth > 0; i++)
		if (an_overlaps(a, size, &im->im_res[i])) {
			*blocker = im->im_res[i].ir_end;
			return 0;
		}
	return 1;
}

/* Is top-level entry u usable: System RAM, or the previous reservation? */
static int
an_usable(const struct an_iores *r, uint64_t prev, uint64_t prevsize)
{
	if (an_is_ram(r))
		return 1;
	return prevsize != 0 && r->ir_depth == 0 &&
	    r->ir_start <= prev && prev + prevsize - 1 <= r->ir_end &&
	    strcmp(r->ir_name, "Reserved") == 0;
}

/*
 * Does [a, a+size) lie in usable memory?  A range may span a System RAM
 * and the previous reservation next to it (a region that grew), so the
 * range is walked piece by piece over adjacent usable entries.
 */
static int
an_range_ok(const struct an_iomem *im, uint64_t a, uint64_t size,
    uint64_t prev, uint64_t prevsize, uint64_t *blocker)
{
	uint64_t cur = a, last = a + size - 1, piece, b;
	size_t u;

	*blocker = 0;
	while (cur <= last) {
		for (u = 0; u < im->im_n; u++) {
			const struct an_iores *r = &im->im_res[u];

			if (r->ir_depth == 0 && r->ir_start <= cur &&
			    cur <= r->ir_end)
				break;
		}
		if (u == im->im_n ||
		    !an_usable(&im->im_res[u], prev, prevsize))
			return 0;
		piece = (im->im_res[u].ir_end < last ?
		    im->im_res[u].ir_end : last) - cur + 1;
		if (an_is_ram(&im->im_res[u]) &&
		    !an_fits(im, u, cur, piece, &b)) {
			*blocker = b;
			return 0;
		}
		if (im->im_res[u].ir_end >= last)
			break;
		cur = im->im_res[u].ir_end + 1;
	}
	return 1;
}

static uint64_t
an_ram_top(const struct an_iomem *im)
{
	uint64_t top = 0;
	size_t i;

	for (i = 0; i < im->im_n; i++)
		if (an_is_ram(&im->im_res[i]) && im->im_res[i].ir_end > top)
			top = im->im_res[i].ir_end;
	return top;
}

/* The lowest aligned address >= floor that passes, or 0. */
static uint64_t
an_lowest(const struct an_iomem *im, uint64_t size, uint64_t floor,
    uint64_t prev, uint64_t prevsize)
{
	uint64_t a, b;
	size_t u;

	for (u = 0; u < im->im_n; u++) {
		const struct an_iores *r = &im->im_res[u];

		if (r->ir_depth != 0 || !an_usable(r, prev, prevsize))
			continue;
		a = r->ir_start > floor ? r->ir_start : floor;
		a = (a + AN_ALIGN - 1) & ~(AN_ALIGN - 1);
		while (a != 0 && a <= r->ir_end) {
			if (an_range_ok(im, a, size, prev, prevsize, &b))
				return a;
			if (b == 0)
				break;
			a = (b + 1 + AN_ALIGN - 1) & ~(AN_ALIGN - 1);
		}
	}
	return 0;
}

static int
an_zeroed(const struct an_iomem *im, FILE *err)
{
	if (!im->im_zeroed)
		return 0;
	fprintf(err, "kdt: /proc/iomem shows every address as 0: only root can read the physical memory map; run kdt -A as root\n");
	return 1;
}

int
an_place_choose(const struct an_iomem *im, uint64_t size, uint64_t prev,
    uint64_t prevsize, uint64_t *addr, FILE *err)
{
	uint64_t top = an_ram_top(im), b, a = 0, floor = AN_GIB;

	if (an_zeroed(im, err))
		return -1;
	if (prevsize != 0 && (prev & (AN_ALIGN - 1)) == 0 &&
	    an_range_ok(im, prev, size, prev, prevsize, &b)) {
		*addr = prev;
		return 0;
	}
	if (top >= 4 * AN_GIB)
		a = an_lowest(im, size, 4 * AN_GIB, prev, prevsize);
	if (a == 0 && top >= AN_GIB)
		a = an_lowest(im, size, AN_GIB, prev, prevsize);
	if (a == 0 && top < AN_GIB) {
		floor = top / 2 < AN_SMALL_FLOOR ?
		    (top / 2) & ~(AN_ALIGN - 1) : AN_SMALL_FLOOR;
		a = an_lowest(im, size, floor, prev, prevsize);
	}
	if (a == 0) {
		fprintf(err, "kdt: /proc/iomem: no 2 MiB-aligned range of %" PRIu64 " bytes in System RAM above 0x%" PRIx64 " avoids the kernel image, the crash kernel and other reservations; lower bufsize or set -x regionaddr\n",
		    size, top >= AN_GIB ? (uint64_t)AN_GIB : floor);
		return -1;
	}
	*addr = a;
	return 0;
}

int
an_place_check(const struct an_iomem *im, uint64_t addr, uint64_t size,
    uint64_t prev, uint64_t prevsize, FILE *err)
{
	uint64_t b;
	size_t i;

	if (an_zeroed(im, err))
		return -1;
	if ((addr & (AN_ALIGN - 1)) != 0) {
		fprintf(err, "kdt: -x regionaddr=0x%" PRIx64 " is not a multiple of 2 MiB (0x%llx)\n",
		    addr, AN_ALIGN);
		return -1;
	}
	if (an_range_ok(im, addr, size, prev, prevsize, &b)) {
		if (addr < AN_GIB && an_ram_top(im) >= AN_GIB)
			fprintf(err, "kdt: note: -x regionaddr=0x%" PRIx64 " is below 1 GiB, where the boot loader, the DMA zones and crashkernel=,low take memory at boot; used as given\n",
			    addr);
		return 0;
	}
	for (i = 0; i < im->im_n; i++)
		if (an_overlaps(addr, size, &im->im_res[i]) &&
		    !an_usable(&im->im_res[i], prev, prevsize))
			break;
	if (i == im->im_n)
		for (i = 0; i < im->im_n; i++)
			if (im->im_res[i].ir_depth > 0 &&
			    an_overlaps(addr, size, &im->im_res[i]))
				break;
	if (i < im->im_n)
		fprintf(err, "kdt: -x regionaddr: [0x%" PRIx64 ", 0x%" PRIx64 ") overlaps \"%s\" [0x%" PRIx64 ", 0x%" PRIx64 "] in /proc/iomem; the region must lie in System RAM clear of the kernel, the crash kernel and other reservations\n",
		    addr, addr + size, im->im_res[i].ir_name,
		    im->im_res[i].ir_start, im->im_res[i].ir_end);
	else
		fprintf(err, "kdt: -x regionaddr: [0x%" PRIx64 ", 0x%" PRIx64 ") is not inside System RAM in /proc/iomem\n",
		    addr, addr + size);
	return -1;
}
