/*
 * fuzz_ksh.c -- libFuzzer target: ksh_check() (common/ksh.c) on a kernel
 * symbol hints file as kdt.ko gets it from request_firmware_direct()
 * (kmod/kd_anon.c), then ksh_find() for every name it lists, as
 * kmod/kd_fbt.c looks names up.
 *
 * Input: one mode byte, then the file.  Mode bit 0 set: before the check
 * the harness writes the magic and the version, and makes kh_nsyms and
 * kh_strsz add up to the file's length (rule 4: kh_nsyms is kept when its
 * entries fit, else halved until they do; kh_strsz is the rest), so that
 * the fuzzer reaches the name table and the entry rules without having to
 * solve the size equation.  Mode 0 is the raw bytes.
 *
 * Oracles beyond the sanitizers: a rejection must carry a tag and a
 * message; in an accepted file every entry's name must be found by
 * ksh_find() with that entry inside the run it returns, the run must hold
 * only that name with strictly increasing offsets below kh_textsz, and a
 * name the file cannot hold (empty, or KSH_NAMEMAX bytes) must not be
 * found.
 */
#include "kf.h"
#include "common/ksh.h"

static void
kf_fix(uint8_t *b, size_t len, uint8_t mode)
{
	struct ksh_hdr kh;
	uint64_t room;

	if (!(mode & 1) || len < KSH_HDRSZ)
		return;
	memcpy(&kh, b, sizeof (kh));
	memcpy(kh.kh_magic, KSH_MAGIC, KSH_MAGICLEN);
	kh.kh_version = KSH_VERSION;
	room = (len - KSH_HDRSZ) / sizeof (struct ksh_ent);
	while (kh.kh_nsyms > room)
		kh.kh_nsyms /= 2;
	kh.kh_strsz = (uint32_t)(len - KSH_HDRSZ -
	    (uint64_t)kh.kh_nsyms * sizeof (struct ksh_ent));
	memcpy(b, &kh, sizeof (kh));
}

static void
kf_check_found(const uint8_t *b)
{
	char none[KSH_NAMEMAX + 1];
	struct ksh_hdr kh;
	struct ksh_ent ke, fe;
	const char *names, *nm;
	uint32_t i, j, n, first;

	ksh_hdr(b, &kh);
	names = (const char *)b + KSH_HDRSZ + (size_t)kh.kh_nsyms *
	    sizeof (ke);
	for (i = 0; i < kh.kh_nsyms; i++) {
		ksh_ent(b, i, &ke);
		nm = names + ke.ke_name;
		n = ksh_find(b, nm, &first);
		if (n == 0 || i < first || i >= first + n)
			abort();	/* a listed name not found */
		for (j = first; j < first + n; j++) {
			ksh_ent(b, j, &fe);
			if (strcmp(names + fe.ke_name, nm) != 0 ||
			    fe.ke_off >= kh.kh_textsz)
				abort();
			if (j > first) {
				struct ksh_ent pe;

				ksh_ent(b, j - 1, &pe);
				if (pe.ke_off >= fe.ke_off)
					abort();	/* unordered run */
			}
		}
	}
	if (ksh_find(b, "", &first) != 0)
		abort();
	memset(none, 'a', KSH_NAMEMAX);
	none[KSH_NAMEMAX] = '\0';
	if (ksh_find(b, none, &first) != 0)
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kdt_err ke;
	uint8_t *b;

	if (size < 1)
		return 0;
	b = kf_copy(data + 1, size - 1);
	kf_fix(b, size - 1, data[0]);
	memset(&ke, 0, sizeof (ke));
	if (ksh_check(b, size - 1, &ke) == 0)
		kf_check_found(b);
	else if (ke.ke_tag == NULL || ke.ke_msg[0] == '\0')
		abort();	/* a rejection must say why */
	free(b);
	return 0;
}
