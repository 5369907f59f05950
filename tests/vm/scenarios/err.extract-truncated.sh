#!/usr/bin/env bash
#
# err.extract-truncated: a dump cut off in the middle of the region (as a
# disk filling up during the dump would leave it).  kdt-extract must fail
# with a message naming the problem, not print garbage or crash.  The
# demo dump is shared with tst.demo-path through lib.sh's cache; the cut
# is 8 MiB into the region (guest-physical 0x10800000), past the region
# header and metadata, inside the per-CPU buffers.
#
. "$(dirname "$0")/../lib.sh"

dump=$(kv_demo_dump)
work=$(mktemp -d "$KV_TOP/build/vm-truncated.XXXXXX")
trap 'rm -rf "$work"' EXIT

off=$(kv_elf_offset "$dump" 0x10800000)
head -c "$off" "$dump" > "$work/cut.elf"
echo "dump cut at file offset $off (guest-physical 0x10800000)"
rc=0
"$KV_EXTRACT" "$work/cut.elf" > "$work/out" 2>&1 || rc=$?
cat "$work/out"
[ "$rc" -ne 0 ] || kv_fail "kdt-extract exited 0 on a truncated dump"
[ "$rc" -lt 128 ] || kv_fail "kdt-extract died of signal $((rc - 128))"
grep -Eqi 'truncat|cut off|beyond|past the end' "$work/out" ||
    kv_fail "kdt-extract's message does not say the dump is truncated"
echo "PASS: kdt-extract exited $rc"
