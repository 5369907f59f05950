/*
 * dif_subr.c -- the subroutines of the DIF "call" instruction: strings,
 * paths, numbers, network addresses, user memory, scratch and the hooks
 * (speculation), numbered as illumos numbers them (reference 2.7).
 *
 * Called only by the interpreter loop in dif_vm.c (through
 * dif_subr_call()); the validator (dif_valid.c) accepts exactly the ids
 * of dif_subrtab below, by way of dif_subr_name().  The machine and its
 * memory helpers are in dif_impl.h.
 *
 * Conventions.  Arguments are the tuple stack entries in push order; an
 * argument count outside [min, max] of the table is an illegal operation.
 * A string argument is made directly readable first (dif_sfetch: owned
 * memory in place, traced memory copied into scratch), so the string code
 * below works on plain bytes of known length.  A string result is a
 * fresh block of strsize bytes of scratch (at most strsize - 1
 * characters and a NUL; substr, toupper and tolower, as in dtrace, may
 * fill strsize characters, and get a block of strsize + 1) unless it is a
 * suffix of an argument (strchr, strrchr, strstr), which is returned in
 * place.  An argument, like a string in a variable, may have strsize
 * characters.  Every loop is bounded
 * by strsize or by a constant; nothing recurses, nothing uses floating
 * point; faults are recorded with dif_fault() and end the object.
 *
 * Functions (in id order):
 *	rand, copyin, copyinstr, speculation, progenyof, strlen, copyout,
 *	copyoutstr, alloca, bcopy, copyinto, getmajor, getminor, strjoin,
 *	lltostr, basename, dirname, cleanpath, strchr, strrchr, strstr,
 *	strtok, substr, index, rindex, hton*, ntoh*, inet_ntop, inet_ntoa,
 *	inet_ntoa6, toupper, tolower, strtoll, json; kdt's kernel-string
 *	reader.
 * Not provided (no Linux equivalent kdt can read safely): mutex_*,
 * rw_*, msgdsize, msgsize, ddi_pathname, getf.
 */
#include "kdt_env.h"
#include "dif.h"
#include "dif_subr.h"
#include "dif_vm.h"
#include "dif_impl.h"

#define A(r, i)		((r)->dr_tup[i].dt_value)

/* Linux's kernel-internal dev_t: 12 bits of major above 20 of minor. */
#define DIF_MINORBITS	20
#define DIF_AF_INET	2
#define DIF_AF_INET6	10	/* Linux */
#define DIF_AF_INET6_SOL 26	/* illumos scripts' constant */

static uint64_t dif_rand_state;

/* A string result being built, bounded by its size - 1. */
struct dif_sbuf {
	char		*sb_p;
	uint32_t	sb_len;
	uint32_t	sb_max;		/* characters, NUL excluded */
};

static uint32_t
dif_ssz(const struct dif_run *r)
{
	return r->dr_ms->dm_strsize != 0 ? r->dr_ms->dm_strsize : 1;
}

/* strsize bytes of scratch for a string result. */
static int
dif_sres(struct dif_run *r, struct dif_sbuf *sb)
{
	uint64_t d = dif_salloc(r, dif_ssz(r));

	if (d == 0)
		return -EFAULT;
	sb->sb_p = (char *)(uintptr_t)d;
	sb->sb_len = 0;
	sb->sb_max = dif_ssz(r) - 1;
	return 0;
}

/*
 * The same with room for strsize characters: dtrace's substr(), toupper()
 * and tolower() may return a string that fills strsize (no NUL in a
 * variable or record; scratch gets one after it).
 */
static int
dif_sres_full(struct dif_run *r, struct dif_sbuf *sb)
{
	uint64_t d = dif_salloc(r, (uint64_t)dif_ssz(r) + 1);

	if (d == 0)
		return -EFAULT;
	sb->sb_p = (char *)(uintptr_t)d;
	sb->sb_len = 0;
	sb->sb_max = dif_ssz(r);
	return 0;
}

static void
dif_sputc(struct dif_sbuf *sb, char c)
{
	if (sb->sb_len < sb->sb_max)
		sb->sb_p[sb->sb_len++] = c;
}

static void
dif_sputs(struct dif_sbuf *sb, const char *s, uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n && s[i] != '\0'; i++)
		dif_sputc(sb, s[i]);
}

static void
dif_sputu(struct dif_sbuf *sb, uint64_t v, uint32_t base)
{
	char d[72];
	int n = 0;

	do {
		d[n++] = "0123456789abcdefghijklmnopqrstuvwxyz"[v % base];
		v /= base;
	} while (v != 0);
	while (n > 0)
		dif_sputc(sb, d[--n]);
}

static int
dif_sdone(struct dif_sbuf *sb, uint64_t *val)
{
	sb->sb_p[sb->sb_len] = '\0';
	*val = (uint64_t)(uintptr_t)sb->sb_p;
	return 0;
}

static int
dif_illop(struct dif_run *r, uint64_t v)
{
	dif_fault(r, DTRACEFLT_ILLOP, v);
	return -EINVAL;
}

/* ---- Numbers, hooks and memory ---- */

static int
dif_s_rand(struct dif_run *r, uint64_t *val)
{
	uint64_t x = __atomic_add_fetch(&dif_rand_state,
	    0x9e3779b97f4a7c15ull, __ATOMIC_RELAXED) ^ kenv_timestamp();

	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	*val = (x ^ (x >> 31)) & 0x7fffffff;
	return 0;
}

static int
dif_s_copyin(struct dif_run *r, uint64_t *val)
{
	uint64_t dst;

	if (A(r, 1) > 0xffffffffull)
		return dif_illop(r, A(r, 1));
	if ((dst = dif_salloc(r, A(r, 1))) == 0)
		return -EFAULT;
	if (kenv_read_user((void *)(uintptr_t)dst, A(r, 0),
	    (uint32_t)A(r, 1)) != 0) {
		dif_fault(r, DTRACEFLT_BADADDR, A(r, 0));
		return -EFAULT;
	}
	*val = dst;
	return 0;
}

