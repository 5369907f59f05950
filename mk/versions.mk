# The one place the pinned Debian kernel is named.  Everything else (the
# deps installer, the kernel fetcher, the module build, the VM harness)
# reads these through make or through mk/versions.sh.
KVER		:= 6.1.0-56-amd64
KPKG_VERSION	:= 6.1.192-2
