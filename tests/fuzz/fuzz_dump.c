/*
 * fuzz_dump.c -- libFuzzer target: the crashdump/ readers on an arbitrary
 * file.  The input is written to a memfd and opened by path with cd_open()
 * (crashdump/cd.h), which sniffs ELF vmcore, kdump-compressed (plain and
 * flattened) or raw region image and builds the memory source; then
 * cd_extract_src() scans the source for the region (or reads a raw image
 * whole), and the consumer decodes what it finds -- kdt-extract's whole
 * path, with its text and messages sent to /dev/null.
 */
#define _GNU_SOURCE
#include <sys/mman.h>
#include <unistd.h>

#include "kf.h"
#include "consumer/kc.h"
#include "crashdump/cd.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int fd = -1;
	static char path[64];
	struct kc_opts ko = { "fuzz", 0 };
	struct cd_src *s;

	if (fd < 0) {
		if ((fd = memfd_create("kdt-fuzz-dump", 0)) < 0)
			abort();
		snprintf(path, sizeof (path), "/proc/self/fd/%d", fd);
	}
	if (ftruncate(fd, 0) != 0 || pwrite(fd, data, size, 0) != (ssize_t)size)
		abort();
	if (cd_open(path, "fuzz", &s, kf_null()) != 0)
		return 0;
	kf_jail_enter();
	(void) cd_extract_src(s, CD_NOADDR, &ko, kf_null(), kf_null());
	kf_jail_leave();
	cd_close(s);
	return 0;
}