static int
dif_s_copyinstr(struct dif_run *r, uint64_t *val)
{
	uint64_t n = dif_ssz(r), dst;

	if (r->dr_ntup > 1 && A(r, 1) + 1 < n && A(r, 1) + 1 != 0)
		n = A(r, 1) + 1;
	if ((dst = dif_salloc(r, n)) == 0)
		return -EFAULT;
	if (kenv_read_user_str((char *)(uintptr_t)dst, A(r, 0),
	    (uint32_t)n) < 0) {
		dif_fault(r, DTRACEFLT_BADADDR, A(r, 0));
		return -EFAULT;
	}
	*val = dst;
	return 0;
}

static int
dif_s_speculation(struct dif_run *r, uint64_t *val)
{
	struct dif_mstate *ms = r->dr_ms;

	*val = ms->dm_speculation != NULL ?
	    ms->dm_speculation(ms->dm_spec_arg) : 0;
	return 0;
}

static int
dif_s_progenyof(struct dif_run *r, uint64_t *val)
{
	*val = kenv_progenyof(A(r, 0)) != 0;
	return 0;
}

static int
dif_s_strlen(struct dif_run *r, uint64_t *val)
{
	if (A(r, 0) == 0 || dif_strlen(r->dr_difo, r->dr_ms, A(r, 0),
	    dif_ssz(r), val) != 0) {
		dif_fault(r, DTRACEFLT_BADADDR, A(r, 0));
		return -EFAULT;
	}
	return 0;
}

/* Bytes at "src" made directly readable (in place or via scratch). */
static int
dif_bfetch(struct dif_run *r, uint64_t src, uint64_t size, const void **p)
{
	uint64_t dst;

	if (dif_owned(r->dr_difo, r->dr_ms, src) >= size) {
		*p = (const void *)(uintptr_t)src;
		return 0;
	}
	if ((dst = dif_salloc(r, size)) == 0)
		return -EFAULT;
	if (dif_read(r->dr_difo, r->dr_ms, src, (void *)(uintptr_t)dst,
	    (uint32_t)size) != 0) {
		dif_fault(r, DTRACEFLT_BADADDR, src);
		return -EFAULT;
	}
	*p = (const void *)(uintptr_t)dst;
	return 0;
}

/* copyout(src, uaddr, size) and copyoutstr(str, uaddr, size). */
static int
dif_s_copyout(struct dif_run *r, uint64_t *val, int isstr)
{
	uint64_t size = A(r, 2);
	const void *p;
	const char *s;
	uint32_t len;

	if (!r->dr_ms->dm_destructive || size > 0xffffffffull)
		return dif_illop(r, size);
	if (isstr) {
		if (dif_sfetch(r, A(r, 0), &s, &len) != 0)
			return -EFAULT;
		p = s;
		if ((uint64_t)len + 1 < size)
			size = (uint64_t)len + 1;
	} else if (dif_bfetch(r, A(r, 0), size, &p) != 0) {
		return -EFAULT;
	}
	if (kenv_write_user(A(r, 1), p, (uint32_t)size) != 0) {
		dif_fault(r, DTRACEFLT_BADADDR, A(r, 1));
		return -EFAULT;
	}
	*val = 0;
	return 0;
}

static int
dif_s_alloca(struct dif_run *r, uint64_t *val)
{
	return (*val = dif_salloc(r, A(r, 0))) == 0 ? -EFAULT : 0;
}

/* May the destination be written (dif_writable)?  Else BADADDR. */
static int
dif_dstok(struct dif_run *r, uint64_t addr, uint64_t size)
{
	if (dif_writable(r->dr_ms, addr, size))
		return 1;
	dif_fault(r, DTRACEFLT_BADADDR, addr);
	return 0;
}

static int
dif_s_bcopy(struct dif_run *r, uint64_t *val)
{
	uint64_t size = A(r, 2);

	if (size > 0xffffffffull || !dif_dstok(r, A(r, 1), size))
		return size > 0xffffffffull ? dif_illop(r, size) : -EFAULT;
	if (dif_read(r->dr_difo, r->dr_ms, A(r, 0),
	    (void *)(uintptr_t)A(r, 1), (uint32_t)size) != 0) {
		dif_fault(r, DTRACEFLT_BADADDR, A(r, 0));
		return -EFAULT;
	}
	*val = 0;
	return 0;
}

static int
dif_s_copyinto(struct dif_run *r, uint64_t *val)
{
	uint64_t size = A(r, 1);

	if (size > 0xffffffffull || !dif_dstok(r, A(r, 2), size))
		return size > 0xffffffffull ? dif_illop(r, size) : -EFAULT;
	if (kenv_read_user((void *)(uintptr_t)A(r, 2), A(r, 0),
	    (uint32_t)size) != 0) {
		dif_fault(r, DTRACEFLT_BADADDR, A(r, 0));
		return -EFAULT;
	}
	*val = 0;
	return 0;
}

static int
dif_s_getmajor(struct dif_run *r, uint64_t *val)
{
	*val = (A(r, 0) >> DIF_MINORBITS) & 0xfff;
	return 0;
}

static int
dif_s_getminor(struct dif_run *r, uint64_t *val)
{
	*val = A(r, 0) & ((1u << DIF_MINORBITS) - 1);
	return 0;
}

/* ---- Strings ---- */

/* strjoin(a, b); a result longer than strsize - 1 is out of scratch. */
static int
dif_s_strjoin(struct dif_run *r, uint64_t *val)
{
	const char *a, *b;
	uint32_t la, lb;
	struct dif_sbuf sb;

	if (dif_sfetch(r, A(r, 0), &a, &la) != 0 ||
	    dif_sfetch(r, A(r, 1), &b, &lb) != 0 || dif_sres(r, &sb) != 0)
		return -EFAULT;
	if ((uint64_t)la + lb > sb.sb_max) {
		dif_fault(r, DTRACEFLT_NOSCRATCH, (uint64_t)la + lb + 1);
		return -EFAULT;
	}
	dif_sputs(&sb, a, la);
	dif_sputs(&sb, b, lb);
	return dif_sdone(&sb, val);
}

/*
 * lltostr(v [, base]): base 10 is signed; other bases print the unsigned
 * value with the C prefix of the base ("0x" for 16, "0" for 8).
 */
