#!/usr/bin/env bash
#
# tst.extract-symbols: stack() and sym() in a dead kernel's trace resolve
# without debuginfo.  An anonymous enabling records the kernel stack and
# the caller of one getppid() of /bin/seqcall; the guest panics (KASLR
# is on: the kernel text sits at a random offset); kdt-extract given that
# kernel's vmlinux from the -dbg package (--symbols, moved by the KASLR
# offset the region records) prints the frames as vmlinux`function+0xoff
# -- the system call path do_syscall_64 / entry_SYSCALL_64 -- and says
# which file it used; without symbols the same frames are hexadecimal
# addresses; an unreadable --symbols file and Debian's placeholder
# /boot/System.map are errors that name the file.
#
. "$(dirname "$0")/../lib.sh"

kv_need_all
work=$(mktemp -d "$KV_TOP/build/vm-symbols.XXXXXX")
trap 'rm -rf "$work"' EXIT
# Debian's /boot/System.map is a placeholder; the symbols are in the
# -dbg package's vmlinux (mk/kernel-dbg.sh, as tst.crash-ext uses)
stand_in="$KV_TOP/build/kernel/boot/System.map-$(sed -n 's/^KVER[[:space:]]*:=[[:space:]]*//p' "$KV_TOP/mk/versions.mk")"
[ -f "$stand_in" ] || kv_fail "$stand_in: missing (make kernel)"
bash "$KV_TOP/mk/kernel-dbg.sh" "$KV_TOP/build/kernel-dbg" ||
    kv_fail "no vmlinux with symbols: mk/kernel-dbg.sh failed (above)"
map="$KV_TOP/build/kernel-dbg/vmlinux"

gcc -static -O2 -o "$work/seqcall" "$KV_PROGS/seqcall.c" ||
    kv_fail "cannot build the static seqcall"
cat > "$work/stack.d" <<'D'
#pragma D option quiet
syscall::getppid:entry /execname == "seqcall" && arg0 == 10000003/
{
	printf("caller %a\n", caller);
	stack();
}
D
"$KV_VM" --script "$work/stack.d" --add "$work/seqcall:/bin/seqcall" \
    --run '/bin/seqcall 10' --panic --dump "$work/dump.elf" \
    --workdir "$work/vm" --quiet || kv_fail "boot failed"

"$KV_EXTRACT" --symbols "$map" "$work/dump.elf" > "$work/sym.out" \
    2> "$work/sym.err" || { cat "$work/sym.err"; kv_fail "kdt-extract --symbols failed"; }
cat "$work/sym.out" "$work/sym.err"
grep -q "symbols of kernel .* from $map, moved by its KASLR offset 0x" \
    "$work/sym.err" || kv_fail "kdt-extract does not say which symbols it used"
grep -Eq '^ +vmlinux`do_syscall_64\+0x[0-9a-f]+$' "$work/sym.out" ||
    kv_fail "no symbolised do_syscall_64 frame"
grep -Eq '^ +vmlinux`entry_SYSCALL_64' "$work/sym.out" ||
    kv_fail "no symbolised entry_SYSCALL_64 frame"
grep -Eq '^caller vmlinux`[a-z_0-9.]+\+0x[0-9a-f]+$' "$work/sym.out" ||
    kv_fail "caller is not symbolised"

"$KV_EXTRACT" "$work/dump.elf" > "$work/hex.out" 2> "$work/hex.err" ||
    kv_fail "kdt-extract without symbols failed"
grep -q 'vmlinux`' "$work/hex.out" && kv_fail "symbols without --symbols?"
grep -Eq '^ +0xffffffff[0-9a-f]{8}$' "$work/hex.out" ||
    kv_fail "without symbols the frames are not addresses"

rc=0
"$KV_EXTRACT" --symbols "$work/nonexistent.map" "$work/dump.elf" \
    > /dev/null 2> "$work/bad.err" || rc=$?
cat "$work/bad.err"
[ $rc -ne 0 ] || kv_fail "an unreadable --symbols file is not an error"
grep -q -- "--symbols: $work/nonexistent.map: cannot open" "$work/bad.err" ||
    kv_fail "the error does not name the --symbols file"
rc=0
"$KV_EXTRACT" --symbols "$stand_in" "$work/dump.elf" > /dev/null \
    2> "$work/stand_in.err" || rc=$?
cat "$work/stand_in.err"
[ $rc -ne 0 ] && grep -q 'a placeholder without symbols' "$work/stand_in.err" ||
    kv_fail "Debian's stand-in System.map is not recognised"
echo "PASS"
