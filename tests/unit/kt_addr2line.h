/*
 * kt_addr2line.h -- binutils' addr2line as the oracle of the source-line
 * tests (test_sym_lines.c for an executable, test_sym_modlines.c for a
 * relocatable module): what it says for one address, reduced to the
 * form kc_sym_srcline() gives -- "FILE:LINE" with the file's base name,
 * without a " (discriminator N)" tail -- or "" when it knows no line
 * ("??:0", "??:?", a line of 0 or "?").  Static; include after kt_check.h.
 */
#ifndef KT_ADDR2LINE_H
#define KT_ADDR2LINE_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* addr2line -e file [-j sec] a, into buf as above. */
static void
kt_addr2line(const char *file, const char *sec, uint64_t a, char *buf,
    size_t size)
{
	char cmd[1024], line[512], *sp, *base;
	FILE *p;

	snprintf(cmd, sizeof (cmd), "addr2line %s%s -e %s 0x%llx",
	    sec != NULL ? "-j " : "", sec != NULL ? sec : "", file,
	    (unsigned long long)a);
	p = popen(cmd, "r");
	ck_assert_ptr_nonnull(p);
	ck_assert_ptr_nonnull(fgets(line, sizeof (line), p));
	pclose(p);
	line[strcspn(line, "\n")] = '\0';
	if ((sp = strstr(line, " (discriminator")) != NULL)
		*sp = '\0';
	base = strrchr(line, '/');
	base = base != NULL ? base + 1 : line;
	if (strncmp(base, "??", 2) == 0 || strstr(base, ":?") != NULL ||
	    strstr(base, ":0") != NULL)
		buf[0] = '\0';
	else
		snprintf(buf, size, "%s", base);
}

#endif /* KT_ADDR2LINE_H */