static int
dif_s_lltostr(struct dif_run *r, uint64_t *val)
{
	uint64_t v = A(r, 0), base = r->dr_ntup > 1 ? A(r, 1) : 10;
	struct dif_sbuf sb;

	if (base < 2 || base > 36)
		return dif_illop(r, base);
	if (dif_sres(r, &sb) != 0)
		return -EFAULT;
	if (base == 10 && (int64_t)v < 0) {
		dif_sputc(&sb, '-');
		v = 0 - v;
	}
	if (base == 16)
		dif_sputs(&sb, "0x", 2);
	else if (base == 8 && v != 0)
		dif_sputc(&sb, '0');
	dif_sputu(&sb, v, (uint32_t)base);
	return dif_sdone(&sb, val);
}

/*
 * basename() and dirname() as POSIX defines them: trailing slashes are
 * ignored, "" and names without a slash give "." for dirname, "/" stays
 * "/".  The result is copied into a fresh string.
 */
static int
dif_s_path(struct dif_run *r, uint64_t *val, int dir)
{
	const char *s;
	uint32_t len, end, start;
	struct dif_sbuf sb;

	if (dif_sfetch(r, A(r, 0), &s, &len) != 0 || dif_sres(r, &sb) != 0)
		return -EFAULT;
	end = len;
	while (end > 1 && s[end - 1] == '/')
		end--;
	start = end;
	while (start > 0 && s[start - 1] != '/')
		start--;
	if (len == 0) {
		dif_sputc(&sb, '.');
	} else if (!dir) {
		if (end == 1 && s[0] == '/')
			dif_sputc(&sb, '/');
		else
			dif_sputs(&sb, s + start, end - start);
	} else if (start == 0) {
		dif_sputc(&sb, end == 1 && s[0] == '/' ? '/' : '.');
	} else {
		while (start > 1 && s[start - 1] == '/')
			start--;
		dif_sputs(&sb, s, start);
	}
	return dif_sdone(&sb, val);
}

/*
 * cleanpath(): textual clean-up of a path, one pass.  At each '/': a
 * following '/' or "./" drops it (the next '/' is looked at again); a
 * following ".." that ends a component backs the output up to its last
 * '/' (kept, with a '/' appended when the input ends there); anything
 * else is copied.  A trailing "/." stays.  The output stops 5 bytes
 * short of strsize so that a "/..x" always fits.
 */
/*
 * "/.." in cleanpath(): drop the output back to its last '/'.  At the end
 * of the input that '/' (or, without one, the first character) stays.
 */
static void
dif_sdotdot(struct dif_sbuf *sb, int atend)
{
	uint32_t n = sb->sb_len;

	while (n > 0 && sb->sb_p[--n] != '/')
		continue;
	if (!atend)
		sb->sb_len = n;
	else if (sb->sb_len == 0)
		dif_sputc(sb, '/');
	else
		sb->sb_len = n + 1;
}

static int
dif_s_cleanpath(struct dif_run *r, uint64_t *val)
{
	const char *s;
	uint32_t len, i = 0;
	struct dif_sbuf sb;

	if (dif_sfetch(r, A(r, 0), &s, &len) != 0 || dif_sres(r, &sb) != 0)
		return -EFAULT;
	while (i < len && sb.sb_len + 5 < sb.sb_max + 1) {
		if (s[i] != '/') {
			dif_sputc(&sb, s[i++]);
			continue;
		}
		if (i + 1 < len && s[i + 1] == '/') {
			i++;
			continue;
		}
		if (i + 2 < len && s[i + 1] == '.' && s[i + 2] == '/') {
			i += 2;
			continue;
		}
		if (i + 2 < len && s[i + 1] == '.' && s[i + 2] == '.' &&
		    (i + 3 == len || s[i + 3] == '/')) {
			dif_sdotdot(&sb, (i += 3) == len);
			continue;
		}
		dif_sputc(&sb, s[i++]);
	}
	return dif_sdone(&sb, val);
}

/* strchr(s, c) / strrchr(s, c): the suffix at the match, or NULL. */
static int
dif_s_strchr(struct dif_run *r, uint64_t *val, int last)
{
	const char *s;
	uint32_t len, i;
	char c = (char)A(r, 1);
	int64_t at = -1;

	if (dif_sfetch(r, A(r, 0), &s, &len) != 0)
		return -EFAULT;
	for (i = 0; i <= len; i++) {
		if ((i < len ? s[i] : '\0') != c)
			continue;
		at = i;
		if (!last)
			break;
	}
	*val = at < 0 ? 0 : (uint64_t)(uintptr_t)(s + at);
	if (at == (int64_t)len && at >= 0 && s[len] != '\0') {
		/* a truncated string: the NUL lives in no buffer; copy */
		*val = dif_salloc(r, 1);
		return *val == 0 ? -EFAULT : 0;
	}
	return 0;
}

/* Does "sub" occur in "s" at position i? */
static int
dif_at(const char *s, uint32_t len, const char *sub, uint32_t sublen,
    int64_t i)
{
	return i >= 0 && (uint64_t)i + sublen <= len &&
	    memcmp(s + i, sub, sublen) == 0;
}

/* First position >= from of "sub" in "s" (below len), or -1. */
static int64_t
dif_find(const char *s, uint32_t len, const char *sub, uint32_t sublen,
    int64_t from)
{
	int64_t i;

	for (i = from; i <= (int64_t)len; i++)	/* "" is found at the end */
		if (dif_at(s, len, sub, sublen, i))
			return i;
	return -1;
}

static int
dif_s_strstr(struct dif_run *r, uint64_t *val)
{
	const char *s, *sub;
	uint32_t len, sublen;
	int64_t at;

	if (dif_sfetch(r, A(r, 0), &s, &len) != 0 ||
	    dif_sfetch(r, A(r, 1), &sub, &sublen) != 0)
		return -EFAULT;
	at = dif_find(s, len, sub, sublen, 0);
	*val = at < 0 ? 0 : (uint64_t)(uintptr_t)(s + at);
	return 0;
}

/*
 * index(s, sub [, pos]) and rindex(s, sub [, pos]), with Perl's position
 * rules as D has them: index clamps a negative pos to 0 and gives -1 (the
 * length, for an empty sub) from a pos at or past the end; rindex searches
 * down from pos (default and clamp: the length) and gives -1 (0, for an
 * empty sub) for a negative pos.  Two empty strings give 0.
 */
