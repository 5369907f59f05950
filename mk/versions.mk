# The one place the pinned Debian kernel is named.  Everything else (the
# deps installer, the kernel fetcher, the module build, the VM harness)
# reads these through make or through mk/versions.sh.
KVER		:= 6.1.0-56-amd64
KPKG_VERSION	:= 6.1.192-2
# The second kernel: Debian's 6.12 (bookworm-security), which kdt.ko is
# built against and smoke-tested on (make kmod-612, mk/kernel-612.sh,
# tests/vm/scenarios/tst.kernel-612.sh).  Not installed: unpacked under
# /var/cache/kdt.
KVER_612	:= 6.12.107+deb12-amd64
KPKG_VERSION_612 := 6.12.107-1~deb12u1
