/*
 * an_boot.c -- the kernel command-line words of an anonymous enabling and
 * the GRUB texts that carry them.
 *
 * The words (what kdt.ko and the kernel read; kmod/kd_main.c):
 *
 *	kdt.anon=1 kdt.region=SIZE@ADDR memmap=SIZE$ADDR
 *
 * kdt.anon=1 starts the enabling, kdt.region names the region, memmap=
 * (SIZE$ADDR: "reserve") keeps the kernel's hands off it.  SIZE uses
 * memparse() suffixes (12M), ADDR is hex.
 *
 * The GRUB pitfall: GRUB's script language expands "$NAME" inside words,
 * also in a "linux" line, so "memmap=12M$0x100000000" reaches the kernel
 * as "memmap=12M" -- reserving nothing.  In grub.cfg the '$' must be
 * escaped ("\$") or the word single-quoted.  One text serves both places
 * (AN_Q_GRUB, "memmap=12M\$0x100000000"):
 *
 *   - the drop-in /etc/default/grub.d/kdt.cfg is sourced by grub-mkconfig
 *     as shell; it appends the words inside single quotes, so the shell
 *     keeps the backslash, and 10_linux copies GRUB_CMDLINE_LINUX_DEFAULT
 *     verbatim into the "linux" lines of grub.cfg, where GRUB turns "\$"
 *     into "$";
 *   - the menuentry of kdt -A -o DIR (DIR/grub.cfg) has the same words on
 *     its "linux" line, so booting that entry (tests/vm/scenarios/
 *     tst.anon-grub.sh) proves what the drop-in produces.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "anon/an_impl.h"

void
an_size_str(char *buf, size_t bufsz, uint64_t v)
{
	if (v != 0 && (v & ((1ull << 30) - 1)) == 0)
		snprintf(buf, bufsz, "%lluG", (unsigned long long)(v >> 30));
	else if (v != 0 && (v & ((1ull << 20) - 1)) == 0)
		snprintf(buf, bufsz, "%lluM", (unsigned long long)(v >> 20));
	else if (v != 0 && (v & ((1ull << 10) - 1)) == 0)
		snprintf(buf, bufsz, "%lluK", (unsigned long long)(v >> 10));
	else
		snprintf(buf, bufsz, "%llu", (unsigned long long)v);
}

void
an_boot_words(char *buf, size_t bufsz, uint64_t size, uint64_t addr,
    int quoting)
{
	char sz[32];

	an_size_str(sz, sizeof (sz), size);
	snprintf(buf, bufsz, "kdt.anon=1 kdt.region=%s@0x%llx memmap=%s%s0x%llx",
	    sz, (unsigned long long)addr, sz,
	    quoting == AN_Q_GRUB ? "\\$" : "$", (unsigned long long)addr);
}

char *
an_boot_dropin(uint64_t size, uint64_t addr)
{
	char words[256], *s;

	an_boot_words(words, sizeof (words), size, addr, AN_Q_GRUB);
	if (asprintf(&s,
	    "# kdt anonymous enabling: written by \"kdt -A\", removed by \"kdt -A\"\n"
	    "# with no program.  It adds the region reservation and kdt.ko's\n"
	    "# parameters to the default boot entries.  The words are single-quoted\n"
	    "# and their '$' escaped for GRUB, which would otherwise expand it.\n"
	    "GRUB_CMDLINE_LINUX_DEFAULT=\"${GRUB_CMDLINE_LINUX_DEFAULT:+$GRUB_CMDLINE_LINUX_DEFAULT }\"'%s'\n",
	    words) < 0)
		return NULL;
	return s;
}

char *
an_boot_grubcfg(uint64_t size, uint64_t addr, const char *kernel,
    const char *initrds, const char *extra)
{
	char words[256], *s;

	an_boot_words(words, sizeof (words), size, addr, AN_Q_GRUB);
	if (asprintf(&s,
	    "# kdt anonymous enabling: a GRUB menuentry written by \"kdt -A -o DIR\".\n"
	    "# It boots /boot/vmlinuz with the distribution's initrd /boot/initrd.img\n"
	    "# and, as a second initrd, /boot/anon.cpio, which adds the enabling (GRUB\n"
	    "# concatenates the initrds): put the files there or edit the paths.\n"
	    "set timeout=0\n"
	    "set default=0\n"
	    "serial --unit=0 --speed=115200\n"
	    "terminal_input serial console\n"
	    "terminal_output serial console\n"
	    "menuentry 'kdt anonymous enabling' {\n"
	    "\tlinux %s %s%s%s\n"
	    "\tinitrd %s\n"
	    "}\n",
	    kernel, extra != NULL ? extra : "", extra != NULL ? " " : "",
	    words, initrds) < 0)
		return NULL;
	return s;
}