static int
dif_s_index(struct dif_run *r, uint64_t *val, int rev)
{
	const char *s, *sub;
	uint32_t len, sublen;
	int64_t pos, i;

	if (dif_sfetch(r, A(r, 0), &s, &len) != 0 ||
	    dif_sfetch(r, A(r, 1), &sub, &sublen) != 0)
		return -EFAULT;
	*val = (uint64_t)-1;
	pos = r->dr_ntup > 2 ? (int64_t)A(r, 2) : rev ? (int64_t)len : 0;
	if (len == 0 && sublen == 0) {
		*val = 0;
	} else if (!rev) {
		if (pos < 0)
			pos = 0;
		if (pos >= (int64_t)len)
			*val = sublen == 0 ? len : (uint64_t)-1;
		else
			*val = (uint64_t)dif_find(s, len, sub, sublen, pos);
	} else if (pos < 0) {
		*val = sublen == 0 ? 0 : (uint64_t)-1;
	} else {
		for (i = pos > (int64_t)len ? (int64_t)len : pos; i >= 0; i--)
			if (dif_at(s, len, sub, sublen, i)) {
				*val = (uint64_t)i;
				break;
			}
	}
	return 0;
}

static int
dif_isdelim(const char *d, uint32_t dlen, char c)
{
	uint32_t i;

	for (i = 0; i < dlen; i++)
		if (d[i] == c)
			return 1;
	return 0;
}

/*
 * strtok(s, delims): a NULL s continues after the previous token, in any
 * later clause of the same firing (dm_strtok, struct dif_strtok in
 * dif_vm.h: a copy of s bounded by strsize).  Leading delimiters are
 * skipped; no token left gives NULL and ends the continuation.  The token
 * is copied out to scratch.
 */
static int
dif_s_strtok(struct dif_run *r, uint64_t *val)
{
	struct dif_strtok *t = r->dr_ms->dm_strtok;
	const char *s, *d;
	uint32_t len, dlen, i, j;
	struct dif_sbuf sb;

	*val = 0;
	if (t != NULL && t->ts_size == 0)
		t = NULL;
	if (A(r, 0) != 0) {
		if (dif_sfetch(r, A(r, 0), &s, &len) != 0)
			return -EFAULT;
		if (t != NULL) {
			if (len > t->ts_size - 1)
				len = t->ts_size - 1;
			memcpy(t->ts_buf, s, len);
			s = t->ts_buf;
			t->ts_pos = 0;
			t->ts_len = len;
		}
		i = 0;
	} else {
		if (t == NULL || t->ts_pos >= t->ts_len)
			return 0;
		s = t->ts_buf;
		len = t->ts_len;
		i = t->ts_pos;
	}
	if (dif_sfetch(r, A(r, 1), &d, &dlen) != 0)
		return -EFAULT;
	for (; i < len && dif_isdelim(d, dlen, s[i]); i++)
		continue;
	if (i == len) {
		if (t != NULL)
			t->ts_pos = t->ts_len = 0;
		return 0;
	}
	for (j = i; j < len && !dif_isdelim(d, dlen, s[j]); j++)
		continue;
	if (t != NULL)
		t->ts_pos = j;	/* at the delimiter, skipped next time */
	if (dif_sres(r, &sb) != 0)
		return -EFAULT;
	dif_sputs(&sb, s + i, j - i);
	return dif_sdone(&sb, val);
}

/*
 * substr(s, index [, length]): a negative index counts from the end; if
 * it still points before the start, a length reaching into the string is
 * shortened by the part before the start and the index becomes 0.  A
 * negative length leaves that many characters off the end; the default
 * length is strsize.
 */
static int
dif_s_substr(struct dif_run *r, uint64_t *val)
{
	const char *s;
	uint32_t len;
	int64_t idx = (int64_t)A(r, 1), n, sum;
	struct dif_sbuf sb;

	if (dif_sfetch(r, A(r, 0), &s, &len) != 0 ||
	    dif_sres_full(r, &sb) != 0)
		return -EFAULT;
	n = r->dr_ntup > 2 ? (int64_t)A(r, 2) : (int64_t)dif_ssz(r);
	if (idx < 0) {
		idx += len;
		if (idx < 0 && !__builtin_add_overflow(idx, n, &sum) &&
		    sum > 0) {
			n = sum;
			idx = 0;
		}
	}
	if (idx < 0 || idx >= (int64_t)len)
		n = 0;		/* idx may be near INT64_MIN: no len - idx */
	else if (n < 0)
		n += (int64_t)len - idx;
	else if (n > (int64_t)len - idx)
		n = (int64_t)len - idx;
	if (n > 0)
		dif_sputs(&sb, s + idx, (uint32_t)n);
	return dif_sdone(&sb, val);
}

static int
dif_s_case(struct dif_run *r, uint64_t *val, int upper)
{
	const char *s;
	uint32_t len, i;
	struct dif_sbuf sb;
	char c;

	if (dif_sfetch(r, A(r, 0), &s, &len) != 0 ||
	    dif_sres_full(r, &sb) != 0)
		return -EFAULT;
	for (i = 0; i < len; i++) {
		c = s[i];
		if (upper && c >= 'a' && c <= 'z')
			c -= 'a' - 'A';
		else if (!upper && c >= 'A' && c <= 'Z')
			c += 'a' - 'A';
		dif_sputc(&sb, c);
	}
	return dif_sdone(&sb, val);
}

static int
dif_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'Z')
		return c - 'A' + 10;
	return 99;
}

/*
 * strtoll(s [, base]): blanks and tabs, a sign, for base 16 a "0x" that
 * a hex digit follows, then digits of the base; no errno, overflow wraps.
 */
static int
dif_s_strtoll(struct dif_run *r, uint64_t *val)
{
	uint64_t base = r->dr_ntup > 1 ? A(r, 1) : 10, v = 0;
	const char *s;
	uint32_t len, i = 0;
	int neg = 0;

	if (base < 2 || base > 36)
		return dif_illop(r, base);
	if (dif_sfetch(r, A(r, 0), &s, &len) != 0)
		return -EFAULT;
	while (i < len && (s[i] == ' ' || s[i] == '\t'))
		i++;
	if (i < len && (s[i] == '-' || s[i] == '+'))
		neg = s[i++] == '-';
	if (base == 16 && i + 2 < len && s[i] == '0' &&
	    (s[i + 1] == 'x' || s[i + 1] == 'X') && dif_digit(s[i + 2]) < 16)
		i += 2;
	for (; i < len && (uint64_t)dif_digit(s[i]) < base; i++)
		v = v * base + (uint64_t)dif_digit(s[i]);
	*val = neg ? 0 - v : v;
	return 0;
}

