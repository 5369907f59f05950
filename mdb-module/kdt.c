/*
 * kdt.c -- the crash(8) glue of kdt.so: "extend kdt.so" registers the
 * command "kdt" (mdb.h has the design).
 *
 * This is the only file that includes crash's defs.h, whose macros and
 * types (ulong, TRUE, MAX, ...) must not meet ours: it hands mdb_main()
 * (mdb_src.c) a reader over readmem(PHYSADDR, RETURN_ON_ERROR|QUIET) and
 * the physical spans of crash's node table, and shows crash's synopsis on
 * a usage error.  Built with crash's extension flags (-DX86_64 -DGDB_10_2
 * -shared -fPIC -nostartfiles -rdynamic; see the Makefile's crashext).
 *
 * Output and messages both go to crash's fp, so "kdt | less" and
 * "kdt > file" keep them together and in order.  An interrupted scan
 * (^C: crash longjmps back to its prompt) leaks the scan buffer and the
 * source; nothing else is left behind.
 */
#include <crash/defs.h>

#include "mdb-module/mdb.h"

#define MDB_MAXSPANS	64	/* nodes; more are merged into the last */

static void cmd_kdt(void);

static char *help_kdt[] = {
	"kdt",
	"print what kdt traced, from kdt's region in the dump",
	"[-q] [-m] [-v] [-p physaddr]",
	"  Prints the trace that kdt (D-language tracing for Linux) recorded",
	"  before the kernel died: the per-CPU principal buffers of the",
	"  enabling held in kdt's reserved memory region (memmap=, set up by",
	"  \"kdt -A\"), with dtrace's output formats.  The output is byte for",
	"  byte what \"kdt-extract DUMPFILE\" prints for the same dump: the",
	"  region is found the same way, by scanning every page of physical",
	"  memory for its header, and decoded by the same code.  No debuginfo",
	"  is needed for that: the region describes itself.",
	"",
	"  Records torn by the panic, drops and errors are reported, never",
	"  decoded as garbage.  A region that is not entirely in the dump (a",
	"  kdump vmcore: kexec leaves memmap= memory out of /proc/vmcore) is",
	"  reported with the missing physical range; use kdt-extract on the",
	"  region image that kdt's kdump hook saved beside the vmcore instead.",
	"",
	"       -q  quiet: print only what the D program's actions print (no",
	"           CPU, ID and FUNCTION:NAME columns).",
	"       -m  (or --merge) print all CPUs' records in timestamp order,",
	"           not one CPU's buffer after the other.",
	"       -v  (or --vars) also print the D program's variables -- global",
	"           scalars, associative arrays and self-> thread-locals, with",
	"           their names and types -- as \"kdt-extract --vars\" does",
	"           (a region-backed state: the anonymous enabling or -x",
	"           region).  Uncommitted speculations are always shown, after",
	"           the principal records, each under a \"speculation ID",
	"           (uncommitted, CPU N):\" line.",
	"  -p physaddr",
	"           the region starts at this physical address (hex, page",
	"           aligned, e.g. 10000000): skip the scan.",
	"",
	"  The scan covers the physical memory of crash's node table (kdt-extract",
	"  scans every range the dump file holds, so its \"no kdt region found",
	"  in N MiB\" may name a few MiB more), reading 4 MiB per readmem() call:",
	"  0.1 to 0.5 s for a 512 MiB QEMU dump.",
	"",
	"  Its messages are kdt-extract's, under the name \"kdt\" (\"no kdt",
	"  region found\", a region cut off or not entirely in the dump): the",
	"  kdt-extract(1) man page, section DIAGNOSTICS, explains each; kdt(1)",
	"  and kdt.ko(4) explain the region and how a boot is traced.",
	"\nEXAMPLES",
	"  Load the extension and print the trace of a guest that traced its",
	"  boot, loaded modules and panicked:\n",
	"    crash> extend build/lib/kdt.so",
	"    ./build/lib/kdt.so: shared object loaded",
	"    crash> kdt",
	"    CPU     ID                    FUNCTION:NAME",
	"      0      1                           :BEGIN kdt: tracing module initialisation",
	"      0      4             do_init_module:entry init module crc7",
	"      1      4             do_init_module:entry init module xor",
	"",
	"  Only what the actions printed, all CPUs in timestamp order (this",
	"  script's printf formats end without a newline):\n",
	"    crash> kdt -q -m",
	"    kdt: tracing module initialisationinit module crc7init module xor",
	"",
	"  The region is known to be at 256 MiB:\n",
	"    crash> kdt -p 10000000",
	NULL
};

static struct command_table_entry command_table[] = {
	{ "kdt", cmd_kdt, help_kdt, 0 },
	{ NULL }
};

void __attribute__((constructor))
kdt_init(void)
{
	register_extension(command_table);
}

void __attribute__((destructor))
kdt_fini(void)
{
}

/* mdb_read_f over crash's readmem(): quiet, never longjmps. */
static int
mdb_crash_read(void *arg, uint64_t pa, void *buf, uint64_t n)
{
	return readmem(pa, PHYSADDR, buf, (long)n, "kdt region",
	    RETURN_ON_ERROR | QUIET) ? 0 : -1;
}

/* The spans of crash's node table (what crash knows as physical memory). */
static uint32_t
mdb_crash_spans(struct mdb_span *sp)
{
	uint64_t end;
	uint32_t n = 0;
	int i;

	for (i = 0; vt->node_table != NULL && i < vt->numnodes; i++) {
		end = vt->node_table[i].start_paddr +
		    (uint64_t)vt->node_table[i].size * PAGESIZE();
		if (n == MDB_MAXSPANS) {
			if (end > sp[n - 1].ms_pa + sp[n - 1].ms_size)
				sp[n - 1].ms_size = end - sp[n - 1].ms_pa;
			continue;
		}
		sp[n].ms_pa = vt->node_table[i].start_paddr;
		sp[n].ms_size = end - sp[n].ms_pa;
		n++;
	}
	return n;
}

static void
cmd_kdt(void)
{
	struct mdb_span sp[MDB_MAXSPANS];
	struct mdb_dbg md;

	md.md_name = pc->dumpfile != NULL ? pc->dumpfile :
	    pc->live_memsrc != NULL ? pc->live_memsrc : "memory";
	md.md_read = mdb_crash_read;
	md.md_arg = NULL;
	md.md_spans = sp;
	md.md_nspans = mdb_crash_spans(sp);
	if (mdb_main(argcnt, args, "kdt", &md, fp, fp) == 2)
		cmd_usage(pc->curcmd, SYNOPSIS);
}
