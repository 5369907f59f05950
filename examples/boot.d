/*
 * boot.d -- watch kernel modules being loaded from the very start of boot.
 *
 * Compile it into an anonymous enabling with
 *
 *	kdt -A -o DIR -s examples/boot.d
 *
 * and boot with DIR/anon.dof in the initramfs and the words of DIR/cmdline
 * on the kernel command line.  Each record lands in the reserved memory
 * region, so it survives a panic: after a crash, `kdt-extract dump` on the
 * vmcore prints the lines below even with no debuginfo at hand.
 *
 * The script is not quiet, so every line starts with dtrace's CPU, probe
 * ID and FUNCTION:NAME columns: which CPU initialised which module.
 */

/* Fires once, when the enabling is switched on. */
BEGIN
{
	printf("kdt: tracing module initialisation");
}

/*
 * do_init_module() runs a freshly loaded module's init function; its first
 * argument is the struct module.  The layout of struct module comes from
 * the kernel's BTF, so this works on any kernel build without headers.
 */
fbt::do_init_module:entry
{
	printf("init module %s", stringof(((struct module *)arg0)->name));
}