/* ---- Byte order and network addresses ---- */

static int
dif_s_bswap(struct dif_run *r, uint64_t *val, uint32_t size)
{
	uint64_t v = A(r, 0);

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	*val = size == 2 ? __builtin_bswap16((uint16_t)v) :
	    size == 4 ? __builtin_bswap32((uint32_t)v) : __builtin_bswap64(v);
#else
	*val = size == 2 ? (uint16_t)v : size == 4 ? (uint32_t)v : v;
#endif
	return 0;
}

static void
dif_put_ipv4(struct dif_sbuf *sb, const uint8_t *a)
{
	uint32_t i;

	for (i = 0; i < 4; i++) {
		if (i != 0)
			dif_sputc(sb, '.');
		dif_sputu(sb, a[i], 10);
	}
}

/* Longest run of zero groups (the first of equal ones): *at, *n. */
static void
dif_zero_run(const uint16_t *g, uint32_t *at, uint32_t *n)
{
	uint32_t i, j;

	*at = 0;
	*n = 0;
	for (i = 0; i < 8; i = j + 1) {
		for (j = i; j < 8 && g[j] == 0; j++)
			continue;
		if (j - i > *n) {
			*at = i;
			*n = j - i;
		}
	}
}

/*
 * IPv4 inside IPv6: mapped (::ffff:a.b.c.d), or compatible (96 zero bits
 * and a last word above 1, so :: and ::1 are not).
 */
static int
dif_ipv6_v4(const uint16_t *g)
{
	if (g[0] | g[1] | g[2] | g[3] | g[4])
		return 0;
	return g[5] == 0xffff || (g[5] == 0 && (g[6] != 0 || g[7] > 1));
}

/*
 * Text of an IPv6 address as D prints it: lower-case hex groups without
 * leading zeros joined by ':', the longest run of zero groups (even a
 * single one; the first of equal runs) written "::".  An address with an
 * IPv4 tail ends in its dotted quad; inet_ntoa6() gives only the quad.
 */
static void
dif_put_ipv6(struct dif_sbuf *sb, const uint8_t *a, int quadonly)
{
	uint16_t g[8];
	uint32_t i, at, n, last = 8;

	for (i = 0; i < 8; i++)
		g[i] = (uint16_t)(a[2 * i] << 8 | a[2 * i + 1]);
	if (dif_ipv6_v4(g)) {
		if (quadonly) {
			dif_put_ipv4(sb, a + 12);
			return;
		}
		last = 6;
	}
	dif_zero_run(g, &at, &n);
	if (at + n > last)
		n = last - at;
	for (i = 0; i < last; i++) {
		if (n != 0 && i == at) {
			dif_sputs(sb, "::", 2);
			i += n - 1;
			continue;
		}
		if (i != 0 && !(n != 0 && i == at + n))
			dif_sputc(sb, ':');
		dif_sputu(sb, g[i], 16);
	}
	if (last == 6) {
		if (!(n != 0 && at + n == 6))
			dif_sputc(sb, ':');
		dif_put_ipv4(sb, a + 12);
	}
}

/* inet_ntoa(p), inet_ntoa6(p), inet_ntop(af, p). */
static int
dif_s_inet(struct dif_run *r, uint64_t *val, uint32_t subr)
{
	uint64_t af = subr == DIF_SUBR_INET_NTOA6 ? DIF_AF_INET6 :
	    subr == DIF_SUBR_INET_NTOA ? DIF_AF_INET : A(r, 0);
	uint64_t p = subr == DIF_SUBR_INET_NTOP ? A(r, 1) : A(r, 0);
	struct dif_sbuf sb;
	uint8_t a[16];

	if (af != DIF_AF_INET && af != DIF_AF_INET6 && af != DIF_AF_INET6_SOL)
		return dif_illop(r, af);
	if (dif_read(r->dr_difo, r->dr_ms, p, a,
	    af == DIF_AF_INET ? 4 : 16) != 0) {
		dif_fault(r, DTRACEFLT_BADADDR, p);
		return -EFAULT;
	}
	if (dif_sres(r, &sb) != 0)
		return -EFAULT;
	if (af == DIF_AF_INET)
		dif_put_ipv4(&sb, a);
	else
		dif_put_ipv6(&sb, a, subr == DIF_SUBR_INET_NTOA6);
	return dif_sdone(&sb, val);
}

/* kdt's kernel-string reader (what stringof() of a pointer becomes). */
static int
dif_s_kstring(struct dif_run *r, uint64_t *val)
{
	uint64_t dst;

	if ((dst = dif_salloc(r, dif_ssz(r))) == 0)
		return -EFAULT;
	if (dif_copystr(r->dr_difo, r->dr_ms, A(r, 0),
	    (char *)(uintptr_t)dst, dif_ssz(r)) < 0) {
		dif_fault(r, DTRACEFLT_BADADDR, A(r, 0));
		return -EFAULT;
	}
	*val = dst;
	return 0;
}

/* ---- json ---- */

/*
 * json(doc, selector): the text of the value that "selector" names in
 * the JSON document "doc", or NULL.  What illumos returns, checked
 * against its dtrace_json(): a string member gives the characters
 * between its quotes as written (escapes are not decoded: "a\"b" gives
 * a\"b), a number, true, false or null its text, an object or an array
 * its whole text from the opening to the closing bracket, verbatim.
 *
 * The selector is a list of steps: a step is a member name up to the
 * next '.' or '[', or the text between '[' and ']'; '.' separates steps
 * ("a.b[2].c", "[0].x" for a document that is an array; "a.[2]" is
 * "a[2]").  In an object a step is compared byte for byte with the
 * member names as written between their quotes (the first equal member
 * is taken); in an array it must be a decimal index.  A ']' missing, or
 * anything but '.', '[' or the end after one, makes the selector
 * malformed and the result NULL.
 *
 * Unlike illumos, which returns as soon as it has the value, the whole
 * document (at most strsize bytes, a longer one is cut there and so
 * is usually malformed) must be valid JSON (RFC 8259: no control
 * characters in strings, strict numbers, no trailing commas, nothing
 * but blanks after the top value), or the result is NULL: a program
 * never gets a value from a document a JSON parser would reject.
 * Neither a bad document nor a bad selector is a fault.
 *
 * One pass, no recursion: a machine of three states (a value is due, a
 * member name is due, a value has ended) over the bytes, with the kinds
 * of the open containers in a bit stack of DIF_JSON_MAXDEPTH bits (a
 * deeper document is NULL).  The selector is followed on the way: "m"
 * is the depth of the innermost open container on the selected path;
 * a value inside it at depth m is selected when its name or index is
 * the step of that depth.  Every loop advances through the document or
 * the selector, so the work is bounded by 2 * strsize steps.
 */
