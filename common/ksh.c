/*
 * ksh.c -- kernel symbol hints (format and rules in ksh.h): the checks of
 * a file that may be damaged or hostile, and the look-up of one name by
 * binary search.  Nothing is aligned in the buffer (firmware data, a file
 * read by a test): every field is copied out with memcpy.
 */
#include "ksh.h"

void
ksh_hdr(const void *buf, struct ksh_hdr *kh)
{
	memcpy(kh, buf, sizeof (*kh));
}

void
ksh_ent(const void *buf, uint32_t i, struct ksh_ent *ke)
{
	memcpy(ke, (const uint8_t *)buf + KSH_HDRSZ +
	    (size_t)i * sizeof (*ke), sizeof (*ke));
}

static const char *
ksh_name(const void *buf, const struct ksh_hdr *kh, uint32_t off)
{
	return (const char *)buf + KSH_HDRSZ +
	    (size_t)kh->kh_nsyms * sizeof (struct ksh_ent) + off;
}

static int
ksh_cmp(const char *a, const char *b)
{
	const unsigned char *x = (const unsigned char *)a;
	const unsigned char *y = (const unsigned char *)b;

	while (*x != 0 && *x == *y) {
		x++;
		y++;
	}
	return (*x > *y) - (*x < *y);
}

int
ksh_check(const void *buf, size_t len, struct kdt_err *err)
{
	const char *s;
	const char *prev = NULL;
	struct ksh_hdr kh;
	struct ksh_ent ke;
	uint64_t want;
	uint32_t i, prevoff = 0;
	size_t n;
	int c;

	if (len < KSH_HDRSZ || memcmp(buf, KSH_MAGIC, KSH_MAGICLEN) != 0)
		return kdt_err_set(err, EINVAL, "KSH_MAGIC", 0,
		    "kernel symbol hints: %zu bytes without the \"%s\" header of %u bytes",
		    len, KSH_MAGIC, KSH_HDRSZ), -1;
	ksh_hdr(buf, &kh);
	if (kh.kh_version != KSH_VERSION)
		return kdt_err_set(err, EINVAL, "KSH_VERSION", 8,
		    "kernel symbol hints: version %u, this kdt reads version %u",
		    kh.kh_version, KSH_VERSION), -1;
	if (kh.kh_bidlen == 0 || kh.kh_bidlen > KSH_BIDMAX)
		return kdt_err_set(err, EINVAL, "KSH_BID", 12,
		    "kernel symbol hints: build id length %u, must be 1 to %u",
		    kh.kh_bidlen, KSH_BIDMAX), -1;
	want = KSH_HDRSZ + (uint64_t)kh.kh_nsyms * sizeof (ke) + kh.kh_strsz;
	if (kh.kh_nsyms > KSH_MAXSYMS || kh.kh_strsz > KSH_MAXSTR ||
	    want != len)
		return kdt_err_set(err, EINVAL, "KSH_SIZE", 48,
		    "kernel symbol hints: %u entries (at most %u) and %u bytes of names (at most %u) make %llu bytes, the file has %zu",
		    kh.kh_nsyms, KSH_MAXSYMS, kh.kh_strsz, KSH_MAXSTR,
		    (unsigned long long)want, len), -1;
	if (kh.kh_strsz != 0 && *ksh_name(buf, &kh, kh.kh_strsz - 1) != 0)
		return kdt_err_set(err, EINVAL, "KSH_STR", len - 1,
		    "kernel symbol hints: the name table (%u bytes) does not end with a NUL",
		    kh.kh_strsz), -1;
	for (i = 0; i < kh.kh_nsyms; i++) {
		ksh_ent(buf, i, &ke);
		if (ke.ke_off >= kh.kh_textsz)
			return kdt_err_set(err, EINVAL, "KSH_OFF",
			    KSH_HDRSZ + (uint64_t)i * sizeof (ke),
			    "kernel symbol hints: entry %u: offset 0x%x from _stext is outside the kernel text (0x%llx bytes)",
			    i, ke.ke_off, (unsigned long long)kh.kh_textsz),
			    -1;
		if (ke.ke_name >= kh.kh_strsz)
			return kdt_err_set(err, EINVAL, "KSH_NAME",
			    KSH_HDRSZ + (uint64_t)i * sizeof (ke) + 4,
			    "kernel symbol hints: entry %u: name offset %u is past the name table (%u bytes)",
			    i, ke.ke_name, kh.kh_strsz), -1;
		s = ksh_name(buf, &kh, ke.ke_name);
		n = strnlen(s, kh.kh_strsz - ke.ke_name);
		if (n == 0 || n >= KSH_NAMEMAX)
			return kdt_err_set(err, EINVAL, "KSH_NAME",
			    KSH_HDRSZ + (uint64_t)i * sizeof (ke) + 4,
			    "kernel symbol hints: entry %u: name of %zu bytes, must be 1 to %u",
			    i, n, KSH_NAMEMAX - 1), -1;
		c = prev == NULL ? 1 : ksh_cmp(prev, s);
		if (prev != NULL && (c > 0 || (c == 0 && prevoff >= ke.ke_off)))
			return kdt_err_set(err, EINVAL, "KSH_ORDER",
			    KSH_HDRSZ + (uint64_t)i * sizeof (ke),
			    "kernel symbol hints: entry %u (%s+0x%x) is not after entry %u (%s+0x%x): entries are sorted by name, then offset, each once",
			    i, s, ke.ke_off, i - 1, prev, prevoff), -1;
		prev = s;
		prevoff = ke.ke_off;
	}
	return 0;
}

uint32_t
ksh_find(const void *buf, const char *name, uint32_t *first)
{
	struct ksh_hdr kh;
	struct ksh_ent ke;
	uint32_t lo = 0, hi, n;

	ksh_hdr(buf, &kh);
	hi = kh.kh_nsyms;
	while (lo < hi) {	/* the first entry not below "name" */
		uint32_t mid = lo + (hi - lo) / 2;

		ksh_ent(buf, mid, &ke);
		if (ksh_cmp(ksh_name(buf, &kh, ke.ke_name), name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (n = 0; lo + n < kh.kh_nsyms; n++) {
		ksh_ent(buf, lo + n, &ke);
		if (ksh_cmp(ksh_name(buf, &kh, ke.ke_name), name) != 0)
			break;
	}
	*first = lo;
	return n;
}
