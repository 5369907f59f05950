/*
 * kc_pspec.c -- writing out the short probe descriptions of -P, -m and
 * -f in full (kc_pspec.h has the rule; kdt_main.c calls it).
 *
 * The description list is the text up to the first '/' (a predicate) or
 * '{' (an action block); neither can occur inside a description.  Each
 * comma-separated item, trimmed of white space, gets the empty parts
 * before and after it that put its last part at the option's level.  A
 * specifier without an action block gets an empty one: dtrace's default
 * action (the probe's line, no data), which D's grammar spells "{}".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "consumer/kc_pspec.h"

static const char kc_pspec_opt[] = "Pmfn";

/* Append n bytes of s to buf[*len] (room is reserved by the caller). */
static void
kc_pspec_put(char *buf, size_t *len, const char *s, size_t n)
{
	memcpy(buf + *len, s, n);
	*len += n;
}

static void
kc_pspec_colons(char *buf, size_t *len, uint32_t n)
{
	while (n-- > 0)
		buf[(*len)++] = ':';
}

/* Rewrite item s[0, n) into buf; 0, or -1 with why. */
static int
kc_pspec_item(const char *s, size_t n, uint32_t level, char *buf,
    size_t *len, char *why, size_t whysz)
{
	uint32_t parts = 1;
	size_t i;

	while (n > 0 && strchr(" \t\n", s[0]) != NULL) {
		s++;
		n--;
	}
	while (n > 0 && strchr(" \t\n", s[n - 1]) != NULL)
		n--;
	if (n == 0) {
		snprintf(why, whysz, "empty probe description");
		return -1;
	}
	for (i = 0; i < n; i++)
		parts += s[i] == ':';
	if (parts > level + 1) {
		snprintf(why, whysz, "probe description '%.*s' has %u parts; -%c takes at most %u",
		    (int)n, s, parts, kc_pspec_opt[level], level + 1);
		return -1;
	}
	kc_pspec_colons(buf, len, level + 1 - parts);
	kc_pspec_put(buf, len, s, n);
	kc_pspec_colons(buf, len, 3 - level);
	return 0;
}

char *
kc_pspec_expand(const char *arg, uint32_t level, char *why, size_t whysz)
{
	size_t end = strcspn(arg, "/{"), len = 0, i, start;
	char *buf;

	if (level > KC_PSPEC_NAME) {
		snprintf(why, whysz, "unknown probe specifier level %u", level);
		return NULL;
	}
	/* at most 3 colons are added per item, items are >= 1 byte + ',' */
	buf = malloc(strlen(arg) * 4 + 8);
	if (buf == NULL) {
		snprintf(why, whysz, "out of memory");
		return NULL;
	}
	if (level == KC_PSPEC_NAME) {
		strcpy(buf, arg);
		len = strlen(buf);
		goto body;
	}
	for (start = i = 0; i <= end; i++) {
		if (i < end && arg[i] != ',')
			continue;
		if (start != 0)
			buf[len++] = ',';
		if (kc_pspec_item(arg + start, i - start, level, buf, &len,
		    why, whysz) != 0) {
			free(buf);
			return NULL;
		}
		start = i + 1;
	}
	if (arg[end] != '\0') {
		buf[len++] = ' ';
		kc_pspec_put(buf, &len, arg + end, strlen(arg + end));
	}
body:
	/* no action block: dtrace's default action, an empty clause */
	if (strchr(arg, '{') == NULL)
		kc_pspec_put(buf, &len, " {}", 3);
	buf[len] = '\0';
	return buf;
}