#define DIF_JSON_MAXDEPTH	512

enum { DIF_JS_VALUE, DIF_JS_MEMBER, DIF_JS_AFTER };

static int
dif_json_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static uint32_t
dif_json_ws(const char *s, uint32_t len, uint32_t i)
{
	while (i < len && dif_json_blank(s[i]))
		i++;
	return i;
}

static int
dif_json_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') ||
	    (c >= 'A' && c <= 'F');
}

/* The string at s[i] == '"': the index past its closing quote, or 0. */
static uint32_t
dif_json_str(const char *s, uint32_t len, uint32_t i)
{
	uint32_t k;

	for (i++; i < len; i++) {
		if (s[i] == '"')
			return i + 1;
		if ((unsigned char)s[i] < 0x20)
			return 0;
		if (s[i] != '\\')
			continue;
		if (++i == len)
			return 0;
		if (s[i] == 'u') {
			for (k = 0; k < 4; k++)
				if (++i == len || !dif_json_hex(s[i]))
					return 0;
		} else if (s[i] != '"' && s[i] != '\\' && s[i] != '/' &&
		    s[i] != 'b' && s[i] != 'f' && s[i] != 'n' && s[i] != 'r' &&
		    s[i] != 't') {
			return 0;
		}
	}
	return 0;
}

static uint32_t
dif_json_digits(const char *s, uint32_t len, uint32_t i)
{
	while (i < len && s[i] >= '0' && s[i] <= '9')
		i++;
	return i;
}

/* The number at s[i]: the index past it, or 0. */
static uint32_t
dif_json_num(const char *s, uint32_t len, uint32_t i)
{
	uint32_t j;

	if (s[i] == '-')
		i++;
	if (i < len && s[i] == '0')
		i++;
	else if ((j = dif_json_digits(s, len, i)) > i)
		i = j;
	else
		return 0;
	if (i < len && s[i] == '.') {
		if ((j = dif_json_digits(s, len, i + 1)) == i + 1)
			return 0;
		i = j;
	}
	if (i < len && (s[i] == 'e' || s[i] == 'E')) {
		if (++i < len && (s[i] == '+' || s[i] == '-'))
			i++;
		if ((j = dif_json_digits(s, len, i)) == i)
			return 0;
		i = j;
	}
	return i;
}

/* The scalar (string, number, literal) at s[i]: past it, or 0. */
static uint32_t
dif_json_scalar(const char *s, uint32_t len, uint32_t i)
{
	static const struct { const char *l_text; uint32_t l_len; } lit[] = {
		{ "true", 4 }, { "false", 5 }, { "null", 4 },
	};
	uint32_t k, n;

	if (s[i] == '"')
		return dif_json_str(s, len, i);
	if (s[i] == '-' || (s[i] >= '0' && s[i] <= '9'))
		return dif_json_num(s, len, i);
	for (k = 0; k < 3; k++) {
		n = lit[k].l_len;
		if (len - i >= n && memcmp(s + i, lit[k].l_text, n) == 0)
			return i + n;
	}
	return 0;
}

/*
 * The selector step at sel[*at] (see above): its bytes in [*st, *st +
 * *stlen); *at moves to the next step, or past sellen after the last.
 * 0, or -1 for a malformed selector.
 */
static int
dif_json_step(const char *sel, uint32_t sellen, uint32_t *at,
    uint32_t *st, uint32_t *stlen)
{
	uint32_t i = *at, e;

	if (i < sellen && sel[i] == '[') {
		for (e = i + 1; e < sellen && sel[e] != ']'; e++)
			continue;
		if (e == sellen)
			return -1;
		*st = i + 1;
		*stlen = e - i - 1;
		if (++e == sellen)
			*at = sellen + 1;
		else if (sel[e] == '.')
			*at = e + 1;
		else if (sel[e] == '[')
			*at = e;
		else
			return -1;
		return 0;
	}
	for (e = i; e < sellen && sel[e] != '.' && sel[e] != '['; e++)
		continue;
	*st = i;
	*stlen = e - i;
	*at = e == sellen ? sellen + 1 : sel[e] == '.' ? e + 1 : e;
	return 0;
}

/* A step as an array index; -1 when it is not a decimal number. */
static int64_t
dif_json_index(const char *p, uint32_t n)
{
	int64_t v = 0;
	uint32_t k;

	if (n == 0)
		return -1;
	for (k = 0; k < n; k++) {
		if (p[k] < '0' || p[k] > '9')
			return -1;
		if (v < ((int64_t)1 << 40))	/* past any strsize */
			v = v * 10 + (p[k] - '0');
	}
	return v;
}

/* The working state of one json() call. */
struct dif_json {
	const char	*js_s;		/* the document */
	uint32_t	js_len;
	const char	*js_sel;	/* the selector */
	uint32_t	js_sellen;
	uint32_t	js_at;		/* next step in js_sel */
	uint32_t	js_nsteps;
	uint32_t	js_depth;	/* open containers */
	uint32_t	js_m;		/* innermost on the path */
	uint32_t	js_st, js_stlen;	/* step of depth js_m */
	int64_t		js_idx;		/* ... as an index, in an array */
	int64_t		js_pos;		/* element index there */
	int		js_hit;		/* the due value is selected */
	uint32_t	js_tdepth;	/* the target's depth */
	uint32_t	js_start, js_end;	/* its text, end 0: open */
	int		js_found;
	uint64_t	js_kind[DIF_JSON_MAXDEPTH / 64];	/* 1: array */
};

static int
dif_json_isarr(const struct dif_json *js)
{
	uint32_t d = js->js_depth - 1;

	return (int)((js->js_kind[d / 64] >> (d % 64)) & 1);
}

/*
 * A value starts at s[i] (blanks skipped): a container is opened, a
 * scalar skipped.  Returns the next index and the next state, or 0.
 */
