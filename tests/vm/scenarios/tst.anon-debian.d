/*
 * tst.anon-debian.d -- the anonymous enabling tst.anon-debian.sh installs
 * with `kdt -A` inside the Debian guest: one record when the enabling is
 * switched on (kdt.ko, loaded by kdt's init-top script in the
 * initramfs), then one per module whose init function runs after that --
 * every module the initramfs loads (virtio_pci, virtio_blk, ext4 and
 * their dependencies), since kdt.ko comes first.
 */
BEGIN
{
	printf("kdt-debian: enabled");
}

fbt::do_init_module:entry
{
	printf("init module %s", stringof(((struct module *)arg0)->name));
}
