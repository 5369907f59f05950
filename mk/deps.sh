#!/usr/bin/env bash
# Install, with apt, every Debian package kdt's build, demo and tests need.
# Idempotent: when everything is already installed it does nothing (and
# needs no network).  The pinned kernel's headers come from mk/versions.mk.
set -euo pipefail
. "$(dirname "$0")/versions.sh"

pkgs=(
	build-essential pkg-config
	libelf-dev zlib1g-dev libbpf-dev check
	liblzo2-dev libsnappy-dev libzstd-dev
	"linux-headers-$KVER"
	qemu-system-x86 busybox-static cpio kmod python3
	zstd xz-utils
	crash
	kexec-tools		# kexec -p in tests/vm/scenarios/tst.anon-kdump.sh
	makedumpfile	# tst.extract-kdump-dir: kdump-tools' savecore in the capture kernel
	linux-source-6.1 flex bison bc libssl-dev	# boot/kdt-builtin: a kernel with kdt built in
	systemtap-sdt-dev	# sys/sdt.h: USDT probes in the uprobe tests
	clang libclang-rt-dev	# libFuzzer, libclang_rt.fuzzer (tests/fuzz/)
	debootstrap e2fsprogs	# tst.anon-debian: tests/vm/mkdebian's guest tree, mke2fs -d and debugfs
	grub-common grub-pc-bin grub-efi-amd64-bin xorriso mtools ovmf	# tst.anon-grub: GRUB ISO via grub-mkrescue, BIOS and EFI boot
	time	# /usr/bin/time -f %M: peak memory in bench/run-compile and bench/run-extract
	chromium	# headless render of kdt-extract --format=html (tests/vm/scenarios/tst.export-html.sh)
	debhelper dh-dkms dkms mandoc bash-completion	# make deb (debian/), tst.pkg-*: mandoc -T lint for man/, completion
	libdwarf-dev	# consumer/kc_sym.c: source lines of stack frames (kdt-extract --vmlinux)
	gdb	# bench/probe-cost/step-profile: single-steps a probe firing through QEMU's gdbstub
	strace	# tst.limits-anon-kill: SIGKILLs kdt -A at each write/rename/wait4 (strace -e inject)
)

missing=()
for p in "${pkgs[@]}"; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
		missing+=("$p")
	fi
done
if [ ${#missing[@]} -eq 0 ]; then
	echo "deps: all ${#pkgs[@]} packages present"
	exit 0
fi
echo "deps: installing ${missing[*]}"
sudo_cmd=()
[ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