static uint32_t
dif_json_value(struct dif_json *js, uint32_t i, int *state)
{
	const char *s = js->js_s;
	uint32_t d = js->js_depth, j;
	int sel = d == 0 || js->js_hit;

	js->js_hit = 0;
	if (i == js->js_len)
		return 0;
	if (sel && d == js->js_nsteps) {	/* the selected value */
		js->js_found = 1;
		js->js_tdepth = d;
		js->js_start = i;
		sel = 0;
	}
	if (s[i] != '{' && s[i] != '[') {
		if (sel)	/* a step left, but no container */
			return 0;
		if ((j = dif_json_scalar(s, js->js_len, i)) == 0)
			return 0;
		*state = DIF_JS_AFTER;
		return j;
	}
	if (d == DIF_JSON_MAXDEPTH)
		return 0;
	if (s[i] == '[')
		js->js_kind[d / 64] |= 1ull << (d % 64);
	else
		js->js_kind[d / 64] &= ~(1ull << (d % 64));
	js->js_depth = ++d;
	if (sel) {
		js->js_m = d;
		if (dif_json_step(js->js_sel, js->js_sellen, &js->js_at,
		    &js->js_st, &js->js_stlen) != 0)
			return 0;
		js->js_pos = 0;
		if (s[i] == '[' && (js->js_idx = dif_json_index(js->js_sel +
		    js->js_st, js->js_stlen)) < 0)
			return 0;
	}
	j = dif_json_ws(s, js->js_len, i + 1);
	if (j < js->js_len && (s[j] == '}' || s[j] == ']')) {
		*state = DIF_JS_AFTER;	/* closed there */
		return j;
	}
	if (s[i] == '[') {
		js->js_hit = d == js->js_m && !js->js_found && js->js_idx == 0;
		*state = DIF_JS_VALUE;
	} else {
		*state = DIF_JS_MEMBER;
	}
	return j;
}

/* A member name and its colon at s[i]. */
static uint32_t
dif_json_member(struct dif_json *js, uint32_t i, int *state)
{
	uint32_t j;

	if (i == js->js_len || js->js_s[i] != '"' ||
	    (j = dif_json_str(js->js_s, js->js_len, i)) == 0)
		return 0;
	js->js_hit = js->js_depth == js->js_m && !js->js_found &&
	    j - i - 2 == js->js_stlen &&
	    memcmp(js->js_s + i + 1, js->js_sel + js->js_st, js->js_stlen) == 0;
	j = dif_json_ws(js->js_s, js->js_len, j);
	if (j == js->js_len || js->js_s[j] != ':')
		return 0;
	*state = DIF_JS_VALUE;
	return dif_json_ws(js->js_s, js->js_len, j + 1);
}

/* After a value (or at a closing bracket): ',', '}' or ']'. */
static uint32_t
dif_json_after(struct dif_json *js, uint32_t i, int *state)
{
	const char *s = js->js_s;
	int arr;

	if (js->js_found && js->js_end == 0 && js->js_depth == js->js_tdepth)
		js->js_end = i;
	i = dif_json_ws(s, js->js_len, i);
	if (js->js_depth == 0)
		return i == js->js_len ? i : 0;	/* done, or trailing bytes */
	if (i == js->js_len)
		return 0;
	arr = dif_json_isarr(js);
	if (s[i] == ',') {
		i = dif_json_ws(s, js->js_len, i + 1);
		if (!arr) {
			*state = DIF_JS_MEMBER;
			return i;
		}
		if (js->js_depth == js->js_m && !js->js_found)
			js->js_hit = ++js->js_pos == js->js_idx;
		*state = DIF_JS_VALUE;
		return i;
	}
	if (s[i] != (arr ? ']' : '}'))
		return 0;
	if (js->js_depth == js->js_m && !js->js_found)
		return 0;	/* the step is not in this container */
	js->js_depth--;
	*state = DIF_JS_AFTER;
	return i + 1;
}

static int
dif_s_json(struct dif_run *r, uint64_t *val)
{
	struct dif_json js;
	struct dif_sbuf sb;
	uint32_t i, st, stlen;
	int state = DIF_JS_VALUE;

	memset(&js, 0, sizeof (js));
	*val = 0;
	if (dif_sfetch(r, A(r, 0), &js.js_s, &js.js_len) != 0 ||
	    dif_sfetch(r, A(r, 1), &js.js_sel, &js.js_sellen) != 0)
		return -EFAULT;
	for (i = 0; i <= js.js_sellen; js.js_nsteps++)	/* validates it */
		if (dif_json_step(js.js_sel, js.js_sellen, &i, &st, &stlen))
			return 0;
	i = dif_json_ws(js.js_s, js.js_len, 0);
	for (;;) {
		if (state == DIF_JS_AFTER && js.js_depth == 0) {
			if (dif_json_after(&js, i, &state) == 0)
				return 0;
			break;
		}
		if (state == DIF_JS_VALUE)
			i = dif_json_value(&js, i, &state);
		else if (state == DIF_JS_MEMBER)
			i = dif_json_member(&js, i, &state);
		else
			i = dif_json_after(&js, i, &state);
		if (i == 0)
			return 0;
	}
	if (!js.js_found)
		return 0;
	if (js.js_s[js.js_start] == '"') {	/* the contents */
		js.js_start++;
		js.js_end--;
	}
	if (dif_sres(r, &sb) != 0)
		return -EFAULT;
	dif_sputs(&sb, js.js_s + js.js_start, js.js_end - js.js_start);
	return dif_sdone(&sb, val);
}

/* ---- The table and the dispatcher ---- */

struct dif_subrinfo {
	const char	*si_name;
	uint8_t		si_min;		/* arguments */
	uint8_t		si_max;
};

#define S(id, name, lo, hi)	[DIF_SUBR_##id] = { name, lo, hi }

