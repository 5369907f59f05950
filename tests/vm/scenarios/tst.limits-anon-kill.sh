#!/usr/bin/env bash
#
# tst.limits-anon-kill: "kdt -A" SIGKILLed at every step of an install
# never leaves a half-written file behind, and a re-run converges (issue 8,
# "Security": files kdt writes are written atomically, with safe modes).
# Host only, no guest: kdt -A --root into a fake root (the layout
# tests/unit/test_anon.c uses: initramfs-tools and GRUB detected, a static
# busybox as /bin/sh so the chrooted tools run), whose update-initramfs
# and update-grub build their output as the real ones do (initramfs-tools
# 0.142: mkinitramfs into initrd.img.new, "mv -f" over the old one;
# grub-mkconfig 2.06: grub.cfg.new, checked, then "cat grub.cfg.new >
# grub.cfg") from kdt's files: the "initramfs" records whether kdt's hook
# was there and a digest of the DOF, cmdline and kdt.ko it would copy; the
# "grub.cfg" is /etc/default/grub plus the drop-ins.
#
# The kill points are deterministic: strace injects SIGKILL (skipping the
# system call) at the N-th write, rename and wait4 of kdt itself, for
# every N a clean run makes -- with each file's temporary created but
# empty, with it whole but not renamed into place (the fchmod and fsync
# between leave the same files), and while each distribution tool runs
# (kdt killed at its waitpid(); the tool, orphaned, runs to its end as it
# would after "kill -9 kdt").  A kill in the middle of a write() is
# test_anon.c's test_install_killed (RLIMIT_FSIZE).  Each
# point is tried for a first install and for one replacing an earlier
# install (another program, another region size).  After each kill:
#
#   - every path that kdt or the tools write holds its whole content
#     from before the run or its whole content from a clean run (absent
#     counting as a content); the only other files allowed are kdt's own
#     temporaries ".NAME.kdt-XXXXXX", which nothing reads;
#   - re-running the same "kdt -A" gives exactly the clean run's tree
#     (contents and modes, temporaries gone), or (every other point)
#     "kdt -A" without a program gives exactly a clean removal's tree.
#
# Modes: every file kdt -A writes, listed with its mode; none is group- or
# world-writable; the DOF is 0600, scripts 0755, the rest 0644; likewise
# kdt -A -o DIR's artifacts.
#
. "$(dirname "$0")/../lib.sh"

command -v strace > /dev/null || kv_fail "strace is missing (mk/deps.sh installs it)"
[ -x /usr/bin/busybox ] || kv_fail "/usr/bin/busybox is missing (busybox-static, mk/deps.sh)"
[ "$(id -u)" = 0 ] || kv_fail "kdt -A --root chroots: run as root"
[ -x "$KV_KDT" ] || kv_fail "build/bin/kdt: missing (run 'make')"
work=$(mktemp -d /tmp/kdt-limits-kill.XXXXXX)
trap 'rm -rf "$work"' EXIT
KVER=6.1.0-56-amd64
# one kdt for all the runs, whatever a rebuild does meanwhile
cp "$KV_KDT" "$work/kdt"
KV_KDT=$work/kdt

