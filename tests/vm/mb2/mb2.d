/*
 * mb2.d -- the anonymous enabling the multiboot2 test kernel runs
 * (tests/vm/scenarios/tst.boot-multiboot2.sh): GRUB loads it as the
 * module "kdt-anon-dof"; the test kernel's mb2 provider fires while it
 * walks the multiboot2 information (tests/vm/mb2/kmain.c lists the
 * probes).  Only what GRUB gives alike under BIOS and EFI is printed:
 * the command line, the modules and the count of the tags both have.
 */
#pragma D option quiet

dtrace:::BEGIN
{
	printf("mb2 up\n");
}

mb2:kdt-mb2:walk:cmdline
{
	printf("cmdline %s\n", stringof(arg0));
}

mb2:::module
{
	printf("module '%s' %d bytes, index %d\n", stringof(arg0), arg1,
	    arg3);
}

mb2:::tag
/arg0 == 1 || arg0 == 3/
{
	@tags[arg0 == 1 ? "cmdline" : "module"] = count();
}