static const struct dif_subrinfo dif_subrtab[DIF_SUBR_MAX + 1] = {
	S(RAND, "rand", 0, 0),		S(COPYIN, "copyin", 2, 2),
	S(COPYINSTR, "copyinstr", 1, 2),
	S(SPECULATION, "speculation", 0, 0),
	S(PROGENYOF, "progenyof", 1, 1), S(STRLEN, "strlen", 1, 1),
	S(COPYOUT, "copyout", 3, 3),	S(COPYOUTSTR, "copyoutstr", 3, 3),
	S(ALLOCA, "alloca", 1, 1),	S(BCOPY, "bcopy", 3, 3),
	S(COPYINTO, "copyinto", 3, 3),	S(GETMAJOR, "getmajor", 1, 1),
	S(GETMINOR, "getminor", 1, 1),	S(STRJOIN, "strjoin", 2, 2),
	S(LLTOSTR, "lltostr", 1, 2),	S(BASENAME, "basename", 1, 1),
	S(DIRNAME, "dirname", 1, 1),	S(CLEANPATH, "cleanpath", 1, 1),
	S(STRCHR, "strchr", 2, 2),	S(STRRCHR, "strrchr", 2, 2),
	S(STRSTR, "strstr", 2, 2),	S(STRTOK, "strtok", 2, 2),
	S(SUBSTR, "substr", 2, 3),	S(INDEX, "index", 2, 3),
	S(RINDEX, "rindex", 2, 3),	S(HTONS, "htons", 1, 1),
	S(HTONL, "htonl", 1, 1),	S(HTONLL, "htonll", 1, 1),
	S(NTOHS, "ntohs", 1, 1),	S(NTOHL, "ntohl", 1, 1),
	S(NTOHLL, "ntohll", 1, 1),	S(INET_NTOP, "inet_ntop", 2, 2),
	S(INET_NTOA, "inet_ntoa", 1, 1), S(INET_NTOA6, "inet_ntoa6", 1, 1),
	S(TOUPPER, "toupper", 1, 1),	S(TOLOWER, "tolower", 1, 1),
	S(STRTOLL, "strtoll", 1, 2),	S(JSON, "json", 2, 2),
};

#undef S

static const struct dif_subrinfo dif_subr_kstring = { "kdt_kstring", 1, 1 };

static const struct dif_subrinfo *
dif_subr_info(uint32_t subr)
{
	if (subr == DIF_SUBR_KDT_KSTRING)
		return &dif_subr_kstring;
	if (subr <= DIF_SUBR_MAX && dif_subrtab[subr].si_name != NULL)
		return &dif_subrtab[subr];
	return NULL;
}

const char *
dif_subr_name(uint32_t subr)
{
	const struct dif_subrinfo *si = dif_subr_info(subr);

	return si != NULL ? si->si_name : NULL;
}

uint32_t
dif_destructive(const struct dif_object *difo)
{
	uint32_t i, w;

	for (i = 0; i < difo->do_textlen; i++) {
		w = difo->do_text[i];
		if (DIF_INSTR_OP(w) == DIF_OP_CALL &&
		    (DIF_INSTR_SUBR(w) == DIF_SUBR_COPYOUT ||
		    DIF_INSTR_SUBR(w) == DIF_SUBR_COPYOUTSTR))
			return 1;
	}
	return 0;
}

/*
 * The dispatcher (the accepted long function: one case per id).  The
 * validator let only ids of the table through; the argument count is a
 * run-time property of the tuple stack.
 */
int
dif_subr_call(struct dif_run *r, uint32_t subr, uint64_t *val)
{
	const struct dif_subrinfo *si = dif_subr_info(subr);

	if (si == NULL || r->dr_ntup < si->si_min || r->dr_ntup > si->si_max)
		return dif_illop(r, subr);
	switch (subr) {
	case DIF_SUBR_RAND: return dif_s_rand(r, val);
	case DIF_SUBR_COPYIN: return dif_s_copyin(r, val);
	case DIF_SUBR_COPYINSTR: return dif_s_copyinstr(r, val);
	case DIF_SUBR_SPECULATION: return dif_s_speculation(r, val);
	case DIF_SUBR_PROGENYOF: return dif_s_progenyof(r, val);
	case DIF_SUBR_STRLEN: return dif_s_strlen(r, val);
	case DIF_SUBR_COPYOUT: return dif_s_copyout(r, val, 0);
	case DIF_SUBR_COPYOUTSTR: return dif_s_copyout(r, val, 1);
	case DIF_SUBR_ALLOCA: return dif_s_alloca(r, val);
	case DIF_SUBR_BCOPY: return dif_s_bcopy(r, val);
	case DIF_SUBR_COPYINTO: return dif_s_copyinto(r, val);
	case DIF_SUBR_GETMAJOR: return dif_s_getmajor(r, val);
	case DIF_SUBR_GETMINOR: return dif_s_getminor(r, val);
	case DIF_SUBR_STRJOIN: return dif_s_strjoin(r, val);
	case DIF_SUBR_LLTOSTR: return dif_s_lltostr(r, val);
	case DIF_SUBR_BASENAME: return dif_s_path(r, val, 0);
	case DIF_SUBR_DIRNAME: return dif_s_path(r, val, 1);
	case DIF_SUBR_CLEANPATH: return dif_s_cleanpath(r, val);
	case DIF_SUBR_STRCHR: return dif_s_strchr(r, val, 0);
	case DIF_SUBR_STRRCHR: return dif_s_strchr(r, val, 1);
	case DIF_SUBR_STRSTR: return dif_s_strstr(r, val);
	case DIF_SUBR_STRTOK: return dif_s_strtok(r, val);
	case DIF_SUBR_SUBSTR: return dif_s_substr(r, val);
	case DIF_SUBR_INDEX: return dif_s_index(r, val, 0);
	case DIF_SUBR_RINDEX: return dif_s_index(r, val, 1);
	case DIF_SUBR_HTONS: case DIF_SUBR_NTOHS: return dif_s_bswap(r, val, 2);
	case DIF_SUBR_HTONL: case DIF_SUBR_NTOHL: return dif_s_bswap(r, val, 4);
	case DIF_SUBR_HTONLL: case DIF_SUBR_NTOHLL:
		return dif_s_bswap(r, val, 8);
	case DIF_SUBR_INET_NTOP: case DIF_SUBR_INET_NTOA:
	case DIF_SUBR_INET_NTOA6:
		return dif_s_inet(r, val, subr);
	case DIF_SUBR_TOUPPER: return dif_s_case(r, val, 1);
	case DIF_SUBR_TOLOWER: return dif_s_case(r, val, 0);
	case DIF_SUBR_STRTOLL: return dif_s_strtoll(r, val);
	case DIF_SUBR_JSON: return dif_s_json(r, val);
	default: return dif_s_kstring(r, val);
	}
}