# the fake root
mkroot()
{
	local r=$1
	mkdir -p "$r"/{usr/share/initramfs-tools,etc/default,lib/modules/$KVER,usr/sbin,bin,boot/grub}
	touch "$r/usr/share/initramfs-tools/init"
	echo 'GRUB_TIMEOUT=5' > "$r/etc/default/grub"
	cp /usr/bin/busybox "$r/bin/busybox"
	ln -s busybox "$r/bin/sh"
	cat > "$r/usr/sbin/update-initramfs" <<'EOF'
#!/bin/sh
# $1 -u|-c, $2 -k, $3 KVER
f=/boot/initrd.img-$3
{
	echo "initramfs for $3"
	if [ -x /etc/initramfs-tools/hooks/kdt ]; then
		echo "with kdt's hook"
		/bin/busybox cat /var/lib/kdt/anon/anon.dof \
		    /var/lib/kdt/anon/cmdline \
		    /var/lib/kdt/anon/modules/$3/kdt.ko | /bin/busybox md5sum
	fi
} > $f.new
# killed half way (tst.limits-anon-kill's tool cases): a partial .new
[ -e /die-in-update-initramfs ] && kill -9 $$
/bin/busybox mv -f $f.new $f
echo end >> /calls
EOF
	cat > "$r/usr/sbin/update-grub" <<'EOF'
#!/bin/sh
c=/boot/grub/grub.cfg
/bin/busybox cat /etc/default/grub /etc/default/grub.d/*.cfg > $c.new
# killed half way through the copy (grub-mkconfig's "cat new > cfg" is
# not atomic): a truncated grub.cfg
if [ -e /die-in-update-grub ]; then
	/bin/busybox head -c 20 $c.new > $c
	kill -9 $$
fi
/bin/busybox cat $c.new > $c && /bin/busybox rm -f $c.new
echo end >> /calls
EOF
	chmod 755 "$r/usr/sbin/update-initramfs" "$r/usr/sbin/update-grub"
	# a small kdt.ko: a .modinfo with the kernel's vermagic is enough
	printf 'license=GPL\000vermagic=%s SMP preempt mod_unload modversions \000' "$KVER" > "$work/mi"
	objcopy -I binary -O elf64-x86-64 --rename-section .data=.modinfo \
	    "$work/mi" "$work/kdt.ko"
}

P1='BEGIN { trace(1); }'
P2='#pragma D option bufsize=8m
BEGIN { trace(2); }'
# run ROOT [PROGRAM]: kdt -A into ROOT (removal without PROGRAM)
run()
{
	local r=$1
	shift
	"$KV_KDT" -A --root="$r" --module="$work/kdt.ko" "${@/#/-n}"
}
# tree ROOT: every file and link under ROOT with its mode and digest
# (the tools' log /calls left out)
tree()
{
	(cd "$1" && find . \( -type f -o -type l \) ! -path ./calls -printf '%p %m\n' |
	    sort | while read -r p m; do
		echo "$p $m $(sha256sum < "$p" | cut -c1-16)"
	done)
}
snap() { rm -rf "$2"; cp -a "$1" "$2"; }

mkroot "$work/P"
tree "$work/P" > "$work/P.tree"
snap "$work/P" "$work/A"
run "$work/A" "$P1" > "$work/A.log" 2>&1 || { cat "$work/A.log"; kv_fail "clean install 1 failed"; }
tree "$work/A" > "$work/A.tree"
snap "$work/P" "$work/B"
run "$work/B" "$P2" > "$work/B.log" 2>&1 || { cat "$work/B.log"; kv_fail "clean install 2 failed"; }
tree "$work/B" > "$work/B.tree"
snap "$work/A" "$work/AB"
run "$work/AB" "$P2" > "$work/AB.log" 2>&1 || kv_fail "clean replacement failed"
tree "$work/AB" > "$work/AB.tree"
snap "$work/B" "$work/R"
run "$work/R" > "$work/R.log" 2>&1 || { cat "$work/R.log"; kv_fail "clean removal failed"; }
tree "$work/R" > "$work/R.tree"
grep -q "with kdt's hook" "$work/B/boot/initrd.img-$KVER" || kv_fail "the fake initramfs has no kdt"
grep -q 'kdt' "$work/B/boot/grub/grub.cfg" || kv_fail "the fake grub.cfg has no kdt words"

# Modes
echo "--- modes of the files kdt -A writes:"
(cd "$work/B" && find var/lib/kdt etc/initramfs-tools etc/default/grub.d -type f -printf '%m %p\n' | sort -k2)
(cd "$work/B" && find var/lib/kdt etc/initramfs-tools etc/default/grub.d -type f -perm /022 -printf '%m %p\n') |
    grep . && kv_fail "group- or world-writable files (above)"
[ "$(stat -c %a "$work/B/var/lib/kdt/anon/anon.dof")" = 600 ] || kv_fail "anon.dof is not 0600"
for f in etc/initramfs-tools/hooks/kdt etc/initramfs-tools/scripts/init-top/00kdt; do
	[ "$(stat -c %a "$work/B/$f")" = 755 ] || kv_fail "$f is not 0755"
done
for f in var/lib/kdt/anon/cmdline var/lib/kdt/anon/manifest \
    var/lib/kdt/anon/modules/$KVER/kdt.ko etc/default/grub.d/kdt.cfg; do
	[ "$(stat -c %a "$work/B/$f")" = 644 ] || kv_fail "$f is not 0644"
done
"$KV_KDT" -A -o "$work/out" -n "$P1" > /dev/null 2>&1 || kv_fail "kdt -A -o failed"
echo "--- modes of kdt -A -o DIR's artifacts:"
find "$work/out" -type f -printf '%m %f\n' | sort -k2
find "$work/out" -type f -perm /022 | grep . && kv_fail "group- or world-writable artifacts"

# The kill points of a clean run, per system call
snap "$work/P" "$work/C"
strace -qq -o "$work/count.log" -e trace=write,fchmod,fsync,rename,wait4 \
    "$KV_KDT" -A --root="$work/C" --module="$work/kdt.ko" -n "$P2" > /dev/null 2>&1 ||
    kv_fail "kdt -A under strace failed"
declare -A count
for sc in write fchmod fsync rename wait4; do
	count[$sc]=$(grep -c "^$sc(" "$work/count.log")
done
echo "kill points: write ${count[write]}, fchmod ${count[fchmod]}, fsync ${count[fsync]}, rename ${count[rename]}, wait4 ${count[wait4]}"
[ "${count[rename]}" -ge 7 ] && [ "${count[wait4]}" = 2 ] ||
    kv_fail "fewer renames or tool runs than an install makes"

# allowed START END: each path of either tree holds START's or END's
# content in the tree now ($work/K, listed in K.tree), or for the manifest
# the intent manifest; kdt's temporaries allowed
allowed()
{
	python3 - "$work/$1.tree" "$work/$2.tree" "$work/K.tree" \
	    "$work/$1" "$work/$2" "$work/K" <<'PY'
import re, sys
def load(p):
    d = {}
    for line in open(p):
        path, mode, sha = line.split()
        d[path] = (mode, sha)
    return d
start, end, now = load(sys.argv[1]), load(sys.argv[2]), load(sys.argv[3])
MANIFEST = "./var/lib/kdt/anon/manifest"
def lines(root, path):
    try:
        return open(root + "/" + path, encoding="latin-1").read().splitlines()
    except FileNotFoundError:
        return []
# The manifest may also be the intent manifest an install writes before
# any other file (an_install.c): whole, listing the files of both.
def intent(path):
    got = lines(sys.argv[6], path)
    old = [l for l in lines(sys.argv[4], path) if l.startswith("file ")]
    new = [l for l in lines(sys.argv[5], path) if l.startswith("file ")]
    return (got[:1] == ["kdt-anon-manifest 1"] and
            sorted(l for l in got if l.startswith("file ")) == sorted(new + old))
bad = []
for path in sorted(set(start) | set(end) | set(now)):
    if path not in start and path not in end:
        if re.search(r'/\.[^/]+\.kdt-[A-Za-z0-9]{6}$', path):
            continue
        bad.append("%s: not kdt's and not the tools' (%s)" % (path, now[path]))
        continue
    if path == MANIFEST and path in now and intent(path):
        continue
    if now.get(path) not in (start.get(path), end.get(path)):
        bad.append("%s: %s is neither the old %s nor the new %s" %
                   (path, now.get(path, "absent"), start.get(path, "absent"),
                    end.get(path, "absent")))
for b in bad:
    print(b)
sys.exit(1 if bad else 0)
PY
}

points=0 temps=0
for scen in first replace; do
	if [ $scen = first ]; then start=P; end=B; else start=A; end=AB; fi
	for sc in write rename wait4; do
		n=1
		while [ $n -le "${count[$sc]}" ]; do
			snap "$work/$start" "$work/K"
			rm -f "$work/K/calls"
			# strace ends with its tracee's signal: its status is
			# checked through the log instead
			(strace -qq -o /dev/null -e trace=$sc \
			    -e inject=$sc:error=EIO:signal=KILL:when=$n \
			    "$KV_KDT" -A --root="$work/K" --module="$work/kdt.ko" \
			    -n "$P2" > "$work/kill.log" 2>&1; echo "status $?" >> "$work/kill.log") 2> /dev/null || true
			grep -qx 'status 137' "$work/kill.log" ||
			    { cat "$work/kill.log"; kv_fail "$scen: kdt -A was not killed at $sc #$n"; }
			# a tool kdt started runs to its end
			if [ $sc = wait4 ]; then
				for _ in $(seq 100); do
					[ "$(grep -c end "$work/K/calls" 2>/dev/null)" -ge "$n" ] && break
					sleep 0.1
				done
			fi
			tree "$work/K" > "$work/K.tree"
			grep -q '\.kdt-' "$work/K.tree" && temps=$((temps + 1))
			had_manifest=$(grep -c '^\./var/lib/kdt/anon/manifest ' "$work/K.tree" || true)
			allowed $start $end ||
			    { cat "$work/kill.log"; kv_fail "$scen, killed at $sc #$n: files half-written or foreign (above)"; }
			# converge: the same kdt -A, or a removal
			if [ $((points % 2)) = 0 ]; then
				run "$work/K" "$P2" > "$work/re.log" 2>&1 ||
				    { cat "$work/re.log"; kv_fail "$scen, killed at $sc #$n: re-running kdt -A failed"; }
				want=$end
			else
				run "$work/K" > "$work/re.log" 2>&1 ||
				    { cat "$work/re.log"; kv_fail "$scen, killed at $sc #$n: kdt -A (removal) failed"; }
				want=R
				# killed before its first manifest: nothing was
				# installed, nothing to remove or regenerate
				[ $scen = first ] && [ $had_manifest = 0 ] && want=P
			fi
			tree "$work/K" > "$work/K.tree"
			diff -u "$work/$want.tree" "$work/K.tree" ||
			    { cat "$work/re.log"; kv_fail "$scen, killed at $sc #$n: the re-run does not converge"; }
			points=$((points + 1))
			n=$((n + 1))
		done
	done
done
# The distribution's tools killed half way: kdt says the tool failed
# (exit status 137) and fails; its own files are whole; a re-run of
# kdt -A regenerates and converges.
for tool in update-initramfs update-grub; do
	snap "$work/A" "$work/K"
	touch "$work/K/die-in-$tool"
	if run "$work/K" "$P2" > "$work/tool.log" 2>&1; then
		cat "$work/tool.log"
		kv_fail "$tool killed: kdt -A did not fail"
	fi
	grep -E "^ran: chroot .* $tool.*: (exit status 137|killed)" "$work/tool.log" ||
	    { cat "$work/tool.log"; kv_fail "$tool killed: kdt -A does not say so"; }
	for f in var/lib/kdt/anon/anon.dof var/lib/kdt/anon/cmdline \
	    etc/initramfs-tools/hooks/kdt etc/default/grub.d/kdt.cfg; do
		cmp -s "$work/K/$f" "$work/AB/$f" || kv_fail "$tool killed: $f is not the new one"
	done
	rm -f "$work/K/die-in-$tool"
	run "$work/K" "$P2" > "$work/re.log" 2>&1 ||
	    { cat "$work/re.log"; kv_fail "$tool killed: re-running kdt -A failed"; }
	tree "$work/K" > "$work/K.tree"
	diff -u "$work/AB.tree" "$work/K.tree" ||
	    kv_fail "$tool killed: the re-run does not converge"
	echo "$tool killed half way: kdt -A failed saying so, a re-run converged"
done
echo "$points kill points (first install and replacement), each with the files old or new and a converging re-run; $temps left kdt temporaries, which the re-run cleared"
echo "PASS"
