/*
 * tst.anon-dracut.d -- the anonymous enabling tst.anon-dracut.sh installs
 * with `kdt -A --root` into a Debian root that uses dracut: one record
 * when kdt.ko switches it on (loaded by 90kdt's cmdline hook in the
 * initramfs), then one per module whose init function runs after that --
 * every module the initramfs's udev loads (virtio_pci, virtio_blk, ext4
 * and their dependencies), since kdt.ko comes first.
 */
BEGIN
{
	printf("kdt-dracut: enabled");
}

fbt::do_init_module:entry
{
	printf("init module %s", stringof(((struct module *)arg0)->name));
}
