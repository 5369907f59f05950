/*
 * dof_glob.c -- shell-style pattern matching of probe description fields.
 *
 * A probe description ("fbt:ext4:ext4_*:entry") matches a probe when each
 * of its four fields matches the probe's corresponding name.  kdt.ko calls
 * dof_glob_match() when it enables an ECB and again when a module loads
 * later; the userspace engine and the consumer use it to list matches.
 * Declared in dof_load.h.
 *
 * Supported syntax: '*' (any run of characters, also none), '?' (exactly
 * one character), '[...]' (one character from a set with "a-z" ranges;
 * '!' or '^' first negates it; ']' first is literal; an unclosed '[' is
 * an ordinary character), and '\' (the next character is literal).  An
 * empty pattern matches anything: an empty field in a description means
 * "any".
 *
 * The matcher is iterative: it remembers only the most recent '*' and
 * retries from there, which is enough for glob patterns (a later '*' can
 * always absorb what an earlier one would) and keeps the kernel stack
 * flat.  Running time is at most pattern length x string length.
 */
#include "kdt_env.h"
#include "dof_load.h"

/*
 * Match character "c" against the class starting at "p" (just past '[').
 * Returns 1 or 0 and sets *end to the character after the closing ']';
 * returns -1 when the class is not closed (the '[' is then literal).
 */
static int
dof_glob_class(const char *p, unsigned char c, const char **end)
{
	int neg = 0, hit = 0;
	unsigned char lo, hi;

	if (*p == '!' || *p == '^') {
		neg = 1;
		p++;
	}
	if (*p == ']') {
		hit = c == ']';
		p++;
	}
	while (*p != ']') {
		if (*p == '\0')
			return -1;
		if (*p == '\\' && p[1] != '\0')
			p++;
		lo = hi = (unsigned char)*p++;
		if (*p == '-' && p[1] != ']' && p[1] != '\0') {
			p++;
			if (*p == '\\' && p[1] != '\0')
				p++;
			hi = (unsigned char)*p++;
		}
		if (c >= lo && c <= hi)
			hit = 1;
	}
	*end = p + 1;
	return hit != neg;
}

/*
 * Does the single pattern element at *pp match character c?  Advances *pp
 * past the element.  '*' is handled by the caller.
 */
static int
dof_glob_one(const char **pp, unsigned char c)
{
	const char *p = *pp, *end;
	int m;

	switch (*p) {
	case '?':
		*pp = p + 1;
		return 1;
	case '[':
		m = dof_glob_class(p + 1, c, &end);
		if (m >= 0) {
			*pp = end;
			return m;
		}
		*pp = p + 1;
		return c == '[';
	case '\\':
		if (p[1] != '\0')
			p++;
		break;
	}
	*pp = p + 1;
	return (unsigned char)*p == c;
}

int
dof_glob_match(const char *pattern, const char *str)
{
	const char *p = pattern, *s = str;
	const char *star_p = NULL, *star_s = NULL;

	if (*pattern == '\0')
		return 1;
	for (;;) {
		if (*p == '*') {
			while (*p == '*')
				p++;
			if (*p == '\0')
				return 1;
			star_p = p;
			star_s = s;
			continue;
		}
		if (*s == '\0')
			return *p == '\0';
		if (*p != '\0' && dof_glob_one(&p, (unsigned char)*s)) {
			s++;
			continue;
		}
		if (star_p == NULL)
			return 0;
		/* Let the last '*' absorb one more character, retry. */
		p = star_p;
		s = ++star_s;
		if (*s == '\0')
			return 0;
	}
}
