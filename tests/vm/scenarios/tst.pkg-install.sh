#!/usr/bin/env bash
#
# tst.pkg-install: `make install` and `make uninstall` with DESTDIR (no
# VM; issue 9).  Into a temporary DESTDIR with PREFIX=/usr/local:
#
#   - the files are the expected ones, at the usual places (the list
#     below, written out here, not taken from the Makefile), and nothing
#     else besides what `make install-list` names; dracut's module 90kdt
#     goes to /usr/lib/dracut/modules.d whatever PREFIX is (dracut looks
#     nowhere else), with its scripts executable;
#   - the DKMS source directory has every .c and .h of kmod/, kmod/compat/
#     and common/
#     (what kbuild compiles: build/kmod's symlinks), the Kbuild, and a
#     dkms.conf with VERSION and AUTOINSTALL="yes";
#   - the installed kdt runs a BEGIN program in-process and its --help
#     ends with "See kdt(1).", kdt-extract's with "See kdt-extract(1).";
#   - the man pages pass `mandoc -T lint -W warning`, and every option
#     name `kdt --list-options` prints (the compiler's table) is in kdt(1);
#   - the installed bash completion, loaded with bash-completion,
#     completes -x names from that table and their fixed values, kdt's
#     flags, --format's values, and kdt-extract's options;
#   - `make uninstall` leaves no file behind.
#
# ~5 s (nothing is built when build/ is current).
#
. "$(dirname "$0")/../lib.sh"

for f in "$KV_KDT" "$KV_EXTRACT"; do
	[ -f "$f" ] || kv_fail "${f#$KV_TOP/}: missing (run 'make')"
done
command -v mandoc >/dev/null || kv_fail "mandoc not found (run 'make deps')"
bc=/usr/share/bash-completion/bash_completion
[ -f "$bc" ] || kv_fail "$bc missing (run 'make deps': bash-completion)"
work=$(mktemp -d "$KV_TOP/build/vm-pkg-install.XXXXXX")
trap 'rm -rf "$work"' EXIT
d="$work/dest"
p=/usr/local
version=$(cat "$KV_TOP/VERSION")

fails=0
bad()
{
	echo "FAIL: $*"
	fails=$((fails + 1))
}

make -s -C "$KV_TOP" install DESTDIR="$d" > "$work/install.out" 2>&1 ||
    kv_fail "make install DESTDIR=$d failed: $(tail -5 "$work/install.out")"

want=(
	bin/kdt bin/kdt-extract bin/kdt-initrd
	"src/kdt-$version/dkms.conf" "src/kdt-$version/Kbuild"
	"src/kdt-$version/kd_main.c" "src/kdt-$version/kd_impl.h"
	"src/kdt-$version/rgn_write.c" "src/kdt-$version/kdt_env_kernel.h"
	share/kdt/boot/initramfs-tools/hook share/kdt/boot/initramfs-tools/init-top
	share/man/man1/kdt.1 share/man/man1/kdt-extract.1
	share/man/man1/kdt-initrd.1 share/man/man4/kdt.ko.4
	share/bash-completion/completions/kdt
	share/bash-completion/completions/kdt-extract
	share/doc/kdt/examples/boot.d
	share/kdt/toolkit/initcall-latency.d share/kdt/toolkit/flight-recorder.d
)
[ -f /usr/include/crash/defs.h ] && want+=(lib/crash/extensions/kdt.so)
for f in "${want[@]}"; do
	[ -e "$d$p/$f" ] || bad "make install did not write $p/$f"
done
# dracut's module directory is dracut's, whatever PREFIX is.
dm=/usr/lib/dracut/modules.d/90kdt
for f in module-setup.sh kdt-load.sh kdt-load.service; do
	cmp -s "$d$dm/$f" "$KV_TOP/boot/dracut/$f" ||
	    bad "make install did not write $dm/$f as boot/dracut/$f"
done
[ -x "$d$dm/module-setup.sh" ] && [ -x "$d$dm/kdt-load.sh" ] ||
    bad "$dm/module-setup.sh and kdt-load.sh are not executable"
[ -x "$d$p/bin/kdt" ] || bad "$p/bin/kdt is not executable"
(cd "$d" && find . ! -type d | sed 's|^\.||' | sort) > "$work/found"
make -s -C "$KV_TOP" install-list DESTDIR="$d" | sort > "$work/listed"
diff -u --label installed --label install-list "$work/found" "$work/listed" ||
    bad "make install wrote other files than make install-list names"
