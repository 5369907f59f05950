/*
 * kt_addr2line.h -- binutils' addr2line as the oracle of the source-line
 * tests (test_sym_lines.c for an executable, test_sym_modlines.c for a
 * relocatable module): what it says for one address, reduced to the
 * form kc_sym_srcline() gives -- "FILE:LINE" with the file's base name,
 * without a " (discriminator N)" tail -- or "" when it knows no line
 * ("??:0", "??:?", a line of 0 or "?").  Also the scratch directory both
 * build their program in: kt_srcdir() makes it and writes the source,
 * kt_rmdir() removes it.  Static; include after kt_check.h.
 */
#ifndef KT_ADDR2LINE_H
#define KT_ADDR2LINE_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
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

/*
 * mkdtemp(dir) ("dir" holds the template, e.g. /tmp/kdt-test-x.XXXXXX)
 * and write "src" to dir/name in it.
 */
static void
kt_srcdir(char *dir, const char *name, const char *src)
{
	char path[256];
	FILE *f;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof (path), "%s/%s", dir, name);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(src, f);
	ck_assert_int_eq(fclose(f), 0);
}

/* rm -rf the directory kt_srcdir() made, if it did. */
static void
kt_rmdir(const char *dir)
{
	char cmd[300];

	if (dir[0] == '\0')
		return;
	snprintf(cmd, sizeof (cmd), "rm -rf %s", dir);
	(void) system(cmd);
}

#endif /* KT_ADDR2LINE_H */
