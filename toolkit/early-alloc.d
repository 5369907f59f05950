/*
 * early-alloc.d -- who allocates kernel memory during boot, and how much?
 *
 * The kmem:kmalloc tracepoint fires for every kmalloc() with the call
 * site, the bytes asked for and the bytes given (the slab size it was
 * rounded up to); kmem:kmem_cache_alloc for every allocation from a
 * named cache, with its call site.  Keyed by the calling function and by
 * program (execname: "swapper/N" and kernel threads for the kernel's
 * own work, modprobe, udevd ... for early userspace).  This is
 * aggregations only: no record per allocation, so it is cheap enough
 * for boot.
 *
 * Run it:
 *	kdt -A -s toolkit/early-alloc.d		(then reboot)
 *	kdt -ae  or  kdt-extract DUMP
 *
 * Output: the aggregations, smallest first as dtrace prints them --
 * kmalloc bytes requested per call site (module`function+offset when
 * kdt knows the kernel's symbols, the address otherwise), kmalloc bytes
 * per program, slack (given minus asked: memory lost to size classes)
 * per call site, and kmem_cache_alloc calls per call site.
 */
#pragma D option quiet
#pragma D option aggsize=4m

sdt:kmem::kmalloc
{
	@kmalloc_bytes_by_caller[sym(arg0)] = sum(arg2);
	@kmalloc_bytes_by_program[execname] = sum(arg2);
	@kmalloc_slack_by_caller[sym(arg0)] = sum(arg3 - arg2);
}

sdt:kmem::kmem_cache_alloc
{
	@cache_allocs_by_caller[sym(arg0)] = count();
}