echo "--- $(wc -l < "$work/found") files installed"

# The DKMS sources: exactly what kbuild compiles.
(cd "$KV_TOP" && ls kmod/*.[ch] kmod/compat/*.h common/*.[ch] | xargs -n1 basename | sort) > "$work/ksrc"
(cd "$d$p/src/kdt-$version" && ls *.[ch] | sort) > "$work/dsrc"
diff -u --label 'kmod/ kmod/compat/ common/' --label "src/kdt-$version" "$work/ksrc" "$work/dsrc" ||
    bad "the DKMS source directory is not kmod/, kmod/compat/ and common/"
conf="$d$p/src/kdt-$version/dkms.conf"
grep -qx "PACKAGE_VERSION=\"$version\"" "$conf" || bad "dkms.conf: no PACKAGE_VERSION=\"$version\""
grep -qx 'AUTOINSTALL="yes"' "$conf" || bad 'dkms.conf: no AUTOINSTALL="yes"'
grep -qx 'BUILT_MODULE_NAME\[0\]="kdt"' "$conf" || bad 'dkms.conf: no BUILT_MODULE_NAME[0]="kdt"'

# The installed tools.
out=$("$d$p/bin/kdt" -q -n 'BEGIN { printf("kdt %d\n", 6 * 7); exit(0); }' 2>&1) ||
    bad "the installed kdt -n BEGIN exited $?: $out"
[ "$out" = "kdt 42" ] || bad "the installed kdt printed '$out', want 'kdt 42'"
[ "$("$d$p/bin/kdt" --help | tail -1)" = "See kdt(1)." ] ||
    bad "kdt --help does not end with 'See kdt(1).'"
[ "$("$d$p/bin/kdt-extract" --help | tail -1)" = "See kdt-extract(1)." ] ||
    bad "kdt-extract --help does not end with 'See kdt-extract(1).'"

# The man pages.
for m in "$d$p"/share/man/man*/*; do
	mandoc -T lint -W warning "$m" > "$work/lint" 2>&1 ||
	    bad "mandoc -T lint ${m#$d}: $(cat "$work/lint")"
done
"$d$p/bin/kdt" --list-options | sed 's/=$//' > "$work/opts"
[ "$(wc -l < "$work/opts")" -ge 30 ] || bad "kdt --list-options printed $(wc -l < "$work/opts") names"
while read -r o; do
	grep -q "\\b$o\\b" "$KV_TOP/man/kdt.1" || bad "-x $o is not in kdt(1)"
done < "$work/opts"

# The completion, with bash-completion's helpers, as an interactive shell
# loads it.
cat > "$work/comp.sh" <<'SH'
. /usr/share/bash-completion/bash_completion
. "$1"
comp()
{
	COMP_WORDS=("$@")
	COMP_CWORD=$(($# - 1))
	COMP_LINE="$*"
	COMP_POINT=${#COMP_LINE}
	COMPREPLY=()
	"${_kdt:-_kdt}" "$1" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}" 2>/dev/null
	printf '%s\n' "${COMPREPLY[@]}" | sort | tr '\n' ' '
	echo
}
comp kdt -x buf
comp kdt -x bufpolicy=
comp kdt -x engine=
comp kdt --dr
comp kdt -x regionsi
comp kdt --format=p
_kdt=_kdt_extract
comp kdt-extract --for
SH
PATH="$d$p/bin:$PATH" bash "$work/comp.sh" "$d$p/share/bash-completion/completions/kdt" \
    > "$work/comp.out" 2>&1
cat > "$work/comp.want" <<'W'
bufpolicy= bufresize= bufsize= 
fill ring switch 
kernel user 
--dry-run 
regionsize= 
perfetto 
--format= 
W
diff -u --label 'completion' --label 'expected' "$work/comp.out" "$work/comp.want" ||
    bad "the bash completion did not complete as expected"

make -s -C "$KV_TOP" uninstall DESTDIR="$d" > "$work/uninstall.out" 2>&1 ||
    bad "make uninstall DESTDIR=$d failed: $(tail -5 "$work/uninstall.out")"
left=$(cd "$d" && find . ! -type d)
[ -z "$left" ] || bad "make uninstall left: $left"

[ "$fails" = 0 ] || kv_fail "$fails check(s) failed"
echo "PASS"
